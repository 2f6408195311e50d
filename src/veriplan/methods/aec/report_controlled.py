"""The controlled-model part of the report's AEC section (issue 33): episodes
run with ``--backend controlled-aec`` (see
:mod:`veriplan.llm.backends.controlled_aec`), apart from model results, never
pooled with them:

- per controlled model setting and configuration, success with its Wilson
  interval and per-episode queries (bootstrap interval), simulations,
  replanning rounds, environment steps and unchecked commits, over all of an
  episode's iterations;
- AEC against Query-Only on the same episodes (the query-efficiency claim);
- the AEC paper's Figure 1 ablations and the axis of the planner's error rate
  p, each with a plot;
- the Figure 3 iterations with what refinement had to learn from (the rows of
  :mod:`veriplan.methods.aec.report_iterations`);
- on ScienceWorld, the tasks whose text names the focus target apart from the
  others, and success against queries as a plot;
- the paired tests of :func:`veriplan.methods.aec.report_episodes.paired`.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from veriplan.bench.plotting import pyplot, save_figure
from veriplan.bench.stats import bootstrap_mean_interval, wilson_interval
from veriplan.methods.aec.report_episodes import (
    Arm,
    Episode,
    JsonDict,
    config_of,
    configurations,
    fmt_number,
    mean_of,
    model_of,
    paired,
    paired_md,
    same_episodes,
)
from veriplan.methods.aec.report_iterations import (
    iterations,
    iterations_md,
    plot_iterations,
    refinement,
    refinement_md,
)


def setting(model: str) -> dict[str, float | str]:
    """A controlled-aec model string's settings (p, g, acc, conf, seed), with
    the backend's defaults for those it does not name."""
    from veriplan.methods.aec.controlled_model import Settings

    s = Settings.parse(model.removeprefix("controlled-aec:"))
    return {"p": s.p, "g": s.g, "acc": s.acc, "conf": s.conf, "seed": s.seed}


def _itot(e: Episode, key: str) -> float | None:
    """A counter over all of the episode's iterations (the metrics' totals), else
    the last iteration's."""
    tot = e.metrics.get("totals") or {}
    v = tot.get(key, e.metrics.get(key))
    return None if v is None or isinstance(v, bool) else float(v)


@dataclass(frozen=True)
class ControlledRow:
    """A controlled model setting's episodes of one configuration: success with
    its Wilson interval, and per episode (over all iterations) queries with a
    bootstrap interval, simulations, replanning rounds, environment steps and
    commits V could not check."""

    model: str
    method: str
    config: str
    dataset: str
    units: int
    won: int
    success: float
    wilson: tuple[float, float]
    queries: float | None
    queries_ci: tuple[float, float] | None
    simulations: float | None
    replans: float | None
    env_steps: float | None
    unchecked_commits: float | None
    left_out: int


def controlled_rows(eps: list[Episode]) -> list[ControlledRow]:
    """:class:`ControlledRow` per controlled model setting and configuration."""
    rows = []
    for (method, config, model, dataset), es in configurations(eps):
        n, won = len(es), sum(e.won for e in es)
        kept = [e for e in es if not e.left_out]
        q = [_itot(e, "queries") or 0.0 for e in kept]
        rows.append(ControlledRow(
            model=model, method=method, config=config, dataset=dataset, units=n, won=won,
            success=won / n if n else 0.0, wilson=wilson_interval(won, n),
            queries=mean_of(list(q)),
            queries_ci=tuple(bootstrap_mean_interval(q)) if q else None,
            simulations=mean_of([_itot(e, "simulations") for e in kept]),
            replans=mean_of([e.get("replanning_rounds") for e in kept]),
            env_steps=mean_of([e.get("env_steps") for e in kept]),
            unchecked_commits=mean_of([_itot(e, "unchecked_commits") for e in kept]),
            left_out=n - len(kept)))
    return rows


