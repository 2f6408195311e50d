"""Lifted PDDL syntax trees for the supported subset.

Names are lower-case strings; variables keep their leading '?'. Nodes are
immutable and compare by value, so parse -> write -> parse can be checked
with ``==``. :class:`Atom` and :class:`Literal` live in :mod:`veriplan.core.atom`
(states and verdicts use them too) and are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Union

from veriplan.core.atom import Atom, Literal

if TYPE_CHECKING:
    from veriplan.pddl.constraints import Constraint, Preference

__all__ = [
    "DURATION", "NEVER", "OBJECT", "TOTAL_COST", "TOTAL_TIME", "TRUE", "ActionSchema", "And",
    "Arith", "ArithOp", "Atom", "Compare", "CompareOp", "DerivedRule", "Domain",
    "DurationConstraint", "DurativeAction", "Effect", "Equals", "Exists", "TimedLiteral",
    "Forall", "ForallEffect", "Formula", "FuncTerm", "Imply", "Increase", "Literal", "Metric",
    "MetricDirection", "Not", "NumExpr", "NumericEffect", "Or", "Param", "Problem", "UpdateOp",
    "When", "either_members", "either_type", "expr_pddl",
]

OBJECT = "object"


@dataclass(frozen=True, slots=True)
class Param:
    name: str  # with the leading '?'
    type: str = OBJECT  # a type name, or "(either t1 t2)" (see either_type)


def either_type(members: tuple[str, ...]) -> str:
    """The name of the union type ``(either t1 t2 ...)``: its members sorted and
    without repeats, so equal unions have one name."""
    return "(either " + " ".join(sorted(set(members))) + ")"


def either_members(t: str) -> tuple[str, ...]:
    """The member types of a union type's name; ``(t,)`` for any other type."""
    if t.startswith("(either "):
        return tuple(t[len("(either "):-1].split())
    return (t,)


@dataclass(frozen=True, slots=True)
class Equals:
    left: str
    right: str


@dataclass(frozen=True, slots=True)
class Not:
    arg: Formula


@dataclass(frozen=True, slots=True)
class And:
    parts: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Or:
    parts: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Imply:
    lhs: Formula
    rhs: Formula


@dataclass(frozen=True, slots=True)
class Exists:
    params: tuple[Param, ...]
    body: Formula


@dataclass(frozen=True, slots=True)
class Forall:
    params: tuple[Param, ...]
    body: Formula


@dataclass(frozen=True, slots=True)
class FuncTerm:
    """A numeric function application such as ``(total-cost)`` or ``(road ?a ?b)``."""

    name: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


TOTAL_COST = "total-cost"
TOTAL_TIME = FuncTerm("total-time")  # the metric's (total-time): the plan's makespan
#: ``?duration`` in a durative action's expressions: the step's duration ``[d]``, read
#: as this fluent (its value is put in while the action's parts are evaluated)
DURATION = FuncTerm("?duration")


class ArithOp(StrEnum):
    ADD = "+"
    SUB = "-"  # binary; unary minus is NEG
    MUL = "*"
    DIV = "/"
    NEG = "neg"  # (- e)


@dataclass(frozen=True, slots=True)
class Arith:
    """An arithmetic expression: ``(+ a b ...)``, ``(- a b)``, ``(- a)``, ``(* a b ...)``,
    ``(/ a b)``."""

    op: ArithOp
    args: tuple[NumExpr, ...]


# A number, a fluent (function application) or an arithmetic expression.
NumExpr = Union[int, float, FuncTerm, Arith]


def expr_pddl(e: NumExpr, number=repr, sub: dict[str, str] | None = None) -> str:
    """PDDL text of ``e``: numbers written by ``number`` (``repr`` reads back to the
    same value), variables of ``sub`` put in."""
    if isinstance(e, int | float):
        return number(e)
    if isinstance(e, FuncTerm):
        if e == DURATION:
            return "?duration"
        args = [sub.get(a, a) for a in e.args] if sub else e.args
        return "(" + " ".join((e.name, *args)) + ")"
    if e.op is ArithOp.NEG:
        return f"(- {expr_pddl(e.args[0], number, sub)})"
    return f"({e.op.value} " + " ".join(expr_pddl(a, number, sub) for a in e.args) + ")"


