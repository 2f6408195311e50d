"""Validation of timed plans on temporal tasks (PDDL 2.1 level 3, PDDL 2.2 timed
initial literals), with VAL's semantics as measured on ``Validate`` (VAL 4):

- a step ``t: (a o ...) [d]`` of a durative action is two happenings' members: its
  start at ``t`` (the ``:duration`` constraints, read in the state before, must
  hold of ``d`` within the tolerance; the ``at start`` condition; the ``at start``
  effects) and its end at ``t + d`` (``at end`` condition and effects); an
  instantaneous action is one member at ``t``; a timed initial literal is one at
  its time. ``?duration`` in any of them is ``d``.
- members less than a tenth of the tolerance after the first member of a
  happening join it (VAL: with ``-t 0.01``, 0 and 0.001 are one happening, 0 and
  0.00101 two); every member's condition is read in the state before the
  happening, all effects are applied together, and two members that interfere
  (one writes what the other reads, one adds what the other deletes, both assign
  one fluent) make the plan invalid (a mutex, both named).
- ``over all`` holds on the open interval between a step's ends: in the state
  after its start's happening and after every happening strictly before its end's
  (a change at the end's own time does not break it, as in VAL).
- the goal is read after the last happening (timed literals after the plan's end
  included); ``(total-time)`` is the time of the plan's last happening.

Plans this module refuses as findings, never as valid: a durative step without a
duration, a negative or not finite duration or time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from veriplan.core.atom import Atom, ConditionPart, FormulaText
from veriplan.core.plan import Step
from veriplan.errors import UnsupportedRequirementError
from veriplan.pddl import numeric as N
from veriplan.pddl.ast import (
    DURATION,
    TRUE,
    ActionSchema,
    CompareOp,
    DurationConstraint,
    DurativeAction,
    Effect,
    Formula,
    FuncTerm,
    TimedLiteral,
)
from veriplan.pddl.task import Task
from veriplan.verify.consistency import StepError, StepErrorKind, check_plan
from veriplan.verify.happening import TOLERANCE, check_tolerance, same_happening
from veriplan.verify.numeric import _effect_reads, _Executed, _interfere, _reads, false_parts
from veriplan.verify.result import ValidationResult, join_parts, metric_value


class Part(StrEnum):
    """Which part of a step (or of the problem) a happening's member is."""

    START = "start"
    END = "end"
    INSTANT = "instant"  # an instantaneous action's step
    TIMED = "timed literal"


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a happening: a step's start or end, an instantaneous step, or a
    timed initial literal (``index`` into the plan's steps, 0-based, or into the
    problem's timed literals)."""

    time: float
    part: Part
    index: int


class _Label:
    """How a member is named in a finding: ``(fly p c1 c2) at start``."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def num(v: float) -> str:
    """A time or duration as VAL prints it (up to 6 significant digits)."""
    return N.number_text(v)


def validate_temporal(task: Task, steps: tuple[Step, ...], times: Sequence[float] | None,
                      durations: Sequence[float | None] | None, *, trace: bool = False,
                      tolerance: float = TOLERANCE,
                      trajectory: list[tuple[float, int, N.Values]] | None = None
                      ) -> ValidationResult:
    """The :class:`ValidationResult` of ``steps`` at ``times`` with ``durations`` (one
    each, None for a step written without ``[d]``) on a temporal ``task``. Without
    ``times`` the steps are at 1, 2, 3, ... (as VAL times an untimed plan)."""
    if task.axioms is not None:
        raise UnsupportedRequirementError(
            f"task {task.name}: derived predicates in a domain with durative actions are not "
            "supported", requirement=":derived-predicates")
    tolerance = check_tolerance(tolerance)
    n = len(steps)
    at = [float(i + 1) for i in range(n)] if times is None else [float(t) for t in times]
    durs: list[float | None] = [None] * n if durations is None else list(durations)
    if len(at) != n or len(durs) != n:
        raise ValueError(f"{len(at)} times and {len(durs)} durations for {n} steps")
    run = _Run(task, steps, trace)
    if trajectory is not None:  # (a hook: PDDL 3 judges the states after each happening)
        run.trajectory = trajectory
        trajectory.append((0.0, run.bits, run.values))
    errors = check_plan(task, steps)
    if errors:
        return run.fail(errors[0], errors)
    members: list[Member] = []
    for i, step in enumerate(steps):
        schema = task.schemas[step.name]
        bad = _bad_timing(step, i, at[i], durs[i], isinstance(schema, DurativeAction))
        if bad is not None:
            return run.fail(bad)
        if isinstance(schema, DurativeAction):
            d = durs[i]
            assert d is not None
            members.append(Member(at[i], Part.START, i))
            members.append(Member(at[i] + d, Part.END, i))
        else:
            members.append(Member(at[i], Part.INSTANT, i))
    for j, til in enumerate(task.problem.timed_literals):
        members.append(Member(til.time, Part.TIMED, j))
    members.sort(key=lambda m: m.time)  # (stable: plan order within one time)
    groups = happenings(members, tolerance)
    return run.execute(groups, at, durs, tolerance)


def bad_times(task: Task, steps: tuple[Step, ...], times: Sequence[float]
              ) -> ValidationResult | None:
    """On a task without durative actions, the result of a timed plan with a time
    that cannot be judged (negative, or not finite: VAL drops a step at ``nan``),
    the first such step failing; None when every time is a number from 0 on."""
    for i, t in enumerate(times):
        if not (t >= 0 and math.isfinite(t)):
            run = _Run(task, steps, False)
            errors = check_plan(task, steps)
            if errors and errors[0].index <= i + 1:
                return run.fail(errors[0], errors)
            bad = _bad_timing(steps[i], i, float(t), None, False)
            assert bad is not None
            return run.fail(bad)
    return None


def happenings(members: list[Member], tolerance: float) -> list[list[Member]]:
    """``members`` (in order of time) as happenings: a member at most a tenth of
    ``tolerance`` after the first member of the current happening joins it (VAL's
    rule, measured; :func:`veriplan.verify.happening.same_happening`)."""
    out: list[list[Member]] = []
    for m in members:
        if out and same_happening(out[-1][0].time, m.time, tolerance):
            out[-1].append(m)
        else:
            out.append([m])
    return out


def _bad_timing(step: Step, i: int, t: float, d: float | None, durative: bool
                ) -> StepError | None:
    """A step whose time or duration cannot be judged: not finite, negative, or a
    durative step without ``[d]``."""
    if not math.isfinite(t):
        return StepError(i + 1, step, StepErrorKind.PRECONDITION,
                         f"its time {t} is not a finite number: give a time such as 0.000")
    if t < 0:
        return StepError(i + 1, step, StepErrorKind.PRECONDITION,
                         f"its time {num(t)} is negative: a plan starts at time 0")
    if not durative:
        return None
    if d is None:
        return StepError(i + 1, step, StepErrorKind.PRECONDITION,
                         f"{step.name} is a durative action and the step has no duration: "
                         "write it as t: (action args) [d]")
    if not math.isfinite(d):
        return StepError(i + 1, step, StepErrorKind.PRECONDITION,
                         f"its duration {d} is not a finite number: give a duration such "
                         "as [1.000]")
    if d < 0:
        return StepError(i + 1, step, StepErrorKind.PRECONDITION,
                         f"its duration {num(d)} is negative: a step cannot end before it "
                         "starts")
    return None


def ends_of(groups: list[list[Member]]) -> dict[int, list[int]]:
    """Where each durative step's ends fall: step -> [start happening, end happening]."""
    where: dict[int, list[int]] = {}
    for k, g in enumerate(groups):
        for m in g:
            if m.part is Part.START:
                where.setdefault(m.index, [k, k])[0] = k
            elif m.part is Part.END:
                where.setdefault(m.index, [k, k])[1] = k
    return where


@dataclass(slots=True)
class Resume:
    """The state of a run before happening ``happening``: atoms, fluent values, the
    members left of each step, the durative steps started and not ended, the steps
    done, and the time of the last plan happening so far."""

    happening: int
    bits: int
    values: N.Values
    ends_left: dict[int, int]
    active: list[int]
    done: int
    last_plan_time: float
    where: dict[int, list[int]] | None = None  # ends_of(the happenings), if known


class _Run:
    """The state of one plan's execution: atoms (bits), fluent values, the states
    after each happening (on request)."""

    def __init__(self, task: Task, steps: tuple[Step, ...], trace: bool,
                 values: N.Values | None = None) -> None:
        self.task = task
        self.steps = steps
        self.trace = trace
        self.holds = N.Holds(task.facts.find, task.objects_of_type)
        self.bits = task.base_init
        self.values: N.Values = ({k: float(v) for k, v in task.problem.numeric_init.items()}
                                 if values is None else values)
        # (trace) the initial state, then the state after the happening that
        # finishes each step, in the plan's order: one state a step, as sequential
        # plans have (the happenings between are not shown)
        self.states: list[tuple[int, N.Values]] = [(self.bits, self.values)] if trace else []
        self.finished: dict[int, tuple[int, N.Values]] = {}
        self.done = 0  # steps whose every member has been applied
        #: (time, bits, values) after each happening, when asked for (PDDL 3)
        self.trajectory: list[tuple[float, int, N.Values]] | None = None

    # ----- results -------------------------------------------------------------------
    def trace_states(self) -> list[tuple[int, N.Values]]:
        out = self.states[:1]
        for i in range(len(self.steps)):
            if i not in self.finished:
                break
            out.append(self.finished[i])
        return out

    def fail(self, err: StepError, errors: tuple[StepError, ...] = ()) -> ValidationResult:
        from veriplan.verify.numeric import _trace

        return ValidationResult(
            valid=False, plan=self.steps, failed_step=err.index, action=str(err.step),
            error=err.kind, detail=err.detail, unsatisfied=err.unsatisfied,
            step_errors=errors, cost=self.values.get(FuncTerm("total-cost"), 0.0),
            steps_executed=self.done,
            trace=_trace(self.task, self.trace_states()) if self.trace else None)

    # ----- one member's parts --------------------------------------------------------
    def schema(self, m: Member) -> ActionSchema:
        return self.task.schemas[self.steps[m.index].name]

    def sub(self, m: Member) -> dict[str, str]:
        step = self.steps[m.index]
        return {p.name: a for p, a in zip(self.schema(m).params, step.args)}

    def label(self, m: Member) -> _Label:
        if m.part is Part.TIMED:
            til = self.task.problem.timed_literals[m.index]
            return _Label(f"(timed initial literal at {num(til.time)}: {til.literal.pddl()})")
        step = self.steps[m.index]
        if m.part is Part.INSTANT:
            return _Label(f"step {m.index + 1} {step}")
        return _Label(f"step {m.index + 1} {step} at {m.part.value}")

    def condition(self, m: Member) -> Formula:
        s = self.schema(m)
        if m.part is Part.INSTANT:
            return s.precondition
        assert isinstance(s, DurativeAction)
        return s.at_start if m.part is Part.START else s.at_end

    def effects(self, m: Member) -> tuple[Effect, ...]:
        if m.part is Part.TIMED:
            return ()
        s = self.schema(m)
        if m.part is Part.INSTANT:
            return s.effects
        assert isinstance(s, DurativeAction)
        return s.start_effects if m.part is Part.START else s.end_effects

    # ----- the happenings ------------------------------------------------------------
    def execute(self, groups: list[list[Member]], at: list[float],
                durs: list[float | None], tolerance: float,
                resume: Resume | None = None) -> ValidationResult:
        """Run the happenings ``groups``; from ``resume``'s happening on, in its state,
        when a fast run (:mod:`veriplan.verify.temporal_fast`) did the ones before."""
        steps, holds = self.steps, self.holds
        where = resume.where if resume is not None and resume.where is not None \
            else ends_of(groups)
        if resume is None:
            ends_left = {i: 2 if i in where else 1 for i in range(len(steps))}
            active: list[int] = []  # durative steps started and not ended
            last_plan_time = 0.0
            first = 0
        else:
            first, self.bits, self.values = resume.happening, resume.bits, resume.values
            ends_left, active = resume.ends_left, resume.active
            last_plan_time, self.done = resume.last_plan_time, resume.done
        for k in range(first, len(groups)):
            g = groups[k]
            t = g[0].time
            done: list[tuple[Member, _Executed]] = []
            for m in g:
                if m.part is not Part.TIMED:
                    last_plan_time = max(last_plan_time, m.time)
                err = self.member_reads(m, at, durs, tolerance, t, len(g) > 1)
                if isinstance(err, StepError):
                    return self.fail(err)
                done.append((m, err))
            for a in range(len(done)):
                for b in range(a + 1, len(done)):
                    why = _interfere(done[a][1], done[b][1])
                    if why is not None:
                        return self.fail(self.mutex(done[a][0], done[b][0], why, t, g))
            add = delete = 0
            bit = self.task.facts.bit
            for _m, ex in done:
                for atom, positive in ex.lits:
                    if positive:
                        add |= 1 << bit(atom)
                    else:
                        delete |= 1 << bit(atom)
            try:
                self.values = N.apply_updates(self.values, [u for _m, ex in done for u in ex.ups])
            except N.Undefined as u:
                m = next((m for m, ex in done if ex.ups), g[-1])
                return self.fail(self.undefined(m, u, "an effect has no value", t))
            self.bits = (self.bits & ~delete) | add
            if self.trajectory is not None:
                self.trajectory.append((t, self.bits, self.values))
            for m in g:
                if m.part is Part.START and where[m.index][1] > k:
                    active.append(m.index)
                elif m.part is Part.END and m.index in active:
                    active.remove(m.index)
                if m.part is not Part.TIMED:
                    ends_left[m.index] -= 1
                    if ends_left[m.index] == 0:
                        self.done += 1
                        if self.trace:
                            self.finished[m.index] = (self.bits, self.values)
            for i in active:  # over all: the open interval, after this happening
                err = self.invariant(i, at[i], durs[i], t, g)
                if err is not None:
                    return self.fail(err)
        goal = self.task.problem.goal
        try:
            reached = holds(goal, {}, self.bits, self.values)
        except N.Undefined:
            reached = False
        unmet = () if reached else false_parts(holds, goal, {}, self.bits, self.values)
        from veriplan.verify.numeric import _trace

        return ValidationResult(
            valid=not unmet, plan=steps, unmet_goals=unmet,
            cost=self.values.get(FuncTerm("total-cost"), 0.0), steps_executed=len(steps),
            trace=_trace(self.task, self.trace_states()) if self.trace else None,
            metric=metric_value(self.task, self.values, last_plan_time))

    def member_reads(self, m: Member, at: list[float], durs: list[float | None],
                     tolerance: float, t: float, shared: bool) -> StepError | _Executed:
        """``m`` read in the state before its happening: its conditions (an error if one
        is false) and the effects it fires."""
        holds, bits = self.holds, self.bits
        if m.part is Part.TIMED:
            til: TimedLiteral = self.task.problem.timed_literals[m.index]
            return _Executed(0, self.label(m), [(til.literal.atom, til.literal.positive)], [])
        step = self.steps[m.index]
        sub = self.sub(m)
        values = self.values
        d = durs[m.index]
        if m.part is not Part.INSTANT:
            values = {**values, DURATION: float(d)}  # type: ignore[arg-type]
        schema = self.schema(m)
        if m.part is Part.START:
            assert isinstance(schema, DurativeAction) and d is not None
            for c in schema.duration:
                err = self.duration_error(m, c, sub, values, d, tolerance, t)
                if err is not None:
                    return err
        cond = self.condition(m)
        try:
            ok = cond is TRUE or holds(cond, sub, bits, values)
        except N.Undefined as u:
            err = self.undefined(m, u, "its condition has no value", t)
            return StepError(err.index, step, err.kind, err.detail,
                             false_parts(holds, cond, sub, bits, values))
        if not ok:
            unsat = false_parts(holds, cond, sub, bits, values)
            return StepError(m.index + 1, step, StepErrorKind.PRECONDITION,
                             f"{self.what(m)} at time {num(m.time)}: {_noun(unsat)}"
                             f"{_before(shared, t)}", unsat)
        lits: list[tuple[Atom, bool]] = []
        ups: list[N.Update] = []
        try:
            N.fire(holds, self.effects(m), sub, bits, values, lits, ups)
        except N.Undefined as u:
            return self.undefined(m, u, "an effect has no value", t)
        ex = _Executed(m.index + 1, self.label(m), lits, ups)  # type: ignore[arg-type]
        if shared:  # what it reads, for the mutex test
            _reads(holds, cond, sub, ex.atoms_read, ex.terms_read)
            if m.part is Part.START:
                for c in schema.duration:  # type: ignore[union-attr]
                    ex.terms_read.update(N.fluents(c.value, sub))
            for e in self.effects(m):
                _effect_reads(holds, e, sub, ex)
        return ex

    def what(self, m: Member) -> str:
        step = self.steps[m.index]
        if m.part is Part.INSTANT:
            return f"{step}"
        return f"the {m.part.value} of {step}"

    def duration_error(self, m: Member, c: DurationConstraint, sub: dict[str, str],
                       values: N.Values, d: float, tolerance: float, t: float
                       ) -> StepError | None:
        """``c`` against the step's duration ``d``: VAL's test, the amount by which
        ``d`` misses the bound is at most the tolerance."""
        step = self.steps[m.index]
        try:
            bound = N.value(c.value, sub, values)
        except N.Undefined as u:
            return self.undefined(m, u, f"its duration constraint {c.pddl(sub)} has no value",
                                  t)
        if c.op is CompareOp.EQ:
            miss = abs(d - bound)
        elif c.op is CompareOp.LE:
            miss = d - bound
        else:
            miss = bound - d
        if miss <= tolerance:
            return None
        shown = N.expr_text(c.value, sub)
        values_of = ", ".join(f"{f} = {num(values[f])}" for f in N.fluents(c.value, sub)
                              if f in values)
        text = f"{c.pddl(sub)}" + (f": {values_of}" if values_of else "")
        return StepError(
            m.index + 1, step, StepErrorKind.PRECONDITION,
            f"the duration {num(d)} of {step} (starting at {num(m.time)}) breaks its "
            f"constraint {c.op.value} {shown}{'' if shown == num(bound) else ' = ' + num(bound)}"
            f" (by {num(miss)}, more than the "
            f"tolerance {num(tolerance)}); set the duration to {num(bound)}",
            (FormulaText(text),))

    def invariant(self, i: int, start: float, d: float | None, t: float,
                  g: list[Member]) -> StepError | None:
        """The ``over all`` condition of durative step ``i`` after the happening at ``t``."""
        schema = self.task.schemas[self.steps[i].name]
        assert isinstance(schema, DurativeAction) and d is not None
        cond = schema.over_all
        if cond is TRUE:
            return None
        step = self.steps[i]
        sub = {p.name: a for p, a in zip(schema.params, step.args)}
        values = {**self.values, DURATION: float(d)}
        try:
            ok = self.holds(cond, sub, self.bits, values)
        except N.Undefined as u:
            return StepError(i + 1, step, StepErrorKind.UNDEFINED,
                             f"the over all condition of {step} has no value at time "
                             f"{num(t)}: {u.reason}", false_parts(self.holds, cond, sub,
                                                                  self.bits, values))
        if ok:
            return None
        unsat = false_parts(self.holds, cond, sub, self.bits, values)
        who = join_parts([FormulaText(str(self.label(m))) for m in g][:3])
        return StepError(
            i + 1, step, StepErrorKind.PRECONDITION,
            f"over all of {step} (from {num(start)} to {num(start + d)}): {_noun(unsat)} "
            f"at time {num(t)}, after the happening of {who}", unsat)

    def mutex(self, a: Member, b: Member, why: str, t: float, g: list[Member]) -> StepError:
        """Members ``a`` and ``b`` of one happening interfere."""
        x = b if b.part is not Part.TIMED else a
        times = ", ".join(sorted({num(m.time) for m in (a, b)}))
        return StepError(
            x.index + 1, self.steps[x.index], StepErrorKind.MUTEX,
            f"{self.label(a)} and {self.label(b)} are one happening (at {times}: times "
            f"within a tenth of the tolerance are one) and interfere: {why}; actions that "
            "interfere cannot happen at one time (separate them)")

    def undefined(self, m: Member, u: N.Undefined, where: str, t: float) -> StepError:
        step = self.steps[m.index] if m.part is not Part.TIMED else Step("timed-literal")
        return StepError(m.index + 1, step, StepErrorKind.UNDEFINED,
                         f"{self.what(m)} at time {num(t)}: {where}: {u.reason}",
                         (FormulaText(str(u.term) if u.term is not None else u.reason),))


def _noun(unsat: tuple[ConditionPart, ...]) -> str:
    noun = "condition" if len(unsat) == 1 else "conditions"
    return f"{noun} {join_parts(unsat)} {'is' if len(unsat) == 1 else 'are'} false"


def _before(shared: bool, t: float) -> str:
    return f" in the state before the happening at time {num(t)}" if shared else ""


__all__ = ["TOLERANCE", "Member", "Part", "bad_times", "happenings", "validate_temporal"]
