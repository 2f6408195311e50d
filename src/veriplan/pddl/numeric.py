"""Numeric fluents: evaluating expressions, comparisons and updates in a state.

A numeric state is the task's bitset of atoms and a map from ground fluents
(:class:`~veriplan.pddl.ast.FuncTerm`) to numbers; a fluent the map lacks has
no value, and reading it (as reading ``(/ x 0)``) is an :class:`Undefined`
the validator reports as a finding, as VAL does. Numbers are Python floats
(IEEE doubles, VAL's precision). An action's effects read the state before
it: every value is computed first, then all updates are made
(:func:`updates` then :func:`apply_updates`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from veriplan.core.atom import Atom
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
    When,
    expr_pddl,
)

Values = dict[FuncTerm, float]


class Undefined(Exception):
    """An expression without a value: a fluent never given one, or a division by
    zero; ``reason`` says which, ``term`` names the fluent (if one)."""

    def __init__(self, reason: str, term: FuncTerm | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.term = term


def number_text(v: float) -> str:
    """A number as VAL prints it (C++ ``ostream << double``: 6 significant digits)."""
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.6g}"


def ground_term(t: FuncTerm, sub: Mapping[str, str]) -> FuncTerm:
    if not sub or not t.args:
        return t
    return FuncTerm(t.name, tuple([sub.get(a, a) for a in t.args]))


def value(e: NumExpr, sub: Mapping[str, str], values: Mapping[FuncTerm, float],
          total_time: float = 0.0) -> float:
    """The value of ``e`` under ``sub`` (raises :class:`Undefined`)."""
    cls = e.__class__
    if cls is int or cls is float:
        return e  # type: ignore[return-value]
    if cls is FuncTerm:
        if e == TOTAL_TIME:
            return total_time
        g = ground_term(e, sub)  # type: ignore[arg-type]
        v = values.get(g)
        if v is None:
            raise Undefined(f"{g} has no value (the problem's :init does not set it and "
                            "no step before assigned it)", g)
        return v
    op = e.op  # type: ignore[union-attr]
    args = [value(a, sub, values, total_time) for a in e.args]  # type: ignore[union-attr]
    if op is ArithOp.ADD:
        out = math.fsum(args) if len(args) > 2 else args[0] + args[1]
    elif op is ArithOp.SUB:
        out = args[0] - args[1]
    elif op is ArithOp.MUL:
        out = args[0]
        for a in args[1:]:
            out *= a
    elif op is ArithOp.DIV:
        if args[1] == 0:
            raise Undefined(f"division by zero in {expr_text(e, sub)}")
        out = args[0] / args[1]
    else:
        out = -args[0]
    if math.isinf(out) or math.isnan(out):
        raise Undefined(f"{expr_text(e, sub)} overflows (its value is not a finite number)")
    return out


def compare(op: CompareOp, a: float, b: float) -> bool:
    if op is CompareOp.LT:
        return a < b
    if op is CompareOp.LE:
        return a <= b
    if op is CompareOp.EQ:
        return a == b
    if op is CompareOp.GE:
        return a >= b
    return a > b


def expr_text(e: NumExpr, sub: Mapping[str, str] | None = None) -> str:
    """PDDL text of ``e``, numbers as VAL prints them, variables of ``sub`` put in."""
    return expr_pddl(e, number_text, dict(sub) if sub else None)


def fluents(e: NumExpr, sub: Mapping[str, str]) -> Iterator[FuncTerm]:
    """The ground fluents ``e`` reads."""
    if isinstance(e, FuncTerm):
        if e != TOTAL_TIME:
            yield ground_term(e, sub)
    elif isinstance(e, Arith):
        for a in e.args:
            yield from fluents(a, sub)


def comparison_text(c: Compare, sub: Mapping[str, str],
                    values: Mapping[FuncTerm, float]) -> str:
    """``(>= (fuel truck1) 10): fuel truck1 = 4.5``: the comparison with the values
    of the fluents that made it what it is."""
    text = f"({c.op.value} {expr_text(c.left, sub)} {expr_text(c.right, sub)})"
    shown = []
    for side in (c.left, c.right):
        for t in fluents(side, sub):
            v = values.get(t)
            item = f"{t} = {number_text(v) if v is not None else 'undefined'}"
            if item not in shown:
                shown.append(item)
    return f"{text}: {', '.join(shown)}" if shown else text


@dataclass(frozen=True, slots=True)
class Update:
    """One ground numeric update, its value computed in the state before the action."""

    op: UpdateOp
    target: FuncTerm
    amount: float


def update_of(e: NumericEffect | Increase, sub: Mapping[str, str],
              values: Mapping[FuncTerm, float]) -> Update:
    if isinstance(e, Increase):
        target = FuncTerm("total-cost")
        amount = value(e.value, sub, values)
        return Update(UpdateOp.INCREASE, target, amount)
    return Update(e.op, ground_term(e.target, sub), value(e.value, sub, values))


def apply_updates(values: Values, ups: list[Update]) -> Values:
    """The values after ``ups`` (computed in the state before): a new map.
    Updating a fluent without a value (other than by ``assign``) is Undefined."""
    out = dict(values)
    for u in ups:
        if u.op is UpdateOp.ASSIGN:
            out[u.target] = u.amount
            continue
        old = out.get(u.target)
        if old is None:
            raise Undefined(f"{u.target} has no value to {u.op.value} (the problem's "
                            ":init does not set it and no step before assigned it)", u.target)
        if u.op is UpdateOp.INCREASE:
            new = old + u.amount
        elif u.op is UpdateOp.DECREASE:
            new = old - u.amount
        elif u.op is UpdateOp.SCALE_UP:
            new = old * u.amount
        else:
            if u.amount == 0:
                raise Undefined(f"(scale-down {u.target} 0) divides by zero")
            new = old / u.amount
        if math.isinf(new) or math.isnan(new):
            raise Undefined(f"{u.target} overflows (its value is not a finite number)",
                            u.target)
        out[u.target] = new
    return out


class Holds:
    """Evaluation of lifted formulas in a numeric state of a task: ``bit`` finds
    an atom's bit (None: never true), ``objects_of`` lists the objects of a type."""

    __slots__ = ("bit", "objects_of", "derived")

    def __init__(self, bit, objects_of, derived=None) -> None:
        self.bit = bit
        self.objects_of = objects_of
        # veriplan.pddl.derived.Axioms whose rules compare no numbers: a derived
        # atom is settled when it is read (``bits`` then hold basic atoms only)
        self.derived = derived

    def __call__(self, f: Formula, sub: Mapping[str, str], bits: int,
                 values: Mapping[FuncTerm, float]) -> bool:
        cls = f.__class__
        if cls is Atom:
            atom = Atom(f.pred, tuple([sub.get(a, a) for a in f.args]))
            d = self.derived
            if d is not None and f.pred in d.by_pred:  # (interned: it may hold unseen)
                b = d.facts.bit(atom)
                return bool(d.settle(bits, 1 << b) >> b & 1)
            b = self.bit(atom)
            return b is not None and bool(bits >> b & 1)
        if cls is And:
            return all(self(p, sub, bits, values) for p in f.parts)
        if cls is Compare:
            return compare(f.op, value(f.left, sub, values), value(f.right, sub, values))
        if cls is Not:
            return not self(f.arg, sub, bits, values)
        if cls is Or:
            return any(self(p, sub, bits, values) for p in f.parts)
        if cls is Equals:
            return sub.get(f.left, f.left) == sub.get(f.right, f.right)
        if cls is Imply:
            return not self(f.lhs, sub, bits, values) or self(f.rhs, sub, bits, values)
        if cls is Exists or cls is Forall:
            want = cls is Exists
            for b in self.bindings(f.params):
                if self(f.body, {**sub, **b}, bits, values) == want:
                    return want
            return not want
        raise TypeError(f"not a formula: {f!r}")

    def bindings(self, params) -> Iterator[dict[str, str]]:
        from itertools import product

        for vals in product(*[self.objects_of(p.type) for p in params]):
            yield {p.name: v for p, v in zip(params, vals)}


def fire(holds: Holds, effs, sub: Mapping[str, str], bits: int,
         values: Mapping[FuncTerm, float], lits: list[tuple[Atom, bool]],
         ups: list[Update]) -> None:
    """Collect the effects that fire, every condition and value read in the state
    before the action: literals into ``lits``, numeric updates into ``ups``."""
    for e in effs:
        cls = e.__class__
        if cls is When:
            if holds(e.condition, sub, bits, values):
                fire(holds, e.effects, sub, bits, values, lits, ups)
        elif cls is ForallEffect:
            for b in holds.bindings(e.params):
                fire(holds, e.effects, {**sub, **b}, bits, values, lits, ups)
        elif cls is NumericEffect or cls is Increase:
            ups.append(update_of(e, sub, values))
        else:
            lits.append((Atom(e.atom.pred, tuple([sub.get(a, a) for a in e.atom.args])),
                         e.positive))
