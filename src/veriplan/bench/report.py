"""Reports from a run store: Markdown, a self-contained HTML page, PNG plots,
a JSON summary, and significance tables between two configurations."""

from __future__ import annotations

import base64
import html
import json
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.bench.plotting import pyplot, save_figure
from veriplan.bench.stats import (
    bootstrap_mean_interval,
    cohens_h,
    mcnemar,
    two_proportion_z,
    wilson_interval,
)
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.core.verdict import Scope
from veriplan.errors import ConfigError, DataError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from veriplan.methods import ReportFn


@dataclass(frozen=True)
class GroupSummary:
    method: str
    model: str  # backend:model
    dataset: str
    config: str
    units: int
    errors: int
    verified: int  # all plans the validator accepted
    llm_solved: int  # verified plans the model wrote
    fallback_solved: int  # verified plans from anything else (a search fallback, ...)
    rate: float  # the headline: llm_solved / units
    rate_low: float  # Wilson 95%
    rate_high: float
    mean_calls: float
    mean_tokens: float
    tokens_low: float  # bootstrap 95% for the mean
    tokens_high: float
    mean_seconds: float
    total_cost: float | None
    rate_all: float = 0.0  # verified / units, fallback included (labelled as such)
    rate_all_low: float = 0.0
    rate_all_high: float = 1.0
    # what "verified" was checked against; groups of different scopes are never pooled
    scope: Scope | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.method, self.model, self.dataset, self.config)


def unit_scopes(records: list[UnitRecord]) -> dict[str, Scope | None]:
    """Each unit's scope for grouping: its own, or for an error unit (which ran
    no check) the scope its method's other units have, when they agree."""
    by_method: dict[str, set[Scope]] = defaultdict(set)
    for r in records:
        if r.scope is not None:
            by_method[r.method].add(r.scope)
    return {r.id: r.scope if r.scope is not None else
            (next(iter(by_method[r.method])) if len(by_method[r.method]) == 1 else None)
            for r in records}


def summarize(records: list[UnitRecord]) -> list[GroupSummary]:
    groups: dict[tuple, list[UnitRecord]] = defaultdict(list)
    scopes = unit_scopes(records)
    for r in records:
        groups[(r.method, f"{r.backend}:{r.model}", r.dataset, r.config,
                scopes[r.id].value if scopes[r.id] else "")].append(r)
    out = []
    for (method, model, dataset, config, scope), rs in sorted(groups.items()):
        n = len(rs)
        verified = sum(r.verified for r in rs)
        llm = sum(1 for r in rs if model_solved(r))
        lo, hi = wilson_interval(llm, n)
        alo, ahi = wilson_interval(verified, n)
        tokens = [float(r.tokens) for r in rs]
        tlo, thi = bootstrap_mean_interval(tokens)
        costs = [r.cost for r in rs]
        out.append(GroupSummary(
            method, model, dataset, config, n, sum(r.status == "error" for r in rs), verified,
            llm, verified - llm, llm / n, lo, hi, sum(r.llm_calls for r in rs) / n,
            sum(tokens) / n, tlo, thi, sum(r.seconds for r in rs) / n,
            None if any(c is None for c in costs) else sum(costs),  # type: ignore[arg-type]
            verified / n, alo, ahi, Scope(scope) if scope else None))
    return out


def judged_before_typing(records: list[UnitRecord]) -> tuple[list[UnitRecord], list[str]]:
    """The units whose "verified" can be read, and why each other one is left
    out: a hidden-task unit stored before hidden-task verdicts were typed was
    judged by a decider that passed any plan naming no missing item, so its
    "verified" is never counted (the message names the unit, the field and
    how to re-judge it)."""
    from veriplan.domains.hidden.metrics import judgement
    from veriplan.errors import RecordError

    kept, out = [], []
    for r in records:
        if r.scope is Scope.HIDDEN_TASK and r.status == "done":
            try:
                judgement(r.result_dict().get("metrics") or {},
                          record=f"unit {r.id} ({r.method}, {r.instance})")
            except RecordError as exc:
                out.append(str(exc))
                continue
        kept.append(r)
    return kept, out


def _own_plan(r: UnitRecord) -> bool:
    """A verified plan the method made itself (its model or its own test double),
    not a search or planner fallback's."""
    return bool(r.verified) and not (r.solved_by or "").startswith("fallback")


