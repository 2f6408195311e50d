"""What the closed loop's report section computes (the controlled-model study
of it, DRIP and direct generation), by name (the fields of report.json's
``controlled_plan`` rows; see :mod:`veriplan.methods.closed_loop.report`)."""

from __future__ import annotations

from enum import StrEnum


class Metric(StrEnum):
    RATE = "rate"  # verified tasks of those run, with its Wilson 95% interval
    ROUNDS = "rounds"  # repair rounds (or DRIP's re-decompositions) per task
    ROUNDS_SOLVED = "rounds_solved"  # the same among the verified tasks
    CALLS = "calls"  # LLM calls per task
    P_VALUE = "p_value"  # exact McNemar against direct generation on the same tasks
