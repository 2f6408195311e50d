"""Atoms and literals: the vocabulary shared by PDDL syntax, states and verdicts.

:class:`Atom` and :class:`Literal` serve lifted PDDL (arguments may be
variables such as ``?x``) and ground facts alike. A verdict lists the false
parts of a condition as :data:`ConditionPart`: a :class:`Literal` when the part
is one, else a :class:`FormulaText` (a false disjunction, say) holding its PDDL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Atom(NamedTuple):
    """An atomic formula ``(pred arg ...)``; args are objects or variables."""

    pred: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"({' '.join((self.pred, *self.args))})"

    def pddl(self) -> str:
        return self.__str__()


@dataclass(frozen=True, slots=True)
class Literal:
    """An atom or its negation: ``(on a b)`` or ``(not (on a b))``."""

    atom: Atom
    positive: bool = True

    def pddl(self) -> str:
        return str(self.atom) if self.positive else f"(not {self.atom})"

    def __str__(self) -> str:
        return self.pddl()


@dataclass(frozen=True, slots=True)
class FormulaText:
    """A condition part that is not a literal (``(or ...)``, a failed equality
    test), kept as the PDDL text the validator printed."""

    text: str

    def pddl(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


ConditionPart = Literal | FormulaText
