"""Normalized pointwise mutual information over failure events: used by the
closed loop's repair controller (a method) and by the report's analyses (the
harness), so it lives below both."""

from __future__ import annotations

import math
from collections.abc import Sequence


def npmi_pairs(events: Sequence[tuple[str, Sequence[str]]]
               ) -> dict[tuple[str, str], tuple[float, int]]:
    """Normalized pointwise mutual information between the first item of each
    event and each of its second items (for failure events: the failing action
    and the predicates it missed), for every pair that occurs at least once:
    ``(x, y) -> (npmi, count)``. NPMI = ln(p(x,y) / (p(x) p(y))) / -ln p(x,y),
    in [-1, 1]; a pair in every event scores 1."""
    n = len(events)
    if not n:
        return {}
    firsts: dict[str, int] = {}
    seconds: dict[str, int] = {}
    joint: dict[tuple[str, str], int] = {}
    for x, ys in events:
        firsts[x] = firsts.get(x, 0) + 1
        for y in set(ys):
            seconds[y] = seconds.get(y, 0) + 1
            joint[(x, y)] = joint.get((x, y), 0) + 1
    out = {}
    for (x, y), c in joint.items():
        pj = c / n
        if pj >= 1.0:
            out[(x, y)] = (1.0, c)
            continue
        value = math.log(pj / ((firsts[x] / n) * (seconds[y] / n))) / -math.log(pj)
        out[(x, y)] = (max(-1.0, min(1.0, value)), c)
    return out
