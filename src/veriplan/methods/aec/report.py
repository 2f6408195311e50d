"""The report's section for AEC and its baselines in the environments
(``aec``, ``aec-direct``, ``aec-react``, ``wkm``, ``query-only``; see
``veriplan.methods.aec``), read from each unit's ``metrics``:

- the household games in the layout of the AEC paper's Table 1: success per
  ALFWorld task type (pick, clean, heat, cool, examine, pick two) and over all,
  with the paper's replanning rounds (a failed episode counts the cap), queries,
  environment steps, LLM calls and tokens per episode;
- ScienceWorld in the layout of Table 2: mean score and success on seen and
  unseen variations, with the package version and the task subset run;
- success by iteration (Figure 3) for runs with ``iterations`` > 1, as a table
  and a plot, and what refinement had to learn from (labelled predictions,
  counterexamples, rules; passes that repeated the one before);
- where each configuration's decisions went (plans proposed, discarded by
  grounded evidence, predictions and how the gate sent them, commits, and
  how each round without a commit ended: H emptied or h* rejected by V),
  summed over its costed episodes: with a weak
  predictor AEC's gate can send every prediction to a query, and this shows it;
- paired tests (exact McNemar) between AEC and every other configuration that
  ran the same episodes with the same model.

Units the harness recorded as an error (no metrics) and episodes whose
environment failed (failure ``env_error``: the simulator raised or died) are
not the method's doing: success still counts them as not won over every
attempted episode, as the paper counts over all its episodes, but every cost
mean leaves them out (all cost columns over the same episodes) and so does
each paired test, in both arms; the tables say how many were left out.

Our household games are our own generation: the section says so wherever it
shows them. Episodes of controlled test models get their own section
(:mod:`veriplan.methods.aec.report_controlled`), never pooled with model results.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from veriplan.bench.stats import wilson_interval
from veriplan.bench.store import UnitRecord
from veriplan.methods import ReportSection
from veriplan.methods.aec.controller import QUERY_AMBIGUOUS, QUERY_UNCERTAIN, SIMULATE
from veriplan.methods.aec.episode import DECISIONS_KEPT
from veriplan.methods.aec.report_controlled import controlled_section
from veriplan.methods.aec.report_episodes import (
    HOUSEHOLD_TYPES,
    LEFT_OUT,
    ROUND_ENDS,
    SPLITS,
    TASK_TYPES,
    Episode,
    JsonDict,
    config_of,
    configurations,
    controlled,
    episodes,
    fmt_number,
    mean_of,
    model_of,
    paired,
    paired_md,
)
from veriplan.methods.aec.report_iterations import (
    iterations,
    iterations_md,
    plot_iterations,
    refinement,
    refinement_md,
)
from veriplan.methods.aec.tau import NO_WIN, read_source

NOT_COMPARABLE = (
    "Our household games are our own generation (veriplan.envs.household: TextWorld games "
    "made here from the alfworld wheel's PDDL domain, text grammar and room layouts, in "
    "ALFWorld's six task types), not ALFWorld's 134 unseen test games: the numbers below are "
    "not comparable with ALFWorld results, the AEC paper's Table 1 included.")
RULE = ("Units the harness recorded as an error (no metrics) and episodes whose environment "
        "failed (env_error: the simulator raised or died) count as not won in the success "
        "rate, over all attempted episodes as the paper counts, but are left out of every "
        "cost mean (all cost columns over the same costed episodes) and out of both arms of "
        "the paired tests.")


@dataclass(frozen=True)
class Costs:
    """Per-episode means of what an episode spent, all over the same episodes:
    those not left out (see :attr:`Episode.left_out`), counted in ``costed``,
    with how many were left out by reason in ``left_out``."""

    replanning_rounds: float | None
    queries: float | None
    env_steps: float | None
    llm_calls: float | None
    tokens: float | None
    costed: int
    left_out: dict[str, int]


def _costs(eps: list[Episode]) -> Costs:
    """:class:`Costs` of ``eps``."""
    kept = [e for e in eps if e.left_out is None]
    return Costs(replanning_rounds=mean_of([e.get("replanning_rounds") for e in kept]),
                 queries=mean_of([e.get("queries") for e in kept]),
                 env_steps=mean_of([e.get("env_steps") for e in kept]),
                 llm_calls=mean_of([float(e.record.llm_calls) for e in kept]),
                 tokens=mean_of([float(e.record.tokens) for e in kept]),
                 costed=len(kept),
                 left_out={k: n for k in LEFT_OUT if (n := sum(e.left_out == k for e in eps))})


def _left_out_md(rows: list[tuple[str, int, Costs]]) -> list[str]:
    """The rule, and the rows (name, units, costs) that left episodes out of
    their cost means."""
    lines = [f"- {name}: {units - c.costed} of {units} left out of the cost "
             "means (" + ", ".join(f"{k} {n}" for k, n in c.left_out.items()) + ")"
             for name, units, c in rows if c.left_out]
    return ["", RULE + (" Left out here:" if lines else " None was left out here."), *lines]


def _failures(eps: list[Episode]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for e in eps:
        if not e.won:
            kind = e.record.error_category if e.record.status != "done" else \
                (e.record.result_dict().get("failure") or "not_won")
            out[str(kind or "error")] += 1
    return dict(sorted(out.items()))


# ----- Table 1 ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TauSelection:
    """How one tau of a row was chosen (:func:`veriplan.methods.aec.tau.read_source`):
    its file (None: the setting), whether it was selected (None: not
    recorded), what decided, and why it was not selected."""

    tau: float
    file: str | None
    selected: bool | None
    decided_by: str | None
    reason: str | None = None

    def to_json(self) -> JsonDict:
        d: JsonDict = dataclasses.asdict(self)
        if self.reason is None:
            del d["reason"]
        return d


@dataclass(frozen=True)
class GateUse:
    """The tau and calibration AEC's units used (tau chosen on a validation
    split, or the default; sigma calibrated, or the raw uncertainty)."""

    tau: list[tuple[float, str]]  # (tau, its source as the metrics say it)
    calibration: list[str]
    tau_selection: list[TauSelection]

    def to_json(self) -> JsonDict:
        return {"tau": [list(t) for t in self.tau], "calibration": list(self.calibration),
                "tau_selection": [t.to_json() for t in self.tau_selection]}


@dataclass(frozen=True)
class Table1Row:
    """One (method, settings, model, dataset) over household-type episodes:
    success over all and per task type (``by_type``: heading -> (won, units)),
    its costs and, for a method with a gate, the tau and calibration used."""

    method: str
    config: str
    model: str
    dataset: str
    env: str
    units: int
    won: int
    success: float
    wilson: tuple[float, float]
    by_type: dict[str, tuple[int, int]]
    errors: int
    failures: dict[str, int]
    costs: Costs
    gate: GateUse | None

    @property
    def name(self) -> str:
        return f"{self.method} ({self.config}; {self.model}; {self.dataset})"

    def to_json(self) -> JsonDict:
        d: JsonDict = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                       if f.name not in ("costs", "gate")}
        d["wilson"] = list(self.wilson)
        d["by_type"] = {k: list(v) for k, v in self.by_type.items()}
        return {**d, **dataclasses.asdict(self.costs),
                **(self.gate.to_json() if self.gate else {})}


def table1(eps: list[Episode]) -> list[Table1Row]:
    """Rows by (method, settings, model, dataset) over household-type episodes."""
    rows = []
    for (method, config, model, dataset), es in configurations(
            e for e in eps if e.task_type in HOUSEHOLD_TYPES):
        by_type = {}
        for head, t in TASK_TYPES:
            sub = [e for e in es if e.task_type == t]
            by_type[head] = (sum(e.won for e in sub), len(sub))
        won = sum(e.won for e in es)
        rows.append(Table1Row(
            method=method, config=config, model=model, dataset=dataset, env=es[0].env,
            units=len(es), won=won, success=won / len(es), wilson=wilson_interval(won, len(es)),
            by_type=by_type, errors=sum(e.record.status != "done" for e in es),
            failures=_failures(es), costs=_costs(es), gate=_gate(es)))
    return rows


def _gate(eps: list[Episode]) -> GateUse | None:
    """The tau and calibration AEC's units used: None for a method without them."""
    taus = sorted({(e.metrics["tau"], str(e.metrics.get("tau_source") or "config"))
                   for e in eps if e.metrics.get("tau") is not None})
    cals = sorted({str(e.metrics["calibration"]) for e in eps
                   if e.metrics.get("calibration") is not None})
    if not taus and not cals:
        return None
    return GateUse(tau=taus, calibration=cals,
                   tau_selection=[TauSelection(tau=t, **read_source(src)) for t, src in taus])


