"""The closed-loop paper's claims beside what veriplan measures of them
(``veriplan paper closed-loop``; issue 48).

Du, Wang and Hashimoto, "Lexical-Prior-Free Planning: A Symbol-Agnostic
Pipeline that Enables LLMs and LRMs to Plan under Obfuscated Interfaces",
CMC 87(1), 2026. Every claim of its text with a number or a test is a
:class:`~veriplan.papers.claims.Claim` below (number, setting, source); the
figures it describes only in words are listed too, as not measurable, with
why.

The headline protocol is the sweep ``sweeps/closedloop_paper_controlled.toml``:
the full pipeline and the paper's three ablations (section 5.8), each at the
budget K = 2, and direct generation, on the paper's 600 problems. With the
controlled backend and no ``--model`` it runs the three controlled models
that stand in for the paper's three (:mod:`.calibration`: each one's error
rate is set from the direct-generation rate Table 1 reports for its model);
with any other model, that model. A model that stands in for a paper model is
judged against that model's claims; every other model against each of the
three's. Rates count model-solved units only (a fallback's are shown apart).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from veriplan.bench.units import BackendSpec, SweepPlan, load_matrix
from veriplan.methods.closed_loop.calibration import CALIBRATION, DATASET, error_rate, stand_in
from veriplan.papers.claims import Claim, ClaimResult, Comparison, Measured, ModelKind, Scale, judge
from veriplan.papers.measure import (
    Unit,
    difference,
    groups,
    mean,
    newcombe_interval,
    rate,
    read_units,
)
from veriplan.papers.protocol import RunRequest, RunSummary, run_command, run_plans

NAME = "closed-loop"
TITLE = ("Lexical-Prior-Free Planning: A Symbol-Agnostic Pipeline that Enables LLMs and "
         "LRMs to Plan under Obfuscated Interfaces (Du, Wang, Hashimoto, CMC 2026)")
CONTROLLED = "controlled-plan"
SWEEP = Path(__file__).parent / "sweeps" / "closedloop_paper_controlled.toml"
# The full pipeline as the authors' code runs it (with its search fallback), apart.
SWEEP_FALLBACK = Path(__file__).parent / "sweeps" / "closedloop_paper_controlled_fallback.toml"
STORE = "closed-loop-controlled"  # under results/
STORE_FALLBACK = "closed-loop-controlled-fallback"
QUICK_LIMIT = 20
ARMS = 6  # the full loop, three ablations, direct, the full loop with the authors' fallback
QUICK = (f"the first {QUICK_LIMIT} of the 600 problems (Mystery instance-1 .. "
         f"instance-{QUICK_LIMIT}), every arm (full loop, three ablations, direct, the full loop "
         "with the authors' search fallback), each model (with the controlled backend: the "
         f"three stand-ins, {ARMS * QUICK_LIMIT * len(CALIBRATION)} units)")
BENCH = ("veriplan bench --matrix closed-loop:closedloop_paper_controlled --data-dir "
         "../shared/data --out {store} --no-cache --workers 2")

MODELS = ("GPT-4", "GPT-4o", "o1-mini")
SETTING = ("{m}, the 600 PlanBench Mystery Blocksworld problems (500 + 100 three-block), "
           "attempt budget K (its number lost in the text; K = 2 fits the mean attempts)")

# Table 1 and section 5.1: the full pipeline's success rates (the authors' released files
# show most of them are the search fallback's plans: README, "The headline").
FULL = {"GPT-4": 0.462, "GPT-4o": 0.462, "o1-mini": 0.480}
# Table 1: the baselines it quotes (direct generation, PlanBench's prompts), by setting.
BASELINES = {"GPT-4": {"one-shot": 0.043, "zero-shot": 0.0016},
             "GPT-4o": {"one-shot": 0.0083, "zero-shot": 0.0},
             "o1-mini": {"zero-shot": 0.191}}
# Section 5.8 (Table 2): the w/o Repair drops, per model; the other two as ranges over
# the three models (so each model's drop is in its range), and the range the nine
# ablated configurations' rates converge to.
WO_REPAIR = {"GPT-4": 0.104, "GPT-4o": 0.097, "o1-mini": 0.075}
DROP_RANGE = {"wo_stepwise": (0.032, 0.045), "wo_deep": (0.048, 0.067)}
ABLATED_RANGE = (0.358, 0.448)
# Section 5.3: mean attempts.
ATTEMPTS = {"GPT-4": 1.91, "GPT-4o": 1.935, "o1-mini": 1.767}
# Section 5.5: the failures' last-attempt kinds (counts of the failures).
PRECONDITION = {"GPT-4": (314, 323), "GPT-4o": (308, 323), "o1-mini": (100, 312)}
GOAL = {"GPT-4": (7, 323), "GPT-4o": (12, 323), "o1-mini": (211, 312)}
# Section 5.2 (Figure 3): mean seconds a problem.
RUNTIME_MEAN = {"GPT-4": 36.05, "GPT-4o": 14.64, "o1-mini": 49.45}


class Arm(StrEnum):
    """The protocol's arms: the full loop, the paper's three ablations, direct."""

    FULL = "full"
    FULL_FALLBACK = "full_fallback"         # the authors' code: BFS when the model fails
    WO_REPAIR = "random_regeneration"       # w/o Repair
    WO_STEPWISE = "final_validation_only"   # w/o Step-wise Validation
    WO_DEEP = "shallow_constraints"         # w/o Deep Constraints
    DIRECT = "direct"


ABLATED = (Arm.WO_REPAIR, Arm.WO_STEPWISE, Arm.WO_DEEP)
_ABLATIONS = {a.value for a in ABLATED}
_ABLATION = {Arm.WO_REPAIR: ("wo_repair", "w/o Repair (random regeneration)",
                             "10.4 (GPT-4), 9.7 (GPT-4o), 7.5 (o1-mini) pp"),
             Arm.WO_STEPWISE: ("wo_stepwise", "w/o Step-wise Validation (VAL's verdict only)",
                               "3.2-4.5 pp over the three models (per model: not in the text)"),
             Arm.WO_DEEP: ("wo_deep", "w/o Deep Constraints (C: types and arity only)",
                           "4.8-6.7 pp over the three models (per model: not in the text)")}

# What an ablation's drop is with the controlled model: it uses where its plan failed
# (it keeps the steps that ran), never the directives' content, and without a location
# (random regeneration; VAL's verdict only) it writes a fresh plan.
NO_LOCATION = ("controlled model: the drop is what the failing step's location is worth to "
               "a model that keeps the steps that ran; it does not read RC's directives, so "
               "the two ablations are the same arm to it")
# Why the controlled model cannot measure what depends on C's content.
NO_C = ("the controlled model plans from the task's PDDL alone and never reads C, so "
        "`shallow_constraints` is the full loop to it (the same answers by construction)")


def slug(model: str) -> str:
    return model.lower()


def arm_of(u: Unit) -> Arm | None:
    """The unit's arm (None: not one of the protocol's, e.g. another budget)."""
    if u.method == "direct":
        return Arm.DIRECT
    if u.method != NAME or int(str(u.settings.get("max_attempts", 2))) != 2:
        return None
    ablation = str(u.settings.get("ablation", "none"))
    if str(u.settings.get("fallback", "none")) != "none":
        return Arm.FULL_FALLBACK if ablation == "none" else None
    return Arm.FULL if ablation == "none" else Arm(ablation) if ablation in _ABLATIONS else None


def last_failure(u: Unit) -> tuple[str, ...]:
    """The failure kinds of the unit's last attempt (translation, static,
    precondition, goal)."""
    signals = u.result.get("signals") or []
    if not isinstance(signals, list) or not signals:
        return ()
    last = signals[-1]
    return tuple(last.get("failure") or ()) if isinstance(last, dict) else ()


def _c(cid: str, statement: str, number: str, setting: str, source: str, *,
       comparison: Comparison = Comparison.WITHIN, value: float | None = None,
       threshold: float | None = None, scale: Scale = Scale.RATE, needs: str = "",
       span: tuple[float, float] | None = None) -> Claim:
    """A claim; ``span``: the paper's range (an OVERLAPS claim)."""
    if span is not None:
        comparison = Comparison.OVERLAPS
    return Claim(NAME, cid, statement, number, setting, source, comparison, value, threshold,
                 scale, needs, span)