@dataclass(frozen=True)
class QueryPair:
    """AEC arm ``a`` against Query-Only on the episodes both ran under ``model``:
    the mean difference in queries per episode (AEC minus Query-Only) with a
    bootstrap interval, and both arms' wins on those episodes."""

    a: str
    model: str
    dataset: str
    shared: int
    diff: float
    diff_ci: tuple[float, float]
    a_won: int
    b_won: int


def query_pairs(eps: list[Episode]) -> list[QueryPair]:
    """AEC (each setting) against Query-Only on the same episodes and model: the
    mean difference in queries per episode (AEC minus Query-Only) with a
    bootstrap interval over the shared episodes, and both arms' wins."""
    arms: dict[Arm, dict[str, Episode]] = defaultdict(dict)
    for e in eps:
        if not e.left_out:
            r = e.record
            arms[(r.method, config_of(r), model_of(r), r.dataset)][f"{r.instance}/{r.seed}"] = e
    out = []
    for a, ea in sorted(arms.items()):
        if a[0] != "aec":
            continue
        for b, eb in sorted(arms.items()):
            if b[0] != "query-only" or not same_episodes(a, b, arms):
                continue
            shared = sorted(set(ea) & set(eb))
            if not shared:
                continue
            d = [(_itot(ea[k], "queries") or 0.0) - (_itot(eb[k], "queries") or 0.0)
                 for k in shared]
            out.append(QueryPair(a=f"aec ({a[1]})", model=a[2], dataset=a[3],
                                 shared=len(shared), diff=sum(d) / len(d),
                                 diff_ci=tuple(bootstrap_mean_interval(d)),
                                 a_won=sum(ea[k].won for k in shared),
                                 b_won=sum(eb[k].won for k in shared)))
    return out


def _ci(c: tuple[float, float] | list[float] | None, digits: int = 2) -> str:
    return "" if not c else f" ({c[0]:.{digits}f} to {c[1]:.{digits}f})"


ABLATIONS = (("AEC", ("defaults", "tau=0.2")), ("without V", ("verification=False",)),
             ("without the gate", ("gating=False",)))


@dataclass(frozen=True)
class AblationArm:
    """One arm of Figure 1 (AEC, without V, without the gate)."""

    arm: str
    units: int
    failure: float
    replans: float | None


@dataclass(frozen=True)
class AblationRow:
    """The AEC paper's Figure 1 for one controlled model and dataset."""

    model: str
    dataset: str
    arms: list[AblationArm]


def ablation_rows(rows: list[ControlledRow]) -> list[AblationRow]:
    """The AEC paper's Figure 1 per controlled model: failure rate and
    replanning rounds of AEC, AEC without V and AEC without the gate."""
    out = []
    for model, dataset in sorted({(r.model, r.dataset) for r in rows if r.method == "aec"}):
        arms = []
        for name, configs in ABLATIONS:
            r = next((r for r in rows if r.method == "aec" and r.model == model
                      and r.dataset == dataset and r.config in configs), None)
            if r is not None:
                arms.append(AblationArm(name, r.units, 1 - r.success, r.replans))
        if len(arms) > 1:
            out.append(AblationRow(model, dataset, arms))
    return out


def _plot_ablation(rows: list[AblationRow], out: Path) -> list[str]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    names = [name for name, _ in ABLATIONS]
    width = 0.8 / max(1, len(rows))
    several = len({r.dataset for r in rows}) > 1
    for i, r in enumerate(rows):
        label = r.model.removeprefix("controlled-aec:aec:") + \
            (f" ({r.dataset})" if several else "")
        arms = {a.arm: a for a in r.arms}
        xs = [j + i * width for j, n in enumerate(names) if n in arms]
        axes[0].bar(xs, [100 * arms[n].failure for n in names if n in arms], width,
                    label=label)
        axes[1].bar(xs, [arms[n].replans or 0 for n in names if n in arms], width,
                    label=label)
    for ax, what in zip(axes, ("failure rate (%)", "replanning rounds / episode")):
        ax.set_xticks([j + width * (len(rows) - 1) / 2 for j in range(len(names))])
        ax.set_xticklabels(names, fontsize=8)
        ax.set_ylabel(what)
    axes[0].legend(fontsize=6)
    fig.suptitle("AEC ablations with controlled models (Figure 1's layout)", fontsize=9)
    return [save_figure(fig, out, "aec_controlled_ablation.png")]