_NOT_CHOSEN = "the setting, not chosen on a validation split"


def _tau_md(tau: float, source: str) -> str:
    """One tau of a row: selected on a validation split and by what, or not."""
    how = read_source(source)
    if how["file"] is None:
        return f"{tau} ({_NOT_CHOSEN})"
    if how["selected"] is False:
        return (f"{tau} (not selected: {how.get('reason') or NO_WIN}; the default tau; "
                f"tau file {how['file']})")
    if how["selected"] is None:
        return (f"{tau} (from tau file {how['file']}, written before the choice's grounds "
                "were recorded: whether it was selected and by what is not known)")
    note = "; the fewest queries decided, so fewer queries with it is partly made by " \
        "the choice" if how["decided_by"] == "queries" else ""
    return (f"{tau} (selected on a validation split, decided by {how['decided_by']}{note}; "
            f"tau file {how['file']})")


def _gate_md(rows: list[tuple[str, GateUse | None]]) -> list[str]:
    """The tau and calibration of each row (its name, its gate) that has them."""
    lines = []
    for name, g in rows:
        if g is None:
            continue
        taus = ", ".join(_tau_md(t, src) for t, src in g.tau) or "n/a"
        cals = ", ".join(c if c != "none" else "none (sigma = the raw uncertainty)"
                         for c in g.calibration) or "n/a"
        lines.append(f"- {name}: tau {taus}; calibration {cals}")
    return ["", "tau and calibration of the rows that use them (the paper selects tau on a "
            "validation set and calibrates sigma on held-out tasks):", *lines] if lines else []


