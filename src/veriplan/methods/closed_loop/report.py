"""The controlled closed-loop and DRIP study's section of ``veriplan report``
(issue 33): units run with ``--backend controlled-plan``, reported apart from
model results, never pooled with them.

Per dataset, method setting and error rate p: verified rate with its Wilson
95% interval, repair rounds (closed loop: attempts after the first) or
re-decompositions (DRIP: decompositions of a node after its first), and exact
McNemar tests paired on the same tasks against direct generation with the
same controlled model (and the closed loop against its random-regeneration
ablation, and since issue 48 its other two, DRIP goal-only against
``on_conflict``)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from veriplan.bench.plotting import pyplot, save_figure
from veriplan.bench.stats import mcnemar, wilson_interval
from veriplan.bench.store import UnitRecord
from veriplan.methods import ReportSection

BACKEND = "controlled-plan"


@dataclass(frozen=True)
class Unit:
    dataset: str
    arm: str  # method and the settings that tell arms apart
    p: float
    instance: str  # the problem and the seeds: what pairs units across arms
    verified: bool
    rounds: int  # repair rounds (closed loop, direct) or re-decompositions (DRIP)
    calls: int


def arm_of(r: UnitRecord) -> str:
    config = json.loads(r.config)
    if r.method == "closed-loop":
        # the search fallback is an arm of its own (its units never pooled with the loop's)
        fallback = config.get("fallback", "none")
        extra = f" fallback={fallback}" if fallback != "none" else ""
        if config.get("ablation", "none") != "none":
            return f"closed-loop {config['ablation']}{extra}"
        return f"closed-loop K={config.get('max_attempts', 2)}{extra}"
    if r.method == "drip":
        return f"drip {config.get('condition', 'never')}"
    return r.method


def _p(model: str) -> float:
    m = re.search(r"\bp=([0-9.]+)", model)
    return float(m.group(1)) if m else float("nan")


def _redecompositions(result: dict) -> int:
    tree = next((e for e in reversed(result.get("transcript") or [])
                 if e.get("role") == "tree"), None)
    nodes = ((tree or {}).get("data") or {}).get("nodes") or []
    return sum(max(0, int(n.get("decompositions", 0)) - 1) for n in nodes)


def units(records: list[UnitRecord]) -> list[Unit]:
    out = []
    for r in records:
        if r.backend != BACKEND or r.status != "done":
            continue
        result = r.result_dict()
        rounds = (_redecompositions(result) if r.method == "drip"
                  else max(0, int(result.get("attempts") or 1) - 1))
        # a pair is the same problem under the same seeds (the model's and the sweep's)
        seed = re.search(r"\bseed=(\d+)", r.model)
        key = f"{r.instance} (seeds {seed.group(1) if seed else 0}, {r.seed})"
        out.append(Unit(r.dataset, arm_of(r), _p(r.model), key,
                        bool(r.verified) and r.solved_by == "llm", rounds, r.llm_calls))
    return out


def rows(us: list[Unit]) -> list[dict]:
    groups: dict[tuple, list[Unit]] = defaultdict(list)
    for u in us:
        groups[(u.dataset, u.arm, u.p)].append(u)
    out = []
    for (dataset, arm, p), g in sorted(groups.items()):
        k, n = sum(u.verified for u in g), len(g)
        lo, hi = wilson_interval(k, n)
        solved = [u for u in g if u.verified]
        out.append({"dataset": dataset, "arm": arm, "p": p, "n": n, "verified": k,
                    "rate": k / n, "low": lo, "high": hi,
                    "rounds": sum(u.rounds for u in g) / n,
                    "rounds_solved": (sum(u.rounds for u in solved) / len(solved)
                                      if solved else None),
                    "calls": sum(u.calls for u in g) / n})
    return out


PAIRS = (("closed-loop K=2", "direct"), ("closed-loop K=4", "direct"),
         ("closed-loop K=2", "closed-loop random_regeneration"),
         ("closed-loop K=2", "closed-loop final_validation_only"),
         ("closed-loop K=2", "closed-loop shallow_constraints"),
         ("drip never", "direct"), ("drip on_conflict", "direct"),
         ("drip on_conflict", "drip never"))


def pairs(us: list[Unit]) -> list[dict]:
    by: dict[tuple, dict[str, bool]] = defaultdict(dict)
    for u in us:
        by[(u.dataset, u.arm, u.p)][u.instance] = u.verified
    out = []
    for dataset, p in sorted({(u.dataset, u.p) for u in us}):
        for a, b in PAIRS:
            if (dataset, a, p) in by and (dataset, b, p) in by:
                c = mcnemar(by[(dataset, a, p)], by[(dataset, b, p)])
                out.append({"dataset": dataset, "p": p, "a": a, "b": b, "shared": c.shared,
                            "only_a": c.only_a, "only_b": c.only_b, "both": c.both,
                            "p_value": c.p_value})
    return out


def _plot(table: list[dict], out: Path) -> list[str]:
    plt = pyplot()
    datasets = sorted({r["dataset"] for r in table})
    arms = sorted({r["arm"] for r in table})
    fig, axes = plt.subplots(2, len(datasets), figsize=(6 * len(datasets), 8), squeeze=False)
    for j, ds in enumerate(datasets):
        for arm in arms:
            rs = sorted((r for r in table if r["dataset"] == ds and r["arm"] == arm),
                        key=lambda r: r["p"])
            if not rs:
                continue
            ps = [r["p"] for r in rs]
            rate = [100 * r["rate"] for r in rs]
            err = [[100 * (r["rate"] - r["low"]) for r in rs],
                   [100 * (r["high"] - r["rate"]) for r in rs]]
            axes[0][j].errorbar(ps, rate, yerr=err, marker="o", capsize=3, label=arm)
            axes[1][j].plot(ps, [r["rounds"] for r in rs], marker="o", label=arm)
        axes[0][j].set_title(f"{ds}: verified (Wilson 95%)")
        axes[0][j].set_xlabel("per-step error rate p")
        axes[0][j].set_ylabel("verified (%)")
        axes[0][j].set_ylim(-2, 102)
        axes[1][j].set_title(f"{ds}: repair rounds / re-decompositions")
        axes[1][j].set_xlabel("per-step error rate p")
        axes[1][j].set_ylabel("mean per task")
        axes[0][j].legend(fontsize=7)
    fig.suptitle("Controlled-model results (controlled-plan backend), not model results")
    return [save_figure(fig, out, "controlled_closedloop_drip.png")]


def section(records: list[UnitRecord], out: Path) -> tuple[str, dict | None, list[str]]:
    """Markdown, JSON data and plot names; ("", None, []) without such units."""
    us = units(records)
    if not us:
        return "", None, []
    table, tests = rows(us), pairs(us)
    md = ["", "## Controlled-model results: the closed loop and DRIP against direct "
          "generation", "",
          "Units run with `--backend controlled-plan` (a seeded model that follows a reference "
          "with per-step error rate p; `veriplan.methods.controlled_plan`): controlled-"
          "model results, not model results, and never pooled with them. Rounds: repair rounds "
          "(closed loop: attempts after the first) or re-decompositions (DRIP), mean per task "
          "(and among verified tasks).", "",
          "| dataset | method | p | verified | Wilson 95% | rounds | rounds (verified) "
          "| LLM calls |", "|---|---|---|---|---|---|---|---|"]
    for r in table:
        solved = "" if r["rounds_solved"] is None else f"{r['rounds_solved']:.2f}"
        md.append(f"| {r['dataset']} | {r['arm']} | {r['p']:g} | {r['verified']}/{r['n']} "
                  f"({100 * r['rate']:.1f}%) | {100 * r['low']:.1f}-{100 * r['high']:.1f} | "
                  f"{r['rounds']:.2f} | {solved} | {r['calls']:.2f} |")
    md += ["", "Paired on the same tasks (exact McNemar): tasks verified by A only, by B only, "
           "both, p.", "", "| dataset | p | A | B | A only | B only | both | p-value |",
           "|---|---|---|---|---|---|---|---|"]
    for t in tests:
        md.append(f"| {t['dataset']} | {t['p']:g} | {t['a']} | {t['b']} | {t['only_a']} | "
                  f"{t['only_b']} | {t['both']} | {t['p_value']:.2g} |")
    plots = _plot(table, out)
    md += ["", *(f"![{p}]({p})" for p in plots), ""]
    return "\n".join(md), {"rows": table, "pairs": tests}, plots


def report_section(records: list[UnitRecord], out: Path) -> ReportSection:
    """The closed loop's section of the report (its registration names it), over
    its, DRIP's and direct generation's controlled-model units; report.json's
    ``controlled_plan``."""
    md, data, plots = section(records, out)
    return ReportSection(md, {"controlled_plan": data}, plots)


__all__ = ["BACKEND", "Unit", "arm_of", "pairs", "report_section", "rows", "section", "units"]
