"""An issue's speed target beside what a benchmark measured in the same run: met or not.

A target is a ratio against a peer (the peer's cost over ours) that must reach
``least`` on every measure named (wall time, CPU time) and every case named (line
orders, runs). It is met only when every ratio given reaches it; a measure given no
ratio at all is not met (nothing was measured).

    >>> t = Target("VAL per problem / --batch", 10)
    >>> t.line({"wall": [42.8, 39.3], "CPU": [23.4, 9.9]})
    'VAL per problem / --batch >= 10x: wall 39.30-42.80x, CPU 9.90-23.40x: not met'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """A ratio against a peer that must be at least ``least`` (e.g. 10 for "10x")."""

    what: str
    least: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.least) and self.least > 0):
            raise ValueError(f"target {self.what!r}: least must be a positive number, "
                             f"not {self.least!r}")

    def met(self, measured: Mapping[str, Sequence[float]]) -> bool:
        """Whether every ratio of every measure reaches the target (and there is one)."""
        return bool(measured) and all(
            ratios and all(r >= self.least for r in ratios) for ratios in measured.values())

    def verdict(self, measured: Mapping[str, Sequence[float]]) -> str:
        return "met" if self.met(measured) else "not met"

    def line(self, measured: Mapping[str, Sequence[float]]) -> str:
        """``WHAT >= Nx: MEASURE LO-HIx, ...: met|not met``, one range a measure."""
        parts = [f"{name} {span(ratios)}" for name, ratios in measured.items()]
        return f"{self.what} >= {self.least:g}x: {', '.join(parts)}: {self.verdict(measured)}"


def span(ratios: Sequence[float]) -> str:
    """``1.23x``, ``1.23-3.45x`` (lowest to highest; two decimals, so that 9.96x is not
    shown as the 10x it misses) or ``none`` for no ratio."""
    if not ratios:
        return "none"
    lo, hi = min(ratios), max(ratios)
    return f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}x"
