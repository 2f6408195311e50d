"""Symbol-agnostic closed-loop generate-verify-repair planning (Du, Wang and
Hashimoto, "Lexical-Prior-Free Planning", CMC 2026)."""

from veriplan.methods.closed_loop.config import Config
from veriplan.methods.closed_loop.method import solve

PROBLEM = "pddl"
__all__ = ["Config", "solve"]