def model_solved(r: UnitRecord) -> bool:
    """A unit counts for the headline only when the model's own plan verified
    (not a search fallback's, not a test double's)."""
    return bool(r.verified) and r.solved_by == "llm"


def _arm(records: list[UnitRecord], spec: str, *, by_model: bool = True
         ) -> dict[str, UnitRecord]:
    """Units of one configuration, ``method`` or ``method:key=value,...`` (the
    settings given for the unit, exactly; a method name may itself hold a colon,
    like ``published:planbench``), keyed for pairing across arms: by dataset,
    instance, seed and, with ``by_model``, backend and model."""
    names = sorted({r.method for r in records}, key=len, reverse=True)
    method = next((m for m in names if spec == m or spec.startswith(m + ":")), None)
    rest = spec[len(method) + 1:] if method else ""
    if method is None:
        method, _, rest = spec.partition(":")
    wanted = {k.strip(): v.strip() for k, v in
              (kv.split("=", 1) for kv in rest.split(",") if "=" in kv)}
    out = {}
    for r in records:
        cfg = {k: str(v) for k, v in json.loads(r.config).items()}
        if r.method != method or cfg != wanted:
            continue
        model = f"/{r.backend}:{r.model}" if by_model else ""
        out[f"{r.dataset}/{r.instance}{model}/seed{r.seed}"] = r
    return out


def compare(records: list[UnitRecord], a: str, b: str) -> dict:
    """A against B on model-solved units: two-proportion z-test, Cohen's h and
    the exact McNemar test on the units both ran; the rates with fallback
    solutions included ride along, labelled ``*_with_fallback``."""
    recs_a, recs_b = _arm(records, a), _arm(records, b)
    models_a = {f"{r.backend}:{r.model}" for r in recs_a.values()}
    models_b = {f"{r.backend}:{r.model}" for r in recs_b.values()}
    across = None  # one model each, not the same (a published run against your own):
    if len(models_a) == len(models_b) == 1 and models_a != models_b:  # pair by instance
        across = [*models_a, *models_b]
        recs_a, recs_b = _arm(records, a, by_model=False), _arm(records, b, by_model=False)
    arm_a = {k: model_solved(r) for k, r in recs_a.items()}
    arm_b = {k: model_solved(r) for k, r in recs_b.items()}
    if not arm_a or not arm_b:
        missing = a if not arm_a else b
        raise DataError(f"no units match {missing!r}: name a method, optionally with "
                        "settings, like backprompt:max_attempts=3")
    scope_a = {r.scope for r in recs_a.values() if r.scope is not None}
    scope_b = {r.scope for r in recs_b.values() if r.scope is not None}
    if len(scope_a | scope_b) > 1:
        raise DataError(f"{a!r} and {b!r} were verified against different things "
                        f"({', '.join(sorted(s.value for s in scope_a | scope_b))}): their "
                        "rates are not comparable, so veriplan does not test them")
    ka, na, kb, nb = sum(arm_a.values()), len(arm_a), sum(arm_b.values()), len(arm_b)
    z = two_proportion_z(ka, na, kb, nb)
    paired = mcnemar(arm_a, arm_b)
    # plan length on the instances both arms solved (the same instance, model, seed)
    # without a fallback: a search fallback's plan is not the method's, so it is not compared
    both = sorted(k for k in recs_a
                  if k in recs_b and _own_plan(recs_a[k]) and _own_plan(recs_b[k]))
    len_a = [len(recs_a[k].result_dict().get("plan", [])) for k in both]
    len_b = [len(recs_b[k].result_dict().get("plan", [])) for k in both]
    lengths = {"both_verified": len(both),
               "a_mean_length": sum(len_a) / len(both) if both else None,
               "b_mean_length": sum(len_b) / len(both) if both else None,
               "per_instance": [[k, x, y] for k, x, y in zip(both, len_a, len_b)]}
    fa = sum(r.verified for r in recs_a.values())
    fb = sum(r.verified for r in recs_b.values())
    return {"plan_lengths": lengths, "a": a, "b": b, "a_model_solved": ka, "a_units": na,
            "b_model_solved": kb, "b_units": nb,
            "a_rate": ka / na, "b_rate": kb / nb, "z": z.z, "p_value": z.p_value,
            "cohens_h": cohens_h(ka / na, kb / nb), "paired": asdict(paired),
            "a_verified_with_fallback": fa, "b_verified_with_fallback": fb,
            "a_rate_with_fallback": fa / na, "b_rate_with_fallback": fb / nb,
            "paired_across_models": across}


