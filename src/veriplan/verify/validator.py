"""Step-wise simulation and validation of a sequential plan (VAL-grade:
every precondition checked in the state it is executed in, the goal
checked in the final state)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from veriplan.core.condition import FALSE, Conj, Disj, bits, render
from veriplan.core.facts import State
from veriplan.core.operator import Operator
from veriplan.core.plan import Step
from veriplan.pddl.task import Task
from veriplan.verify.consistency import (
    StepError,
    StepErrorKind,
    check_plan,
    check_step,
    plainly_well_formed,
)


@dataclass(frozen=True)
class ValidationResult:
    """The verdict on a plan; a returned value, never an exception.

    ``failed_step`` is 1-based; ``unsatisfied`` lists the failing step's
    preconditions that are false as PDDL (``(clear b)``, ``(not (on a b))``,
    ``(or ...)``); ``unmet_goals`` the goal parts false at the end of a plan
    that executed; ``step_errors`` every static defect (unknown action, wrong
    arity, unknown object, wrong type) in the whole plan; ``trace`` the
    states (sorted atoms) before each step and after the last, on request.
    """

    valid: bool
    plan: tuple[Step, ...]
    failed_step: int | None = None
    action: str | None = None
    error: StepErrorKind | None = None
    detail: str = ""
    unsatisfied: tuple[str, ...] = ()
    unmet_goals: tuple[str, ...] = ()
    step_errors: tuple[StepError, ...] = ()
    cost: float = 0.0
    steps_executed: int = 0
    trace: tuple[tuple[str, ...], ...] | None = None

    @property
    def length(self) -> int:
        return len(self.plan)

    def feedback(self) -> str:
        from veriplan.verify.feedback import feedback_text

        return feedback_text(self)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["plan"] = [str(s) for s in self.plan]
        d["error"] = str(self.error) if self.error else None
        d["step_errors"] = [
            {"index": e.index, "step": str(e.step), "kind": str(e.kind), "detail": e.detail}
            for e in self.step_errors]
        d["trace"] = [list(s) for s in self.trace] if self.trace is not None else None
        d["feedback"] = self.feedback()
        return d


def false_parts(cond: Conj | Disj, state: State, name) -> list[str]:
    """The parts of ``cond`` that are false in ``state``, as PDDL text."""
    if isinstance(cond, Disj):
        return [] if cond.holds(state) else [render(cond, name)]
    out = [name(b) for b in bits(cond.pos & ~state)]
    out += [f"(not {name(b)})" for b in bits(cond.neg & state)]
    out += [render(d, name) for d in cond.parts if not d.holds(state)]
    return out


def _to_steps(plan: Iterable[Step | Operator | str]) -> tuple[Step, ...]:
    out = []
    for s in plan:
        if isinstance(s, Step):
            out.append(s)
        elif isinstance(s, Operator):
            out.append(Step(s.name, s.args))
        else:
            out.append(Step.parse(s))
    return tuple(out)


def validate_plan(task: Task, plan: Sequence[Step | Operator | str] | Iterable,
                  *, trace: bool = False) -> ValidationResult:
    """Simulate ``plan`` from the initial state and check the goal.

    ``plan`` may be a :class:`~veriplan.planio.ParsedPlan`, steps, ground
    operators or strings like ``"(stack a b)"``.
    """
    steps = _to_steps(getattr(plan, "steps", plan))
    state = task.init
    states: list[State] = [state]
    cost = 0.0
    name = task.facts.name
    for i, step in enumerate(steps, 1):
        op = task.cached_operator(step.name, step.args)
        if op is None:
            if not plainly_well_formed(task, step):
                err = check_step(task, step, i)
                if err is not None:
                    return _fail(task, steps, err, cost, states, trace)
            op = task.operator(step.name, step.args)
        if not op.applicable(state):
            if FALSE in op.pre_rest:
                err = StepError(i, step, StepErrorKind.PRECONDITION,
                                f"the precondition of {step.name} can never hold for these "
                                "arguments (an equality test fails)", ("(= ...)",))
                return _fail(task, steps, err, cost, states, trace)
            unsat = tuple(false_parts(op.precondition, state, name))
            noun = "precondition" if len(unsat) == 1 else "preconditions"
            err = StepError(i, step, StepErrorKind.PRECONDITION,
                            f"{noun} {_join(unsat)} {'is' if len(unsat) == 1 else 'are'} false",
                            unsat)
            return _fail(task, steps, err, cost, states, trace)
        state = op.apply(state)
        cost += op.cost
        if trace:
            states.append(state)
    unmet = () if task.goal.holds(state) else tuple(false_parts(task.goal, state, name))
    return ValidationResult(
        valid=not unmet, plan=steps, unmet_goals=unmet, cost=cost,
        steps_executed=len(steps), trace=_trace(task, states) if trace else None)


def _fail(task: Task, steps: tuple[Step, ...], err: StepError, cost: float,
          states: list[State], trace: bool) -> ValidationResult:
    return ValidationResult(
        valid=False, plan=steps, failed_step=err.index, action=str(err.step),
        error=err.kind, detail=err.detail, unsatisfied=err.unsatisfied,
        step_errors=check_plan(task, steps), cost=cost, steps_executed=err.index - 1,
        trace=_trace(task, states) if trace else None)


def _trace(task: Task, states: list[State]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(str(a) for a in task.atoms(s)) for s in states)


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
