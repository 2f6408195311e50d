"""The one-pass judge of clean timed plans on temporal tasks: the fast path of
:mod:`veriplan.verify.temporal` for ``validate --batch``.

:func:`timed_record` reads a plan text whose every line is blank or one
``t: (action arg ...) [d]`` (a time with a decimal point, a duration without a
sign), and runs its happenings on compiled parts: each durative step's start, its
end and its ``over all``, and each instantaneous step, compiled once per ground
part by :mod:`veriplan.pddl.numeric_code` over the fast state (the atoms' bitset and
a list of fluent values, ``?duration`` one position of it, set for each member). A
happening of several members runs on the compiled parts when they do not interfere
(none writes what another reads, no two write one atom or fluent but by increases
or decreases, as :func:`veriplan.verify.numeric._interfere` tests): then applying
them one after another is applying them together.

At the first happening the compiled parts cannot judge (a condition false, a value
missing, a duration outside its constraints, members that interfere, a part the
code generator does not take, an ``over all`` broken after it), the general
validator (:meth:`veriplan.verify.temporal._Run.execute`) is resumed in the state
before that happening, and says what is wrong: the same result as the general path
by construction. Any other plan text, a task with derived predicates or PDDL 3, a
durative step without ``[d]``: None (the general path judges it)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from veriplan.core.plan import Step
from veriplan.pddl import numeric as N
from veriplan.pddl.ast import (
    DURATION,
    CompareOp,
    DurativeAction,
    ForallEffect,
    FuncTerm,
    Increase,
    NumericEffect,
    UpdateOp,
)
from veriplan.pddl.numeric_code import (
    CompiledStep,
    SlotValues,
    _lift,
    compiled_goal,
    task_slots,
)
from veriplan.verify.consistency import check_step
from veriplan.verify.happening import TOLERANCE
from veriplan.verify.records import ItemId, id_json, json_value, record_text, result_record
from veriplan.verify.result import metric_value

if TYPE_CHECKING:

    from veriplan.pddl.task import Task

# One clean timed line, lower case: "0.000: (navigate rover0 wp1 wp2) [5.000]".
_LINE = re.compile(r"(\d+\.\d*|\.\d+)\s*:\s*\(([^\s()]+(?:[ \t]+[^\s()]+)*)[ \t]*\)"
                   r"(?:[ \t]*\[[ \t]*(\d+(?:\.\d*)?|\.\d+)[ \t]*\])?")
_ADDITIVE = (UpdateOp.INCREASE, UpdateOp.DECREASE)
_TOTAL_COST = FuncTerm("total-cost")
# (numeric_code's _lift takes the task's derived-predicate settle or not, by version:
# a temporal task has no derived predicates here)
_LIFT_ARGS = _lift.__code__.co_argcount
_BY_TEXT = 1 << 14  # the most ground steps a task's memo keeps (then it starts afresh)


class Part:
    """One ground part of a step (a start, an end, an over all, an instantaneous
    step, a timed literal): its compiled code and what it reads and writes."""

    __slots__ = ("cs", "simple", "add", "delete", "atoms_read", "terms_read", "targets",
                 "additive", "duration", "sub")

    def __init__(self, cs: CompiledStep | None, add: int = 0, delete: int = 0) -> None:
        self.cs = cs
        self.simple = cs is None or cs.simple
        self.add = add if cs is None else cs.add
        self.delete = delete if cs is None else ~cs.keep
        self.atoms_read = 0
        self.terms_read: frozenset[int] = frozenset()
        self.targets: tuple[int, ...] = ()  # the fluent positions it updates
        self.additive = True  # every update an increase or a decrease
        # (a start) its duration constraints: (op, bound: a number, or the expression)
        self.duration: tuple[tuple[CompareOp, object], ...] = ()
        self.sub: dict[str, str] = {}


def _interfere(a: Part, b: Part) -> bool:
    """Whether two members of one happening interfere, as ``numeric._interfere``
    judges it (then the general path says how)."""
    if ((a.add | a.delete) & b.atoms_read or (b.add | b.delete) & a.atoms_read
            or a.add & b.delete or b.add & a.delete):
        return True
    if a.targets and b.terms_read.intersection(a.targets):
        return True
    if b.targets and a.terms_read.intersection(b.targets):
        return True
    if a.targets and b.targets and set(a.targets) & set(b.targets):
        return not (a.additive and b.additive)
    return False


class _Ground:
    """The compiled parts of one ground step: (start, end, over all) of a durative
    one, (instant,) of an instantaneous one."""

    __slots__ = ("parts", "durative", "step")

    def __init__(self, step: Step, durative: bool, parts: tuple[Part, ...]) -> None:
        self.step = step
        self.durative = durative
        self.parts = parts


def _part(task: Task, name: str, which: str, condition, effects: tuple, sub: dict[str, str],
          step: Step, holds: N.Holds) -> Part:
    from veriplan.verify.numeric import _effect_reads, _Executed, _reads

    memo = task.__dict__.setdefault("_temporal_lifted", {})
    lifted = memo.get((name, which))
    if lifted is None:
        lifted = memo[(name, which)] = (_lift(condition, effects) if _LIFT_ARGS == 2
                                         else _lift(condition, effects, None))
    cs = CompiledStep(task, lifted, sub, effects, step)
    p = Part(cs)
    if not p.simple:
        return p
    ex = _Executed(0, step, [], [])
    _reads(holds, condition, sub, ex.atoms_read, ex.terms_read)
    for e in effects:
        _effect_reads(holds, e, sub, ex)
    bit = task.facts.bit
    slots = task_slots(task)
    for a in ex.atoms_read:
        p.atoms_read |= 1 << bit(a)
    targets = []
    for e in _numeric(effects):
        if isinstance(e, Increase):
            targets.append(slots.of(_TOTAL_COST))
        else:
            targets.append(slots.of(N.ground_term(e.target, sub)))
            if e.op not in _ADDITIVE:
                p.additive = False
    p.targets = tuple(targets)
    p.terms_read = frozenset(slots.of(t) for t in ex.terms_read)
    return p


def _numeric(effects):
    for e in effects:
        if isinstance(e, NumericEffect | Increase):
            yield e
        elif isinstance(e, ForallEffect):
            yield from _numeric(e.effects)  # (compiled code refuses these: not simple)


def _ground(task: Task, name: str, args: tuple[str, ...], index: int) -> _Ground | None:
    """The compiled parts of step ``(name args)``, if the PDDL reader reads it as the
    step and it is well-formed; else None (kept on the task)."""
    memo = task.__dict__.get("_temporal_ground")
    if memo is None or len(memo) > _BY_TEXT:
        memo = task.__dict__["_temporal_ground"] = {}
    key = (name, args)
    hit = memo.get(key)
    if hit is not None:
        return hit
    schema = task.schemas.get(name)
    if schema is None or len(schema.params) != len(args):
        return None
    objects = task.objects
    for a in args:
        if a not in objects:
            return None
    step = Step(name, args)
    if check_step(task, step, index) is not None:
        return None
    sub = {p.name: a for p, a in zip(schema.params, args)}
    holds = N.Holds(task.facts.find, task.objects_of_type)
    if isinstance(schema, DurativeAction):
        start = _part(task, name, "start", schema.at_start, tuple(schema.start_effects), sub,
                      step, holds)
        start.duration = tuple((c.op, c.value) for c in schema.duration)
        start.sub = sub
        if start.simple:
            reads = set(start.terms_read)
            for c in schema.duration:
                reads.update(task_slots(task).of(f) for f in N.fluents(c.value, sub))
            start.terms_read = frozenset(reads)
        parts = (start,
                 _part(task, name, "end", schema.at_end, tuple(schema.end_effects), sub, step,
                       holds),
                 _part(task, name, "over", schema.over_all, (), sub, step, holds))
        hit = _Ground(step, True, parts)
    else:
        hit = _Ground(step, False, (_part(task, name, "instant", schema.precondition,
                                          tuple(schema.effects), sub, step, holds),))
    memo[key] = hit
    return hit


def _timed_literals(task: Task) -> tuple[Part, ...]:
    hit = task.__dict__.get("_temporal_tils")
    if hit is None:
        bit = task.facts.bit
        hit = []
        for til in task.problem.timed_literals:
            b = 1 << bit(til.literal.atom)
            hit.append(Part(None, add=b if til.literal.positive else 0,
                            delete=0 if til.literal.positive else b))
        hit = task.__dict__["_temporal_tils"] = tuple(hit)
    return hit


def timed_record(task: Task, line: int, ident: ItemId, low_lines: list[str],
                 tolerance: float = TOLERANCE) -> tuple[bool, str] | None:
    """The verdict and record of a clean timed plan (``low_lines``: its lines, lower
    case) on a temporal ``task``, or None (the general path judges it)."""
    if task.axioms is not None or _pddl3(task):
        return None
    steps: list[Step] = []
    grounds: list[_Ground] = []
    at: list[float] = []
    durs: list[float | None] = []
    unordered = False
    memo = task.__dict__.get("_timed_lines")  # a clean line -> (step's parts, t, d)
    if memo is None or len(memo) > _BY_TEXT:
        memo = task.__dict__["_timed_lines"] = {}
    for raw in low_lines:
        hit = memo.get(raw)
        if hit is None:
            text = raw.strip()
            if not text:
                continue
            hit = _read_line(task, text, len(steps) + 1)
            if hit is None:
                return None
            memo[raw] = hit
        g, t, dv = hit
        if at and t < at[-1]:
            unordered = True
        steps.append(g.step)
        grounds.append(g)
        at.append(t)
        durs.append(dv)
    if unordered:  # taken in order of time, as the plan reader takes them (stable)
        order = sorted(range(len(at)), key=at.__getitem__)
        steps = [steps[i] for i in order]
        grounds = [grounds[i] for i in order]
        at = [at[i] for i in order]
        durs = [durs[i] for i in order]
    return _run(task, line, ident, tuple(steps), grounds, at, durs, tolerance)


def _read_line(task: Task, text: str, index: int
               ) -> tuple[_Ground, float, float | None] | None:
    """A clean timed line's step (its compiled parts), time and duration; None for a
    line the fast path does not take (the general reader reads it, or says why)."""
    m = _LINE.fullmatch(text)
    if m is None:
        return None
    t = float(m.group(1))
    words = m.group(2).split()
    g = _ground(task, words[0], tuple(words[1:]), index)
    if g is None:
        return None
    d = m.group(3)
    if g.durative and d is None:
        return None  # (the general path's finding)
    dv = float(d) if d is not None else None
    if not math.isfinite(t) or (dv is not None and not math.isfinite(dv)):
        return None
    return g, t, dv


def _pddl3(task: Task) -> bool:
    d, p = task.domain, task.problem
    return bool(getattr(d, "constraints", None) or getattr(d, "preferences", None)
                or getattr(p, "constraints", None) or getattr(p, "preferences", None))


def _run(task: Task, line: int, ident: ItemId, steps: tuple[Step, ...], grounds: list[_Ground],
         at: list[float], durs: list[float | None], tolerance: float
         ) -> tuple[bool, str]:
    from veriplan.verify.temporal import Member, Resume, _Run, ends_of, happenings
    from veriplan.verify.temporal import Part as Kind

    START, END, INSTANT, TIMED = Kind.START, Kind.END, Kind.INSTANT, Kind.TIMED
    members: list[Member] = []
    for i, g in enumerate(grounds):
        if g.durative:
            members.append(Member(at[i], START, i))
            members.append(Member(at[i] + durs[i], END, i))  # type: ignore[operator]
        else:
            members.append(Member(at[i], INSTANT, i))
    tils = _timed_literals(task)
    for j, til in enumerate(task.problem.timed_literals):
        members.append(Member(til.time, TIMED, j))
    members.sort(key=lambda m: m.time)
    groups = happenings(members, tolerance)
    where = ends_of(groups)
    goal = compiled_goal(task)  # (before the values' list is made: it may add fluents)
    slots = task_slots(task)
    dslot = slots.of(DURATION)
    values = slots.fresh()
    slots.fit(values)
    bits = task.base_init
    n = len(steps)
    ends_left = [2 if i in where else 1 for i in range(n)]
    active: list[int] = []
    done = 0
    last_plan_time = 0.0
    stop = len(groups)
    for k, g in enumerate(groups):
        before = (bits, values.copy(), ends_left.copy(), active.copy(), done, last_plan_time)
        parts: list[tuple[Member, Part]] = []
        for m in g:
            kind = m.part
            if kind is TIMED:
                parts.append((m, tils[m.index]))
            else:
                last_plan_time = max(last_plan_time, m.time)
                ps = grounds[m.index].parts
                parts.append((m, ps[0] if kind is START or kind is INSTANT else ps[1]))
        ok = all(p.simple for _m, p in parts)
        if ok and len(parts) > 1:
            for a in range(len(parts)):
                for b in range(a + 1, len(parts)):
                    if _interfere(parts[a][1], parts[b][1]):
                        ok = False
                        break
                if not ok:
                    break
        if ok:
            for m, p in parts:
                cs = p.cs
                if cs is None:  # a timed literal
                    bits = (bits & ~p.delete) | p.add
                    continue
                if m.part is not INSTANT:
                    values[dslot] = durs[m.index]
                    if p.duration and not _durations_hold(p, values, durs[m.index],
                                                          tolerance, slots):
                        ok = False
                        break
                after = cs.fn(bits, values, cs)
                if after is None:
                    ok = False
                    break
                bits = after
        if ok:
            for m in g:
                if m.part is START and where[m.index][1] > k:
                    active.append(m.index)
                elif m.part is END and m.index in active:
                    active.remove(m.index)
                if m.part is not TIMED:
                    ends_left[m.index] -= 1
                    if ends_left[m.index] == 0:
                        done += 1
            for i in active:  # over all, after this happening
                over = grounds[i].parts[2]
                values[dslot] = durs[i]
                if not over.simple or over.cs.fn(bits, values, over.cs) is None:
                    ok = False
                    break
        if not ok:
            bits, values, ends_left, active, done, last_plan_time = before
            stop = k
            break
    values[dslot] = None
    if stop == len(groups) and goal.simple and goal.fn(bits, values, goal) is not None:
        metric = "null"
        if task.problem.metric is not None:
            mv = metric_value(task, SlotValues(slots, values), last_plan_time)
            metric = json_value(mv.value if mv is not None else None)
        return True, record_text(line, id_json(ident), "true", n, "null", "null", "null",
                                 "null", "", "", "", metric)
    state = slots.to_dict(values)
    run = _Run(task, steps, False, state)
    resume = Resume(stop, bits, state, dict(enumerate(ends_left)), active,
                    done, last_plan_time, where)
    r = run.execute(groups, at, durs, tolerance, resume)
    return result_record(line, ident, r)


def _durations_hold(p: Part, values: list[float | None], d: float | None,
                    tolerance: float, slots) -> bool:
    """The start's duration constraints hold of ``d`` within the tolerance (False:
    one does not, or has no value: the general path says which)."""
    assert d is not None
    view = None
    sub = p.sub
    for op, expr in p.duration:
        if expr.__class__ is float or expr.__class__ is int:
            bound = float(expr)  # type: ignore[arg-type]
        else:
            if view is None:
                view = SlotValues(slots, values)
            try:
                bound = N.value(expr, sub, view)  # type: ignore[arg-type]
            except N.Undefined:
                return False
        if op is CompareOp.EQ:
            miss = abs(d - bound)
        elif op is CompareOp.LE:
            miss = d - bound
        else:
            miss = bound - d
        if not miss <= tolerance:
            return False
    return True


__all__ = ["timed_record"]
