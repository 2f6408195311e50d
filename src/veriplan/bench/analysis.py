"""Analyses of the per-attempt signals methods report (SolveResult.signals):
runtime robust statistics, retry-benefit curves, the step-wise hazard of the
first failure, failure composition and the overlap of failing stages, NPMI
between actions and the predicates missing when they fail (positive and
negative), and the action, predicate and step distributions of simulated
plans split by success and failure."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from veriplan.bench.store import UnitRecord
from veriplan.methods.records import Signal
from veriplan.npmi import npmi_pairs


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100]."""
    if not values:
        return math.nan
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def trimmed_mean(values: Sequence[float], trim: float = 0.1) -> float:
    """Mean after dropping ``trim`` of the values at each end."""
    if not values:
        return math.nan
    xs = sorted(values)
    k = int(len(xs) * trim)
    kept = xs[k: len(xs) - k] or xs
    return sum(kept) / len(kept)


@dataclass(frozen=True)
class Runtime:
    p50: float
    p90: float
    trimmed_mean: float


def runtime(records: list[UnitRecord]) -> Runtime:
    secs = [r.seconds for r in records]
    return Runtime(percentile(secs, 50), percentile(secs, 90), trimmed_mean(secs))


def _signals(r: UnitRecord) -> list[Signal]:
    return [Signal.from_dict(s) for s in r.result_dict().get("signals", [])] if r.result else []


def retry_benefit(records: list[UnitRecord], budget: int | None = None
                  ) -> tuple[list[float], float]:
    """(SR(k) for k = 1..K: share of units the model solved within k attempts;
    mean attempts). Fallback solutions never count. Methods that report no
    per-attempt signals (DRIP, CoT, ReAct) have no curve."""
    if not records or not any(_signals(r) for r in records):
        return [], math.nan
    firsts = []
    for r in records:
        first = next((s.attempt for s in _signals(r) if s.verified), None)
        firsts.append(first if r.verified and r.solved_by == "llm" else None)
    k_max = budget or max([len(_signals(r)) for r in records] + [1])
    curve = [sum(1 for f in firsts if f is not None and f <= k) / len(records)
             for k in range(1, k_max + 1)]
    attempts = [len(_signals(r)) or 1 for r in records]
    return curve, sum(attempts) / len(attempts)


def hazard(records: list[UnitRecord]) -> dict[int, float]:
    """h(t): of the attempted plans that reached step t, the share whose first
    failure is at step t (all attempts of all units; a plan a static screen
    rejected counts only when the first step is what it rejected)."""
    reached: Counter = Counter()
    failed: Counter = Counter()
    for r in records:
        for s in _signals(r):
            if s.data.get("simulated") is False and s.failed_step is None:
                continue  # a static screen rejected it: no step was executed
            steps = s.steps or 0
            fs = s.failed_step
            last = fs if fs is not None else steps
            for t in range(1, last + 1):
                reached[t] += 1
            if fs is not None:
                failed[fs] += 1
    return {t: failed[t] / reached[t] for t in sorted(reached) if reached[t]}


def failure_composition(records: list[UnitRecord]) -> dict[str, int]:
    """For units the model did not solve, the failure kinds of their last
    attempt, counted alone and as overlaps ("precondition+translation")."""
    out: Counter = Counter()
    for r in records:
        if r.verified and r.solved_by == "llm":
            continue
        sigs = _signals(r)
        method_failure = r.result_dict().get("failure")
        if r.status == "error":
            out["error"] += 1
        elif method_failure:  # the method's own category (DRIP, CoT, ReAct)
            out[method_failure] += 1
        elif sigs:
            kinds = sorted(sigs[-1].failure or ["unknown"])
            out["+".join(kinds)] += 1
    return dict(sorted(out.items()))


def _failure_events(records: list[UnitRecord]) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.action, tuple(s.missing or ())) for r in records for s in _signals(r)
            if s.failed_step and s.action]


def npmi(records: list[UnitRecord], top: int = 8) -> list[tuple[str, str, float, int]]:
    """The most positively coupled (action, predicate, NPMI, count) over
    failure events, an event being a failed step's action with the predicates
    it was missing; highest first (positive NPMI only)."""
    pairs = npmi_pairs(_failure_events(records))
    out = [(a, p, v, c) for (a, p), (v, c) in pairs.items() if v > 0]
    out.sort(key=lambda x: (-x[2], -x[3], x[0], x[1]))
    return out[:top]


def npmi_negative(records: list[UnitRecord], top: int = 8
                  ) -> list[tuple[str, str, float, int]]:
    """The most negatively coupled pairs that occur (NPMI < 0: together less
    often than chance), lowest first; pairs that never occur are left out."""
    pairs = npmi_pairs(_failure_events(records))
    out = [(a, p, v, c) for (a, p), (v, c) in pairs.items() if v < 0]
    out.sort(key=lambda x: (x[2], -x[3], x[0], x[1]))
    return out[:top]


STAGES = ("translate", "cc", "sim", "val")
_KIND_STAGE = {"translation": "translate", "static": "cc", "precondition": "sim",
               "goal": "val"}


def failure_overlap(records: list[UnitRecord]) -> dict[str, int]:
    """For units the model did not solve, the set of stages that rejected any
    of their attempts (translate, cc, sim, val), counted per region
    ("sim+val": SIM rejected one attempt and VAL another, or one plan both).
    Stage verdicts come from ``data["stages"]`` when a method records them
    (closed-loop), else from the failure kinds."""
    out: Counter = Counter()
    for r in records:
        if (r.verified and r.solved_by == "llm") or r.status == "error":
            continue
        failed: set[str] = set()
        for s in _signals(r):
            stages = s.data.get("stages")
            if stages:
                failed |= {k for k, v in stages.items() if v is False}
            else:
                failed |= {_KIND_STAGE[k] for k in s.failure if k in _KIND_STAGE}
        if failed:
            out["+".join(k for k in STAGES if k in failed)] += 1
    return dict(sorted(out.items(), key=lambda kv: (kv[0].count("+"), kv[0])))


def distribution(records: list[UnitRecord], key: str) -> dict[str, dict[str, int]]:
    """Occurrences of ``data[key]`` items (``actions``: the actions simulated;
    ``predicates``: their preconditions' predicates) over attempts, split into
    attempts whose plan was verified and attempts that failed (the paper's
    Figures 10 and 11)."""
    out: dict[str, Counter] = {"success": Counter(), "failure": Counter()}
    for r in records:
        for s in _signals(r):
            out["success" if s.verified else "failure"].update(s.data.get(key) or [])
    return {k: dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))) for k, v in out.items()}


def step_distribution(records: list[UnitRecord]) -> dict[int, int]:
    """How many failed attempts first failed at each step (Figure 12)."""
    out: Counter = Counter(s.failed_step for r in records for s in _signals(r)
                           if s.failed_step)
    return dict(sorted(out.items()))


def accuracy_by_size(records: list[UnitRecord]) -> dict[int, tuple[int, int]]:
    """(verified, units) per problem size (``metrics.size``: objects in the task,
    reported by methods that know it); empty when no unit reports one."""
    out: dict[int, list[int]] = {}
    for r in records:
        size = r.result_dict().get("metrics", {}).get("size")
        if size is None:
            continue
        cell = out.setdefault(int(size), [0, 0])
        cell[0] += bool(r.verified)
        cell[1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}
