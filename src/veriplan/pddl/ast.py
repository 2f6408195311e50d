"""Lifted PDDL syntax trees for the supported subset.

Names are lower-case strings; variables keep their leading '?'. Nodes are
immutable and compare by value, so parse -> write -> parse can be checked
with ``==``. :class:`Atom` and :class:`Literal` live in :mod:`veriplan.core.atom`
(states and verdicts use them too) and are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from veriplan.core.atom import Atom, Literal

__all__ = [
    "OBJECT", "TRUE", "ActionSchema", "And", "Atom", "Domain", "Effect", "Equals", "Exists",
    "Forall", "ForallEffect", "Formula", "FuncTerm", "Imply", "Increase", "Literal", "Not",
    "Or", "Param", "Problem", "When",
]

OBJECT = "object"


@dataclass(frozen=True, slots=True)
class Param:
    name: str  # with the leading '?'
    type: str = OBJECT


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


Formula = Union[Atom, Equals, Not, And, Or, Imply, Exists, Forall]

TRUE = And(())


@dataclass(frozen=True, slots=True)
class FuncTerm:
    """A numeric function application such as ``(total-cost)`` or ``(road ?a ?b)``."""

    name: str
    args: tuple[str, ...] = ()


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


Effect = Union[Literal, When, ForallEffect, Increase]


@dataclass(frozen=True, slots=True)
class ActionSchema:
    name: str
    params: tuple[Param, ...]
    precondition: Formula
    effects: tuple[Effect, ...]


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

    def action(self, name: str) -> ActionSchema | None:
        for a in self.actions:
            if a.name == name:
                return a
        return None

    def is_subtype(self, sub: str, sup: str) -> bool:
        seen = set()
        while sub not in seen:
            if sub == sup:
                return True
            seen.add(sub)
            sub = self.types.get(sub, OBJECT)
        return sup == OBJECT

    def type_closure(self, t: str) -> list[str]:
        """``t`` and all its ancestors up to ``object``."""
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
    metric: str | None = None  # "minimize (total-cost)" or None
    warnings: tuple[str, ...] = field(default=(), compare=False)
    file: str = field(default="<text>", compare=False)
