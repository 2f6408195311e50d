"""Usage and cost accounting per call and per run."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

from veriplan.errors import ConfigError
from veriplan.llm.types import LLMResponse

LOCAL_BACKENDS = frozenset({"llamacpp", "scripted", "replay", "controlled", "controlled-aec",
                            "controlled-plan"})


@dataclass
class PriceTable:
    """US dollars per million tokens, ``model -> (input, output)``.

    veriplan ships no API prices (they change); local backends cost 0 and an
    unknown API model has an unknown (None) cost. Extend with :meth:`load` from
    a JSON file ``{"model": [input_per_mtok, output_per_mtok], ...}``.
    """

    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    def cost(self, response: LLMResponse) -> float | None:
        if response.backend in LOCAL_BACKENDS:
            return 0.0
        p = self.prices.get(response.model)
        if p is None:
            return None
        return (response.prompt_tokens * p[0] + response.completion_tokens * p[1]) / 1e6

    def load(self, path: str | Path) -> PriceTable:
        try:
            data = json.loads(Path(path).read_text())
            for model, (inp, out) in data.items():
                self.prices[str(model)] = (float(inp), float(out))
        except (OSError, ValueError, TypeError) as exc:
            raise ConfigError(f"price table {path} must be JSON like "
                              f'{{"model": [input_usd_per_mtok, output_usd_per_mtok]}}: {exc}'
                              ) from None
        return self


@dataclass(frozen=True)
class CallRecord:
    backend: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency: float
    cost: float | None
    cached: bool
    attempts: int


class UsageLedger:
    """Thread-safe record of every call made through one client or session.

    A session's ledger has its client's ledger as ``parent``: each call is
    recorded in both, so a client's totals stay global while each run reads
    only its own calls.
    """

    def __init__(self, parent: UsageLedger | None = None) -> None:
        self._lock = threading.Lock()
        self.calls: list[CallRecord] = []
        self.parent = parent

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.calls.append(record)
        if self.parent is not None:
            self.parent.add(record)

    def totals(self) -> dict:
        with self._lock:
            calls = list(self.calls)
        costs = [c.cost for c in calls]
        return {
            "calls": len(calls),
            "cache_hits": sum(c.cached for c in calls),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "tokens": sum(c.prompt_tokens + c.completion_tokens for c in calls),
            "latency": sum(c.latency for c in calls),
            "cost": None if any(c is None for c in costs) else sum(costs),  # type: ignore[arg-type]
        }

    def to_list(self) -> list[dict]:
        with self._lock:
            return [asdict(c) for c in self.calls]