@dataclass(frozen=True)
class AxisRow:
    """One configuration and (g, acc, conf) along the planner's error rate p."""

    method: str
    config: str
    g: float | str
    acc: float | str
    conf: float | str
    dataset: str
    p: list[float]
    success: list[float]
    wilson: list[tuple[float, float]]
    queries: list[float | None]


def axis_rows(rows: list[ControlledRow]) -> list[AxisRow]:
    """Success and queries per episode along the planner's error rate p, per
    configuration and (g, acc, conf): only where at least two p were run."""
    groups: dict[tuple, list[tuple[float, ControlledRow]]] = defaultdict(list)
    for r in rows:
        if not r.model.startswith("controlled-aec:"):
            continue
        st = setting(r.model)
        groups[(r.method, r.config, st["g"], st["acc"], st["conf"], r.dataset)].append(
            (float(st["p"]), r))
    out = []
    for (method, config, g, acc, conf, dataset), rs in sorted(groups.items(), key=str):
        if len({p for p, _ in rs}) < 2:
            continue
        rs.sort(key=lambda pr: pr[0])
        out.append(AxisRow(method, config, g, acc, conf, dataset, [p for p, _ in rs],
                           [r.success for _, r in rs], [r.wilson for _, r in rs],
                           [r.queries for _, r in rs]))
    return out


def _plot_axis(rows: list[AxisRow], out: Path) -> list[str]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for r in rows:
        label = (f"{r.method} ({r.config}), g={r.g}, acc={r.acc} {r.conf}")
        lo = [max(0.0, 100 * (s - w[0])) for s, w in zip(r.success, r.wilson)]
        hi = [max(0.0, 100 * (w[1] - s)) for s, w in zip(r.success, r.wilson)]
        axes[0].errorbar(r.p, [100 * x for x in r.success], yerr=[lo, hi], fmt="o-",
                         capsize=3, label=label)
        axes[1].plot(r.p, [q or 0 for q in r.queries], "o-", label=label)
    axes[0].set_ylabel("success (%), Wilson 95%")
    axes[0].set_ylim(-2, 102)
    axes[1].set_ylabel("queries / episode")
    for ax in axes:
        ax.set_xlabel("planner's precondition-error rate p")
    axes[1].legend(fontsize=5)
    fig.suptitle("AEC and its baselines along p (controlled models)", fontsize=9)
    return [save_figure(fig, out, "aec_controlled_p.png")]


@dataclass(frozen=True)
class GoalFormRow:
    """Controlled ScienceWorld episodes of one configuration, the tasks whose
    text names what to focus on (``named``: AEC's V can refute a wrong focus)
    apart from the others (V cannot tell a goal error there)."""

    model: str
    method: str
    config: str
    dataset: str
    named: bool
    episodes: int
    won: int
    failed_by_engine: int  # ended at a negative score: the engine failed the task
    mean_score: float  # ScienceWorld's score, a negative one counted 0


def task_text(e: Episode) -> str:
    """The task text of an episode, from its first prompt ("Your task: ...")."""
    for entry in e.record.result_dict().get("transcript") or []:
        prompt = str(entry.get("prompt") or "")
        at = prompt.find("Your task: ")
        if at >= 0:
            return prompt[at + len("Your task: "):].split("\n", 1)[0].strip()
    return ""