def _cell(k: int, n: int) -> str:
    return "-" if n == 0 else f"{100 * k / n:.1f} ({k}/{n})"


def _table1_md(rows: list[Table1Row]) -> list[str]:
    heads = [h for h, _ in TASK_TYPES]
    lines = ["", "### Household games (the layout of the AEC paper's Table 1)", "",
             "Success rate (%) over all (avg., first as in the paper) with its Wilson 95% "
             "interval, then per task type (won/units); then per episode: replanning rounds "
             "(a failed episode counts the cap, as the paper does), queries, environment "
             "steps, LLM calls, tokens, each a mean over the costed episodes (the rule is "
             "under the table).", "",
             "| method | settings | model | dataset | all (Wilson 95%) | " + " | ".join(heads)
             + " | replanning rounds | queries | env steps | LLM calls | tokens | costed | "
             "failures |",
             "|---|---|---|---|" + "---|" * (len(heads) + 8)]
    for r in rows:
        cells = [_cell(*r.by_type[h]) for h in heads]
        fails = ", ".join(f"{k} {v}" for k, v in r.failures.items()) or "none"
        c = r.costs
        lines.append(
            f"| {r.method} | {r.config} | {r.model} | {r.dataset} | "
            f"{100 * r.success:.1f} ({r.won}/{r.units}; "
            f"{100 * r.wilson[0]:.1f}-{100 * r.wilson[1]:.1f}) | "
            + " | ".join(cells)
            + f" | {fmt_number(c.replanning_rounds, 2)} | {fmt_number(c.queries, 2)} | "
            f"{fmt_number(c.env_steps, 1)} | {fmt_number(c.llm_calls, 1)} | "
            f"{fmt_number(c.tokens, 0)} | "
            f"{c.costed}/{r.units} | {fails} |")
    return (lines + _left_out_md([(r.name, r.units, r.costs) for r in rows])
            + _gate_md([(r.name, r.gate) for r in rows]))


# ----- Table 2 ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SplitCell:
    """One split (seen or unseen) of a Table 2 row: success, mean score and
    the tasks run (task -> variations)."""

    units: int
    won: int
    success: float | None
    score: float | None
    tasks: dict[str, int]


@dataclass(frozen=True)
class Table2Row:
    """One (method, settings, model, environment) over ScienceWorld-style
    seen/unseen episodes, with its costs and gate."""

    method: str
    config: str
    model: str
    env: str
    seen: SplitCell
    unseen: SplitCell
    units: int
    costs: Costs
    gate: GateUse | None
    failures: dict[str, int]

    def split(self, name: str) -> SplitCell:
        """The cell of split ``name`` (one of :data:`SPLITS`)."""
        return self.seen if name == "seen" else self.unseen

    def to_json(self) -> JsonDict:
        return {"method": self.method, "config": self.config, "model": self.model,
                "env": self.env, "seen": dataclasses.asdict(self.seen),
                "unseen": dataclasses.asdict(self.unseen), "units": self.units,
                **dataclasses.asdict(self.costs), **(self.gate.to_json() if self.gate else {}),
                "failures": self.failures}


