"""Success by iteration (the AEC paper's Figure 3) for the groups run with
``iterations`` > 1, as rows, a table and a plot, and what failure-driven
refinement had to learn from in them. Both parts of the report's AEC section
(model and controlled-model results) show them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from veriplan.bench.plotting import pyplot, save_figure
from veriplan.methods.aec.report_episodes import Episode, config_of, model_of


@dataclass(frozen=True)
class IterationRow:
    """Success by iteration of one (method, settings, model, dataset) run with
    ``iterations`` > 1: at iteration i, the share of its episodes won at or
    before it."""

    method: str
    config: str
    model: str
    dataset: str
    units: int
    success_by_iteration: list[float]


def _iterated(eps: list[Episode]
              ) -> list[tuple[tuple[str, str, str, str], list[Episode], int]]:
    """The groups (method, settings, model, dataset) run with ``iterations`` > 1,
    each with its episodes and its number of iterations, sorted."""
    groups: dict[tuple[str, str, str, str], list[Episode]] = defaultdict(list)
    for e in eps:
        r = e.record
        groups[(r.method, config_of(r), model_of(r), r.dataset)].append(e)
    out = []
    for key, es in sorted(groups.items()):
        n = max((len(e.metrics.get("success_by_iteration") or []) for e in es), default=0)
        if n >= 2:
            out.append((key, es, n))
    return out


def iterations(eps: list[Episode]) -> list[IterationRow]:
    """:class:`IterationRow` per group run with ``iterations`` > 1."""
    rows = []
    for (method, config, model, dataset), es, n in _iterated(eps):
        curve = []
        for i in range(n):
            won = 0
            for e in es:
                sbi = e.metrics.get("success_by_iteration") or [e.won]
                won += bool(sbi[min(i, len(sbi) - 1)])
            curve.append(won / len(es))
        rows.append(IterationRow(method, config, model, dataset, len(es), curve))
    return rows


def iterations_md(rows: list[IterationRow]) -> list[str]:
    n = max(len(r.success_by_iteration) for r in rows)
    lines = ["", "### Success by iteration (the AEC paper's Figure 3)", "",
             "Failure-driven refinement: a failed episode is run again with what its "
             "counterexamples taught (disabled rules, the calibration updated); iteration i "
             "counts the episodes won at or before it.", "",
             "| method | settings | model | dataset | units | "
             + " | ".join(f"iteration {i}" for i in range(n)) + " |",
             "|" + "---|" * (5 + n)]
    for r in rows:
        curve = r.success_by_iteration
        lines.append(f"| {r.method} | {r.config} | {r.model} | {r.dataset} | "
                     f"{r.units} | " + " | ".join(
                         f"{100 * curve[i]:.1f}" if i < len(curve) else "" for i in range(n))
                     + " |")
    return lines


@dataclass(frozen=True)
class RefinementRow:
    """What failure-driven refinement had to learn from in one group run with
    ``iterations`` > 1, summed over its episodes that failed their first
    iteration and ran again (``iterated``): how many of those were won later
    (``recovered``), the iterations after the first they ran (``reruns``) and
    how many of those ended with the same counts as the iteration before
    (``repeated``: failure, replanning rounds, queries, environment steps), the
    predictions that grounded outcomes labelled (``labelled``: the samples the
    calibration is re-fitted from), the counterexamples to entailment rules
    (at most 50 kept per episode), the rules disabled by them and the rules the
    WALL-E stand-in learned from refuted predictions."""

    method: str
    config: str
    model: str
    dataset: str
    units: int
    iterated: int
    recovered: int
    reruns: int
    repeated: int
    labelled: int
    counterexamples: int
    rules_disabled: int
    rules_learned: int


_SAME = ("failure", "replans", "queries", "env_steps")


def _rules_learned(e: Episode) -> int:
    """The WALL-E stand-in's rules learned in an episode (its transcript's
    ``rule`` entries)."""
    transcript = e.record.result_dict().get("transcript") or []
    return sum(entry.get("role") == "rule" for entry in transcript)


def refinement(eps: list[Episode]) -> list[RefinementRow]:
    """:class:`RefinementRow` per group run with ``iterations`` > 1."""
    rows = []
    for (method, config, model, dataset), es, _ in _iterated(eps):
        ran = [(e, e.metrics.get("per_iteration") or []) for e in es]
        ran = [(e, per) for e, per in ran if len(per) >= 2]
        rows.append(RefinementRow(
            method=method, config=config, model=model, dataset=dataset, units=len(es),
            iterated=len(ran), recovered=sum(bool(per[-1].get("won")) for _, per in ran),
            reruns=sum(len(per) - 1 for _, per in ran),
            repeated=sum(all(per[i].get(k) == per[i - 1].get(k) for k in _SAME)
                         for _, per in ran for i in range(1, len(per))),
            labelled=sum(int(e.metrics.get("calibration_samples") or 0) for e, _ in ran),
            counterexamples=sum(len(e.metrics.get("counterexamples") or []) for e, _ in ran),
            rules_disabled=sum(int(e.metrics.get("rule_disables") or 0) for e, _ in ran),
            rules_learned=sum(_rules_learned(e) for e, _ in ran)))
    return rows


def refinement_md(rows: list[RefinementRow]) -> list[str]:
    lines = ["", "What refinement had to learn from: over the episodes that failed their first "
             "iteration and ran again, how many were won later, the iterations after the "
             "first they ran and how many of those ended with the same counts as the one "
             "before (failure, replanning rounds, queries, environment steps: a pass that "
             "learned nothing replays the one before), the predictions labelled by grounded "
             "outcomes (the samples the calibration is re-fitted from), the counterexamples "
             "to entailment rules (at most 50 kept per episode), the rules they disabled, "
             "and the rules the WALL-E stand-in learned from refuted predictions. "
             "Refinement learns from grounded outcomes only.", "",
             "| method | settings | model | dataset | units | failed iteration 0, ran again | "
             "won later | later iterations | same counts as the one before | labelled "
             "predictions | counterexamples | rules disabled | rules learned |",
             "|" + "---|" * 13]
    for r in rows:
        lines.append(f"| {r.method} | {r.config} | {r.model} | {r.dataset} | {r.units} | "
                     f"{r.iterated} | {r.recovered} | {r.reruns} | {r.repeated} | "
                     f"{r.labelled} | {r.counterexamples} | {r.rules_disabled} | "
                     f"{r.rules_learned} |")
    return lines


def plot_iterations(rows: list[IterationRow], out: Path,
                     name: str = "aec_iterations.png") -> list[str]:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    several = len({r.model for r in rows}) > 1  # then each line names its model
    for r in rows:
        curve = r.success_by_iteration
        model = f", {r.model.removeprefix('controlled-aec:aec:')}" if several else ""
        ax.plot(range(len(curve)), [100 * x for x in curve], "o-",
                label=f"{r.method} ({r.config}) / {r.dataset}{model}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("success (%)")
    ax.set_ylim(-2, 102)
    ax.set_xticks(range(max(len(r.success_by_iteration) for r in rows)))
    ax.set_title("Success by iteration")
    ax.legend(fontsize=6)
    return [save_figure(fig, out, name)]


__all__ = ["IterationRow", "RefinementRow", "iterations", "iterations_md", "plot_iterations",
           "refinement", "refinement_md"]
