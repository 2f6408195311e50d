"""AEC's settings and those of the baselines run in the same harness.

The paper fixes epsilon across experiments and selects tau on a validation
set without giving either value, and gives no MAXQUERIES, |H|, replanning cap
or rule-tightening threshold; ours are below and in the README's departures.
"""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.errors import ConfigError
from veriplan.methods.settings import check

_MINIMUM = {"hypotheses": 1, "max_replans": 0, "iterations": 1, "temperature": 0.0,
            "max_tokens": 1, "max_steps": 0, "rule_disable_after": 0, "max_preconditions": 0}


@dataclass(frozen=True)
class AgentConfig:
    """What every agent in the AEC harness shares."""

    hypotheses: int = 5  # candidate plans asked for per planning round (|H|)
    # B.3 / Section 4.2: replanning rounds; a failed episode reports the cap.
    max_replans: int = 10
    # Figure 3: passes over the same task, each after refinement from the failures
    # before it (1: no refinement, the paper's main setting).
    iterations: int = 1
    # B.4: an entailment rule is disabled after this many counterexamples (0: never).
    rule_disable_after: int = 2
    temperature: float = 0.0  # the planner's
    max_tokens: int = 1200  # per planning answer (up to |H| plans in JSON)
    # Stated preconditions per plan the answer may hold (the schema's maxItems; 0: no
    # cap). Pre(h) is completed from the action model anyway; without a cap a small
    # model lists every fact it can name and the answer is cut off before it closes.
    max_preconditions: int = 8
    max_steps: int = 0  # the episode's step budget; 0: the environment's (50 household)
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, minimum=_MINIMUM)


@dataclass(frozen=True)
class PredictorConfig(AgentConfig):
    # M(w, p) (B.2): an ensemble of model answers over three prompt variants.
    ensemble: int = 5
    predictor_temperature: float = 0.7
    # "none" (sigma = raw uncertainty) or a calibration file fitted on training games
    # (`veriplan aec calibrate`), by name or path.
    calibration: str = "none"

    def __post_init__(self) -> None:
        check(self, minimum={**_MINIMUM, "ensemble": 1, "predictor_temperature": 0.0})


@dataclass(frozen=True)
class Config(PredictorConfig):
    """AEC (Algorithm 1 with B.2-B.4)."""

    # |mu - 0.5| < epsilon: ambiguous, query. Fixed across all our experiments.
    epsilon: float = 0.2
    # sigma > tau: uncertain, query. Chosen on a validation split by
    # `veriplan aec select-tau`; tau_file (a path or a name) loads that choice.
    tau: float = 0.2
    tau_file: str = ""
    max_queries: int = 8  # MAXQUERIES, per run of Algorithm 1
    # Ablations of Section 5.3.1: without V (commit the best surviving hypothesis),
    # without gating (every selected predicate is simulated, discretized at 0.5).
    verification: bool = True
    gating: bool = True
    # Before V, query the preconditions of h* that are still ungrounded (within the
    # query budget); false is Algorithm 1 to the letter (see the README).
    ground_commit: bool = True
    # Commit h* when V's verdict is unknown for reasons no query could remove (no goal
    # form, preconditions the action model states only in part: ScienceWorld), recorded
    # as an unchecked commit (Scope.UNCHECKED), never a grounded one; false commits only
    # on a valid verdict (see the README).
    unchecked_commits: bool = True
    # SCORE(h) for h* = argmax SCORE(h) (line 26): "grounded", the chance that Pre(h)
    # holds computed by the method from w and w_hat; "model", the score the planner
    # reported with the plan (before issue 33 the only one; the paper defines neither).
    score: str = "grounded"

    def __post_init__(self) -> None:
        check(self, minimum={**_MINIMUM, "ensemble": 1, "predictor_temperature": 0.0,
                             "epsilon": 0.0, "tau": 0.0, "max_queries": 0})
        if self.score not in ("grounded", "model"):
            raise ConfigError(f"setting score={self.score!r} must be 'grounded' or 'model'")
        if self.epsilon > 0.5:
            raise ConfigError(f"setting epsilon={self.epsilon!r} must be at most 0.5 (a margin "
                              "around mu = 0.5)")


@dataclass(frozen=True)
class QueryOnlyConfig(AgentConfig):
    """Query-Only: every missing predicate is grounded by query before commit."""

    max_queries: int = 40

    def __post_init__(self) -> None:
        check(self, minimum={**_MINIMUM, "max_queries": 0})


__all__ = ["AgentConfig", "Config", "PredictorConfig", "QueryOnlyConfig"]
