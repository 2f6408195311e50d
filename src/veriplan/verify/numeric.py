"""Validation of plans on tasks with numeric fluents, VAL's semantics.

States are the task's bitset of atoms and a map of fluent values (see
:mod:`veriplan.pddl.numeric`). Each step's precondition is read in the state
before it (for a happening of several steps, before the happening), every
effect's condition and value in that state too, then all of the step's (or
happening's) literal effects (deletes, then adds) and numeric updates are
made; derived predicates are brought up to date after every happening. A
step that reads a fluent without a value, or divides by zero, makes the plan
invalid with a finding that names it (VAL: "undefined value").
"""

from __future__ import annotations

from collections.abc import Sequence

from veriplan.core.atom import Atom, ConditionPart, FormulaText, Literal
from veriplan.core.plan import Step
from veriplan.pddl import numeric as N
from veriplan.pddl import numeric_code as C
from veriplan.pddl.ast import (
    And,
    Compare,
    Exists,
    Forall,
    Formula,
    FuncTerm,
    Imply,
    Not,
    Or,
    UpdateOp,
)
from veriplan.pddl.derived import support_text
from veriplan.pddl.task import Task
from veriplan.verify.consistency import StepError, StepErrorKind, check_step
from veriplan.verify.result import (
    ValidationResult,
    join_parts,
    metric_value,
    put_args,
    time_text,
)


def false_parts(holds: N.Holds, f: Formula, sub: dict[str, str], bits: int,
                values: N.Values) -> tuple[ConditionPart, ...]:
    """The top-level conjuncts of ``f`` that are false, arguments put in: literals
    as :class:`Literal`, comparisons with the values that made them false."""
    parts = f.parts if isinstance(f, And) else (f,)
    out: list[ConditionPart] = []
    for p in parts:
        try:
            if holds(p, sub, bits, values):
                continue
        except N.Undefined as u:
            out.append(FormulaText(f"{_text(p, sub)}: {u.reason}"))
            continue
        if isinstance(p, Atom):
            out.append(Literal(Atom(p.pred, tuple(sub.get(a, a) for a in p.args)), True))
        elif isinstance(p, Not) and isinstance(p.arg, Atom):
            a = p.arg
            out.append(Literal(Atom(a.pred, tuple(sub.get(x, x) for x in a.args)), False))
        elif isinstance(p, Compare):
            out.append(FormulaText(N.comparison_text(p, sub, values)))
        else:
            out.append(FormulaText(_text(p, sub)))
    return tuple(out)


def _text(f: Formula, sub: dict[str, str]) -> str:
    from veriplan.pddl.writer import formula_to_pddl

    return put_args(formula_to_pddl(f), sub)


def _reads(holds: N.Holds, f: Formula, sub: dict[str, str], atoms: set[Atom],
           terms: set[FuncTerm]) -> None:
    """The ground atoms and fluents ``f`` reads under ``sub``."""
    if isinstance(f, Atom):
        atoms.add(Atom(f.pred, tuple(sub.get(a, a) for a in f.args)))
    elif isinstance(f, Compare):
        terms.update(N.fluents(f.left, sub))
        terms.update(N.fluents(f.right, sub))
    elif isinstance(f, Not):
        _reads(holds, f.arg, sub, atoms, terms)
    elif isinstance(f, And | Or):
        for p in f.parts:
            _reads(holds, p, sub, atoms, terms)
    elif isinstance(f, Imply):
        _reads(holds, f.lhs, sub, atoms, terms)
        _reads(holds, f.rhs, sub, atoms, terms)
    elif isinstance(f, Exists | Forall):
        for b in holds.bindings(f.params):
            _reads(holds, f.body, {**sub, **b}, atoms, terms)


class _Executed:
    """One step's reading of the state before its happening."""

    __slots__ = ("index", "step", "lits", "ups", "atoms_read", "terms_read")

    def __init__(self, index: int, step: Step, lits, ups) -> None:
        self.index = index
        self.step = step
        self.lits: list[tuple[Atom, bool]] = lits
        self.ups: list[N.Update] = ups
        self.atoms_read: set[Atom] = set()
        self.terms_read: set[FuncTerm] = set()


def _interfere(a: _Executed, b: _Executed) -> str | None:
    """What two steps of one happening interfere on (None: they do not), as VAL
    judges mutex: one writes what the other reads, one adds what the other
    deletes, or both update one fluent (two increases or decreases commute)."""
    for x, y in ((a, b), (b, a)):
        for atom, positive in x.lits:
            if atom in y.atoms_read:
                return f"{x.step} {'adds' if positive else 'deletes'} {atom}, which {y.step} reads"
            if (atom, not positive) in y.lits:
                return f"{x.step} {'adds' if positive else 'deletes'} {atom}, which {y.step} " \
                       f"{'deletes' if positive else 'adds'}"
        for u in x.ups:
            if u.target in y.terms_read:
                return f"{x.step} changes {u.target}, which {y.step} reads"
    additive = (UpdateOp.INCREASE, UpdateOp.DECREASE)
    for u in a.ups:
        for v in b.ups:
            if u.target == v.target and not (u.op in additive and v.op in additive):
                return f"{a.step} and {b.step} both change {u.target}"
    return None


