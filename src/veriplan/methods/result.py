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
    # Method-specific: why an unverified run failed (a category of the method's own,
    # e.g. DRIP's goal_conflict) and numbers the report breaks results down by
    # (``size``: objects in the task; ``plan_length``; tree size and depth; ...).
    failure: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def finish(method: str, llm, calls_before: int, start: float, *, verified: bool,
           plan: list[str], attempts: int = 1, **fields: Any) -> SolveResult:
    """A SolveResult whose LLM numbers are the calls ``llm`` made since
    ``calls_before`` (``len(llm.usage.calls)`` when the method started)."""
    import time

    calls = llm.usage.calls[calls_before:]
    costs = [c.cost for c in calls]
    fields.setdefault("solved_by", "llm" if verified else None)
    return SolveResult(
        method=method, verified=verified, plan=plan, attempts=attempts,
        llm_calls=len(calls), tokens=sum(c.prompt_tokens + c.completion_tokens for c in calls),
        seconds=time.perf_counter() - start, backend=llm.name, model=llm.model,
        cost=None if any(c is None for c in costs) else sum(costs),  # type: ignore[arg-type]
        cache_hits=sum(c.cached for c in calls), **fields)
