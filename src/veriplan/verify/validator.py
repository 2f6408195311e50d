"""Step-wise simulation and validation of a sequential plan (VAL-grade:
every precondition checked in the state it is executed in, the goal
checked in the final state)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from veriplan.core.atom import ConditionPart, FormulaText, Literal
from veriplan.core.condition import FALSE, Conj, Disj, bits, condition_bits, render
from veriplan.core.facts import FactIndex, State
from veriplan.core.operator import Operator
from veriplan.core.plan import Step
from veriplan.pddl.ast import TOTAL_COST, And, FuncTerm
from veriplan.pddl.task import Task
from veriplan.verify import happening
from veriplan.verify.consistency import (
    StepError,
    StepErrorKind,
    check_plan,
    check_step,
    plainly_well_formed,
)
from veriplan.verify.result import (
    MetricValue,
    ValidationResult,
    join_parts,
    metric_value,
    put_args,
    time_text,
)

if TYPE_CHECKING:
    from veriplan.planio.parsed import UnreadLine  # noqa: F401


def false_parts(cond: Conj | Disj, state: State, facts: FactIndex) -> list[ConditionPart]:
    """The parts of ``cond`` that are false in ``state``: literals over the
    atoms of ``facts`` (positive, then negative, each sorted by predicate and
    arguments: bit positions depend on which problems shared the fact index
    before, so their order would not be reproducible), and any false
    disjunction as its PDDL text."""
    if isinstance(cond, Disj):
        return [] if cond.holds(state) else [FormulaText(render(cond, facts.name))]
    atoms = facts.atoms
    out: list[ConditionPart] = [Literal(a, True) for a in _sorted(
        [atoms[b] for b in bits(cond.pos & ~state)])]
    neg = cond.neg & state
    if neg:
        out += [Literal(a, False) for a in _sorted([atoms[b] for b in bits(neg)])]
    out += [FormulaText(render(d, facts.name)) for d in cond.parts if not d.holds(state)]
    return out


def _sorted(atoms: list) -> list:
    if len(atoms) > 1:
        atoms.sort(key=lambda a: (a.pred, a.args))
    return atoms


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
                  *, trace: bool = False, unread: str = "fail",
                  times: Sequence[float] | None = None,
                  durations: Sequence[float | None] | None = None,
                  tolerance: float = happening.TOLERANCE) -> ValidationResult:
    """Simulate ``plan`` from the initial state and check the goal.

    Steps with ``times`` (one per step, in order; a ParsedPlan read from the
    timed form ``0.000: (a o) [1]`` carries its own) that share a time are one
    happening, as VAL takes them: each step's precondition is checked in the
    state before the happening, effects apply together, and two steps that
    interfere make the plan invalid (:attr:`StepErrorKind.MUTEX`).

    ``plan`` may be a :class:`~veriplan.planio.ParsedPlan`, steps, ground
    operators or strings like ``"(stack a b)"``. A ParsedPlan with unread
    lines is not valid (``unread="fail"``, the default): the result carries
    the lines in ``unread`` and judges the steps read in its other fields.
    ``unread="ignore"`` judges the steps read alone, as if the text held
    nothing else (the same as passing ``parsed.steps``).

    On a temporal task (durative actions, timed initial literals) the plan is
    judged as VAL judges a timed plan (:mod:`veriplan.verify.temporal`): each
    step at its time (``times``; untimed steps at 1, 2, 3, ...) with its duration
    (``durations``, one per step, None where a step has no ``[d]``; a ParsedPlan
    carries its own). ``tolerance`` is VAL's ``-t`` (default 0.01): durations
    within it of their constraint pass, and steps less than a tenth of it apart
    are one happening (on every task); anything but a positive finite number is a
    :class:`~veriplan.verify.happening.ToleranceError`.
    """
    if unread not in ("fail", "ignore"):
        raise ValueError(f"unread={unread!r}: use 'fail' or 'ignore'")
    if tolerance != happening.TOLERANCE:
        tolerance = happening.check_tolerance(tolerance)
    lines = getattr(plan, "unread", ()) if unread == "fail" and hasattr(plan, "steps") else ()
    given = getattr(plan, "steps", plan)
    # A ParsedPlan's steps are a tuple of Steps already: no copy of a long plan. (The
    # plan readers are imported here, not with this module: veriplan.verify.batch
    # judges clean plans without them, and their start-up.)
    from veriplan.planio.parsed import ParsedPlan

    steps = given if isinstance(plan, ParsedPlan) else _to_steps(given)
    if times is None and isinstance(plan, ParsedPlan):
        times = plan.times
    elif times is not None and len(times) != len(steps):
        raise ValueError(f"times: {len(times)} given for {len(steps)} steps")
    if durations is None and isinstance(plan, ParsedPlan):
        durations = plan.durations
    pddl3 = _has_pddl3(task)
    if task.domain.temporal or task.problem.timed_literals:
        from veriplan.verify.temporal import validate_temporal

        states: list = []
        if pddl3:
            _refuse_temporal_pddl3(task)
        result = validate_temporal(task, steps, times, durations, trace=trace,
                                   tolerance=tolerance, trajectory=states if pddl3 else None)
        if pddl3:
            from veriplan.verify.constraints import judge_temporal

            result = judge_temporal(task, steps, result, states, times, durations)
        if not lines:
            return result
        return replace(result, valid=False, unread=tuple(lines),
                       error=result.error or StepErrorKind.UNREAD)
    if times and not all(0 <= t < math.inf for t in times):  # (a nan too)
        from veriplan.verify.temporal import bad_times

        result = bad_times(task, steps, times)
        if result is not None:
            return result if not lines else replace(result, unread=tuple(lines))
    spans = happening.groups(times, len(steps), tolerance)
    if task.numeric:
        from veriplan.verify.numeric import validate_numeric

        result = validate_numeric(task, steps, trace, spans, times)
    else:
        result = (_validate(task, steps, trace) if spans is None
                  else _validate_happenings(task, steps, trace, spans, times))
        if task.problem.metric is not None and result.steps_reach_goal:
            result = replace(result, metric=_classical_metric(task, result))
    if pddl3:
        from veriplan.verify.constraints import judge_pddl3

        result = judge_pddl3(task, steps, result, spans, times)
    if not lines:
        return result
    return replace(result, valid=False, unread=tuple(lines),
                   error=result.error or StepErrorKind.UNREAD)


def _has_pddl3(task: Task) -> bool:
    d, p = task.domain, task.problem
    return bool(d.constraints or d.preferences or p.constraints or p.preferences)


def _refuse_temporal_pddl3(task: Task) -> None:
    """PDDL 3 on a temporal task: goal preferences are judged; the rest is refused."""
    from veriplan.verify.constraints import temporal_refusal

    why = temporal_refusal(task)
    if why is not None:
        from veriplan.errors import UnsupportedRequirementError

        raise UnsupportedRequirementError(
            f"task {task.name}: {why} on a temporal plan (durative actions or timed "
            "literals) is not supported (goal preferences and :constraints are)",
            file=task.domain.file, requirement=":preferences")


def _classical_metric(task: Task, result: ValidationResult) -> MetricValue | None:
    return plan_metric(task, result.cost, len(result.plan))


def plan_metric(task: Task, cost: float, steps: int) -> MetricValue | None:
    """The metric of a plan of ``steps`` steps and action costs ``cost`` on a
    classical task: its static fluents, ``total-cost`` its initial value plus the
    costs, ``(total-time)`` the number of steps (as VAL counts it)."""
    values = {k: float(v) for k, v in task.problem.numeric_init.items()}
    total = FuncTerm(TOTAL_COST)
    if task.uses_costs:
        values[total] = values.get(total, 0.0) + cost
    return metric_value(task, values, float(steps))


def _validate(task: Task, steps: tuple[Step, ...], trace: bool) -> ValidationResult:
    if task.axioms is not None:
        return _validate_happenings(task, steps, trace,
                                    [(i, i + 1) for i in range(len(steps))], ())
    state = task.init
    states: list[State] = [state]
    cost = 0.0
    checked = task.checked_operator
    for i, step in enumerate(steps, 1):
        op = checked(step.name, step.args)
        if op is None:
            if not plainly_well_formed(task, step):
                err = check_step(task, step, i)
                if err is not None:
                    return _fail(task, steps, err, cost, states, trace)
            op = task.mark_checked(step.name, step.args)
        if op.pre_rest or op.cond_effects:
            ok = op.applicable(state)
        else:  # STRIPS: Operator.applicable and .apply inlined (the common case)
            pos = op.pre_pos
            ok = state & pos == pos and not state & op.pre_neg
        if not ok:
            err = precondition_error(task, step, i, op, state)
            return _fail(task, steps, err, cost, states, trace)
        state = op.apply(state) if op.cond_effects else (state & ~op.delete) | op.add
        cost += op.cost
        if trace:
            states.append(state)
    unmet = () if task.goal.holds(state) else tuple(false_parts(task.goal, state, task.facts))
    return ValidationResult(
        valid=not unmet, plan=steps, unmet_goals=unmet, cost=cost,
        steps_executed=len(steps), trace=_trace(task, states) if trace else None)


def _validate_happenings(task: Task, steps: tuple[Step, ...], trace: bool,
                         spans: list[tuple[int, int]], times: Sequence[float]
                         ) -> ValidationResult:
    """:func:`_validate` for steps grouped into happenings (``spans``), with
    derived predicates brought up to date after each."""
    ax = task.axioms
    state = task.base_init if ax is not None else task.init  # (basic atoms only)
    states: list[State] = [ax.close(state) if ax is not None and trace else state]
    cost = 0.0
    for start, stop in spans:
        ops: list[Operator] = []
        view = state  # the state with the derived atoms the happening reads
        if ax is not None:
            need = 0
            for i in range(start, stop):
                op = task.checked_operator(steps[i].name, steps[i].args)
                if op is None and check_step(task, steps[i], i + 1) is None:
                    op = task.mark_checked(steps[i].name, steps[i].args)
                if op is not None:
                    need |= _derived_reads(ax, op)
            view = ax.settle(state, need)
        for i in range(start, stop):
            step = steps[i]
            op = task.checked_operator(step.name, step.args)
            if op is None:
                err = check_step(task, step, i + 1)
                if err is not None:
                    return _fail(task, steps, err, cost, states, trace)
                op = task.mark_checked(step.name, step.args)
            if not op.applicable(view):
                err = precondition_error(task, step, i + 1, op, view)
                if stop - start > 1:
                    err = replace(err, detail=f"{err.detail} in the state before the "
                                  f"happening at time {time_text(times[start])}")
                return _fail(task, steps, err, cost, states, trace)
            ops.append(op)
        for a in range(len(ops)):
            for b in range(a + 1, len(ops)):
                shared = happening.interference(ops[a], ops[b], view)
                if shared:
                    err = _mutex_error(task, steps, start + a, start + b, shared,
                                       times[start])
                    return _fail(task, steps, err, cost, states, trace)
        add = delete = 0
        for op in ops:
            fa, fd = happening.fired(op, view)
            add |= fa
            delete |= fd
            cost += op.cost
        state = (state & ~delete) | add  # (no effect is a derived atom)
        if trace:
            states.append(ax.close(state) if ax is not None else state)
    goal = task.goal
    if ax is not None:
        state = ax.settle(state, ax.derived_mask(condition_bits(goal)))
    unmet = () if goal.holds(state) else tuple(false_parts(goal, state, task.facts))
    return ValidationResult(
        valid=not unmet, plan=steps, unmet_goals=unmet, cost=cost,
        steps_executed=len(steps), trace=_trace(task, states) if trace else None)


def _derived_reads(ax, op: Operator) -> int:
    """The derived atoms ``op`` reads (its precondition and effect conditions)."""
    return ax.derived_mask(happening.reads(op))


def _mutex_error(task: Task, steps: tuple[Step, ...], a: int, b: int, shared: int,
                 t: float) -> StepError:
    """Steps ``a`` and ``b`` (0-based) share a happening and interfere on ``shared``."""
    atoms = join_parts([FormulaText(task.facts.name(x)) for x in bits(shared)][:3])
    return StepError(b + 1, steps[b], StepErrorKind.MUTEX,
                     f"steps {a + 1} {steps[a]} and {b + 1} {steps[b]} are both at time "
                     f"{time_text(t)} and interfere on {atoms}: steps at one time form one "
                     "happening, which cannot hold actions that interfere (give them "
                     "different times)")


def precondition_error(task: Task, step: Step, index: int, op: Operator,
                       state: State) -> StepError:
    """Why step ``index`` (its ground operator ``op``) cannot be executed in ``state``,
    where its precondition is false: the parts that are false, or those that are
    false in every state."""
    if FALSE in op.pre_rest:
        never = _never_parts(task, step)
        return StepError(index, step, StepErrorKind.PRECONDITION,
                         f"the precondition of {step.name} can never hold for these "
                         f"arguments: {join_parts(never)} is false in every state", never)
    unsat = tuple(false_parts(op.precondition, state, task.facts))
    noun = "precondition" if len(unsat) == 1 else "preconditions"
    detail = f"{noun} {join_parts(unsat)} {'is' if len(unsat) == 1 else 'are'} false"
    if task.axioms is not None:
        from veriplan.pddl.derived import support_text

        why = support_text(task, unsat, state)
        if why:
            detail += f" ({why})"
    return StepError(index, step, StepErrorKind.PRECONDITION, detail, unsat)


def _never_parts(task: Task, step: Step) -> tuple[ConditionPart, ...]:
    """The parts of step's precondition (its top-level conjuncts, arguments put
    in) that are false in every state: an equality that fails, an ``exists`` over
    a type without objects, a literal and its negation; the whole precondition
    when no part alone is."""
    from veriplan.pddl.writer import formula_to_pddl

    schema = task.schemas[step.name]
    sub = {p.name: a for p, a in zip(schema.params, step.args)}
    pre = schema.precondition
    parts = pre.parts if isinstance(pre, And) else (pre,)
    out = []
    for part in parts:
        ground = task.condition(part, sub)
        if isinstance(ground, Disj) and not ground.parts:
            out.append(FormulaText(put_args(formula_to_pddl(part), sub)))
    return tuple(out) or (FormulaText(put_args(formula_to_pddl(pre), sub)),)


def _fail(task: Task, steps: tuple[Step, ...], err: StepError, cost: float,
          states: list[State], trace: bool) -> ValidationResult:
    return ValidationResult(
        valid=False, plan=steps, failed_step=err.index, action=str(err.step),
        error=err.kind, detail=err.detail, unsatisfied=err.unsatisfied,
        step_errors=check_plan(task, steps), cost=cost, steps_executed=err.index - 1,
        trace=_trace(task, states) if trace else None)


def _trace(task: Task, states: list[State]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(str(a) for a in task.atoms(s)) for s in states)