class CompareOp(StrEnum):
    LT = "<"
    LE = "<="
    EQ = "="
    GE = ">="
    GT = ">"


@dataclass(frozen=True, slots=True)
class Compare:
    """A numeric comparison ``(op left right)``."""

    op: CompareOp
    left: NumExpr
    right: NumExpr


Formula = Union[Atom, Equals, Not, And, Or, Imply, Exists, Forall, Compare]

TRUE = And(())
#: a formula that never holds (an empty disjunction)
NEVER = Or(())


@dataclass(frozen=True, slots=True)
class Increase:
    """``(increase (total-cost) value)``: the only numeric effect supported."""

    value: int | float | FuncTerm


@dataclass(frozen=True, slots=True)
class When:
    condition: Formula
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class ForallEffect:
    params: tuple[Param, ...]
    effects: tuple[Effect, ...]


class UpdateOp(StrEnum):
    ASSIGN = "assign"
    INCREASE = "increase"
    DECREASE = "decrease"
    SCALE_UP = "scale-up"
    SCALE_DOWN = "scale-down"


@dataclass(frozen=True, slots=True)
class NumericEffect:
    """``(op (f args) value)``: a numeric fluent's update. ``value`` is read in the
    state before the action, as every condition of its effects is."""

    op: UpdateOp
    target: FuncTerm
    value: NumExpr


Effect = Union[Literal, When, ForallEffect, Increase, NumericEffect]


@dataclass(frozen=True, slots=True)
class DerivedRule:
    """``(:derived (pred ?x ...) body)``: ``pred`` holds of the objects that
    satisfy ``body``; its atoms are never the effect of an action."""

    pred: str
    params: tuple[Param, ...]
    body: Formula


class MetricDirection(StrEnum):
    MINIMIZE = "minimize"
    MAXIMIZE = "maximize"


@dataclass(frozen=True, slots=True)
class Metric:
    """``(:metric minimize|maximize expr)``; ``(total-time)`` is :data:`TOTAL_TIME`."""

    direction: MetricDirection
    expr: NumExpr

    def pddl(self) -> str:
        return f"{self.direction.value} {expr_pddl(self.expr)}"

    def __str__(self) -> str:
        return self.pddl()


@dataclass(frozen=True, slots=True)
class ActionSchema:
    name: str
    params: tuple[Param, ...]
    precondition: Formula
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class DurationConstraint:
    """``(op ?duration value)`` of a durative action's ``:duration`` (``=``, ``<=``,
    ``>=``), ``value`` read in the state before the action starts."""

    op: CompareOp
    value: NumExpr

    def pddl(self, sub: dict[str, str] | None = None) -> str:
        return f"({self.op.value} ?duration {expr_pddl(self.value, sub=sub)})"


@dataclass(frozen=True, slots=True)
class DurativeAction(ActionSchema):
    """``(:durative-action ...)`` (PDDL 2.1 level 3): its ``:duration`` constraints,
    its conditions ``at start``, ``over all`` (the open interval between its ends)
    and ``at end``, and its effects at each end (``?duration`` in them is
    :data:`DURATION`). As an :class:`ActionSchema` (``precondition``, ``effects``)
    it is never applicable (``precondition`` is :data:`NEVER`, no effects): it is not
    an instantaneous step, and code that knows only those cannot execute it."""

    duration: tuple[DurationConstraint, ...] = ()
    at_start: Formula = TRUE
    over_all: Formula = TRUE
    at_end: Formula = TRUE
    start_effects: tuple[Effect, ...] = ()
    end_effects: tuple[Effect, ...] = ()


@dataclass(frozen=True, slots=True)
class TimedLiteral:
    """``(at time literal)`` in a problem's ``:init`` (PDDL 2.2): ``literal`` becomes
    true (or false) at ``time``."""

    time: float
    literal: Literal