def _fmt(x: float | None, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def markdown(summaries: list[GroupSummary], comparisons: list[dict], plots: list[str],
             store: Path, analyses: list[dict] | None = None) -> str:
    lines = [f"# veriplan report\n\nStore: `{store}`. Verified means a sound check said "
             "valid, on the scope in the second column (a plan on the task's own PDDL files, "
             "a hidden-precondition task's true facts, an environment episode, a method's "
             "search components); groups of different scopes are never pooled or compared. "
             "LLM-solved and fallback-solved are counted apart. The rate, "
             "its Wilson interval and every comparison count the units the model solved; "
             "the rate with fallback solutions included is beside it, labelled.\n",
             "| method | verified on | model | dataset | config | units | verified | "
             "LLM-solved | fallback-solved | model-solved rate (Wilson 95%) | rate incl. "
             "fallback (Wilson 95%) | errors | mean LLM calls | mean tokens (bootstrap 95%) "
             "| mean s | cost |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        lines.append(
            f"| {s.method} | {s.scope.value if s.scope else 'n/a'} | {s.model} | {s.dataset} "
            f"| `{s.config}` | {s.units} | {s.verified} "
            f"| {s.llm_solved} | {s.fallback_solved} | {100 * s.rate:.1f}% "
            f"({100 * s.rate_low:.1f}-{100 * s.rate_high:.1f}) | {100 * s.rate_all:.1f}% "
            f"({100 * s.rate_all_low:.1f}-{100 * s.rate_all_high:.1f}) | {s.errors} | "
            f"{_fmt(s.mean_calls, 2)} | {_fmt(s.mean_tokens)} ({_fmt(s.tokens_low)}-"
            f"{_fmt(s.tokens_high)}) | {_fmt(s.mean_seconds, 2)} | "
            f"{'n/a' if s.total_cost is None else f'${s.total_cost:.4f}'} |")
    lines += _analysis_markdown(analyses or [])
    for c in comparisons:
        p = c["paired"]
        lines += ["", f"## {c['a']} against {c['b']}", "",
                  "| | A | B |", "|---|---|---|",
                  f"| model-solved / units | {c['a_model_solved']}/{c['a_units']} | "
                  f"{c['b_model_solved']}/{c['b_units']} |",
                  f"| model-solved rate | {100 * c['a_rate']:.1f}% | {100 * c['b_rate']:.1f}% |",
                  f"| rate incl. fallback | {100 * c['a_rate_with_fallback']:.1f}% | "
                  f"{100 * c['b_rate_with_fallback']:.1f}% |", "",
                  "On model-solved units: "
                  f"two-proportion z = {c['z']:.3f}, p = {c['p_value']:.4f}; Cohen's h = "
                  f"{c['cohens_h']:.3f}. Paired on {p['shared']} shared units"
                  + (" (the same instances, models {} and {})".format(*c["paired_across_models"])
                     if c.get("paired_across_models") else "") + ": only A "
                  f"{p['only_a']}, only B {p['only_b']}, both {p['both']}; exact McNemar "
                  f"p = {p['p_value']:.4f}."]
        pl = c["plan_lengths"]
        if pl["both_verified"]:
            lines += ["", f"Plan length on the {pl['both_verified']} units both verified "
                      "(fallback plans left out): "
                      f"A {pl['a_mean_length']:.2f} actions, B {pl['b_mean_length']:.2f} "
                      f"(B - A = {pl['b_mean_length'] - pl['a_mean_length']:.2f})."]
        else:
            lines += ["", "No unit was verified by both without a fallback, so plan lengths "
                      "are not compared."]
    for png in plots:
        lines += ["", f"![{png}]({png})"]
    return "\n".join(lines) + "\n"


def _label(a: dict) -> str:
    return f"{a['method']} {a['model']} {a['dataset']} {a['config']}"


def _analysis_markdown(analyses: list[dict]) -> list[str]:
    if not analyses:
        return []
    lines = ["", "## Runtime and retries", "",
             "| group | p50 s | p90 s | trimmed mean s (10%) | mean attempts | "
             "SR(k), k = 1.. (model-solved) |", "|---|---|---|---|---|---|"]
    for a in analyses:
        rt = a["runtime"]
        curve = ", ".join(f"{100 * x:.1f}%" for x in a["retry_curve"])
        lines.append(f"| {_label(a)} | {_fmt(rt['p50'], 2)} | {_fmt(rt['p90'], 2)} | "
                     f"{_fmt(rt['trimmed_mean'], 2)} | {_fmt(a['mean_attempts'], 2)} | "
                     f"{curve} |")
    lines += ["", "## Step-wise hazard of the first failure", "",
              "h(t): of the plans that reached step t, the share that failed there.", "",
              "| group | h(1) | h(2) | h(3) | h(4) | h(5) | h(6+) |",
              "|---|---|---|---|---|---|---|"]
    for a in analyses:
        h = {int(k): v for k, v in a["hazard"].items()}
        late = [v for t, v in h.items() if t >= 6]
        cells = [_fmt(h.get(t), 3) if t in h else "n/a" for t in range(1, 6)]
        cells.append(_fmt(sum(late) / len(late), 3) if late else "n/a")
        lines.append(f"| {_label(a)} | " + " | ".join(cells) + " |")
    lines += ["", "## Failure composition (units the model did not solve: the method's own "
              "category where it reports one, else the last attempt's failure kinds)",
              "", "| group | composition |", "|---|---|"]
    for a in analyses:
        comp = ", ".join(f"{k}: {v}" for k, v in a["failures"].items()) or "none"
        lines.append(f"| {_label(a)} | {comp} |")
    sized = [a for a in analyses if a.get("by_size")]
    if sized:
        sizes = sorted({k for a in sized for k in a["by_size"]})
        lines += ["", "## Accuracy by problem size (objects in the task)", "",
                  "| group | " + " | ".join(str(k) for k in sizes) + " | all |",
                  "|---|" + "---|" * (len(sizes) + 1)]
        for a in sized:
            cells = [f"{a['by_size'][k][0]}/{a['by_size'][k][1]}" if k in a["by_size"]
                     else "" for k in sizes]
            k_all = sum(v[0] for v in a["by_size"].values())
            n_all = sum(v[1] for v in a["by_size"].values())
            lines.append(f"| {_label(a)} | " + " | ".join(cells) + f" | {k_all}/{n_all} |")
    lines += ["", "## Failure overlap by stage (units the model did not solve, over all their "
              "attempts)", "",
              "translate: lines that did not map to an action; cc: rejected by the static "
              "screen; sim: a step could not run; val: the plan ran but VAL rejected it.", "",
              "| group | regions (units) |", "|---|---|"]
    for a in analyses:
        regions = ", ".join(f"{k}: {v}" for k, v in a.get("overlap", {}).items()) or "none"
        lines.append(f"| {_label(a)} | {regions} |")
    lines += ["", "## NPMI between failing actions and missing predicates", "",
              "Positive: together more often than chance; negative: less often (pairs that "
              "never occur together are not listed).", "",
              "| group | top positive pairs (action, predicate: NPMI, count) | top negative "
              "pairs |", "|---|---|---|"]
    for a in analyses:
        pos = "; ".join(f"{x[0]}, {x[1]}: {x[2]:.2f} ({x[3]})" for x in a["npmi"]) or "none"
        neg = "; ".join(f"{x[0]}, {x[1]}: {x[2]:.2f} ({x[3]})"
                        for x in a.get("npmi_negative", [])) or "none"
        lines.append(f"| {_label(a)} | {pos} | {neg} |")
    lines += _distribution_markdown(analyses)
    return lines


def _distribution_markdown(analyses: list[dict]) -> list[str]:
    shown = [a for a in analyses if any(a.get("actions", {}).values())]
    if not shown:
        return []
    lines = ["", "## What simulation saw: actions, predicates and failing steps", "",
             "Per attempt, the actions executed (up to a failing step) and the predicates of "
             "their preconditions, in attempts whose plan verified and in attempts that "
             "failed (as in the closed-loop paper's Figures 10-12), and the step at which "
             "failed attempts first failed.", "",
             "| group | actions: success / failure | predicates: success / failure | "
             "first failing step (attempts) |", "|---|---|---|---|"]
    for a in shown:
        def split(d: dict) -> str:
            keys = list(dict.fromkeys([*d["failure"], *d["success"]]))[:8]
            return ", ".join(f"{k} {d['success'].get(k, 0)}/{d['failure'].get(k, 0)}"
                             for k in keys) or "none"
        steps = ", ".join(f"{k}: {v}" for k, v in a["steps"].items()) or "none"
        lines.append(f"| {_label(a)} | {split(a['actions'])} | {split(a['predicates'])} | "
                     f"{steps} |")
    return lines


def analyse(records: list[UnitRecord], summaries: list[GroupSummary]) -> list[dict]:
    from veriplan.bench import analysis as A

    # grouped as summarize groups (scope included): units verified against
    # different things are never pooled, in the analyses either
    groups: dict[tuple, list[UnitRecord]] = defaultdict(list)
    scopes = unit_scopes(records)
    for r in records:
        groups[(r.method, f"{r.backend}:{r.model}", r.dataset, r.config,
                scopes[r.id])].append(r)
    out = []
    for s in summaries:
        rs = groups[(*s.key, s.scope)]
        curve, mean_attempts = A.retry_benefit(rs)
        out.append({"method": s.method, "model": s.model, "dataset": s.dataset,
                    "config": s.config, "runtime": asdict(A.runtime(rs)),
                    "retry_curve": curve, "mean_attempts": mean_attempts,
                    "hazard": A.hazard(rs), "failures": A.failure_composition(rs),
                    "by_size": A.accuracy_by_size(rs),
                    "npmi": A.npmi(rs), "npmi_negative": A.npmi_negative(rs),
                    "overlap": A.failure_overlap(rs),
                    "actions": A.distribution(rs, "actions"),
                    "predicates": A.distribution(rs, "predicates"),
                    "steps": A.step_distribution(rs)})
    return out


def _legend(ax: Axes, fontsize: int) -> None:
    """A legend when the plot has labelled lines (none: no legend, and no
    matplotlib warning in the report's output)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=fontsize)


def _analysis_plots(analyses: list[dict], out: Path) -> list[str]:
    plt = pyplot()
    if not analyses:
        return []
    names = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for a in analyses:
        if a["retry_curve"]:
            ks = range(1, len(a["retry_curve"]) + 1)
            ax.plot(ks, [100 * x for x in a["retry_curve"]], marker="o", label=_label(a))
    ax.set_xlabel("attempt budget k")
    ax.set_ylabel("model-solved within k attempts (%)")
    _legend(ax, 6)
    names.append(save_figure(fig, out, "retry_benefit.png"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for a in analyses:
        h = sorted((int(k), v) for k, v in a["hazard"].items())
        if h:
            ax.plot([t for t, _ in h], [v for _, v in h], marker="o", label=_label(a))
    ax.set_xlabel("plan step t")
    ax.set_ylabel("hazard h(t)")
    _legend(ax, 6)
    names.append(save_figure(fig, out, "hazard.png"))
    kinds = sorted({k for a in analyses for k in a["failures"]})
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(analyses)), 4.5))
    bottom = [0] * len(analyses)
    for kind in kinds:
        vals = [a["failures"].get(kind, 0) for a in analyses]
        ax.bar(range(len(analyses)), vals, bottom=bottom, label=kind)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(analyses)), [_label(a).replace(" ", "\n", 3) for a in analyses],
                  fontsize=6)
    ax.set_ylabel("units not solved by the model")
    if kinds:
        _legend(ax, 7)
    names.append(save_figure(fig, out, "failure_composition.png"))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    p50 = [a["runtime"]["p50"] for a in analyses]
    p90 = [a["runtime"]["p90"] for a in analyses]
    tm = [a["runtime"]["trimmed_mean"] for a in analyses]
    xs = range(len(analyses))
    ax.bar([x - 0.25 for x in xs], p50, width=0.25, label="p50")
    ax.bar(list(xs), p90, width=0.25, label="p90")
    ax.bar([x + 0.25 for x in xs], tm, width=0.25, label="trimmed mean")
    ax.set_xticks(list(xs), [_label(a).replace(" ", "\n", 3) for a in analyses], fontsize=6)
    ax.set_ylabel("seconds per unit")
    _legend(ax, 7)
    names.append(save_figure(fig, out, "runtime.png"))
    sized = [a for a in analyses if a.get("by_size")]
    if sized:  # like Figure 6 of the DRIP paper: accuracy per size, overall dotted
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for a in sized:
            ks = sorted(a["by_size"])
            line = ax.plot(ks, [100 * a["by_size"][k][0] / a["by_size"][k][1] for k in ks],
                           marker="o", label=_label(a))
            total = sum(v[1] for v in a["by_size"].values())
            overall = 100 * sum(v[0] for v in a["by_size"].values()) / total
            ax.axhline(overall, linestyle=":", color=line[0].get_color())
        ax.set_xlabel("objects in the task (blocks)")
        ax.set_ylabel("verified (%)")
        ax.set_ylim(-2, 102)
        _legend(ax, 6)
        names.append(save_figure(fig, out, "accuracy_by_size.png"))
    pairs = sorted([(a, x) for a in analyses for x in a["npmi"]], key=lambda t: -t[1][2])[:8]
    pairs += sorted([(a, x) for a in analyses for x in a.get("npmi_negative", [])],
                    key=lambda t: t[1][2])[:8]
    if pairs:  # like the closed-loop paper's Figures 7-9: top positive and negative pairs
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.barh(range(len(pairs)), [x[2] for _, x in pairs],
                color=["#4c72b0" if x[2] > 0 else "#c44e52" for _, x in pairs])
        ax.set_yticks(range(len(pairs)), [f"{a['method']}: {x[0]} / {x[1]}" for a, x in pairs],
                      fontsize=6)
        ax.axvline(0, color="black", linewidth=0.5)
        ax.set_xlabel("NPMI (failing action, missing predicate)")
        names.append(save_figure(fig, out, "npmi.png"))
    _distribution_plots(analyses, out, names)
    return names


def _distribution_plots(analyses: list[dict], out: Path, names: list[str]) -> None:
    """Figures 10-12 of the closed-loop paper: actions and predicates in
    simulation (successful against failed attempts), and first failing steps."""
    plt = pyplot()
    shown = [a for a in analyses if any(a.get("actions", {}).values())]
    for key, title in (("actions", "action"), ("predicates", "predicate")):
        if not shown:
            break
        fig, axes = plt.subplots(1, len(shown), figsize=(max(6, 4 * len(shown)), 4.5),
                                 squeeze=False)
        for ax, a in zip(axes[0], shown):
            d = a[key]
            keys = list(dict.fromkeys([*d["failure"], *d["success"]]))[:10]
            xs = range(len(keys))
            ax.bar([x - 0.2 for x in xs], [d["success"].get(k, 0) for k in keys], width=0.4,
                   label="verified attempts")
            ax.bar([x + 0.2 for x in xs], [d["failure"].get(k, 0) for k in keys], width=0.4,
                   label="failed attempts")
            ax.set_xticks(list(xs), keys, fontsize=6, rotation=45)
            ax.set_title(_label(a), fontsize=6)
            _legend(ax, 6)
        axes[0][0].set_ylabel(f"{title} occurrences in simulation")
        names.append(save_figure(fig, out, f"{title}_distribution.png"))
    stepped = [a for a in analyses if a.get("steps")]
    if stepped:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for a in stepped:
            ks = sorted(int(k) for k in a["steps"])
            ax.plot(ks, [a["steps"][k] if k in a["steps"] else a["steps"][str(k)] for k in ks],
                    marker="o", label=_label(a))
        ax.set_xlabel("step of the first failure")
        ax.set_ylabel("failed attempts")
        _legend(ax, 6)
        names.append(save_figure(fig, out, "step_distribution.png"))


def _plots(summaries: list[GroupSummary], out: Path) -> list[str]:
    plt = pyplot()
    if not summaries:
        return []
    labels = [f"{s.method}\n{s.model}\n{s.dataset}" for s in summaries]
    rates = [100 * s.rate for s in summaries]
    # (clamped: a Wilson bound 1e-16 inside the rate is no negative error bar)
    err = [[max(0.0, 100 * (s.rate - s.rate_low)) for s in summaries],
           [max(0.0, 100 * (s.rate_high - s.rate)) for s in summaries]]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(summaries)), 4.5))
    ax.bar(range(len(rates)), rates, yerr=err, capsize=4, color="#4c72b0")
    ax.set_xticks(range(len(rates)), labels, fontsize=7)
    ax.set_ylabel("plans the model solved (%), Wilson 95%")
    ax.set_ylim(0, 100)
    names = [save_figure(fig, out, "verified_rate.png")]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(summaries)), 4.5))
    ax.bar(range(len(summaries)), [s.mean_tokens for s in summaries], color="#dd8452")
    ax.set_xticks(range(len(summaries)), labels, fontsize=7)
    ax.set_ylabel("mean tokens per unit")
    names.append(save_figure(fig, out, "tokens.png"))
    return names


def _html(md: str, out: Path, plots: list[str]) -> str:
    """A self-contained page: the Markdown's tables as HTML, plots inline."""
    body = []
    rows: list[str] = []
    for line in md.splitlines():
        if line.startswith("|"):
            if set(line) <= set("|-"):
                continue
            cells = [html.escape(c.strip()) for c in line.strip("|").split("|")]
            tag = "th" if not rows else "td"
            rows.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
            continue
        if rows:
            body.append("<table>" + "".join(rows) + "</table>")
            rows = []
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("!["):
            name = line[line.index("(") + 1:-1]
            data = base64.b64encode((out / name).read_bytes()).decode()
            body.append(f'<img alt="{name}" src="data:image/png;base64,{data}">')
        elif line.strip():
            body.append(f"<p>{html.escape(line)}</p>")
    if rows:
        body.append("<table>" + "".join(rows) + "</table>")
    style = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px}img{max-width:100%}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>veriplan report"
            f"</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n")