def _claims() -> list[Claim]:
    out: list[Claim] = []
    for m in MODELS:
        s, setting = slug(m), SETTING.format(m=m)
        out.append(_c(f"T1.full.{s}", f"the full pipeline solves {100 * FULL[m]:.1f}% with {m}",
                      f"{100 * FULL[m]:.1f}%", setting, "Table 1; Abstract", value=FULL[m]))
        base = ", ".join(f"{100 * v:g}% {k}" for k, v in BASELINES[m].items())
        out.append(_c(f"T1.gain.{s}", f"the pipeline solves more than direct generation "
                      f"with {m}", f"{100 * FULL[m]:.1f}% against {base}", setting,
                      "Table 1; section 5.1", comparison=Comparison.ABOVE, threshold=0.0,
                      scale=Scale.POINTS))
        if m != "o1-mini":  # the text's "more than 10-fold" is said of GPT-4 and GPT-4o
            out.append(_c(f"T1.tenfold.{s}", f"more than 10-fold the direct-generation "
                          f"rate with {m}", f"{100 * FULL[m]:.1f}% / {base}", setting,
                          "Abstract; section 5.1", comparison=Comparison.ABOVE,
                          threshold=10.0, scale=Scale.NUMBER))
        for shot, v in BASELINES[m].items():
            out.append(_c(f"T1.baseline.{s}.{shot}", f"{m}'s {shot} direct generation "
                          "(the PlanBench baseline the paper quotes)", f"{100 * v:g}%",
                          f"{m}, PlanBench's {shot} prompt, direct generation", "Table 1",
                          value=v))
        for arm in ABLATED:
            key, label, number = _ABLATION[arm]
            out.append(_c(f"T2.{key}.{s}", f"{label} solves less than the full pipeline "
                          f"with {m} (a significant drop)", number,
                          setting + ", each ablation against the full system (z-tests)",
                          "Section 5.8 (Table 2)", comparison=Comparison.ABOVE,
                          threshold=0.0, scale=Scale.POINTS))
        out.append(_c(f"T2.wo_repair.size.{s}", f"w/o Repair's drop with {m}",
                      f"{100 * WO_REPAIR[m]:.1f} pp", setting, "Section 5.8 (Table 2)",
                      value=WO_REPAIR[m], scale=Scale.POINTS))
        for arm in (Arm.WO_STEPWISE, Arm.WO_DEEP):
            key, label, _ = _ABLATION[arm]
            lo, hi = DROP_RANGE[key]
            out.append(_c(f"T2.{key}.size.{s}", f"the drop {label} brings with {m} is in "
                          "the range the paper gives over the three models",
                          f"{100 * lo:.1f}-{100 * hi:.1f} pp over the three models", setting,
                          "Section 5.8 (Table 2)", span=(lo, hi), scale=Scale.POINTS))
        for arm in ABLATED:
            key, label, _ = _ABLATION[arm]
            lo, hi = ABLATED_RANGE
            out.append(_c(f"T2.rate.{key}.{s}", f"{label} solves a share in the narrow "
                          f"range the ablated configurations converge to, with {m}",
                          f"{100 * lo:.1f}%-{100 * hi:.1f}% (the nine ablated "
                          "configurations)", setting, "Section 5.8 (Table 2)",
                          span=(lo, hi)))
        out.append(_c(f"T2.rank.repair_over_deep.{s}", "w/o Repair drops more than w/o Deep "
                      f"Constraints with {m} (the ranking, consistent across models)",
                      "10.4/9.7/7.5 pp against 4.8-6.7 pp", setting, "Section 5.8; section 7",
                      comparison=Comparison.ABOVE, threshold=0.0, scale=Scale.POINTS))
        out.append(_c(f"T2.rank.deep_over_stepwise.{s}", "w/o Deep Constraints drops more "
                      f"than w/o Step-wise Validation with {m}", "4.8-6.7 pp against "
                      "3.2-4.5 pp", setting, "Section 5.8; section 7",
                      comparison=Comparison.ABOVE, threshold=0.0, scale=Scale.POINTS))
        out.append(_c(f"S5.3.attempts.{s}", f"mean attempts a problem with {m}",
                      f"{ATTEMPTS[m]:g}", setting, "Section 5.3 (Figure 4)",
                      value=ATTEMPTS[m], scale=Scale.NUMBER))
        k, n = PRECONDITION[m]
        out.append(_c(f"S5.5.precondition.{s}", "share of the unsolved problems whose last "
                      f"attempt failed on a missing precondition, {m}",
                      f"{k} of {n} ({100 * k / n:.1f}%)", setting,
                      "Section 5.5 (Figure 6)", value=k / n))
        k, n = GOAL[m]
        out.append(_c(f"S5.5.goal.{s}", "share of the unsolved problems whose last attempt "
                      f"ran but missed the goal, {m}", f"{k} of {n} ({100 * k / n:.1f}%)",
                      setting, "Section 5.5 (Figure 6)", value=k / n))
        out.append(_c(f"S5.2.runtime.{s}", f"mean seconds a problem with {m}",
                      f"{RUNTIME_MEAN[m]:g} s", f"{m} through its API", "Section 5.2 (Figure 3)",
                      value=RUNTIME_MEAN[m], scale=Scale.NUMBER,
                      needs="wall time of the paper's models through their API; only a "
                            "user's endpoint has a comparable time"))
    out += [
        _c("S5.1.convergence", "the full pipeline's rates converge across the models (their "
           "baselines span about 20 pp)", "1.8 pp (46.2%-48.0%)", "GPT-4, GPT-4o, o1-mini",
           "Section 5.1; Abstract; section 7", value=0.018, scale=Scale.POINTS,
           needs="two models or more in one run"),
        _c("T2.ablated_range", "the ablated configurations converge to a narrow range",
           "9.0 pp (35.8%-44.8%)", "the three ablations x three models",
           "Section 5.8", value=0.090, scale=Scale.POINTS,
           needs="two models or more in one run"),
        _c("T2.o1_smaller", "o1-mini loses less than GPT-4 without repair (7.5 against "
           "10.4 pp)", "-2.9 pp", "w/o Repair, o1-mini against GPT-4", "Section 5.8",
           comparison=Comparison.BELOW, threshold=0.0, scale=Scale.POINTS,
           needs="the models standing in for GPT-4 and o1-mini"),
        _c("S5.4.hazard", "the step-wise failure hazard is bimodal (the first step and "
           "mid-plan)", "a figure, no number", "the three models", "Section 5.4 (Figure 5)",
           comparison=Comparison.ABOVE, threshold=0.0, needs=_FIGURE),
        _c("S5.6.npmi", "action-predicate NPMI couplings differ by model (o1-mini's more "
           "concentrated)", "figures, no number", "the three models",
           "Section 5.6 (Figures 7-9)", comparison=Comparison.ABOVE, threshold=0.0,
           needs=_FIGURE),
        _c("S5.7.distributions", "failing attempts over-use some actions and predicates; "
           "the step distribution matches the hazard", "figures, no number",
           "the three models", "Section 5.7 (Figures 10-12)", comparison=Comparison.ABOVE,
           threshold=0.0, needs=_FIGURE),
        _c("C.temporal_robustness", "temporal robustness analysis (listed among the "
           "evaluation protocols)", "none: not defined, not reported", "-",
           "Section 1 (contributions)", comparison=Comparison.ABOVE, threshold=0.0,
           needs=("the paper lists it among its contributions and defines or reports it "
                  "nowhere; veriplan measures nothing under that name (README, "
                  "'Temporal robustness')")),
        _c("S3.mappings", "the same pipeline performs consistently under other obfuscation "
           "mappings", "no number", "-", "Section 3.1", comparison=Comparison.ABOVE,
           threshold=0.0, needs=("runs on other renamings (e.g. blocksworld_obfuscated), "
                                 "outside the headline protocol; the controlled model plans "
                                 "from structure, so a renaming changes nothing it does")),
    ]
    return out