def validate_numeric(task: Task, steps: tuple[Step, ...], trace: bool,
                     spans: list[tuple[int, int]] | None, times: Sequence[float] | None,
                     resume: tuple[int, int, list[float | None]] | None = None
                     ) -> ValidationResult:
    """The :class:`~veriplan.verify.validator.ValidationResult` of ``steps`` on a
    numeric ``task`` (``spans``: happenings of several steps, or None).
    ``resume``: (``k``, bits, fast values) of the state after the first ``k``
    steps, one step a happening, as the fast path found it (no trace)."""
    axioms = task.axioms
    settled = axioms is not None and not axioms.numeric  # derived atoms read on demand
    holds = N.Holds(task.facts.find, task.objects_of_type, axioms if settled else None)
    slots = C.task_slots(task)
    values: N.Values = {}
    fast_values: list[float | None] | None = None  # the fast path's state, while it runs
    bits = task.base_init
    states: list[tuple[int, N.Values]] = []

    def close(b: int) -> int:
        if axioms is None or settled:
            return b
        return axioms.close_numeric(b, values, holds)

    def fail(err: StepError) -> ValidationResult:
        ok = task._numeric_ok
        errors = tuple(e for i, s in enumerate(steps, 1) if (s.name, s.args) not in ok
                       and (e := check_step(task, s, i)) is not None)
        return ValidationResult(
            valid=False, plan=steps, failed_step=err.index, action=str(err.step),
            error=err.kind, detail=err.detail, unsatisfied=err.unsatisfied,
            step_errors=errors, cost=values.get(FuncTerm("total-cost"), 0.0),
            steps_executed=err.index - 1, trace=_trace(task, states) if trace else None)

    def undefined(i: int, step: Step, u: N.Undefined, where: str) -> StepError:
        return StepError(i + 1, step, StepErrorKind.UNDEFINED, f"{where}: {u.reason}",
                         (FormulaText(str(u.term) if u.term is not None else u.reason),))

    fast = not trace and (axioms is None or settled)
    ok_steps = task._numeric_ok
    spans = spans or [(i, i + 1) for i in range(len(steps))]
    if resume is not None:
        first, bits, fast_values = resume
        spans = spans[first:]
    else:
        try:
            bits = close(bits)
        except N.Undefined as u:
            values = slots.to_dict(slots.init)
            return fail(StepError(1, steps[0] if steps else Step("init"),
                                  StepErrorKind.UNDEFINED,
                                  f"the derived predicates of the initial state: {u.reason}"))
        if fast:
            fast_values = slots.fresh()
        else:
            values = slots.to_dict(slots.init)
        if trace:
            states.append((axioms.close(bits) if settled else bits, values))
    for start, stop in spans:
        if fast and stop - start == 1:  # the compiled step, when it can say
            step = steps[start]
            if (step.name, step.args) in ok_steps:
                cs = C.compiled_step(task, step)
                if cs.simple:
                    if fast_values is None:
                        fast_values = slots.to_list(values)
                    slots.fit(fast_values)
                    after = cs.fn(bits, fast_values, cs)
                    if after is not None:
                        bits = after
                        continue
        if fast_values is not None:  # the general path's state
            values, fast_values = slots.to_dict(fast_values), None
        done: list[_Executed] = []
        for i in range(start, stop):
            step = steps[i]
            if (step.name, step.args) not in task._numeric_ok:
                err = check_step(task, step, i + 1)
                if err is not None:
                    return fail(err)
                if len(ok_steps) > 1 << 16:
                    ok_steps.clear()
                ok_steps.add((step.name, step.args))
            schema = task.schemas[step.name]
            sub = {p.name: a for p, a in zip(schema.params, step.args)}
            try:
                ok = holds(schema.precondition, sub, bits, values)
            except N.Undefined as u:
                unsat = false_parts(holds, schema.precondition, sub, bits, values)
                err = undefined(i, step, u, "its precondition has no value")
                return fail(StepError(err.index, step, err.kind, err.detail, unsat))
            if not ok:
                unsat = false_parts(holds, schema.precondition, sub, bits, values)
                noun = "precondition" if len(unsat) == 1 else "preconditions"
                detail = (f"{noun} {join_parts(unsat)} {'is' if len(unsat) == 1 else 'are'} false")
                if axioms is not None:
                    why = support_text(task, unsat, bits)
                    if why:
                        detail += f" ({why})"
                if stop - start > 1:
                    at = time_text(times[start])
                    detail += f" in the state before the happening at time {at}"
                return fail(StepError(i + 1, step, StepErrorKind.PRECONDITION, detail, unsat))
            lits: list[tuple[Atom, bool]] = []
            ups: list[N.Update] = []
            try:
                N.fire(holds, schema.effects, sub, bits, values, lits, ups)
            except N.Undefined as u:
                return fail(undefined(i, step, u, "an effect has no value"))
            ex = _Executed(i + 1, step, lits, ups)
            if stop - start > 1:
                _reads(holds, schema.precondition, sub, ex.atoms_read, ex.terms_read)
                for e in schema.effects:
                    _effect_reads(holds, e, sub, ex)
            done.append(ex)
        for a in range(len(done)):
            for b in range(a + 1, len(done)):
                why = _interfere(done[a], done[b])
                if why is not None:
                    x, y = done[a], done[b]
                    return fail(StepError(
                        y.index, y.step, StepErrorKind.MUTEX,
                        f"steps {x.index} {x.step} and {y.index} {y.step} are both at time "
                        f"{time_text(times[start])} and interfere: {why}; steps at one time form "
                        "one happening, which cannot hold actions that interfere (give them "
                        "different times)"))
        add = delete = 0
        bit = task.facts.bit
        for ex in done:
            for atom, positive in ex.lits:
                if positive:
                    add |= 1 << bit(atom)
                else:
                    delete |= 1 << bit(atom)
        try:
            values = N.apply_updates(values, [u for ex in done for u in ex.ups])
            bits = close((bits & ~delete) | add)
        except N.Undefined as u:
            ex = done[-1]
            return fail(undefined(ex.index - 1, ex.step, u, "an effect has no value"))
        if trace:
            states.append((axioms.close(bits) if settled else bits, values))
    if fast_values is not None:
        slots.fit(fast_values)
        goal_c = C.compiled_goal(task)
        if goal_c.simple and goal_c.fn(bits, fast_values, goal_c) is not None:
            return ValidationResult(
                valid=True, plan=steps, cost=_value(slots, fast_values, _TOTAL_COST, 0.0),
                steps_executed=len(steps),
                metric=metric_value(task, C.SlotValues(slots, fast_values), float(len(steps))))
        values = slots.to_dict(fast_values)
    goal = task.problem.goal
    try:
        reached = holds(goal, {}, bits, values)
    except N.Undefined:
        reached = False
    unmet = () if reached else false_parts(holds, goal, {}, bits, values)
    # VAL's (total-time) of a plan of instantaneous actions is its number of steps,
    # timed or not (measured: steps at 5.0 and 7.0 give 2)
    total_time = float(len(steps))
    return ValidationResult(
        valid=not unmet, plan=steps, unmet_goals=unmet,
        cost=values.get(FuncTerm("total-cost"), 0.0), steps_executed=len(steps),
        trace=_trace(task, states) if trace else None,
        metric=metric_value(task, values, total_time))


