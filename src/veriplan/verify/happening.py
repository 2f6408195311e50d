"""Happenings: the steps of a timed plan that share a time, taken as one.

VAL reads ``t: (a o ...) [d]`` plans so: the steps at one time form one
happening; every step's precondition is checked in the state before the
happening, their effects are applied together (deletes, then adds), and two
steps that interfere (one changes what the other reads or writes) cannot
share a happening: the plan is invalid (mutex). Times at most a tenth of VAL's
tolerance apart count as one. Sequential plans, and timed
plans whose times all differ, have one step a happening.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from veriplan.core.condition import condition_bits
from veriplan.core.facts import State
from veriplan.core.operator import Operator
from veriplan.errors import VeriplanError

#: VAL's default tolerance (``Validate -t``): steps at most a tenth of it apart in
#: time are one happening (measured with -t 0.01: 0 and 0.001 are one, 0 and 0.00101
#: or 0.005 two; with -t 0.1, 0 and 0.005 one, 0 and 0.011 two).
TOLERANCE = 0.01


class ToleranceError(VeriplanError, ValueError):
    """A tolerance that is not a positive finite number (VAL's ``-t``)."""


def check_tolerance(tolerance: object) -> float:
    """``tolerance`` as a float when it is a positive finite number (VAL's ``-t``:
    durations within it of their constraint pass; steps a tenth of it apart are one
    happening); else :class:`ToleranceError` saying what to give."""
    number = isinstance(tolerance, int | float) and not isinstance(tolerance, bool)
    t = float(tolerance) if number else math.nan  # type: ignore[arg-type]
    if not (t > 0 and math.isfinite(t)):
        raise ToleranceError(f"tolerance {tolerance!r}: give a positive finite number of "
                             f"time units, such as VAL's default {TOLERANCE}")
    return t


def same_happening(first: float, t: float, tolerance: float = TOLERANCE) -> bool:
    """True when a step at ``t`` joins the happening whose first step is at ``first``."""
    return t - first <= tolerance / 10 * (1 + 1e-9)


def groups(times: Sequence[float] | None, n: int, tolerance: float = TOLERANCE
           ) -> list[tuple[int, int]] | None:
    """The happenings of ``n`` steps at ``times`` (ascending) as ``(start, stop)``
    index ranges, when two or more steps share one: a step at most a tenth of
    ``tolerance`` after the first step of the current happening joins it. None
    when every step is its own happening (no times, or all apart)."""
    if not times or len(times) != n:
        return None
    out: list[tuple[int, int]] = []
    start = 0
    for i in range(1, n + 1):
        if i == n or not same_happening(times[start], times[i], tolerance):
            out.append((start, i))
            start = i
    return out if len(out) < n else None


def reads(op: Operator) -> int:
    """The atoms ``op`` reads: its precondition's and its effects' conditions'."""
    out = op.pre_pos | op.pre_neg
    for d in op.pre_rest:
        out |= condition_bits(d)
    for ce in op.cond_effects:
        out |= condition_bits(ce.condition)
    return out


def fired(op: Operator, state: State) -> tuple[int, int]:
    """The atoms ``op`` adds and deletes when executed in ``state``."""
    add, delete = op.add, op.delete
    for ce in op.cond_effects:
        if ce.condition.holds(state):
            add |= ce.add
            delete |= ce.delete
    return add, delete


def interference(a: Operator, b: Operator, state: State) -> int:
    """The atoms through which ``a`` and ``b``, both executed in ``state``,
    interfere (0: they do not): one writes what the other reads, or one adds
    what the other deletes."""
    add_a, del_a = fired(a, state)
    add_b, del_b = fired(b, state)
    return (((add_a | del_a) & reads(b)) | ((add_b | del_b) & reads(a))
            | (add_a & del_b) | (add_b & del_a))
