"""Ground conditions over int bitset states, in negation normal form.

A :class:`Conj` is a set of required-true bits, a set of required-false bits
and disjunctions that must all hold; a :class:`Disj` holds when one of its
conjunctions does. Nested structure alternates, so evaluation is a few mask
tests for the common (STRIPS) case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Conj:
    pos: int = 0
    neg: int = 0
    parts: tuple[Disj, ...] = ()

    def holds(self, state: int) -> bool:
        return (state & self.pos == self.pos and not state & self.neg
                and all(p.holds(state) for p in self.parts))

    def relaxed_holds(self, reached: int) -> bool:
        """Holds when negative literals are assumed satisfiable (delete relaxation)."""
        return reached & self.pos == self.pos and all(p.relaxed_holds(reached)
                                                      for p in self.parts)

    @property
    def is_true(self) -> bool:
        return not (self.pos or self.neg or self.parts)


@dataclass(frozen=True, slots=True)
class Disj:
    parts: tuple[Conj, ...] = ()

    def holds(self, state: int) -> bool:
        return any(p.holds(state) for p in self.parts)

    def relaxed_holds(self, reached: int) -> bool:
        return any(p.relaxed_holds(reached) for p in self.parts)


Condition = Conj | Disj
TRUE = Conj()
FALSE = Disj()


def literal(bit: int, positive: bool) -> Conj:
    return Conj(pos=1 << bit) if positive else Conj(neg=1 << bit)


def conj(items: Iterable[Condition]) -> Condition:
    pos = neg = 0
    parts: list[Disj] = []
    for c in items:
        if isinstance(c, Conj):
            pos |= c.pos
            neg |= c.neg
            parts.extend(c.parts)
        elif not c.parts:
            return FALSE
        else:
            parts.append(c)
    if pos & neg:
        return FALSE
    return Conj(pos, neg, tuple(parts))


def disj(items: Iterable[Condition]) -> Condition:
    parts: list[Conj] = []
    for c in items:
        if isinstance(c, Disj):
            parts.extend(c.parts)
        elif c.is_true:
            return TRUE
        else:
            parts.append(c)
    if len(parts) == 1:
        return parts[0]
    return Disj(tuple(parts))


def as_conj(c: Condition) -> Conj:
    return c if isinstance(c, Conj) else Conj(parts=(c,))


def condition_bits(c: Condition) -> int:
    """Every atom a ground condition reads, as a bitset (either polarity)."""
    if isinstance(c, Disj):
        out = 0
        for p in c.parts:
            out |= condition_bits(p)
        return out
    out = c.pos | c.neg
    for d in c.parts:
        out |= condition_bits(d)
    return out


def bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def render(c: Condition, name: Callable[[int], str]) -> str:
    """PDDL text of a ground condition, with ``name(bit)`` giving an atom's text."""
    if isinstance(c, Disj):
        return "(or " + " ".join(render(p, name) for p in c.parts) + ")" if c.parts else "(or)"
    items = [name(b) for b in bits(c.pos)]
    items += [f"(not {name(b)})" for b in bits(c.neg)]
    items += [render(p, name) for p in c.parts]
    if len(items) == 1:
        return items[0]
    return "(and " + " ".join(items) + ")"
