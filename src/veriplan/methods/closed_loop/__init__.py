"""Symbol-agnostic closed-loop generate-verify-repair planning (Du, Wang and
Hashimoto, "Lexical-Prior-Free Planning", CMC 2026)."""

from veriplan.core.problems import ProblemKind
from veriplan.methods.closed_loop.config import Config
from veriplan.methods.closed_loop.method import solve

PROBLEM = ProblemKind.PDDL
__all__ = ["Config", "solve"]
