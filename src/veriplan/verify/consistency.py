"""Static checks of a plan against a task, before any simulation: action
names, arities, objects and parameter types."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from veriplan.core.atom import ConditionPart
from veriplan.core.plan import Step
from veriplan.pddl.task import Task


class StepErrorKind(StrEnum):
    UNKNOWN_ACTION = "unknown-action"
    WRONG_ARITY = "wrong-arity"
    UNKNOWN_OBJECT = "unknown-object"
    WRONG_TYPE = "wrong-type"
    PRECONDITION = "precondition"
    MUTEX = "mutex"  # two steps at one time (one happening) interfere
    UNDEFINED = "undefined-value"  # a step reads a fluent without a value, or divides by 0
    UNREAD = "unread"  # a line of the plan text was not read as a step (no step error)
    CONSTRAINT = "constraint"  # a PDDL 3 trajectory constraint is broken


@dataclass(frozen=True, slots=True)
class StepError:
    """Why step ``index`` (1-based) of a plan cannot be executed."""

    index: int
    step: Step
    kind: StepErrorKind
    detail: str
    unsatisfied: tuple[ConditionPart, ...] = ()

    def __str__(self) -> str:
        return f"step {self.index} {self.step}: {self.detail}"


def check_step(task: Task, step: Step, index: int = 1) -> StepError | None:
    """The first static defect of one step, or None."""
    schema = task.schemas.get(step.name)
    if schema is None:
        names = ", ".join(sorted(task.schemas))
        return StepError(index, step, StepErrorKind.UNKNOWN_ACTION,
                         f"unknown action {step.name}; the actions are {names}")
    if len(step.args) != len(schema.params):
        return StepError(index, step, StepErrorKind.WRONG_ARITY,
                         f"action {step.name} takes {len(schema.params)} argument(s), "
                         f"{len(step.args)} given")
    for arg, p in zip(step.args, schema.params):
        t = task.objects.get(arg)
        if t is None:
            return StepError(index, step, StepErrorKind.UNKNOWN_OBJECT,
                             f"unknown object {arg}")
        if not task.has_type(arg, p.type):
            return StepError(index, step, StepErrorKind.WRONG_TYPE,
                             f"object {arg} of type {t} does not fit parameter "
                             f"{p.name} - {p.type} of {step.name}")
    return None


def plainly_well_formed(task: Task, step: Step) -> bool:
    """A quick yes for a known action with the right arity over the objects of
    an untyped task; a False means "ask :func:`check_step`"."""
    schema = task.schemas.get(step.name)
    if schema is None or len(step.args) != len(schema.params) or task.domain.types:
        return False
    objects = task.objects
    for a in step.args:  # noqa: SIM110 (a loop is faster than all() for a few args)
        if a not in objects:
            return False
    return True


def check_plan(task: Task, plan: Sequence[Step]) -> tuple[StepError, ...]:
    """Every static defect in ``plan`` (one per step at most)."""
    out = []
    checked = task.checked_operator
    for i, step in enumerate(plan, 1):
        if checked(step.name, step.args) is not None or plainly_well_formed(task, step):
            continue
        err = check_step(task, step, i)
        if err is not None:
            out.append(err)
    return tuple(out)