_FIGURE = ("the paper gives it as a figure described in words, with no number or test to "
           "compare with; `veriplan report` computes the same analysis for any store")


@dataclass(frozen=True)
class _Group:
    kind: ModelKind
    model: str
    arms: dict[Arm, list[Unit]]
    command: str
    backend: str

    @property
    def controlled(self) -> bool:
        return self.backend == CONTROLLED

    def targets(self) -> tuple[str, ...]:
        s = stand_in(self.model) if self.controlled else None
        return (s.paper_model,) if s is not None else MODELS


def _command(store: Path) -> str:
    return run_command(store, BENCH.format(store=store))


def _split(units: Iterable[Unit]) -> dict[Arm, list[Unit]]:
    arms: dict[Arm, list[Unit]] = {}
    for u in units:
        a = arm_of(u)
        if a is not None:
            arms.setdefault(a, []).append(u)
    return arms


def _solved(u: Unit) -> bool:
    return u.model_solved


def _ratio(a: Sequence[Unit], b: Sequence[Unit], command: str, model: str,
           kind: ModelKind) -> Measured:
    """rate(a) / rate(b), the interval from the two Wilson intervals' bounds
    (conservative)."""
    full, direct = rate(a, command=command), rate(b, command=command)
    lo_a, hi_a = full.interval or (math.nan, math.nan)
    lo_b, hi_b = direct.interval or (math.nan, math.nan)

    def div(x: float, y: float) -> float:
        return x / y if y > 0 else (math.inf if x > 0 else math.nan)

    return Measured(div(full.value, direct.value), (div(lo_a, hi_b), div(hi_a, lo_b)),
                    min(len(a), len(b)), kind, command, model, full.model_solved,
                    (full.fallback_solved or 0) + (direct.fallback_solved or 0),
                    f"full {full.detail} against direct {direct.detail}")


