"""Step-wise simulation and validation of a sequential plan (VAL-grade:
every precondition checked in the state it is executed in, the goal
checked in the final state)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from veriplan.core.atom import ConditionPart, FormulaText, Literal
from veriplan.core.condition import FALSE, Conj, Disj, bits, render
from veriplan.core.facts import FactIndex, State
from veriplan.core.operator import Operator
from veriplan.core.plan import Step
from veriplan.lazyre import LazyPattern
from veriplan.pddl.ast import TOTAL_COST, And, FuncTerm, MetricDirection
from veriplan.pddl.task import Task
from veriplan.verify import happening
from veriplan.verify.consistency import (
    StepError,
    StepErrorKind,
    check_plan,
    check_step,
    plainly_well_formed,
)

if TYPE_CHECKING:
    from veriplan.core.verdict import Judgement
    from veriplan.planio.parsed import UnreadLine  # noqa: F401


@dataclass(frozen=True, slots=True)
class MetricValue:
    """The problem's ``(:metric ...)`` evaluated on the plan's final state (VAL's
    "Final value"): ``value`` a float, ``text`` as VAL prints it."""

    direction: MetricDirection
    expression: str
    value: float

    @property
    def text(self) -> str:
        from veriplan.pddl.numeric import number_text

        return number_text(self.value)

    def to_dict(self) -> dict[str, object]:
        return {"direction": self.direction.value, "expression": self.expression,
                "value": self.value}


def metric_value(task: Task, values: Mapping[FuncTerm, float], total_time: float
                 ) -> MetricValue | None:
    """The task's metric on final fluent ``values`` (None: no metric, or a metric
    without a value there, such as one reading a fluent never set)."""
    metric = task.problem.metric
    if metric is None:
        return None
    from veriplan.pddl import numeric as N

    try:
        v = N.value(metric.expr, {}, values, total_time)
    except N.Undefined:
        return None
    return MetricValue(metric.direction, N.expr_text(metric.expr), v)


@dataclass(frozen=True)
class ValidationResult:
    """The verdict on a plan; a returned value, never an exception.

    ``failed_step`` is 1-based; ``unsatisfied`` lists the failing step's
    preconditions that are false, ``unmet_goals`` the goal parts false at the
    end of a plan that executed, each as a :class:`~veriplan.core.atom.Literal`
    (atom and polarity) or, for a part that is no literal (a false ``(or ...)``),
    a :class:`~veriplan.core.atom.FormulaText`; ``.pddl()`` (or ``str``) of
    either is its PDDL text, e.g. ``(clear b)`` or ``(not (on a b))``.
    ``step_errors`` lists every static defect (unknown action, wrong arity,
    unknown object, wrong type) in the whole plan; ``trace`` the states (sorted
    atoms) before each step and after the last, on request.

    ``metric`` is the problem's ``(:metric ...)`` on the final state of a plan
    that executed (None without a metric). ``cost`` sums the action costs
    (``total-cost``).

    ``unread`` holds the lines of the plan text that were not read as steps
    (from a :class:`~veriplan.planio.ParsedPlan`); a plan with one is never
    valid. The other fields then judge the steps that were read, and ``error``
    is the failing step's kind, or ``unread`` when the steps read have none.
    ``error`` is None only for a valid plan or one whose sole defect is unmet
    goals.
    """

    valid: bool
    plan: tuple[Step, ...]
    failed_step: int | None = None
    action: str | None = None
    error: StepErrorKind | None = None
    detail: str = ""
    unsatisfied: tuple[ConditionPart, ...] = ()
    unmet_goals: tuple[ConditionPart, ...] = ()
    step_errors: tuple[StepError, ...] = ()
    cost: float = 0.0
    steps_executed: int = 0
    trace: tuple[tuple[str, ...], ...] | None = None
    unread: tuple[UnreadLine, ...] = ()
    metric: MetricValue | None = None

    @property
    def length(self) -> int:
        return len(self.plan)

    @property
    def steps_reach_goal(self) -> bool:
        """True when the steps read execute and reach the goal (``valid`` also
        requires that no line went unread)."""
        return self.failed_step is None and not self.unmet_goals

    @property
    def unsatisfied_predicates(self) -> tuple[str, ...]:
        """The predicates of the unsatisfied literals, in order (parts that are
        no literal, such as a false disjunction, name none)."""
        return tuple(u.atom.pred for u in self.unsatisfied if isinstance(u, Literal))

    def judgement(self) -> Judgement:
        """The verdict in the shared vocabulary: valid or invalid (never unknown:
        the task is the true model) on :attr:`Scope.PLAN_ON_TASK`, with one
        finding per unread line, static step error, false precondition and
        unmet goal."""
        # imported here: judging plans by the thousand (validate --batch) needs none of it
        from veriplan.core.verdict import Finding, FindingKind, Judgement, Scope, Verdict

        found: list[Finding] = [
            Finding(FindingKind.UNREAD, None, u.text, f"line {u.line} unread: {u.reason}")
            for u in self.unread]
        kinds = _step_kinds()
        for e in self.step_errors or ():
            if e.kind is not StepErrorKind.PRECONDITION:
                found.append(Finding(kinds[e.kind], e.index, str(e.step), e.detail))
        if self.error is StepErrorKind.PRECONDITION and self.failed_step is not None:
            found += [Finding(FindingKind.PRECONDITION, self.failed_step, u.pddl(),
                              f"{self.action}: precondition {u.pddl()} is false")
                      for u in self.unsatisfied] or [
                Finding(FindingKind.PRECONDITION, self.failed_step, str(self.action),
                        self.detail)]
        elif (self.failed_step is not None and self.error is not None
              and self.error is not StepErrorKind.UNREAD
              and not any(f.step == self.failed_step for f in found)):
            found.append(Finding(kinds[self.error], self.failed_step, str(self.action),
                                 self.detail))
        found += [Finding(FindingKind.GOAL, None, g.pddl(), f"goal {g.pddl()} is not reached")
                  for g in self.unmet_goals]
        if self.valid:
            return Judgement(Verdict.VALID, Scope.PLAN_ON_TASK)
        if not found:  # an invalid plan always says why; keep the detail if nothing else does
            found.append(Finding(FindingKind.EMPTY if not self.plan else FindingKind.GOAL,
                                 None, "", self.detail or "not valid"))
        return Judgement(Verdict.INVALID, Scope.PLAN_ON_TASK, tuple(found))

    def feedback(self, *, unread: bool = True) -> str:
        """What is wrong, in words (see :func:`~veriplan.verify.feedback_text`);
        ``unread=False`` leaves unread lines out and judges the steps read."""
        from veriplan.verify.feedback import feedback_text

        return feedback_text(self, unread=unread)

    def to_dict(self) -> dict:
        """A JSON-ready dict: steps, literals and goals as PDDL text, unread lines
        as ``unread_lines`` (``line``, ``text``, ``reason``)."""
        return {
            "valid": self.valid,
            "plan": [str(s) for s in self.plan],
            "failed_step": self.failed_step,
            "action": self.action,
            "error": str(self.error) if self.error else None,
            "detail": self.detail,
            "unsatisfied": [u.pddl() for u in self.unsatisfied],
            "unmet_goals": [g.pddl() for g in self.unmet_goals],
            "step_errors": [
                {"index": e.index, "step": str(e.step), "kind": str(e.kind), "detail": e.detail}
                for e in self.step_errors],
            "cost": self.cost,
            "steps_executed": self.steps_executed,
            "trace": [list(s) for s in self.trace] if self.trace is not None else None,
            "feedback": self.feedback(),
            "unread_lines": [{"line": u.line, "text": u.text, "reason": u.reason}
                             for u in self.unread],
            "metric": self.metric.to_dict() if self.metric is not None else None,
            "judgement": self.judgement().to_dict(),
        }


def _step_kinds() -> dict:
    """The finding kind of each step error kind."""
    from veriplan.core.verdict import FindingKind

    return {
        StepErrorKind.UNKNOWN_ACTION: FindingKind.UNKNOWN_ACTION,
        StepErrorKind.WRONG_ARITY: FindingKind.BAD_ARGUMENTS,
        StepErrorKind.UNKNOWN_OBJECT: FindingKind.BAD_ARGUMENTS,
        StepErrorKind.WRONG_TYPE: FindingKind.BAD_ARGUMENTS,
        StepErrorKind.PRECONDITION: FindingKind.PRECONDITION,
        StepErrorKind.MUTEX: FindingKind.MUTEX,
        StepErrorKind.UNDEFINED: FindingKind.NUMERIC,
        StepErrorKind.UNREAD: FindingKind.UNREAD,
    }


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
                  times: Sequence[float] | None = None) -> ValidationResult:
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
    """
    if unread not in ("fail", "ignore"):
        raise ValueError(f"unread={unread!r}: use 'fail' or 'ignore'")
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
    spans = happening.groups(times, len(steps))
    if task.numeric:
        from veriplan.verify.numeric import validate_numeric

        result = validate_numeric(task, steps, trace, spans, times)
    else:
        result = (_validate(task, steps, trace) if spans is None
                  else _validate_happenings(task, steps, trace, spans, times))
        if task.problem.metric is not None and result.steps_reach_goal:
            result = replace(result, metric=_classical_metric(task, result))
    if not lines:
        return result
    return replace(result, valid=False, unread=tuple(lines),
                   error=result.error or StepErrorKind.UNREAD)


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
    close = task.axioms.close if task.axioms is not None else None
    state = task.init
    states: list[State] = [state]
    cost = 0.0
    for start, stop in spans:
        ops: list[Operator] = []
        for i in range(start, stop):
            step = steps[i]
            op = task.checked_operator(step.name, step.args)
            if op is None:
                err = check_step(task, step, i + 1)
                if err is not None:
                    return _fail(task, steps, err, cost, states, trace)
                op = task.mark_checked(step.name, step.args)
            if not op.applicable(state):
                err = precondition_error(task, step, i + 1, op, state)
                if stop - start > 1:
                    err = replace(err, detail=f"{err.detail} in the state before the "
                                  f"happening at time {_time(times[start])}")
                return _fail(task, steps, err, cost, states, trace)
            ops.append(op)
        for a in range(len(ops)):
            for b in range(a + 1, len(ops)):
                shared = happening.interference(ops[a], ops[b], state)
                if shared:
                    err = _mutex_error(task, steps, start + a, start + b, shared,
                                       times[start])
                    return _fail(task, steps, err, cost, states, trace)
        add = delete = 0
        for op in ops:
            fa, fd = happening.fired(op, state)
            add |= fa
            delete |= fd
            cost += op.cost
        state = (state & ~delete) | add
        if close is not None:
            state = close(state)
        if trace:
            states.append(state)
    unmet = () if task.goal.holds(state) else tuple(false_parts(task.goal, state, task.facts))
    return ValidationResult(
        valid=not unmet, plan=steps, unmet_goals=unmet, cost=cost,
        steps_executed=len(steps), trace=_trace(task, states) if trace else None)


