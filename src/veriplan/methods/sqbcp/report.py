"""The report's section for hidden-precondition tasks (SQ-BCP and its
baselines): the resource-violation rate with Wilson intervals (the paper's
headline), reference similarity (ROUGE-1/2, BLEU), queries and hypotheses
against the number of hidden preconditions (the paper's Figure 2), calls,
tokens and time, by method, dataset and k; and SQ-BCP paired with each other
method on the tasks both ran (exact McNemar on violations and on verified plans).

"Verified" here has one meaning (scope ``HIDDEN_TASK``): the task's decider
judged the plan valid on the true task. A unit stored before that verdict was
typed (no ``metrics.judgement``: judged by a decider that passed any plan
naming no missing item) is left out of every figure and named, never counted
as verified."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from veriplan.bench.plotting import pyplot, save_figure
from veriplan.bench.stats import PairedComparison, mcnemar, wilson_interval
from veriplan.bench.store import UnitRecord
from veriplan.core.jsonvalue import JSONValue
from veriplan.domains.hidden.metrics import judgement
from veriplan.errors import RecordError
from veriplan.methods import ReportSection

OWN_TASKS = ("sqbcp_recipes", "sqbcp_howto")


def _metrics(r: UnitRecord) -> dict[str, JSONValue]:
    return r.result_dict().get("metrics", {}) if r.result else {}


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def _f(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def _planned(r: Violations) -> str:
    if not r.planned or r.violation_rate_planned is None:
        return "n/a (no plan)"
    lo, hi = r.wilson_planned
    return (f"{100 * r.violation_rate_planned:.1f}% of {r.planned} ({100 * lo:.1f}-"
            f"{100 * hi:.1f})")


def _hidden(r: UnitRecord) -> bool:
    return r.status == "done" and "violated" in _metrics(r)


def stale(records: list[UnitRecord]) -> list[str]:
    """Why each hidden-task unit stored before verdicts were typed is left out
    (the record and the field, and what to do)."""
    out = []
    for r in records:
        if _hidden(r):
            try:
                judgement(_metrics(r), record=f"unit {r.id} ({r.method}, {r.instance})")
            except RecordError as exc:
                out.append(str(exc))
    return out


CONTROLLED = "controlled"  # controlled test models: reported apart, never mixed


@dataclass(frozen=True)
class HiddenCell:
    """Units with one number of hidden preconditions: their mean queries and
    hypotheses (the paper's Figure 2)."""

    units: int
    queries: float
    hypotheses: float


@dataclass(frozen=True)
class Violations:
    """Violations among all units and among the units that produced a plan
    (a method that plans nothing violates nothing; the paper calls trivial
    rejection degenerate, Section 6.2), Wilson 95%."""

    units: int
    violated: int
    violation_rate: float
    wilson: tuple[float, float]
    planned: int
    violation_rate_planned: float | None
    wilson_planned: tuple[float, float]


def _violations(ms: Sequence[Mapping[str, object]]) -> Violations:
    """The violations among the units whose metrics are ``ms`` (its subclasses
    are built from its fields: ``**asdict(_violations(ms))``)."""
    n, bad = len(ms), sum(bool(m.get("violated")) for m in ms)
    planned = sum(not m.get("no_plan") for m in ms)
    return Violations(
        units=n, violated=bad, violation_rate=bad / n, wilson=wilson_interval(bad, n),
        planned=planned, violation_rate_planned=bad / planned if planned else None,
        wilson_planned=wilson_interval(bad, planned) if planned else (0.0, 1.0))


@dataclass(frozen=True)
class HiddenRow(Violations):
    """A real model's units of one method (and ablation), dataset, model and k."""

    method: str
    dataset: str
    model: str
    k: int
    no_plan: int
    unreadable: int
    verified: int
    unknown: int  # accepted or planned, but no fact of the true task decides it
    not_produced: int
    rouge1: float | None
    rouge2: float | None
    bleu: float | None
    queries: float | None
    hypotheses: float | None
    calls: float | None
    tokens: float | None
    seconds: float | None
    by_hidden: dict[int, HiddenCell] = field(default_factory=dict)


@dataclass(frozen=True)
class ControlledRow(Violations):
    """A controlled test model's units of one dataset, setting and method, pooled over k."""

    dataset: str
    setting: str
    method: str
    ks: list[int]
    verified: int
    success: float
    wilson_success: tuple[float, float]
    queries: float | None
    hypotheses: float | None
    by_hidden: dict[int, HiddenCell] = field(default_factory=dict)


@dataclass(frozen=True)
class ByKRow:
    """A controlled test model's units of one dataset, setting, method and k."""

    dataset: str
    setting: str
    method: str
    k: int
    units: int
    violated: int
    verified: int
    wilson: tuple[float, float]
    wilson_success: tuple[float, float]


@dataclass(frozen=True)
class Pair:
    """Arm A (SQ-BCP) against arm B on the tasks both ran: exact McNemar on
    violations and on verified plans. ``model`` and ``k`` are set for real
    models' pairs, ``setting`` for a controlled model's (pooled over k)."""

    dataset: str
    a: str
    b: str
    violated: PairedComparison
    verified: PairedComparison
    model: str = ""
    k: int | None = None
    setting: str = ""


def _current(records: list[UnitRecord], controlled: bool = False) -> list[UnitRecord]:
    """The hidden-task units whose judgement can be read: a real model's, or
    (``controlled``) a controlled test model's."""
    return [r for r in records if _hidden(r) and isinstance(_metrics(r).get("judgement"), dict)
            and (r.backend == CONTROLLED) == controlled]


def rows(records: list[UnitRecord]) -> list[HiddenRow]:
    groups: dict[tuple, list[UnitRecord]] = defaultdict(list)
    current = _current(records)
    label = _arms(current)
    for r in current:
        config = json.loads(r.config)
        groups[(r.method, config.get("ablation", "none"), label[r.id], r.dataset,
                f"{r.backend}:{r.model}", config.get("k", 1))].append(r)
    out = []
    for (_method, _ablation, arm, dataset, model, k), rs in sorted(groups.items()):
        ms = [_metrics(r) for r in rs]
        out.append(HiddenRow(
            **asdict(_violations(ms)),
            method=arm,
            dataset=dataset, model=model, k=k,
            no_plan=sum(bool(m.get("no_plan")) for m in ms),
            unreadable=sum(bool(m.get("unread")) for m in ms),
            verified=sum(bool(r.verified) for r in rs),
            unknown=sum(m.get("verdict") == "unknown" for m in ms),
            not_produced=sum(bool(m.get("goal_unmet")) for m in ms),
            rouge1=_mean([m.get("rouge1") for m in ms]),
            rouge2=_mean([m.get("rouge2") for m in ms]),
            bleu=_mean([m.get("bleu") for m in ms]),
            queries=_mean([m.get("queries") for m in ms]),
            hypotheses=_mean([m.get("hypotheses") for m in ms]),
            calls=_mean([r.llm_calls for r in rs]), tokens=_mean([r.tokens for r in rs]),
            seconds=_mean([r.seconds for r in rs]),
            by_hidden=_by_hidden(ms)))
    return out


def _base(r: UnitRecord) -> str:
    """The method, or an ablation rung of it as ``sqbcp (cot)``: never pooled
    with the full method."""
    ablation = json.loads(r.config).get("ablation", "none")
    return r.method if ablation == "none" else f"{r.method} ({ablation})"


def _arms(records: list[UnitRecord]) -> dict[str, str]:
    """Each unit's arm (by unit id): its method or rung, then the settings other
    than k in which that method's units differ here, ``hidden-cot [oracle=False]``
    (a setting a unit does not give is left out of its name). Units of one method
    run at different settings are different arms, never pooled or paired as one;
    a setting all its units share names no arm."""
    configs = {r.id: json.loads(r.config) for r in records}
    bases = {r.id: _base(r) for r in records}
    keys = {k for c in configs.values() for k in c} - {"k", "ablation"}
    values: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for r in records:
        for key in keys:
            values[bases[r.id]][key].add(str(configs[r.id].get(key, "\0")))
    out = {}
    for r in records:
        base, cfg = bases[r.id], configs[r.id]
        varying = sorted(k for k, vs in values[base].items() if len(vs) > 1 and k in cfg)
        out[r.id] = (f"{base} [" + ",".join(f"{k}={cfg[k]}" for k in varying) + "]"
                     if varying else base)
    return out


def pairs(records: list[UnitRecord]) -> list[Pair]:
    """SQ-BCP (each of its settings) paired with every other method on the same
    dataset, model and k: McNemar on violations and on verified plans."""
    arms: dict[tuple, dict[str, tuple[bool, bool]]] = defaultdict(dict)
    current = _current(records)
    label = _arms(current)
    for r in current:
        m = _metrics(r)
        cfg = json.loads(r.config)
        key = (r.dataset, f"{r.backend}:{r.model}", cfg.get("k", 1), label[r.id])
        arms[key][f"{r.instance}#{r.seed}"] = (bool(m.get("violated")), bool(r.verified))
    out = []
    for (dataset, model, k, a), units_a in sorted(arms.items()):
        if not a.startswith("sqbcp"):
            continue
        for (d2, m2, k2, b), units_b in sorted(arms.items()):
            if (d2, m2, k2) != (dataset, model, k) or b == a or b.startswith("sqbcp"):
                continue
            out.append(Pair(dataset=dataset, model=model, k=k, a=a, b=b,
                            violated=mcnemar({i: v[0] for i, v in units_a.items()},
                                             {i: v[0] for i, v in units_b.items()}),
                            verified=mcnemar({i: v[1] for i, v in units_a.items()},
                                             {i: v[1] for i, v in units_b.items()})))
    return out


def _by_hidden(ms: list[dict[str, JSONValue]]) -> dict[int, HiddenCell]:
    cells: dict[int, list[dict[str, JSONValue]]] = defaultdict(list)
    for m in ms:
        if m.get("hidden") is not None:
            cells[int(m["hidden"])].append(m)
    return {h: HiddenCell(units=len(c), queries=_mean([m.get("queries") for m in c]) or 0.0,
                          hypotheses=_mean([m.get("hypotheses") for m in c]) or 0.0)
            for h, c in sorted(cells.items())}


def section(records: list[UnitRecord], out: Path) -> tuple[str, list[HiddenRow], list[str]]:
    """Markdown, the rows, and the plots written into ``out``."""
    table = rows(records)
    left_out = stale(records)
    extra, extra_plots = controlled_section(records, out)
    if not table and not left_out:
        return extra, [], extra_plots
    lines = ["", "## Hidden preconditions (SQ-BCP and baselines)", ""]
    if left_out:
        lines += [f"{len(left_out)} unit(s) left out of every figure below (not counted as "
                  "verified):", "", *(f"- {e}" for e in left_out[:20])]
        if len(left_out) > 20:
            lines.append(f"- ... and {len(left_out) - 20} more")
        lines.append("")
    lines += [
             "Resource-violation rate: the share of units whose plan the task's decider "
             "finds violating a resource or constraint on the true task (Wilson 95%). "
             "\"No plan\" units produced no plan; \"unreadable\" plans have a step that reads "
             "as no action of the task (neither is counted as a violation; neither is "
             "verified). \"Verified\" is the decider's valid verdict on the true task "
             "(scope hidden_task); \"unknown\" plans are ones no fact of the task decides "
             "(never verified); \"not made\" plans never make the task's product (the dish, "
             "the artefact) or reach its goal.",
             ""]
    if any(r.dataset in OWN_TASKS for r in table):
        lines += ["The recipe and how-to tasks are veriplan's own (written in the RecipeNLG "
                  "and WikiHow formats): these numbers are not comparable with the SQ-BCP "
                  "paper's tables.", ""]
    lines += ["Two rates: over all units (the paper's), and over the units that produced a "
              "plan (a method that plans nothing violates nothing). ROUGE and BLEU are on a "
              "0-100 scale (the paper writes BLEU on 0-1).", ""]
    lines += ["| method | dataset | k | units | violations | rate (Wilson 95%) | rate among "
              "plans (Wilson 95%) | no plan | unreadable | not made | unknown | verified | "
              "ROUGE-1 | ROUGE-2 | BLEU | queries | hypotheses | calls | tokens | s |",
              "|" + "---|" * 20]
    for r in table:
        lines.append(
            f"| {r.method} | {r.dataset} | {r.k} | {r.units} | {r.violated} | "
            f"{100 * r.violation_rate:.1f}% ({100 * r.wilson[0]:.1f}-"
            f"{100 * r.wilson[1]:.1f}) | {_planned(r)} | {r.no_plan} | {r.unreadable} | "
            f"{r.not_produced} | {r.unknown} | {r.verified} | "
            f"{_f(r.rouge1)} | {_f(r.rouge2)} | {_f(r.bleu)} | {_f(r.queries, 2)} "
            f"| {_f(r.hypotheses, 2)} | {_f(r.calls, 2)} | {_f(r.tokens, 0)} | "
            f"{_f(r.seconds, 1)} |")
    paired = pairs(records)
    if paired:
        lines += ["", "Paired on the same tasks (instance and seed), SQ-BCP against each other "
                  "method: tasks whose plan violates (or is verified) for one arm only, and the "
                  "exact two-sided McNemar p.", "",
                  "| dataset | k | A | B | shared | violations A only | B only | p | "
                  "verified A only | B only | p |", "|" + "---|" * 11]
        for c in paired:
            v, w = c.violated, c.verified
            lines.append(f"| {c.dataset} | {c.k} | {c.a} | {c.b} | {v.shared} | "
                         f"{v.only_a} | {v.only_b} | {v.p_value:.3g} | {w.only_a} | "
                         f"{w.only_b} | {w.p_value:.3g} |")
    plots = _plot(table, out) if table else []
    for p in plots:
        lines += ["", f"![{p}]({p})"]
    return "\n".join(lines) + "\n" + extra, table, plots + extra_plots


def report_section(records: list[UnitRecord], out: Path) -> ReportSection:
    """SQ-BCP's section of the report (its registration names it): the
    hidden-precondition tables and the controlled-model results, with their
    rows in report.json (``hidden``, ``controlled``)."""
    md, table, plots = section(records, out)
    return ReportSection(md, {"hidden": [asdict(r) for r in table],
                              "controlled": [asdict(r) for r in controlled_rows(records)]}, plots)


def _setting(model: str) -> str:
    """"sqbcp:p_hidden=0.2,acc=0.5,seed=0" -> "p=0.2, acc=0.5" (", omit=pre" when set); a
    rate the model string leaves out is the controlled model's default ("sqbcp" -> "p=0.3,
    acc=0.5")."""
    from veriplan.methods.sqbcp.controlled import Settings

    kv = dict(part.split("=", 1) for part in model.partition(":")[2].split(",") if "=" in part)
    omit = f", omit={kv['omit']}" if kv.get("omit", "all") != "all" else ""
    return (f"p={kv.get('p_hidden', Settings.p_hidden)}, "
            f"acc={kv.get('acc', Settings.acc)}{omit}")


def controlled_rows(records: list[UnitRecord]) -> list[ControlledRow]:
    """Controlled-model units by dataset, setting and method, pooled over k (the
    paper averages k = 1..4): violation rates (all units, among plans), verified
    rate, queries and hypotheses per task."""
    groups: dict[tuple, list[UnitRecord]] = defaultdict(list)
    current = _current(records, controlled=True)
    label = _arms(current)
    for r in current:
        groups[(r.dataset, _setting(r.model), label[r.id])].append(r)
    out = []
    for (dataset, setting, method), rs in sorted(groups.items()):
        ms = [_metrics(r) for r in rs]
        ok = sum(bool(r.verified) for r in rs)
        out.append(ControlledRow(
            **asdict(_violations(ms)), dataset=dataset, setting=setting, method=method,
            ks=sorted({json.loads(r.config).get("k", 1) for r in rs}),
            verified=ok, success=ok / len(rs), wilson_success=wilson_interval(ok, len(rs)),
            queries=_mean([m.get("queries") for m in ms]),
            hypotheses=_mean([m.get("hypotheses") for m in ms]),
            by_hidden=_by_hidden(ms)))
    return out


def controlled_by_k(records: list[UnitRecord]) -> list[ByKRow]:
    """Controlled-model units by dataset, setting, method and k (the paper's
    k = 1..4, which the main table pools): violations and verified plans, with
    Wilson intervals."""
    groups: dict[tuple, list[UnitRecord]] = defaultdict(list)
    current = _current(records, controlled=True)
    label = _arms(current)
    for r in current:
        groups[(r.dataset, _setting(r.model), label[r.id],
                int(json.loads(r.config).get("k", 1)))].append(r)
    out = []
    for (dataset, setting, method, k), rs in sorted(groups.items()):
        n = len(rs)
        bad = sum(bool(_metrics(r).get("violated")) for r in rs)
        ok = sum(bool(r.verified) for r in rs)
        out.append(ByKRow(dataset=dataset, setting=setting, method=method, k=k, units=n,
                          violated=bad, verified=ok, wilson=wilson_interval(bad, n),
                          wilson_success=wilson_interval(ok, n)))
    return out


def _by_k_md(rows: list[ByKRow], a: str = "sqbcp", b: str = "self-ask") -> list[str]:
    """SQ-BCP beside Self-Ask (the baseline that asks) at each k."""
    cells = {(r.dataset, r.setting, r.method, r.k): r for r in rows}
    keys = sorted({(d, s, k) for d, s, m, k in cells if m == a and (d, s, b, k) in cells})
    if not keys or len({k for _, _, k in keys}) < 2:
        return []
    lines = ["", f"By k (the paper averages k = 1..4; the table above pools them): {a} and "
             f"{b}, violations and verified plans out of the units, Wilson 95%.", "",
             f"| dataset | setting | k | {a} violations | {a} verified | {b} violations | "
             f"{b} verified |", "|" + "---|" * 7]

    def cell(x: int, n: int, w: tuple[float, float]) -> str:
        return f"{x}/{n} ({100 * w[0]:.0f}-{100 * w[1]:.0f}%)"

    for d, s, k in keys:
        ra, rb = cells[(d, s, a, k)], cells[(d, s, b, k)]
        lines.append(f"| {d} | {s} | {k} | "
                     f"{cell(ra.violated, ra.units, ra.wilson)} | "
                     f"{cell(ra.verified, ra.units, ra.wilson_success)} | "
                     f"{cell(rb.violated, rb.units, rb.wilson)} | "
                     f"{cell(rb.verified, rb.units, rb.wilson_success)} |")
    return lines


def _by_k_plot(rows: list[ByKRow], out: Path, method: str = "sqbcp") -> list[str]:
    mine = [r for r in rows if r.method == method]
    if len({r.k for r in mine}) < 2:
        return []
    plt = pyplot()
    datasets = sorted({r.dataset for r in mine})
    fig, axes = plt.subplots(1, len(datasets), figsize=(4 * len(datasets), 3.4), squeeze=False)
    for j, d in enumerate(datasets):
        for setting in sorted({r.setting for r in mine if r.dataset == d}):
            rs = sorted((r for r in mine if r.dataset == d and r.setting == setting),
                        key=lambda r: r.k)
            axes[0][j].plot([r.k for r in rs], [100 * r.verified / r.units for r in rs],
                            "o-", label=setting)
        axes[0][j].set_title(d, fontsize=9)
        axes[0][j].set_xlabel("k")
        axes[0][j].set_xticks(sorted({r.k for r in mine}))
        axes[0][j].set_ylim(-2, 102)
    axes[0][0].set_ylabel(f"{method} verified (%)")
    axes[0][-1].legend(fontsize=6)
    fig.suptitle(f"Controlled model: {method}'s success by k", fontsize=9)
    return [save_figure(fig, out, "controlled_sqbcp_by_k.png")]


def controlled_pairs(records: list[UnitRecord]) -> list[Pair]:
    """SQ-BCP against each method on the same (task, k, seed), per dataset and
    setting: exact McNemar on violations and on verified plans."""
    arms: dict[tuple, dict[str, tuple[bool, bool]]] = defaultdict(dict)
    current = _current(records, controlled=True)
    label = _arms(current)
    for r in current:
        k = json.loads(r.config).get("k", 1)
        arms[(r.dataset, _setting(r.model), label[r.id])][f"{r.instance}#{k}#{r.seed}"] = (
            bool(_metrics(r).get("violated")), bool(r.verified))
    out = []
    for (dataset, setting, a), ua in sorted(arms.items()):
        if a != "sqbcp":
            continue
        for (d2, s2, b), ub in sorted(arms.items()):
            if (d2, s2) == (dataset, setting) and b != a:
                out.append(Pair(dataset=dataset, setting=setting, a=a, b=b,
                                violated=mcnemar({i: v[0] for i, v in ua.items()},
                                                 {i: v[0] for i, v in ub.items()}),
                                verified=mcnemar({i: v[1] for i, v in ua.items()},
                                                 {i: v[1] for i, v in ub.items()})))
    return out


def controlled_section(records: list[UnitRecord], out: Path) -> tuple[str, list[str]]:
    """Markdown for the controlled-model units (``--backend controlled``), apart
    from every real model's figures, and its plot."""
    table = controlled_rows(records)
    if not table:
        return "", []
    lines = ["", "## Controlled-model results: hidden preconditions", "",
             "Controlled test models (`--backend controlled`): seeded planners whose error "
             "rates are set (p: a hidden precondition omitted; acc: a guess or a claimed "
             "label right). These are not model results and are never pooled with them. "
             "Pooled over k; Wilson 95% intervals.", "",
             "| dataset | setting | method | units | violation rate | among plans | "
             "success (verified) | queries | hypotheses |", "|" + "---|" * 9]
    for r in table:
        lo, hi = r.wilson
        slo, shi = r.wilson_success
        lines.append(f"| {r.dataset} | {r.setting} | {r.method} | {r.units} | "
                     f"{100 * r.violation_rate:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}) | "
                     f"{_planned(r)} | {100 * r.success:.1f}% ({100 * slo:.1f}-"
                     f"{100 * shi:.1f}) | {_f(r.queries, 2)} | {_f(r.hypotheses, 2)} |")
    paired = controlled_pairs(records)
    if paired:
        lines += ["", "Paired on the same (task, k): SQ-BCP (A) against each method (B); "
                  "exact two-sided McNemar.", "",
                  "| dataset | setting | B | shared | violates A only | B only | p | "
                  "verified A only | B only | p |", "|" + "---|" * 10]
        for c in paired:
            v, w = c.violated, c.verified
            lines.append(f"| {c.dataset} | {c.setting} | {c.b} | {v.shared} | "
                         f"{v.only_a} | {v.only_b} | {v.p_value:.3g} | {w.only_a} | "
                         f"{w.only_b} | {w.p_value:.3g} |")
    fig2 = [r for r in table if r.method == "sqbcp" and r.by_hidden]
    if fig2:
        lines += ["", "SQ-BCP's queries and hypotheses per task against the number of hidden "
                  "preconditions (the paper's Figure 2), pooled over k: mean (units).", "",
                  "| dataset | setting | hidden: queries / hypotheses (units) |", "|---|---|---|"]
        for r in fig2:
            cells = "; ".join(f"{h}: {c.queries:.2f} / {c.hypotheses:.2f} ({c.units})"
                              for h, c in r.by_hidden.items())
            lines.append(f"| {r.dataset} | {r.setting} | {cells} |")
    by_k = controlled_by_k(records)
    lines += _by_k_md(by_k)
    plots = _controlled_plot(table, out) + _figure2_plot(fig2, out) + _by_k_plot(by_k, out)
    for p in plots:
        lines += ["", f"![{p}]({p})"]
    return "\n".join(lines) + "\n", plots


def _controlled_plot(table: list[ControlledRow], out: Path) -> list[str]:
    plt = pyplot()
    datasets = sorted({r.dataset for r in table})
    fig, axes = plt.subplots(2, len(datasets), figsize=(4 * len(datasets), 6), squeeze=False)
    # One line per method and setting apart from p (e.g. omit=pre): points of two error
    # models at the same p are never joined.
    rest = {r.setting: r.setting.split(", ")[1:] for r in table}
    common = set.intersection(*(set(v) for v in rest.values()))
    panels: dict[str, dict[str, list[ControlledRow]]] = {}
    for d in datasets:
        lines: dict[str, list[ControlledRow]] = defaultdict(list)
        for r in sorted((r for r in table if r.dataset == d), key=lambda r: r.setting):
            extra = [x for x in rest[r.setting] if x not in common]
            lines[f"{r.method} ({', '.join(extra)})" if extra else r.method].append(r)
        panels[d] = lines
    # one colour per series in every panel (tab20: more series than the default cycle's
    # 10), and one legend naming every series (a method on one dataset only, as
    # hidden-tos on PDDL, shifted the other panels' colours and missed the legend)
    names = sorted({label for lines in panels.values() for label in lines})
    colours = dict(zip(names, plt.get_cmap("tab20").colors * (len(names) // 20 + 1)))
    handles = {}
    for j, d in enumerate(datasets):
        for label, rs in sorted(panels[d].items()):
            xs = [float(r.setting.split(",")[0].split("=")[1]) for r in rs]
            handles[label], = axes[0][j].plot(xs, [100 * r.violation_rate for r in rs], "o-",
                                              label=label, color=colours[label])
            axes[1][j].plot(xs, [100 * r.success for r in rs], "o-", label=label,
                            color=colours[label])
        axes[0][j].set_title(d, fontsize=9)
        axes[1][j].set_xlabel("p (omission rate)")
    axes[0][0].set_ylabel("violation rate (%)")
    axes[1][0].set_ylabel("verified (%)")
    axes[0][-1].legend([handles[n] for n in names], names, fontsize=6)
    fig.suptitle("Controlled model: violations and success against p (pooled over k)",
                 fontsize=9)
    return [save_figure(fig, out, "controlled_sqbcp.png")]


def _figure2_plot(rows: list[ControlledRow], out: Path) -> list[str]:
    """The paper's Figure 2 for the controlled model: SQ-BCP's mean queries (top)
    and hypotheses (bottom) per task against the number of hidden preconditions,
    one panel per dataset, one line per setting (pooled over k)."""
    if not rows:
        return []
    plt = pyplot()
    datasets = sorted({r.dataset for r in rows})
    fig, axes = plt.subplots(2, len(datasets), figsize=(4 * len(datasets), 6), squeeze=False)
    for j, d in enumerate(datasets):
        mine = sorted((r for r in rows if r.dataset == d), key=lambda r: r.setting)
        for i, r in enumerate(mine):  # markers shrink along the series: equal ones stay seen
            xs, size = sorted(r.by_hidden), max(3, 9 - 1.5 * i)
            axes[0][j].plot(xs, [r.by_hidden[x].queries for x in xs], "o-", ms=size,
                            label=r.setting)
            axes[1][j].plot(xs, [r.by_hidden[x].hypotheses for x in xs], "s--", ms=size,
                            label=r.setting)
        axes[0][j].set_title(d, fontsize=9)
        axes[1][j].set_xlabel("hidden preconditions")
        for ax in (axes[0][j], axes[1][j]):
            ax.set_xticks(sorted({h for r in rows if r.dataset == d for h in r.by_hidden}))
    axes[0][0].set_ylabel("queries per task (mean)")
    axes[1][0].set_ylabel("hypotheses per task (mean)")
    axes[0][-1].legend(fontsize=6)
    fig.suptitle("Controlled model: SQ-BCP's queries and hypotheses against the hidden "
                 "count (the paper's Figure 2; pooled over k)", fontsize=9)
    return [save_figure(fig, out, "controlled_sqbcp_figure2.png")]


def _plot(table: list[HiddenRow], out: Path) -> list[str]:
    series = [r for r in table if r.by_hidden and (r.hypotheses or r.queries)]
    if not series:
        return []
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in series:
        xs = sorted(r.by_hidden)
        label = f"{r.method} / {r.dataset} / k={r.k}"
        ax.plot(xs, [r.by_hidden[x].queries for x in xs], "o-", label=f"{label}: queries")
        ax.plot(xs, [r.by_hidden[x].hypotheses for x in xs], "s--",
                label=f"{label}: hypotheses")
    ax.set_xlabel("hidden preconditions")
    ax.set_ylabel("per task (mean)")
    ax.set_title("Queries and hypotheses against missing preconditions")
    ax.legend(fontsize=6)
    return [save_figure(fig, out, "hidden_queries_hypotheses.png")]