def _split_cell(eps: list[Episode]) -> SplitCell:
    won = sum(e.won for e in eps)
    return SplitCell(units=len(eps), won=won, success=won / len(eps) if eps else None,
                     score=mean_of([e.score for e in eps]),
                     tasks=dict(sorted(_count(e.task_type for e in eps).items())))


def table2(eps: list[Episode]) -> list[Table2Row]:
    """Rows by (method, settings, model) over seen/unseen episodes: mean
    score and success per split."""
    groups: dict[tuple[str, str, str, str], list[Episode]] = defaultdict(list)
    for e in eps:
        if e.split in SPLITS and e.task_type not in HOUSEHOLD_TYPES:
            r = e.record
            groups[(r.method, config_of(r), model_of(r), e.env)].append(e)
    return [Table2Row(method=method, config=config, model=model, env=env,
                      seen=_split_cell([e for e in es if e.split == "seen"]),
                      unseen=_split_cell([e for e in es if e.split == "unseen"]),
                      units=len(es), costs=_costs(es), gate=_gate(es), failures=_failures(es))
            for (method, config, model, env), es in sorted(groups.items())]


def _count(items) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for x in items:
        out[x] += 1
    return out


def package_version(records: list[UnitRecord], package: str = "scienceworld") -> str:
    """The package version the records' datasets were made for (a dataset's
    version reads ``PACKAGE-VERSION-digest``), and the installed one when it
    differs."""
    made = sorted({r.dataset_version.split("-")[1] for r in records
                   if r.dataset_version.startswith(f"{package}-")
                   and len(r.dataset_version.split("-")) >= 3})
    try:
        from importlib.metadata import PackageNotFoundError, version

        installed = version(package)
    except (ImportError, PackageNotFoundError, ValueError):
        installed = None
    text = ", ".join(made) if made else "not recorded"
    if installed and installed not in made:
        text += f" (installed here: {installed})"
    return text


def _table2_md(rows: list[Table2Row], records: list[UnitRecord]) -> list[str]:
    lines = ["", "### ScienceWorld (the layout of the AEC paper's Table 2)", "",
             "Seen: ScienceWorld's dev variations; unseen: its test variations (the WKM/AEC "
             "split). Score: the engine's final score of the episode (0-100; a failed task's "
             "negative score counts 0) averaged over episodes; success: the task completed "
             "(score 100). The paper's protocol for its Table 2 was not released, so these "
             "numbers are ours on the subset named below.", ""]
    envs = sorted({r.env for r in rows})
    lines.append(f"- scienceworld package version: {package_version(records)}; environment"
                 f"{'s' if len(envs) > 1 else ''}: {', '.join(envs)}")
    for s in SPLITS:
        subsets = {json.dumps(r.split(s).tasks) for r in rows if r.split(s).tasks}
        for r in rows:  # once when every row ran the same subset, else per row
            tasks = r.split(s).tasks
            if tasks:
                who = "" if len(subsets) == 1 else \
                    f" of {r.method} ({r.config}, {r.model})"
                lines.append(f"- task subset{who}, {s}: {r.split(s).units} variation(s) of "
                             f"{len(tasks)} task(s): "
                             + ", ".join(f"{t} {n}" for t, n in tasks.items()))
                if len(subsets) == 1:
                    break
    lines += ["", "| method | settings | model | seen score | seen success (%) | seen units | "
              "unseen score | unseen success (%) | unseen units | replanning rounds | queries "
              "| env steps | LLM calls | tokens | costed |", "|" + "---|" * 15]
    for r in rows:
        cells = []
        for s in SPLITS:
            d = r.split(s)
            cells += [fmt_number(d.score, 2), "n/a" if d.success is None
                      else f"{100 * d.success:.1f} ({d.won}/{d.units})", str(d.units)]
        c = r.costs
        lines.append(f"| {r.method} | {r.config} | {r.model} | " + " | ".join(cells)
                     + f" | {fmt_number(c.replanning_rounds, 2)} | {fmt_number(c.queries, 2)} | "
                     f"{fmt_number(c.env_steps, 1)} | {fmt_number(c.llm_calls, 1)} | "
                     f"{fmt_number(c.tokens, 0)} | {c.costed}/{r.units} |")
    return (lines + _left_out_md([(f"{r.method} ({r.config}; {r.model})", r.units, r.costs)
                                  for r in rows])
            + _gate_md([(f"{r.method} ({r.config}; {r.model}; {r.env})", r.gate)
                        for r in rows]))