@dataclass(frozen=True)
class Domain:
    name: str
    requirements: tuple[str, ...]
    types: dict[str, str]  # type -> parent type ("object" is the root)
    constants: dict[str, str]  # constant -> type
    predicates: dict[str, tuple[Param, ...]]
    functions: dict[str, tuple[Param, ...]]
    actions: tuple[ActionSchema, ...]
    warnings: tuple[str, ...] = field(default=(), compare=False)
    file: str = field(default="<text>", compare=False)
    # Names used as constants in actions without a declaration (accepted only
    # with strict=False); each must be an object of the problem.
    free_constants: tuple[str, ...] = field(default=(), compare=False)
    # (:derived ...) rules, and their predicates' strata (lowest first)
    derived: tuple[DerivedRule, ...] = ()
    strata: tuple[tuple[str, ...], ...] = field(default=(), compare=False)
    #: PDDL 3: the hard constraints of the domain's (:constraints ...), and its
    #: preferences (in its :constraints, and in its actions' preconditions)
    constraints: tuple[Constraint, ...] = ()
    preferences: tuple[Preference, ...] = ()

    @cached_property
    def numeric(self) -> bool:
        """True when an action reads or changes a numeric fluent other than as a
        classical action cost (``(increase (total-cost) n)``), and for a temporal
        domain (:attr:`temporal`): both are judged by the evaluation of
        :mod:`veriplan.pddl.numeric`, never by the bitset operators."""
        return _uses_numbers(self)

    @cached_property
    def temporal(self) -> bool:
        """True when the domain has durative actions (its plans are timed)."""
        return any(isinstance(a, DurativeAction) for a in self.actions)

    @property
    def rich(self) -> bool:
        """True for a domain the bitset engine alone cannot execute: numeric
        fluents (see :attr:`numeric`)."""
        return self.numeric

    def action(self, name: str) -> ActionSchema | None:
        for a in self.actions:
            if a.name == name:
                return a
        return None

    def is_subtype(self, sub: str, sup: str) -> bool:
        if sup.startswith("(either "):
            return any(self.is_subtype(sub, m) for m in either_members(sup))
        if sub.startswith("(either "):
            return all(self.is_subtype(m, sup) for m in either_members(sub))
        seen = set()
        while sub not in seen:
            if sub == sup:
                return True
            seen.add(sub)
            sub = self.types.get(sub, OBJECT)
        return sup == OBJECT

    def type_closure(self, t: str) -> list[str]:
        """``t`` and all its ancestors up to ``object``."""
        if t.startswith("(either "):  # an object of (either a b) is an a and a b
            out = [t]
            for m in either_members(t):
                out += [x for x in self.type_closure(m) if x not in out]
            return out
        out = [t]
        while t != OBJECT and t in self.types and self.types[t] not in out:
            t = self.types[t]
            out.append(t)
        if OBJECT not in out:
            out.append(OBJECT)
        return out


@dataclass(frozen=True)
class Problem:
    name: str
    domain_name: str
    objects: dict[str, str]  # object -> type
    init: tuple[Atom, ...]
    numeric_init: dict[FuncTerm, float]
    goal: Formula
    metric: Metric | None = None
    warnings: tuple[str, ...] = field(default=(), compare=False)
    file: str = field(default="<text>", compare=False)
    #: ``(at t literal)`` of :init, in order of time (PDDL 2.2 timed initial literals)
    timed_literals: tuple[TimedLiteral, ...] = ()
    #: PDDL 3: the hard constraints of (:constraints ...), and the preferences of the
    #: goal and of (:constraints ...) (:mod:`veriplan.pddl.constraints`)
    constraints: tuple[Constraint, ...] = ()
    preferences: tuple[Preference, ...] = ()


def _walk_effects(effects: tuple[Effect, ...]):
    for e in effects:
        yield e
        if isinstance(e, When | ForallEffect):
            yield from _walk_effects(e.effects)


def formula_uses_numbers(f: Formula) -> bool:
    """True when ``f`` holds a numeric comparison."""
    if isinstance(f, Compare):
        return True
    if isinstance(f, Not):
        return formula_uses_numbers(f.arg)
    if isinstance(f, And | Or):
        return any(formula_uses_numbers(p) for p in f.parts)
    if isinstance(f, Imply):
        return formula_uses_numbers(f.lhs) or formula_uses_numbers(f.rhs)
    if isinstance(f, Exists | Forall):
        return formula_uses_numbers(f.body)
    return False


def _uses_numbers(d: Domain) -> bool:
    if d.temporal:
        return True
    for a in d.actions:
        if formula_uses_numbers(a.precondition):
            return True
        for e in _walk_effects(a.effects):
            if isinstance(e, NumericEffect) or (isinstance(e, When)
                                                and formula_uses_numbers(e.condition)):
                return True
    return any(formula_uses_numbers(r.body) for r in d.derived)
