"""Numeric steps compiled to Python: the validator's fast path on numeric tasks.

A fast state is the task's bitset of atoms and a list of fluent values, one
position a ground fluent (:class:`Slots`; None: no value). Each action schema
(and the goal) is compiled into a function, generated as Python source
from its precondition and effects (once per source and numbers: the problems of
a domain share it), that takes the state and a
:class:`CompiledStep` (one ground step: its literal masks and the positions of
its fluents) and gives the bitset after the step, with the list updated in
place, or None when it cannot say: a false precondition, a fluent without a
value, a division by zero or a value that is not finite anywhere in an
expression (VAL's "undefined"). On None the list is as given, and the general
path (:mod:`veriplan.pddl.numeric`) judges the step and says why; the two give
the same verdicts by construction (every read, every operation and its order
are the general path's).

A schema the code generator does not take (a conditional effect, a numeric
effect under ``forall``, ``(total-time)`` in a condition) gives steps with
``simple`` False: the general path runs them. The generated source holds
numbers and operators only: names, fluents and constants reach it as
positions in the ground step and in a constants tuple, never as text.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from veriplan.core.atom import Atom, Literal
from veriplan.core.plan import Step
from veriplan.pddl.ast import (
    TOTAL_TIME,
    And,
    Arith,
    ArithOp,
    Compare,
    CompareOp,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    FuncTerm,
    Imply,
    Increase,
    Not,
    NumericEffect,
    NumExpr,
    Or,
    UpdateOp,
)
from veriplan.pddl.numeric import Holds, Undefined

_TOTAL_COST = FuncTerm("total-cost")


class Slots:
    """A task's ground fluents as positions of a list: the initial values first
    (in :init's order), then every fluent a compiled step reads or writes."""

    __slots__ = ("by_key", "index", "init")

    def __init__(self, init: Mapping[FuncTerm, float]) -> None:
        self.index: dict[FuncTerm, int] = {}
        self.by_key: dict[tuple[str, tuple[str, ...]], int] = {}
        self.init: list[float | None] = []
        for k, v in init.items():
            self.index[k] = len(self.init)
            self.init.append(float(v))

    def of(self, term: FuncTerm) -> int:
        i = self.index.get(term)
        if i is None:
            i = self.index[term] = len(self.index)
        return i

    def of_key(self, name: str, args: tuple[str, ...]) -> int:
        """:meth:`of` the fluent ``(name args...)``, found by the pair."""
        key = (name, args)
        i = self.by_key.get(key)
        if i is None:
            i = self.by_key[key] = self.of(FuncTerm(name, args))
        return i

    def fresh(self) -> list[float | None]:
        """The initial values, one position a fluent known so far."""
        out = self.init.copy()
        if len(out) < len(self.index):
            out.extend([None] * (len(self.index) - len(out)))
        return out

    def fit(self, values: list[float | None]) -> None:
        """Grow ``values`` to every fluent known so far (without a value)."""
        if len(values) < len(self.index):
            values.extend([None] * (len(self.index) - len(values)))

    def to_dict(self, values: list[float | None]) -> dict[FuncTerm, float]:
        """The fluents with a value, as the general path keeps them."""
        return {t: x for t, i in self.index.items()
                if i < len(values) and (x := values[i]) is not None}

    def to_list(self, values: Mapping[FuncTerm, float]) -> list[float | None]:
        out: list[float | None] = [None] * len(self.index)
        for t, x in values.items():
            i = self.of(t)
            if i >= len(out):
                out.extend([None] * (i + 1 - len(out)))
            out[i] = x
        return out


class SlotValues(Mapping[FuncTerm, float]):
    """A fast state's list read as the general path's map (for the parts of a
    condition the generated code leaves to :class:`~veriplan.pddl.numeric.Holds`)."""

    __slots__ = ("slots", "values")

    def __init__(self, slots: Slots, values: list[float | None]) -> None:
        self.slots = slots
        self.values = values

    def get(self, key, default=None):  # noqa: ANN001 (Mapping's signature)
        i = self.slots.index.get(key)
        if i is None or i >= len(self.values):
            return default
        x = self.values[i]
        return default if x is None else x

    def __getitem__(self, key: FuncTerm) -> float:
        x = self.get(key)
        if x is None:
            raise KeyError(key)
        return x

    def __iter__(self) -> Iterator[FuncTerm]:
        return iter(self.slots.to_dict(self.values))

    def __len__(self) -> int:
        return len(self.slots.to_dict(self.values))


# ----- the code of one schema ------------------------------------------------------------------
_CMP_TEXT = {CompareOp.LT: "<", CompareOp.LE: "<=", CompareOp.EQ: "==", CompareOp.GE: ">=",
             CompareOp.GT: ">"}
_UPDATE_TEXT = {UpdateOp.INCREASE: "+", UpdateOp.DECREASE: "-", UpdateOp.SCALE_UP: "*",
                UpdateOp.SCALE_DOWN: "/"}


class _Unsupported(Exception):
    """A part the generator does not take: the schema's steps run the general path."""


@dataclass
class _Writer:
    """The source of one function being generated."""

    terms: list[FuncTerm] = field(default_factory=list)  # lifted fluents: slot s<k>
    consts: list[float] = field(default_factory=list)  # numbers: c[<k>]
    lines: list[str] = field(default_factory=list)
    temps: int = 0

    def temp(self, code: str, check: str) -> str:
        name = f"t{self.temps}"
        self.temps += 1
        self.lines.append(f"        {name} = {code}")
        self.lines.append(f"        if {check.format(name)}: return None")
        return name

    def expr(self, e: NumExpr) -> str:
        """Code computing ``e`` into a temporary, each read and each operation
        checked as the general path checks it (no value; not finite)."""
        cls = e.__class__
        if cls is int or cls is float:
            self.consts.append(float(e))  # type: ignore[arg-type]
            return f"c[{len(self.consts) - 1}]"
        if cls is FuncTerm:
            if e == TOTAL_TIME:
                raise _Unsupported("(total-time) in a condition or an effect")
            self.terms.append(e)  # type: ignore[arg-type]
            return self.temp(f"v[s[{len(self.terms) - 1}]]", "{} is None")
        assert isinstance(e, Arith)
        args = [self.expr(a) for a in e.args]
        op = e.op
        if op is ArithOp.NEG:
            code = f"-{args[0]}"
        elif op is ArithOp.ADD:
            code = f"{args[0]} + {args[1]}" if len(args) == 2 else f"fsum(({', '.join(args)},))"
        elif op is ArithOp.SUB:
            code = f"{args[0]} - {args[1]}"
        elif op is ArithOp.MUL:
            code = " * ".join(args)
        else:
            code = f"{args[0]} / {args[1]}"  # (raises ZeroDivisionError for 0)
        return self.temp(code, "{0} - {0}")  # (inf - inf and nan - nan are nan: true)


@dataclass(frozen=True)
class _Lifted:
    """One schema's (or the goal's) compiled parts, their ground forms made by
    :func:`compiled_step`."""

    fn: object | None  # the generated function (None: the general path's)
    terms: tuple[FuncTerm, ...]  # its fluents, lifted, in the order of ``s``
    pre_lits: tuple[tuple[Atom, bool], ...]  # the precondition's top-level literals
    general: tuple[Formula, ...]  # the precondition's other parts (for Holds)
    targets: tuple[int, ...]  # the positions in ``terms`` of the updated fluents


#: The generated functions by their source and numbers: a function is made of
#: these alone (the task's parts reach it through the ground step), so schemas that
#: generate the same source and numbers (every task of a domain; a schema read again)
#: share one compiled function, and a schema with another body, whatever its name
#: and its domain's, gets its own.
_CODE: dict[tuple[str, str], object] = {}
_CODE_MAX = 4096


def _function(source: str, consts: tuple[float, ...]) -> object:
    """The function ``step`` that ``source`` defines, its numbers ``consts`` (``c``),
    compiled once per (source, numbers)."""
    key = (source, repr(consts))  # (repr: -0.0 and 0.0, equal as floats, kept apart)
    fn = _CODE.get(key)
    if fn is None:
        namespace: dict[str, object] = {"fsum": math.fsum, "c": consts}
        exec(compile(source, "<veriplan numeric step>", "exec"), namespace)  # noqa: S102
        fn = namespace["step"]
        if len(_CODE) >= _CODE_MAX:
            _CODE.clear()
        _CODE[key] = fn
    return fn


def _lift(condition: Formula, effects: tuple) -> _Lifted:
    """The function of one schema (its derived atoms settled, when it reads any,
    by the ground step's ``settle``: the task's
    :meth:`~veriplan.pddl.derived.Axioms.settle`)."""
    w = _Writer()
    pre_lits: list[tuple[Atom, bool]] = []
    general: list[Formula] = []
    head = ["def step(bits, v, g):",
            "    view = g.settle(bits, g.derived) if g.derived else bits"]
    head += ["    pos = g.pos", "    if view & pos != pos or view & g.neg: return None",
             "    s = g.slots", "    try:", "        pass"]
    try:
        for p in (condition.parts if isinstance(condition, And) else (condition,)):
            if isinstance(p, Atom):
                pre_lits.append((p, True))
            elif isinstance(p, Not) and isinstance(p.arg, Atom):
                pre_lits.append((p.arg, False))
            elif isinstance(p, Compare):
                left, right = w.expr(p.left), w.expr(p.right)
                w.lines.append(f"        if not {left} {_CMP_TEXT[p.op]} {right}: return None")
            else:
                w.lines.append(f"        if not g.general[{len(general)}](view, v): return None")
                general.append(p)
        updates = []
        for e in effects:
            if isinstance(e, NumericEffect | Increase):
                target = _TOTAL_COST if isinstance(e, Increase) else e.target
                op = UpdateOp.INCREASE if isinstance(e, Increase) else e.op
                updates.append((op, target, w.expr(e.value)))
            elif isinstance(e, ForallEffect):
                if _has_numeric(e.effects):
                    raise _Unsupported("a numeric effect under forall")
            elif not isinstance(e, Literal):
                raise _Unsupported("a conditional effect")
        targets = []
        news = []
        for op, target, amount in updates:  # every amount read before
            if target == TOTAL_TIME:
                raise _Unsupported("an update of (total-time)")
            w.terms.append(target)
            targets.append(len(w.terms) - 1)
            slot = f"s[{len(w.terms) - 1}]"
            if op is UpdateOp.ASSIGN:
                news.append((slot, amount))
                continue
            old = w.temp(f"v[{slot}]", "{} is None")
            new = w.temp(f"{old} {_UPDATE_TEXT[op]} {amount}", "{0} - {0}")
            news.append((slot, new))
        w.lines.append("    except (TypeError, ZeroDivisionError, OverflowError): return None")
        w.lines += [f"    v[{slot}] = {new}" for slot, new in news]
        w.lines.append("    return (bits & g.keep) | g.add")
    except _Unsupported:
        return _Lifted(None, (), (), (), ())
    source = "\n".join(head + w.lines) + "\n"
    return _Lifted(_function(source, tuple(w.consts)), tuple(w.terms), tuple(pre_lits),
                   tuple(general), tuple(targets))


def _has_numeric(effects) -> bool:
    for e in effects:
        if isinstance(e, NumericEffect | Increase):
            return True
        if isinstance(e, ForallEffect) and _has_numeric(e.effects):
            return True
        if not isinstance(e, Literal | ForallEffect):
            return True  # (a when: not taken either)
    return False


# ----- ground steps ----------------------------------------------------------------------------
class CompiledStep:
    """One ground step (or the goal) of a numeric task, compiled: ``fn(bits,
    values, self)`` gives the bitset after it (``values`` updated in place) or None
    (``values`` as given). ``simple`` False: the general path runs it (and ``fn``
    says None)."""

    __slots__ = ("step", "fn", "pos", "neg", "derived", "settle", "add", "keep", "slots",
                 "general", "simple")

    def __init__(self, task, lifted: _Lifted, sub: dict[str, str], effects: tuple,
                 step: Step) -> None:
        self.step = step
        self.fn = lifted.fn
        self.simple = lifted.fn is not None
        axioms = task.axioms
        derived = axioms.by_pred if axioms is not None else {}
        self.settle = axioms.settle if axioms is not None else None
        bit = task.facts.bit  # (a (pred, args) tuple finds the Atom's bit)
        self.pos = self.neg = self.derived = 0
        for atom, positive in lifted.pre_lits:
            b = bit((atom.pred, tuple([sub.get(x, x) for x in atom.args])))
            if atom.pred in derived:
                self.derived |= 1 << b
            if positive:
                self.pos |= 1 << b
            else:
                self.neg |= 1 << b
        slots = task_slots(task)
        of = slots.of_key
        self.slots = tuple([of(t.name, tuple([sub.get(a, a) for a in t.args]))
                            for t in lifted.terms])
        targets = [self.slots[k] for k in lifted.targets]
        if len(set(targets)) != len(targets):
            self.simple = False  # (two updates of one fluent: the general path's order)
        if not self.simple:
            self.fn = never
        holds = None
        if lifted.general:
            holds = Holds(task.facts.find, task.objects_of_type, axioms)
            self.general = tuple([_general(holds, f, sub, slots, bit, derived)
                                  for f in lifted.general])
        else:
            self.general = ()
        add = delete = 0
        for e in effects:
            if isinstance(e, Literal):
                a = e.atom
                b = 1 << bit((a.pred, tuple([sub.get(x, x) for x in a.args])))
                if e.positive:
                    add |= b
                else:
                    delete |= b
            elif isinstance(e, ForallEffect):
                if holds is None:
                    holds = Holds(task.facts.find, task.objects_of_type, axioms)
                for atom, positive in _literal_effects((e,), sub, holds):
                    b = 1 << bit(atom)
                    if positive:
                        add |= b
                    else:
                        delete |= b
        self.add = add
        self.keep = ~delete


def never(bits: int, values: list[float | None], g: CompiledStep) -> None:
    """The ``fn`` of a step the generated code does not take."""
    return None


def _general(holds: Holds, f: Formula, sub: dict[str, str], slots: Slots, bit, derived):
    """A precondition part that is neither a literal nor a comparison as a test of
    the fast state: ground (quantifiers expanded over the task's objects, which are
    fixed) into bit tests when it reads atoms alone; else read by Holds."""
    node = _propositional(holds, f, sub, bit, derived)
    if node is not None:
        return _node_test(node)

    def test(bits: int, values: list[float | None]) -> bool:
        try:
            return holds(f, sub, bits, SlotValues(slots, values))
        except Undefined:
            return False  # (the general path says why)
    return test


# A ground condition over atoms: ("lits", pos, neg), ("and" | "or", parts),
# ("not", part) or ("const", truth).
_Node = tuple


def _propositional(holds: Holds, f: Formula, sub: dict[str, str], bit, derived
                   ) -> _Node | None:
    """``f`` under ``sub`` ground into a condition over the atoms' bits; None when
    it compares numbers or reads a derived predicate (Holds reads it)."""
    cls = f.__class__
    if cls is Atom:
        if f.pred in derived:
            return None
        return ("lits", 1 << bit(Atom(f.pred, tuple([sub.get(a, a) for a in f.args]))), 0)
    if cls is Not:
        inner = _propositional(holds, f.arg, sub, bit, derived)
        if inner is None:
            return None
        if inner[0] == "lits" and inner[2] == 0 and inner[1] & (inner[1] - 1) == 0:
            return ("lits", 0, inner[1])  # (not atom)
        if inner[0] == "const":
            return ("const", not inner[1])
        return ("not", inner)
    if cls is Equals:
        return ("const", sub.get(f.left, f.left) == sub.get(f.right, f.right))
    if cls is And or cls is Or:
        parts = [_propositional(holds, p, sub, bit, derived) for p in f.parts]
        return None if any(p is None for p in parts) else _join(cls is And, parts)
    if cls is Forall or cls is Exists:
        parts = []
        for b in holds.bindings(f.params):
            part = _propositional(holds, f.body, {**sub, **b}, bit, derived)
            if part is None:
                return None
            parts.append(part)
        return _join(cls is Forall, parts)
    if cls is Imply:
        lhs = _propositional(holds, f.lhs, sub, bit, derived)
        rhs = _propositional(holds, f.rhs, sub, bit, derived)
        if lhs is None or rhs is None:
            return None
        return _join(False, [("not", lhs) if lhs[0] != "const" else ("const", not lhs[1]),
                             rhs])
    return None


def _join(conjunction: bool, parts: list[_Node]) -> _Node:
    """The conjunction (or disjunction) of ``parts``: constants folded, a
    conjunction's literals joined into one pair of masks."""
    kept: list[_Node] = []
    pos = neg = 0
    for p in parts:
        if p[0] == "const":
            if p[1] != conjunction:
                return ("const", not conjunction)  # (a false part of an and, a true of an or)
            continue
        if conjunction and p[0] == "lits":
            pos |= p[1]
            neg |= p[2]
        else:
            kept.append(p)
    if conjunction:
        if pos & neg:
            return ("const", False)
        if pos or neg:
            kept.append(("lits", pos, neg))
    if not kept:
        return ("const", conjunction)
    if len(kept) == 1:
        return kept[0]
    return ("and" if conjunction else "or", tuple(kept))


def _node_test(node: _Node):
    """A test of a fast state (bits, values) for a ground condition."""
    truth = _node_fn(node)
    return lambda bits, values: truth(bits)


def _node_fn(node: _Node):
    kind = node[0]
    if kind == "const":
        c = node[1]
        return lambda bits: c
    if kind == "lits":
        pos, neg = node[1], node[2]
        return lambda bits: bits & pos == pos and not bits & neg
    if kind == "not":
        inner = _node_fn(node[1])
        return lambda bits: not inner(bits)
    parts = tuple([_node_fn(p) for p in node[1]])
    if kind == "and":
        return lambda bits: all([p(bits) for p in parts])
    # an or of single atoms: one mask
    if all(p[0] == "lits" and p[2] == 0 for p in node[1]):
        mask = 0
        for p in node[1]:
            mask |= p[1]
        if all(p[1] & (p[1] - 1) == 0 for p in node[1]):
            return lambda bits: bits & mask != 0
    return lambda bits: any([p(bits) for p in parts])


def _literal_effects(effects, sub: dict[str, str], holds: Holds
                     ) -> Iterator[tuple[Atom, bool]]:
    for e in effects:
        if isinstance(e, ForallEffect):
            for b in holds.bindings(e.params):
                yield from _literal_effects(e.effects, {**sub, **b}, holds)
        elif isinstance(e, Literal):
            yield Atom(e.atom.pred, tuple([sub.get(x, x) for x in e.atom.args])), e.positive


def task_slots(task) -> Slots:
    """The task's fluent positions (made once, kept on the task)."""
    slots = task.__dict__.get("_slots")
    if slots is None:
        slots = task.__dict__["_slots"] = Slots(task.problem.numeric_init)
    return slots


def _lifted(task, name: str | None) -> _Lifted:
    memo = task.__dict__.setdefault("_lifted", {})
    hit = memo.get(name)
    if hit is None:
        if name is None:
            hit = _lift(task.problem.goal, ())
        else:
            schema = task.schemas[name]
            hit = _lift(schema.precondition, tuple(schema.effects))
        memo[name] = hit
    return hit


def compiled_step(task, step: Step) -> CompiledStep:
    """The compiled ``step`` of ``task``, which must be well-formed (kept on the
    task, per action and arguments)."""
    memo = task.__dict__.setdefault("_compiled_steps", {})
    key = (step.name, step.args)
    hit = memo.get(key)
    if hit is None:
        if len(memo) > 1 << 16:
            memo.clear()
        schema = task.schemas[step.name]
        sub = {p.name: a for p, a in zip(schema.params, step.args)}
        hit = memo[key] = CompiledStep(task, _lifted(task, step.name), sub,
                                       tuple(schema.effects), step)
    return hit


def compiled_goal(task) -> CompiledStep:
    """The task's goal compiled as a step without effects: it gives the bitset
    when the goal holds, else None."""
    hit = task.__dict__.get("_compiled_goal")
    if hit is None:
        hit = task.__dict__["_compiled_goal"] = CompiledStep(
            task, _lifted(task, None), {}, (), Step("goal"))
    return hit
