"""Ground operators over bitset states."""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.core.condition import Conj, Disj
from veriplan.core.facts import State


@dataclass(frozen=True, slots=True)
class CondEffect:
    condition: Conj
    add: int
    delete: int


@dataclass(frozen=True, slots=True)
class Operator:
    """A ground action: ``name(args)`` with bitset precondition and effects.

    ``pre_rest`` holds the disjunctive parts of an ADL precondition; STRIPS
    operators have none and test applicability with two mask operations.
    Effects follow PDDL: conditions are read in the old state, deletes are
    applied before adds.
    """

    name: str
    args: tuple[str, ...]
    pre_pos: int
    pre_neg: int
    add: int
    delete: int
    pre_rest: tuple[Disj, ...] = ()
    cond_effects: tuple[CondEffect, ...] = ()
    cost: float = 1

    def applicable(self, state: State) -> bool:
        return (state & self.pre_pos == self.pre_pos and not state & self.pre_neg
                and all(d.holds(state) for d in self.pre_rest))

    def apply(self, state: State) -> State:
        add, delete = self.add, self.delete
        for ce in self.cond_effects:
            if ce.condition.holds(state):
                add |= ce.add
                delete |= ce.delete
        return (state & ~delete) | add

    @property
    def precondition(self) -> Conj:
        return Conj(self.pre_pos, self.pre_neg, self.pre_rest)

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"
