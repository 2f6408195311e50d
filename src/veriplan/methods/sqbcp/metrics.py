"""What SQ-BCP's report section computes for it and its hidden-task baselines,
by name (the fields of report.json's ``hidden`` and ``controlled`` rows; see
:mod:`veriplan.methods.sqbcp.report`)."""

from __future__ import annotations

from enum import StrEnum


class Metric(StrEnum):
    VIOLATION_RATE = "violation_rate"  # plans violating a hidden precondition, of all units
    VIOLATION_RATE_PLANNED = "violation_rate_planned"  # of the units that produced a plan
    VERIFIED = "verified"  # units whose plan the true task accepted
    SUCCESS = "success"  # verified share (controlled-model units)
    QUERIES = "queries"  # mean questions to the oracle
    HYPOTHESES = "hypotheses"  # mean hypotheses kept
    ROUGE1 = "rouge1"  # against the reference plan (natural-language tasks)
    ROUGE2 = "rouge2"
    BLEU = "bleu"
    CALLS = "calls"  # mean LLM calls per unit
    TOKENS = "tokens"  # mean tokens per unit
    SECONDS = "seconds"  # mean seconds per unit
