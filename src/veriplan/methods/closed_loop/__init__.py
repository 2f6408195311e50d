"""Symbol-agnostic closed-loop generate-verify-repair planning (Du, Wang and
Hashimoto, "Lexical-Prior-Free Planning", CMC 2026)."""

from veriplan.methods.closed_loop.config import Config
from veriplan.methods.closed_loop.method import run, solve

__all__ = ["Config", "run", "solve"]