# ----- where the decisions went ----------------------------------------------------------------
# (column, the metrics' counter): the last iteration's, as Table 1's queries are
FLOW = (("plans proposed", "hypotheses"), ("answers or plans not read", "unreadable"),
        ("discarded by evidence", "discarded"), ("predictions", "predictions"),
        ("queries", "queries"), ("grounded commits (V valid)", "grounded_commits"),
        ("unchecked commits", "unchecked_commits"), ("failed actions", "failed_actions"))
# counters a record from before issue 30 does not have (its commits were not told apart
# by what decided them): n/a, never counted as grounded
SPLIT_COMMITS = ("grounded_commits", "unchecked_commits")
# the gate's verdicts on the loop's predictions (Algorithm 1's query-or-simulate test),
# read from the decisions the episode kept
GATED = (("ambiguous -> query", QUERY_AMBIGUOUS), ("uncertain -> query", QUERY_UNCERTAIN),
         ("confident -> simulate", SIMULATE))


def _gated(e: Episode) -> dict[str, int] | None:
    """The loop's gate verdicts of an episode; None when its metrics keep only
    part of its decisions (the counts would be short)."""
    ds = e.metrics.get("decisions") or []
    if not e.get("predictions"):
        return {kind: 0 for _, kind in GATED}
    if len(ds) >= DECISIONS_KEPT:
        return None
    return {kind: sum(d.get("kind") == kind and d.get("phase", "loop") == "loop" for d in ds)
            for _, kind in GATED}


def _total(parts: list[dict[str, int] | None], columns: tuple[tuple[str, str], ...]
           ) -> dict[str, int | None]:
    """Each column's key summed over the episodes' counts; None for every key
    when an episode has no counts (they could not be told)."""
    if any(p is None for p in parts):
        return {key: None for _, key in columns}
    return {key: sum(p[key] for p in parts) for _, key in columns}  # type: ignore[index]


@dataclass(frozen=True)
class FlowRow:
    """Where one configuration's decisions went: each counter of :data:`FLOW`
    (the commits split by what decided them are None for records from before
    issue 30), the gate's verdicts (:data:`GATED`, by kind) and how the rounds
    without a commit ended (:data:`ROUND_ENDS`, by key), summed over its
    costed episodes."""

    method: str
    config: str
    model: str
    dataset: str
    episodes: int
    hypotheses: int
    unreadable: int
    discarded: int
    predictions: int
    queries: int
    grounded_commits: int | None
    unchecked_commits: int | None
    failed_actions: int
    gate: dict[str, int | None]
    round_ends: dict[str, int | None]

    def count(self, key: str) -> int | None:
        """The counter of :data:`FLOW` named ``key``."""
        value: int | None = getattr(self, key)
        return value


def flow(eps: list[Episode]) -> list[FlowRow]:
    """Per configuration (method, settings, model, dataset): each counter of
    :data:`FLOW`, each gate verdict of :data:`GATED` and each round end of
    :data:`ROUND_ENDS` summed over the costed episodes (a gate count is None
    when an episode kept only part of its decisions, a round end when one ran
    more than one iteration)."""
    rows = []
    for (method, config, model, dataset), es in configurations(
            e for e in eps if e.left_out is None):
        rows.append(FlowRow(
            method=method, config=config, model=model, dataset=dataset, episodes=len(es),
            hypotheses=_summed(es, "hypotheses"), unreadable=_summed(es, "unreadable"),
            discarded=_summed(es, "discarded"), predictions=_summed(es, "predictions"),
            queries=_summed(es, "queries"), grounded_commits=_split(es, "grounded_commits"),
            unchecked_commits=_split(es, "unchecked_commits"),
            failed_actions=_summed(es, "failed_actions"),
            gate=_total([_gated(e) for e in es], GATED),
            round_ends=_total([e.round_ends for e in es], ROUND_ENDS)))
    return rows


def _summed(eps: list[Episode], key: str) -> int:
    return sum(int(e.get(key) or 0) for e in eps)


def _split(eps: list[Episode], key: str) -> int | None:
    """A commit counter of :data:`SPLIT_COMMITS`: None when a record predates it."""
    return None if any(key not in e.metrics for e in eps) else _summed(eps, key)


def _na(counts: dict[str, int | None], columns: tuple[tuple[str, str], ...]) -> list[str]:
    return ["n/a" if counts[k] is None else str(counts[k]) for _, k in columns]