def _spread(arms: Sequence[tuple[str, list[Unit]]], command: str, kind: ModelKind
            ) -> Measured | None:
    """The highest rate minus the lowest over ``arms`` (named), Newcombe's
    interval between those two."""
    rated = [(name, us, sum(map(_solved, us)), len(us)) for name, us in arms if us]
    if len(rated) < 2:
        return None
    hi = max(rated, key=lambda r: r[2] / r[3])
    lo = min(rated, key=lambda r: r[2] / r[3])
    value = hi[2] / hi[3] - lo[2] / lo[3]
    interval = newcombe_interval(hi[2], hi[3], lo[2], lo[3]) if hi is not lo else (0.0, 0.0)
    rates = "; ".join(f"{name} {k}/{n}" for name, _, k, n in rated)
    return Measured(value, interval, min(r[3] for r in rated), kind, command,
                    ", ".join(dict.fromkeys(name.split(" ")[0] for name, *_ in rated)),
                    detail=f"highest {hi[0]}, lowest {lo[0]} ({rates})")


class ClosedLoopPaper:
    """The closed-loop paper (:class:`~veriplan.papers.protocol.Paper`)."""

    name = NAME
    title = TITLE
    quick = QUICK
    controlled = CONTROLLED
    committed = (STORE, STORE_FALLBACK)

    def claims(self) -> list[Claim]:
        return _claims()

    def plans(self, request: RunRequest) -> list[SweepPlan]:
        """The headline sweep and the authors' fallback arm for the request's
        models (the controlled backend without a model: the three stand-ins),
        the first ``request.limit`` problems or the quick subset if asked."""
        backends: list[BackendSpec] = []
        for b in request.backends:
            if b.name == CONTROLLED and not b.model:
                backends += [BackendSpec(CONTROLLED, s.model, b.options) for s in CALIBRATION]
            else:
                backends.append(b)
        out = []
        for sweep in (SWEEP, SWEEP_FALLBACK):
            plan = load_matrix(sweep)
            plan.backends = list(backends)
            plan.limit = request.limit or (QUICK_LIMIT if request.quick else None)
            out.append(plan)
        return out

    def run(self, request: RunRequest, store: Path) -> RunSummary:
        return run_plans(self, self.plans(request), store, request)

    def results(self, stores: Sequence[Path]) -> list[ClaimResult]:
        claims = {c.id: c for c in _claims()}
        out: list[ClaimResult] = []
        units = [u for u in read_units(stores) if u.dataset == DATASET]
        found: list[_Group] = []
        for (kind, model), us in groups(units).items():
            arms = _split(us)
            if arms:
                found.append(_Group(kind, model, arms, _command(us[0].store),
                                    us[0].record.backend))
        for g in found:
            for m in g.targets():
                out += _per_model(claims, g, m)
        out += _across(claims, found)
        for cid in ("S5.4.hazard", "S5.6.npmi", "S5.7.distributions", "C.temporal_robustness",
                    "S3.mappings"):
            out.append(judge(claims[cid], None))
        return out


