"""A Blocksworld method's plan, checked on the user's own task.

DRIP and its baselines plan in an action space of their own (the paper's tower
moves, or the four actions under the usual names). What they return, print and
store is that plan mapped back to the user's domain
(:func:`veriplan.domains.blocksworld.map_back`) and validated by veriplan's
validator on exactly the user's domain and problem: scope
:attr:`~veriplan.core.verdict.Scope.PLAN_ON_TASK`. Where the user's domain is
not recognisably four-action Blocksworld, nothing can be mapped: the result is
"not verified on your task" (:attr:`~veriplan.core.verdict.Scope.PLAN_IN_METHOD_SPACE`,
never verified), and the method's own plan stays in the metrics for auditing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from veriplan.core.jsonvalue import JSONValue
from veriplan.core.plan import Step
from veriplan.core.verdict import Scope
from veriplan.domains.blocksworld import ActionSpace, map_back
from veriplan.methods.failures import OnTaskFailure
from veriplan.methods.records import Entry
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

# Failure categories of a plan valid in the method's space that is not verified on the
# user's task.
# NOT_ON_TASK: the user's domain is not recognisably Blocksworld; INVALID_ON_TASK:
# mapped, but the validator rejected it on the task.
NOT_ON_TASK = OnTaskFailure.NOT_VERIFIED_ON_TASK
INVALID_ON_TASK = OnTaskFailure.INVALID_ON_TASK


@dataclass(frozen=True)
class OnTask:
    """The verdict on the user's task: ``plan`` the user's actions (empty when
    not mapped), ``valid`` whether the validator accepted the whole mapped plan
    on the user's domain and problem, ``scope`` what was checked, ``diagnosis``
    the validator's (or the mapping's) words when not valid."""

    plan: list[str]
    valid: bool
    scope: Scope
    diagnosis: str
    method_plan: list[str]
    metrics: dict[str, JSONValue] = field(default_factory=dict)

    @property
    def mapped(self) -> bool:
        return self.scope is Scope.PLAN_ON_TASK

    def failure(self, method_valid: bool) -> OnTaskFailure | None:
        """:data:`NOT_ON_TASK` when nothing could be mapped; :data:`INVALID_ON_TASK`
        when the plan was ``method_valid`` in the method's own space and the
        mapped plan is not valid on the task; else None (the plan is verified,
        or the method's own failure category applies)."""
        if not self.mapped:
            return NOT_ON_TASK
        return INVALID_ON_TASK if method_valid and not self.valid else None

    def entry(self) -> Entry:
        """A transcript record: the mapped plan and its verdict on the user's task."""
        return Entry(None, "on_task", plan=self.plan, ok=self.valid,
                     verdict=self.scope.describes if self.valid else self.diagnosis,
                     data={"scope": self.scope.value, "method_plan": self.method_plan,
                           **self.metrics})


def check_on_task(user: Task, space: ActionSpace, plan: Sequence[Step]) -> OnTask:
    """``plan`` (in ``space``, for ``space.task(user)``) mapped back to ``user``
    and validated there."""
    method_plan = [str(s) for s in plan]
    mapped = map_back(user, space, plan)
    if mapped.roles is None:
        return OnTask([], False, Scope.PLAN_IN_METHOD_SPACE,
                      f"not verified on your task: {mapped.reason}, so the plan (in the "
                      f"method's {space.name} action space) cannot be written in your "
                      "domain's actions", method_plan,
                      {"mapped": False, "not_mapped_because": mapped.reason})
    steps = list(mapped.steps)
    verdict = validate_plan(user, steps)
    valid = verdict.valid and mapped.complete
    if valid:
        diagnosis = ""
    elif mapped.stopped_at is not None:
        diagnosis = (f"step {mapped.stopped_at} of the method's plan "
                     f"({method_plan[mapped.stopped_at - 1]}) cannot be executed in its "
                     f"{space.name} action space; the {len(steps)} action(s) before it, "
                     f"on your task: {verdict.feedback()}")
    else:
        diagnosis = verdict.feedback()
    return OnTask([str(s) for s in steps], valid, Scope.PLAN_ON_TASK, diagnosis, method_plan,
                  {"mapped": True, "names": mapped.roles.words(),
                   "mapped_steps": len(steps), "method_steps": len(plan),
                   "moves_with_blocks_on_top": mapped.expanded,
                   "steps_cancelled": mapped.cancelled})


__all__ = ["INVALID_ON_TASK", "NOT_ON_TASK", "OnTask", "check_on_task"]