def _flow_md(rows: list[FlowRow]) -> list[str]:
    heads = ([h for h, _ in FLOW[:4]] + [h for h, _ in GATED] + [h for h, _ in FLOW[4:]]
             + [h for h, _ in ROUND_ENDS])
    lines = ["", "### Where the decisions went", "",
             "Summed over each configuration's costed episodes (the last iteration of each): "
             "plans proposed by the model; answers that held no list of plans and plans in "
             "an answer that could not be read (one count); plans discarded because "
             "grounded facts contradict them (B.4's evidence override); predictions M(w, p) "
             "and how Algorithm 1's gate sent them (|mu - 0.5| < epsilon: ambiguous, queried; "
             "sigma > tau: uncertain, queried; else simulated; only a prediction outside the "
             "epsilon band reaches tau); all "
             "queries (those before V included); commits, grounded (V valid on the grounded "
             "facts) and unchecked (committed with nothing grounded deciding: V's verdict "
             "unknown for good, as on ScienceWorld, or no V at all; never counted as grounded; "
             "n/a for runs recorded before the two were told apart); actions that failed; "
             "planning rounds "
             "that committed nothing, by how they ended (H emptied before V, or V rejected "
             "the best hypothesis h*; read from the transcripts). n/a: an "
             "episode kept only part of its decisions (the gate's columns) or ran more than "
             "one iteration (how its rounds ended).", "",
             "| method | settings | model | dataset | episodes | " + " | ".join(heads) + " |",
             "|---|---|---|---|---|" + "---|" * len(heads)]
    for r in rows:
        counts = {k: r.count(k) for _, k in FLOW}
        cells = ([str(counts[k]) for _, k in FLOW[:4]] + _na(r.gate, GATED)
                 + _na(counts, FLOW[4:]) + _na(r.round_ends, ROUND_ENDS))
        lines.append(f"| {r.method} | {r.config} | {r.model} | {r.dataset} | "
                     f"{r.episodes} | " + " | ".join(cells) + " |")
    return lines


# ----- the section -----------------------------------------------------------------------------
def section(records: list[UnitRecord], out: Path
            ) -> tuple[str, JsonDict | None, list[str]]:
    """Markdown, the numbers for report.json, and the plots written into ``out``
    ("", None, [] without environment units). Controlled-model episodes get
    their own section
    (:func:`veriplan.methods.aec.report_controlled.controlled_section`), apart from model
    results."""
    all_eps = episodes(records)
    if not all_eps:
        return "", None, []
    eps = [e for e in all_eps if not controlled(e)]
    ctl = [e for e in all_eps if controlled(e)]
    if not eps:
        lines, data, plots = controlled_section(ctl, out)
        return "\n".join(lines) + "\n", {"controlled": data}, plots
    t1, t2, its, pairs = table1(eps), table2(eps), iterations(eps), paired(eps)
    flows = flow(eps)
    lines = ["", "## AEC and its baselines in the environments"]
    household = any(e.env == "household" or e.record.dataset.startswith("household")
                    for e in eps)
    if household:
        lines += ["", NOT_COMPARABLE]
    if t1:
        lines += _table1_md(t1)
    if t2:
        lines += _table2_md(t2, [e.record for e in eps if e.split in SPLITS])
    plots: list[str] = []
    refined = refinement(eps)
    if its:
        lines += iterations_md(its) + refinement_md(refined)
        plots = plot_iterations(its, out)
        lines += ["", f"![{plots[0]}]({plots[0]})"]
    if flows:
        lines += _flow_md(flows)
    if pairs:
        lines += paired_md(pairs)
    asdict = dataclasses.asdict
    data: JsonDict = {
        "table1": [r.to_json() for r in t1], "table2": [r.to_json() for r in t2],
        "iterations": [asdict(r) for r in its], "refinement": [asdict(r) for r in refined],
        "flow": [asdict(r) for r in flows],
        "paired": [asdict(p) for p in pairs],
        "household_not_comparable": NOT_COMPARABLE if household else None}
    if ctl:
        more, data["controlled"], more_plots = controlled_section(ctl, out)
        lines += more
        plots += more_plots
    return "\n".join(lines) + "\n", data, plots


def report_section(records: list[UnitRecord], out: Path) -> ReportSection:
    """AEC's section of the report (its registration names it); its numbers are
    report.json's ``aec``."""
    md, data, plots = section(records, out)
    return ReportSection(md, {"aec": data}, plots)


__all__ = ["NOT_COMPARABLE", "RULE", "Costs", "FlowRow", "GateUse", "SplitCell", "Table1Row",
           "Table2Row", "TauSelection", "flow", "package_version", "report_section", "section",
           "table1", "table2"]
