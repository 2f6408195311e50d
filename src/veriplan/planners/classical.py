"""Classical planning entry point: Fast Downward or our own searches, every
plan checked by our verifier before it is reported."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from veriplan.core.plan import Step
from veriplan.errors import ConfigError
from veriplan.pddl.task import Task
from veriplan.registry import Registry
from veriplan.search import Budget, astar, bfs, make_heuristic
from veriplan.search.result import SearchResult
from veriplan.verify import ValidationResult, validate_plan


@dataclass(frozen=True)
class ClassicalResult:
    planner: str
    status: str  # "solved", "unsolvable", "incomplete", "budget", "invalid-plan"
    plan: tuple[Step, ...] | None
    validation: ValidationResult | None
    seconds: float
    expanded: int | None = None

    @property
    def solved(self) -> bool:
        """True only when the verifier accepted the planner's plan."""
        return self.validation is not None and self.validation.valid

    def to_dict(self) -> dict:
        return {
            "planner": self.planner, "status": self.status, "solved": self.solved,
            "plan": [str(s) for s in self.plan] if self.plan is not None else None,
            "validation": self.validation.to_dict() if self.validation else None,
            "seconds": self.seconds, "expanded": self.expanded,
        }


class _OwnSearch:
    """One of veriplan's own searches as a planner: it grounds the task and
    searches within one budget (see :class:`veriplan.core.budget.Budget`)."""

    def __init__(self, fn: Callable[[Task, Budget], SearchResult]) -> None:
        self.fn = fn

    def __call__(self, task: Task, time_limit: float
                 ) -> tuple[str, tuple[Step, ...] | None, int]:
        return self.within(task, Budget.within(time_limit))

    def within(self, task: Task, budget: Budget) -> tuple[str, tuple[Step, ...] | None, int]:
        task.ground(budget)  # the heuristics and the successors read this grounding
        r = self.fn(task, budget)
        plan = tuple(Step(op.name, op.args) for op in r.plan) if r.plan is not None else None
        status = {"solved": "solved", "exhausted": "unsolvable", "budget": "budget"}[r.status]
        return status, plan, r.expanded


def _search(fn: Callable[[Task, Budget], SearchResult]) -> _OwnSearch:
    return _OwnSearch(fn)


def _fd(alias: str | None = None, search: str | None = None):
    def run(task: Task, time_limit: float) -> tuple[str, tuple[Step, ...] | None, None]:
        from veriplan.planners.fast_downward import run_fast_downward

        out = run_fast_downward(task, alias=alias, search=search, time_limit=time_limit)
        return out.status, out.plan, None
    return run


class UnknownPlannerError(ConfigError, ValueError):
    """A planner name that is not registered (names the choices)."""


# A planner: (task, time_limit) -> (status, plan or None, states expanded or None).
Planner = Callable[[Task, float], tuple[str, tuple[Step, ...] | None, int | None]]

PLANNERS: Registry[Planner] = Registry("planner", {
    "fd": _fd(alias="lama-first"),
    "fd-optimal": _fd(search="astar(lmcut())"),
    "bfs": _search(lambda t, b: bfs(t, budget=b)),
    "astar-hadd": _search(lambda t, b: astar(t, make_heuristic("hadd", t), budget=b)),
    "astar-hff": _search(lambda t, b: astar(t, make_heuristic("hff", t), budget=b)),
    "gbfs-hff": _search(lambda t, b: astar(t, make_heuristic("hff", t), budget=b, weight=None)),
}, group="veriplan.planners", error=UnknownPlannerError)


def solve_classical(task: Task, planner: str = "fd", *, time_limit: float = 300,
                    budget: Budget | None = None) -> ClassicalResult:
    """Solve ``task`` with a classical planner and validate the plan.

    ``budget`` (default: ``time_limit`` seconds from now, the default caps on
    ground actions and states) holds veriplan's own grounding and search; a
    grounding over it raises :class:`~veriplan.core.budget.BudgetExceeded`, a
    search over it ends with status ``budget``. An external planner gets the
    seconds left of it."""
    run = PLANNERS.get(planner)
    start = time.perf_counter()
    if isinstance(run, _OwnSearch):
        status, plan, expanded = run.within(
            task, Budget.within(time_limit) if budget is None else budget)
    else:
        left = None if budget is None else budget.left()
        status, plan, expanded = run(task, time_limit if left is None else min(left, time_limit))
    validation = validate_plan(task, plan) if plan is not None else None
    if validation is not None and not validation.valid:
        status = "invalid-plan"
    return ClassicalResult(planner, status, plan, validation, time.perf_counter() - start,
                           expanded)
