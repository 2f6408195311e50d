"""The controlled models that stand in for the closed-loop paper's three models
(issue 48), and where their one parameter comes from.

The controlled model (:mod:`veriplan.methods.controlled_plan`) writes a
reference plan with each step wrong at rate p. Its direct generation is
right when no step errs (an error that still gives a valid plan is rare), so
on problems whose reference plans have L_1 .. L_n steps its direct rate is
about mean_i (1 - p)^L_i. Each stand-in's p solves that mean = the direct
generation rate the paper's Table 1 reports for its model (the PlanBench
baseline it quotes): nothing the closed loop or its ablations do enters p.
The measured direct rate at that p is reported beside the target as the
check (``veriplan paper closed-loop``).

GPT-4 and GPT-4o have two baselines in Table 1 (one-shot and zero-shot);
their one-shot rates are used: GPT-4o's zero-shot 0% fixes no rate (every p
above some bound gives 0 of 600), and both models' zero-shot rates (0.16%,
0%) would leave a model that writes no plan the loop could repair. o1-mini
has only a zero-shot baseline (19.1%).
"""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.errors import ConfigError

DATASET = "mystery_blocksworld_600"

# Steps of the controlled model's reference plan (from the initial state) on each of the
# 600 problems: steps -> problems. Recomputed by `veriplan.methods.closed_loop.paper.
# reference_lengths` (the test compares; `python -m veriplan.methods.closed_loop.paper`).
REFERENCE_LENGTHS: dict[int, int] = {2: 47, 4: 85, 6: 154, 8: 153, 10: 113, 12: 46,
                                     14: 1, 16: 1}


@dataclass(frozen=True)
class StandIn:
    """One of the paper's models and the controlled model that stands in for it."""

    paper_model: str   # as the paper names it
    baseline: str      # which of Table 1's direct-generation rates sets p
    rate: float        # that rate (a fraction)
    source: str

    @property
    def p(self) -> float:
        """The per-step error rate, rounded to 3 decimals (as the sweep writes it)."""
        return round(error_rate(self.rate), 3)

    @property
    def model(self) -> str:
        """The controlled model's ``--model`` spec."""
        return f"plan:p={self.p:g},seed=0"


CALIBRATION: tuple[StandIn, ...] = (
    StandIn("GPT-4", "one-shot direct generation", 0.043, "Table 1 (baseline from PlanBench)"),
    StandIn("GPT-4o", "one-shot direct generation", 0.0083,
            "Table 1 (baseline from PlanBench)"),
    StandIn("o1-mini", "zero-shot direct generation", 0.191,
            "Table 1 (baseline from PlanBench)"),
)


def error_free(p: float, lengths: dict[int, int] | None = None) -> float:
    """mean_i (1 - p)^L_i over the reference lengths."""
    lengths = lengths or REFERENCE_LENGTHS
    n = sum(lengths.values())
    return sum(c * (1 - p) ** k for k, c in lengths.items()) / n


def error_rate(rate: float, lengths: dict[int, int] | None = None) -> float:
    """The p at which :func:`error_free` is ``rate`` (bisection; it falls with p)."""
    if not 0 < rate <= 1:
        raise ConfigError(f"a direct-generation rate in (0, 1] fixes p; not {rate}")
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if error_free(mid, lengths) > rate:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def stand_in(model: str) -> StandIn | None:
    """The paper model a controlled ``--model`` spec stands in for (None for
    any other spec)."""
    return next((s for s in CALIBRATION if s.model == model), None)