def _per_model(claims: dict[str, Claim], g: _Group, m: str) -> list[ClaimResult]:
    s, arms = slug(m), g.arms
    full, direct = arms.get(Arm.FULL, []), arms.get(Arm.DIRECT, [])
    cmd = _command(full[0].store) if full else g.command
    out: list[ClaimResult] = []

    def diff(a: Sequence[Unit], b: Sequence[Unit], names: tuple[str, str]) -> Measured:
        return difference(a, b, _solved, command=cmd, names=names)

    def add(cid: str, measured: Measured | None, reason: str = "") -> None:
        if measured is not None and measured.n == 0 and not reason:
            return  # the arm was not run: the report says not measurable
        out.append(judge(claims[cid], measured, reason))

    if full:
        add(f"T1.full.{s}", rate(full, command=cmd, what="model-solved, full pipeline"))
    with_fallback = arms.get(Arm.FULL_FALLBACK, [])
    if with_fallback:
        m_ = rate(with_fallback, command=_command(with_fallback[0].store),
                  what="model-solved, full pipeline with the authors' BFS fallback")
        both = (m_.model_solved or 0) + (m_.fallback_solved or 0)
        add(f"T1.full.{s}", replace(m_, detail=(
            f"{m_.detail}; model and fallback together {both} of {m_.n} "
            f"({100 * both / m_.n:.1f}%), as the authors' files count a success")))
        add(f"S5.3.attempts.{s}", mean(full, lambda u: _attempts(u), command=cmd,
                                       what="problems, full pipeline"))
        failed = [u for u in full if not u.model_solved]
        if failed:
            note = ("; controlled model: the stand-ins differ only in p, their error kinds "
                    "(argument, skip, swap) are the same" if g.controlled else "")
            for kind in ("precondition", "goal"):
                m_ = rate(failed, lambda u, k=kind: k in last_failure(u), command=cmd,
                          what=f"unsolved: {kind}")
                add(f"S5.5.{kind}.{s}", replace(m_, detail=m_.detail + note))
        if g.kind is ModelKind.USER:
            add(f"S5.2.runtime.{s}", mean(full, _seconds, command=cmd, what="seconds"))
    if full and direct:
        add(f"T1.gain.{s}", diff(full, direct, ("full", "direct")))
        if f"T1.tenfold.{s}" in claims:
            add(f"T1.tenfold.{s}", _ratio(full, direct, cmd, g.model, g.kind))
    for shot in BASELINES[m]:
        d = rate(direct, command=cmd) if direct else None
        got = f" (measured: direct {d.detail} with the loop's PDDL prompt)" if d else ""
        why = (f"the calibration input: this stand-in's error rate is set from "
               f"{m}'s direct rate, so it tests nothing{got}" if g.controlled and
               stand_in(g.model) is not None else
               "PlanBench's own result, quoted; the protocol's direct arm is the loop's "
               f"control (its PDDL prompt, zero-shot), not PlanBench's prompt{got}")
        add(f"T1.baseline.{s}.{shot}", None, why)
    if not full:
        return out
    drops: dict[Arm, Measured] = {}
    for arm in ABLATED:
        if arms.get(arm):
            drops[arm] = diff(full, arms[arm], ("full", arm.value))
    for arm, measured in drops.items():
        cid = f"T2.{_ABLATION[arm][0]}.{s}"
        if arm is Arm.WO_DEEP and g.controlled:
            add(cid, None, f"{NO_C}; measured {measured.detail}")
            continue
        if g.controlled:  # what the drop means with this model
            measured = replace(measured, detail=f"{measured.detail}; {NO_LOCATION}")
            drops[arm] = measured
        add(cid, measured)
    if Arm.WO_REPAIR in drops:
        add(f"T2.wo_repair.size.{s}", drops[Arm.WO_REPAIR])
    for arm in (Arm.WO_STEPWISE, Arm.WO_DEEP):
        if arm in drops:
            cid = f"T2.{_ABLATION[arm][0]}.size.{s}"
            if arm is Arm.WO_DEEP and g.controlled:
                add(cid, None, f"{NO_C}; measured {drops[arm].detail}")
            else:
                add(cid, drops[arm])
    for arm in ABLATED:
        if arms.get(arm):
            cid = f"T2.rate.{_ABLATION[arm][0]}.{s}"
            measured = rate(arms[arm], command=cmd, what=f"model-solved, {arm.value}")
            if arm is Arm.WO_DEEP and g.controlled:
                add(cid, None, f"{NO_C}; measured {measured.detail}")
            else:
                add(cid, measured)
    rr, fvo, sc = (arms.get(a, []) for a in (Arm.WO_REPAIR, Arm.WO_STEPWISE, Arm.WO_DEEP))
    # drop(repair) - drop(deep) = rate(deep) - rate(repair), and so on
    for cid, a, b, names in ((f"T2.rank.repair_over_deep.{s}", sc, rr,
                              ("w/o deep", "w/o repair")),
                             (f"T2.rank.deep_over_stepwise.{s}", fvo, sc,
                              ("w/o step-wise", "w/o deep"))):
        if a and b:
            measured = diff(a, b, names)
            if g.controlled:
                add(cid, None, f"{NO_C}; measured {measured.detail}")
            else:
                add(cid, measured)
    return out


