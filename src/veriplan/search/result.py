"""Search budgets and results shared by every search."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from veriplan.core.budget import Budget, BudgetLimit, Meter

A = TypeVar("A")


class SearchStatus(StrEnum):
    SOLVED = "solved"
    EXHAUSTED = "exhausted"  # the whole reachable space was searched: no plan
    BUDGET = "budget"  # stopped by its budget (expansions, states, time, or cancelled)


@dataclass(frozen=True)
class SearchResult(Generic[A]):
    status: SearchStatus
    plan: tuple[A, ...] | None
    expanded: int
    generated: int
    seconds: float
    cost: float | None = None
    #: the part of the budget a ``budget`` result ran out of
    limit: BudgetLimit | None = None

    @property
    def solved(self) -> bool:
        return self.status is SearchStatus.SOLVED


def stopped(meter: Meter, limit: BudgetLimit, expanded: int, generated: int) -> SearchResult:
    """The result of a search its budget stopped."""
    return SearchResult(SearchStatus.BUDGET, None, expanded, generated, meter.elapsed(),
                        limit=limit)


__all__ = ["Budget", "SearchResult", "SearchStatus", "stopped"]
