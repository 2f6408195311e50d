"""The result every method's ``solve`` returns (and the harness stores)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class SolveResult:
    """``verified`` is True only when veriplan's validator accepted ``plan`` on
    the task; ``solved_by`` says who produced it ("llm", or a fallback's name)."""

    method: str
    verified: bool
    plan: list[str]
    attempts: int
    llm_calls: int
    tokens: int
    seconds: float
    backend: str = ""
    model: str = ""
    solved_by: str | None = None
    cost: float | None = 0.0
    cache_hits: int = 0
    last_diagnosis: str = ""
    transcript: list[dict[str, Any]] = field(default_factory=list)
    # Per attempt, the same keys for every method: attempt, verified, failed_step,
    # action, missing (predicate names), failure (translation/precondition/goal).
    signals: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