def _across(claims: dict[str, Claim], found: Sequence[_Group]) -> list[ClaimResult]:
    """The claims across models: each model kind's models apart (never pooled)."""
    out: list[ClaimResult] = []
    kinds = dict.fromkeys(g.kind for g in found)
    for kind in kinds:
        gs = [g for g in found if g.kind is kind and g.arms.get(Arm.FULL)]
        cmd = gs[0].command if gs else ""
        conv = _spread([(_label(g), g.arms[Arm.FULL]) for g in gs], cmd, kind)
        if conv is not None:
            out.append(judge(claims["S5.1.convergence"], conv))
        ablated = [(f"{_label(g)} {a.value}", g.arms.get(a, [])) for g in gs for a in ABLATED
                   if not (a is Arm.WO_DEEP and g.controlled)]
        rng = _spread(ablated, cmd, kind) if len(gs) >= 2 else None
        if rng is not None:
            out.append(judge(claims["T2.ablated_range"], rng))
        by_model = {stand_in(g.model).paper_model: g for g in gs
                    if g.controlled and stand_in(g.model) is not None}
        if {"GPT-4", "o1-mini"} <= set(by_model):
            out.append(judge(claims["T2.o1_smaller"],
                             _drop_gap(by_model["o1-mini"], by_model["GPT-4"])))
    return out


