"""DRIP: decompositional reasoning for planning (backward goal decomposition
with executability checks). See README.md in this folder."""

from veriplan.methods.drip.config import Config
from veriplan.methods.drip.method import solve

PROBLEM = "pddl"
__all__ = ["Config", "solve"]
