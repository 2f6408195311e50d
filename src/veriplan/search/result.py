"""Search budgets and results shared by every search."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

A = TypeVar("A")


class SearchStatus(StrEnum):
    SOLVED = "solved"
    EXHAUSTED = "exhausted"  # the whole reachable space was searched: no plan
    BUDGET = "budget"  # stopped by the expansion or time budget


@dataclass(frozen=True)
class Budget:
    """Limits on a search; ``None`` means unlimited."""

    max_expansions: int | None = None
    max_seconds: float | None = None

    def clock(self) -> _Clock:
        return _Clock(self)


@dataclass
class _Clock:
    budget: Budget
    start: float = field(default_factory=time.perf_counter)

    def out(self, expansions: int) -> bool:
        b = self.budget
        if b.max_expansions is not None and expansions >= b.max_expansions:
            return True
        # Reading the clock costs; look every 256 expansions.
        return (b.max_seconds is not None and not expansions & 255
                and time.perf_counter() - self.start > b.max_seconds)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


@dataclass(frozen=True)
class SearchResult(Generic[A]):
    status: SearchStatus
    plan: tuple[A, ...] | None
    expanded: int
    generated: int
    seconds: float
    cost: float | None = None

    @property
    def solved(self) -> bool:
        return self.status is SearchStatus.SOLVED