def _time(t: float) -> str:
    return f"{t:.3f}"


def _mutex_error(task: Task, steps: tuple[Step, ...], a: int, b: int, shared: int,
                 t: float) -> StepError:
    """Steps ``a`` and ``b`` (0-based) share a happening and interfere on ``shared``."""
    atoms = _join([FormulaText(task.facts.name(x)) for x in bits(shared)][:3])
    return StepError(b + 1, steps[b], StepErrorKind.MUTEX,
                     f"steps {a + 1} {steps[a]} and {b + 1} {steps[b]} are both at time "
                     f"{_time(t)} and interfere on {atoms}: steps at one time form one "
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
                         f"arguments: {_join(never)} is false in every state", never)
    unsat = tuple(false_parts(op.precondition, state, task.facts))
    noun = "precondition" if len(unsat) == 1 else "preconditions"
    return StepError(index, step, StepErrorKind.PRECONDITION,
                     f"{noun} {_join(unsat)} {'is' if len(unsat) == 1 else 'are'} false",
                     unsat)


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
            out.append(FormulaText(_put(formula_to_pddl(part), sub)))
    return tuple(out) or (FormulaText(_put(formula_to_pddl(pre), sub)),)


_VARIABLE = LazyPattern(r"\?[^\s()]+")


def _put(text: str, sub: dict[str, str]) -> str:
    """PDDL text with the variables of ``sub`` replaced by their values."""
    return _VARIABLE.sub(lambda m: sub.get(m.group(), m.group()), text)


def _fail(task: Task, steps: tuple[Step, ...], err: StepError, cost: float,
          states: list[State], trace: bool) -> ValidationResult:
    return ValidationResult(
        valid=False, plan=steps, failed_step=err.index, action=str(err.step),
        error=err.kind, detail=err.detail, unsatisfied=err.unsatisfied,
        step_errors=check_plan(task, steps), cost=cost, steps_executed=err.index - 1,
        trace=_trace(task, states) if trace else None)


def _trace(task: Task, states: list[State]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(str(a) for a in task.atoms(s)) for s in states)


def _join(items: Sequence[ConditionPart]) -> str:
    texts = [i.pddl() for i in items]
    if len(texts) <= 1:
        return "".join(texts)
    return ", ".join(texts[:-1]) + " and " + texts[-1]
