"""Representation-neutral pieces: atoms and literals, ground conditions over
bitset states, the fact index, operators, plan steps and the transition-system
protocol. Nothing here imports another veriplan subpackage."""

from veriplan.core.atom import Atom, ConditionPart, FormulaText, Literal

__all__ = ["Atom", "ConditionPart", "FormulaText", "Literal"]