_TOTAL_COST = FuncTerm("total-cost")


def _value(slots: C.Slots, values: list[float | None], term: FuncTerm, default: float
           ) -> float:
    i = slots.index.get(term)
    x = values[i] if i is not None and i < len(values) else None
    return default if x is None else x


def _effect_reads(holds: N.Holds, e, sub: dict[str, str], ex: _Executed) -> None:
    from veriplan.pddl.ast import ForallEffect, Increase, NumericEffect, When

    if isinstance(e, When):
        _reads(holds, e.condition, sub, ex.atoms_read, ex.terms_read)
        for x in e.effects:
            _effect_reads(holds, x, sub, ex)
    elif isinstance(e, ForallEffect):
        for b in holds.bindings(e.params):
            for x in e.effects:
                _effect_reads(holds, x, {**sub, **b}, ex)
    elif isinstance(e, NumericEffect | Increase):
        ex.terms_read.update(N.fluents(e.value, sub))


def _trace(task: Task, states: list[tuple[int, N.Values]]) -> tuple[tuple[str, ...], ...]:
    out = []
    for bits, values in states:
        atoms = [str(a) for a in task.atoms(bits)]
        atoms += [f"(= {t} {N.number_text(v)})" for t, v in sorted(
            values.items(), key=lambda kv: (kv[0].name, kv[0].args))]
        out.append(tuple(atoms))
    return tuple(out)




def replay(task: Task, steps: Sequence[Step]) -> tuple[int, N.Values]:
    """The state (atoms' bitset and fluent values) after ``steps``, which must
    execute (as :func:`validate_numeric` found): one step a happening."""
    axioms = task.axioms
    settled = axioms is not None and not axioms.numeric
    holds = N.Holds(task.facts.find, task.objects_of_type, axioms if settled else None)
    values: N.Values = {k: float(v) for k, v in task.problem.numeric_init.items()}

    def close(b: int) -> int:
        if axioms is None or settled:
            return b
        return axioms.close_numeric(b, values, holds)

    bits = close(task.base_init)
    for step in steps:
        schema = task.schemas[step.name]
        sub = {p.name: a for p, a in zip(schema.params, step.args)}
        lits: list[tuple[Atom, bool]] = []
        ups: list[N.Update] = []
        N.fire(holds, schema.effects, sub, bits, values, lits, ups)
        add = delete = 0
        for atom, positive in lits:
            if positive:
                add |= 1 << task.facts.bit(atom)
            else:
                delete |= 1 << task.facts.bit(atom)
        values = N.apply_updates(values, ups)
        bits = close((bits & ~delete) | add)
    return bits, values
