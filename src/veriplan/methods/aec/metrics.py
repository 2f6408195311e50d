"""What AEC's report section computes for it and its baselines, by name (the
fields of report.json's ``aec`` rows; see :mod:`veriplan.methods.aec.report`)."""

from __future__ import annotations

from enum import StrEnum


class Metric(StrEnum):
    SUCCESS = "success"  # episodes won of those attempted (Table 1; Table 2 per split)
    SCORE = "score"  # ScienceWorld's mean score per split (Table 2)
    REPLANNING_ROUNDS = "replanning_rounds"  # per costed episode (a failed one counts the cap)
    QUERIES = "queries"  # per costed episode
    ENV_STEPS = "env_steps"  # per costed episode
    LLM_CALLS = "llm_calls"  # per costed episode
    TOKENS = "tokens"  # per costed episode
    P_VALUE = "p_value"  # exact McNemar against another arm on the same episodes