def goal_form_rows(eps: list[Episode]) -> list[GoalFormRow]:
    """:class:`GoalFormRow` per configuration and goal form, for the
    controlled ScienceWorld episodes."""
    from veriplan.methods.aec.envmodels import scienceworld_goal

    groups: dict[tuple[str, str, str, str, bool], list[Episode]] = defaultdict(list)
    for e in eps:
        if e.env != "scienceworld":
            continue
        goal = scienceworld_goal(task_text(e))
        named = bool(goal is not None and goal.named and goal.targets)
        r = e.record
        groups[(model_of(r), r.method, config_of(r), r.dataset, named)].append(e)
    return [GoalFormRow(model, method, config, dataset, named, len(es), sum(e.won for e in es),
                        sum(float(e.metrics.get("score") or 0) < 0 for e in es),
                        sum(e.score or 0.0 for e in es) / len(es))
            for (model, method, config, dataset, named), es in sorted(groups.items())]


def _goal_form_md(rows: list[GoalFormRow]) -> list[str]:
    lines = ["", "### ScienceWorld: tasks whose text names the focus target, and the others",
             "", "On ScienceWorld the controlled planner proposes the rest of the gold path of "
             "the world the episode loaded, with one door-opening step left out at rate p "
             "(a precondition error: the agent's room's doors are in every room "
             "description, so w refutes it at once; a door further on is settled by no "
             "query here, only by a prediction, V's ungrounded need, or the failed step) "
             "and a goal error at rate g: a focus on a wrong thing where the task text "
             "names the target (V's goal check refutes it; the engine fails the task at "
             "it), else the path's last step left out (only the outcome shows it). "
             "`ended failed`: the engine ended the task at a negative score (a wrong focus).",
             "", "| model | method | settings | names the target | episodes | success | "
             "ended failed | mean score |", "|" + "---|" * 8]
    for r in rows:
        lines.append(f"| {r.model} | {r.method} | {r.config} | "
                     f"{'yes' if r.named else 'no'} | {r.episodes} | "
                     f"{r.won}/{r.episodes} | {r.failed_by_engine} | {r.mean_score:.1f} |")
    return lines