def _label(g: _Group) -> str:
    s = stand_in(g.model) if g.controlled else None
    return f"{g.model}" + (f" ({s.paper_model})" if s is not None else "")


def _drop_gap(a: _Group, b: _Group) -> Measured | None:
    """w/o Repair's drop with ``a`` minus with ``b`` (the two intervals'
    bounds combined: conservative)."""
    if not (a.arms.get(Arm.WO_REPAIR) and b.arms.get(Arm.WO_REPAIR)):
        return None
    names = ("full", "w/o repair")
    da = difference(a.arms[Arm.FULL], a.arms[Arm.WO_REPAIR], _solved, command=a.command,
                    names=names)
    db = difference(b.arms[Arm.FULL], b.arms[Arm.WO_REPAIR], _solved, command=b.command,
                    names=names)
    if da.interval is None or db.interval is None:
        return None
    interval = (da.interval[0] - db.interval[1], da.interval[1] - db.interval[0])
    return Measured(da.value - db.value, interval, min(da.n, db.n), a.kind, a.command,
                    f"{_label(a)} against {_label(b)}",
                    detail=f"{_label(a)}: {da.detail}; {_label(b)}: {db.detail}")


def _attempts(u: Unit) -> float | None:
    v = u.result.get("attempts")
    return float(v) if isinstance(v, int | float) else None


def _seconds(u: Unit) -> float | None:
    v = u.result.get("seconds")
    return float(v) if isinstance(v, int | float) else None


def reference_lengths(data_root: Path, limit: int | None = None) -> dict[int, int]:
    """The controlled model's reference-plan lengths on the 600 problems (the
    first ``limit``), steps -> problems (:data:`.calibration.REFERENCE_LENGTHS`)."""
    from veriplan.bench.datasets import DATASETS
    from veriplan.methods.controlled_plan import reference_plan
    from veriplan.pddl.task import load_task

    instances = DATASETS.get(DATASET)(Path(data_root)).instances[:limit]
    counts: Counter[int] = Counter()
    for inst in instances:
        task = load_task(inst.domain_path, inst.problem_path)
        counts[len(reference_plan(task, task.init))] += 1
    return dict(sorted(counts.items()))


PAPER = ClosedLoopPaper()

__all__ = ["Arm", "CALIBRATION", "ClosedLoopPaper", "PAPER", "QUICK_LIMIT", "arm_of",
           "last_failure", "reference_lengths"]


if __name__ == "__main__":  # python -m veriplan.methods.closed_loop.paper [DATA_DIR]
    import sys

    found = reference_lengths(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data"))
    print("reference lengths:", found)
    for s in CALIBRATION:
        print(f"{s.paper_model}: {s.baseline} {100 * s.rate:g}% ({s.source}) -> "
              f"p = {error_rate(s.rate, found):.4f}, model {s.model}")