def method_sections() -> list[ReportFn]:
    """The report sections of the registered methods, in the order the methods
    are declared, each once (methods may share one)."""
    from veriplan.methods import method_specs

    out: list[ReportFn] = []
    for spec in method_specs():
        fn = spec.report_section()
        if fn is not None and fn not in out:
            out.append(fn)
    return out


def in_unit_order(records: Iterable[UnitRecord]) -> list[UnitRecord]:
    """The records sorted by unit id (unique in a store, and a hash of what the
    unit is, not of when it ran). The report computes every figure from the
    units in this order, so the same units stored in another order (a re-run
    unit moves its row to the end) give the same report, to the last digit of
    a float sum and the order of every listed unit."""
    return sorted(records, key=lambda r: r.id)


def write_report(directory: str | Path, *,
                 compare_arms: tuple[str, str] | list[tuple[str, str]] | None = None
                 ) -> dict[str, Path]:
    out = Path(directory)
    store = RunStore(out, create=False)
    records, left_out = judged_before_typing(in_unit_order(store.records()))
    summaries = summarize(records)
    arms = [compare_arms] if isinstance(compare_arms, tuple) else list(compare_arms or [])
    comparisons = [compare(records, a, b) for a, b in arms]
    analyses = analyse(records, summaries)
    plots = _plots(summaries, out) + _analysis_plots(analyses, out)
    md = markdown(summaries, comparisons, plots, store.path, analyses)
    if left_out:
        md += (f"\n## Left out ({len(left_out)} units whose verdict cannot be read)\n\n"
               + "\n".join(f"- {why}" for why in left_out) + "\n")
    sections = [fn(records, out) for fn in method_sections()]
    md += "".join(s.markdown for s in sections)
    from veriplan.bench import published

    published_md, published_json = published.section(records)
    md += published_md
    plots = plots + [p for s in sections for p in s.plots]
    data = {"groups": [asdict(s) for s in summaries], "analyses": analyses,
            "comparison": comparisons[0] if comparisons else None,
            "comparisons": comparisons, "published": published_json, "left_out": left_out}
    for s in sections:  # each method's own entries (its controlled-model units apart)
        for key, value in s.data.items():
            if key in data:
                raise ConfigError(f"two report sections write report.json's {key!r}")
            data[key] = value
    paths = {"markdown": out / "report.md", "html": out / "report.html",
             "json": out / "report.json"}
    paths["markdown"].write_text(md)
    paths["html"].write_text(_html(md, out, plots))
    paths["json"].write_text(json.dumps(data, indent=2))
    return paths