def _plot_queries_success(rows: list[ControlledRow], out: Path, name: str) -> list[str]:
    """Success against queries per episode, one point per configuration and
    model (the query-efficiency claim: fewer queries at equal success)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    markers = "osD^vP*X"
    models = sorted({r.model for r in rows})
    for r in rows:
        lo, hi = r.wilson
        label = (f"{r.method} ({r.config}), "
                 f"{r.model.removeprefix('controlled-aec:aec:')}")
        ax.errorbar([r.queries or 0], [100 * r.success],
                    yerr=[[100 * max(0.0, r.success - lo)], [100 * max(0.0, hi - r.success)]],
                    fmt=markers[models.index(r.model) % len(markers)], capsize=3,
                    label=label)
    ax.set_xlabel("queries / episode")
    ax.set_ylabel("success (%), Wilson 95%")
    ax.set_ylim(-2, 102)
    ax.legend(fontsize=5, loc="lower right")
    fig.suptitle("Controlled models on ScienceWorld: success against queries", fontsize=9)
    return [save_figure(fig, out, name)]


def controlled_section(eps: list[Episode], out: Path
                       ) -> tuple[list[str], JsonDict, list[str]]:
    rows, qp, pairs, its = (controlled_rows(eps), query_pairs(eps), paired(eps),
                            iterations(eps))
    ablations, axis = ablation_rows(rows), axis_rows(rows)
    lines = ["", "## Controlled-model results: AEC and its baselines", "",
             "Controlled test models (`--backend controlled-aec`): on the household games, "
             "a seeded planner that proposes the game's gold path with the object's place "
             "wrong at rate p (a precondition error, which AEC's gate settles) and the "
             "object's final place of a wrong kind at rate g (a goal error, which no query "
             "settles), and a predictor right at rate acc, its votes calibrated to how "
             "often it is right (`conf=calibrated`) or unanimous whatever (`conf=over`). "
             "These are not model results and are never pooled with them. Success with "
             "Wilson 95% intervals; per-episode means over all of an episode's iterations, "
             "queries with a bootstrap 95% interval. Query-Only, Direct and ReAct use no "
             "predictor: their episodes are paired with AEC's under every predictor setting "
             "of the same planner (p, g, seed). ScienceWorld's controlled planner: see its "
             "subsection below.", "",
             "| model | method | settings | dataset | episodes | success | queries | "
             "simulations | replanning rounds | env steps | unchecked commits |",
             "|" + "---|" * 11]
    for r in rows:
        lo, hi = r.wilson
        lines.append(f"| {r.model} | {r.method} | {r.config} | {r.dataset} | "
                     f"{r.units} | {r.won}/{r.units} = {100 * r.success:.0f}% "
                     f"({100 * lo:.0f}-{100 * hi:.0f}) | {fmt_number(r.queries, 2)}"
                     f"{_ci(r.queries_ci)} | {fmt_number(r.simulations, 2)} | "
                     f"{fmt_number(r.replans, 2)} | {fmt_number(r.env_steps, 1)} | "
                     f"{fmt_number(r.unchecked_commits, 2)} |")
    if qp:
        lines += ["", "AEC against Query-Only on the same episodes (the paper's query-efficiency "
                  "claim: fewer queries at equal success): mean difference in queries per "
                  "episode, AEC minus Query-Only, bootstrap 95% interval.", "",
                  "| AEC settings | model | dataset | shared | queries: AEC - Query-Only | "
                  "AEC won | Query-Only won |", "|" + "---|" * 7]
        for q in qp:
            lines.append(f"| {q.a} | {q.model} | {q.dataset} | {q.shared} | "
                         f"{q.diff:+.2f}{_ci(q.diff_ci)} | {q.a_won} | {q.b_won} |")
    plots: list[str] = []
    if ablations:
        lines += ["", "### The ablations (the AEC paper's Figure 1)", "",
                  "| model | arm | episodes | failure rate | replanning rounds |",
                  "|---|---|---|---|---|"]
        several = len({ab.dataset for ab in ablations}) > 1
        for ab in ablations:
            for a in ab.arms:
                model = f"{ab.model} ({ab.dataset})" if several else ab.model
                lines.append(f"| {model} | {a.arm} | {a.units} | "
                             f"{100 * a.failure:.0f}% | {fmt_number(a.replans, 2)} |")
        plots += _plot_ablation(ablations, out)
        lines += ["", f"![{plots[-1]}]({plots[-1]})"]
    if axis:
        plots += _plot_axis(axis, out)
        lines += ["", "### Along the planner's error rate p", "", f"![{plots[-1]}]({plots[-1]})"]
    refined = refinement(eps)
    if its:
        lines += iterations_md(its) + refinement_md(refined)
        plots += plot_iterations(its, out, "aec_controlled_iterations.png")
        lines += ["", f"![{plots[-1]}]({plots[-1]})"]
    forms = goal_form_rows(eps)
    if forms:
        lines += _goal_form_md(forms)
        sw_rows = [r for r in rows if r.dataset in {f.dataset for f in forms}]
        plots += _plot_queries_success(sw_rows, out, "aec_controlled_scienceworld.png")
        lines += ["", f"![{plots[-1]}]({plots[-1]})"]
    if pairs:
        lines += paired_md(pairs)
    asdict = dataclasses.asdict
    return lines, {"rows": [asdict(r) for r in rows], "query_pairs": [asdict(q) for q in qp],
                   "paired": [asdict(p) for p in pairs], "iterations": [asdict(i) for i in its],
                   "refinement": [asdict(r) for r in refined],
                   "ablations": [asdict(a) for a in ablations],
                   "p_axis": [asdict(a) for a in axis],
                   "goal_forms": [asdict(r) for r in forms]}, plots


__all__ = ["ABLATIONS", "AblationArm", "AblationRow", "AxisRow", "ControlledRow", "GoalFormRow",
           "QueryPair", "ablation_rows", "axis_rows", "controlled_rows", "controlled_section",
           "goal_form_rows", "query_pairs", "setting", "task_text"]
