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
(:mod:`veriplan.bench.report_aec_controlled`), never pooled with model results.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veriplan.bench.plotting import pyplot, save_figure
from veriplan.bench.stats import mcnemar, wilson_interval
from veriplan.bench.store import UnitRecord
from veriplan.methods.aec.controller import QUERY_AMBIGUOUS, QUERY_UNCERTAIN, SIMULATE
from veriplan.methods.aec.episode import DECISIONS_KEPT
from veriplan.methods.aec.tau import NO_WIN, read_source

AEC_METHODS = ("aec", "aec-direct", "aec-react", "wkm", "query-only", "walle-standin")
# Table 1's columns: (heading, ALFWorld task type)
TASK_TYPES = (("pick", "pick_and_place"), ("clean", "pick_clean_then_place"),
              ("heat", "pick_heat_then_place"), ("cool", "pick_cool_then_place"),
              ("examine", "look_at_obj_in_light"), ("pick two", "pick_two_obj_and_place"))
_TYPES = {t for _, t in TASK_TYPES}
SPLITS = ("seen", "unseen")
NOT_COMPARABLE = (
    "Our household games are our own generation (veriplan.envs.household: TextWorld games "
    "made here from the alfworld wheel's PDDL domain, text grammar and room layouts, in "
    "ALFWorld's six task types), not ALFWorld's 134 unseen test games: the numbers below are "
    "not comparable with ALFWorld results, the AEC paper's Table 1 included.")


@dataclass(frozen=True)
class Episode:
    """One unit as this section reads it (metrics missing for a unit the
    harness recorded as an error: it counts as not won)."""

    record: UnitRecord
    won: bool
    env: str
    task_type: str
    split: str
    metrics: dict[str, Any] = field(default_factory=dict)
    # how its planning rounds ended without a commit, read from the transcript's
    # verify entries (see ``_round_ends``); None when that cannot be told
    round_ends: dict[str, int] | None = None

    @property
    def score(self) -> float | None:
        """The environment's score, a negative one (ScienceWorld's failed task)
        counted as 0; a unit without one scores 0."""
        s = self.metrics.get("score")
        if s is None:
            return 0.0 if self.split in SPLITS else None
        return max(0.0, float(s))

    def get(self, key: str) -> float | None:
        v = self.metrics.get(key)
        return None if v is None or isinstance(v, bool) else float(v)

    @property
    def left_out(self) -> str | None:
        """Why this episode is left out of the cost means and the paired tests:
        "error" (the unit failed in the harness, no metrics), "env_error" (the
        environment failed), or None (it counts)."""
        if self.record.status != "done":
            return "error"
        if self.record.result_dict().get("failure") == "env_error":
            return "env_error"
        return None


def _split_of(r: UnitRecord, m: dict[str, Any]) -> str:
    if m.get("split"):
        return str(m["split"])
    for s in (*SPLITS, "eval", "train", "valid"):
        if r.dataset.endswith(f"_{s}"):
            return s
    return ""


def _type_of(r: UnitRecord, m: dict[str, Any]) -> str:
    """The task type: the metrics', else read from the id (household
    ``eval/pick_and_place/3``, ScienceWorld ``boil:21``)."""
    if m.get("task_type"):
        return str(m["task_type"])
    parts = r.instance.split("/")
    if len(parts) == 3 and parts[1] in _TYPES:
        return parts[1]
    return r.instance.rpartition(":")[0] if ":" in r.instance else ""


def episodes(records: list[UnitRecord]) -> list[Episode]:
    out = []
    for r in records:
        result = r.result_dict() if r.result else {}
        m = result.get("metrics") or {}
        if r.method not in AEC_METHODS and "env" not in m:
            continue
        env = str(m.get("env") or r.dataset.split("_")[0])
        out.append(Episode(r, bool(m.get("won", r.verified)) and r.status == "done", env,
                           _type_of(r, m), _split_of(r, m), m, _round_ends(result)))
    return out


# how a planning round that committed nothing ended: H emptied before V, or V
# rejecting the best hypothesis h*
ROUND_ENDS = (("H emptied", "emptied"), ("V rejected h*", "rejected"))


def _round_ends(result: dict[str, Any]) -> dict[str, int] | None:
    """Count the transcript's ``verify`` entries that did not commit: with no
    hypothesis left (H emptied) or with h* rejected by V. The transcript holds
    every iteration's rounds and the other counters are the last iteration's,
    so an episode that ran more than one iteration gets None (n/a)."""
    m = result.get("metrics") or {}
    if int(m.get("iteration") or 0) > 0:
        return None
    ends = {key: 0 for _, key in ROUND_ENDS}
    for e in result.get("transcript") or []:
        data = e.get("data") or {}
        # "committed" since issue 30 (an unchecked commit is not ok, yet committed);
        # before it, a verify entry committed exactly when it was ok
        committed = data["committed"] if "committed" in data else e.get("ok")
        if e.get("role") == "verify" and not committed:
            h_left = bool((e.get("data") or {}).get("hypotheses"))
            ends["rejected" if h_left else "emptied"] += 1
    return ends


def _config(r: UnitRecord) -> str:
    cfg = json.loads(r.config)
    return ", ".join(f"{k}={v}" for k, v in sorted(cfg.items())) or "defaults"


def _model(r: UnitRecord) -> str:
    return f"{r.backend}:{r.model}"


# an arm: (method, settings, model, dataset)
Arm = tuple[str, str, str, str]


def _configurations(eps: Iterable[Episode]) -> list[tuple[Arm, list[Episode]]]:
    """The episodes by configuration (method, settings, model, dataset), sorted."""
    groups: dict[Arm, list[Episode]] = defaultdict(list)
    for e in eps:
        r = e.record
        groups[(r.method, _config(r), _model(r), r.dataset)].append(e)
    return sorted(groups.items())


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def _f(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


LEFT_OUT = ("error", "env_error")
RULE = ("Units the harness recorded as an error (no metrics) and episodes whose environment "
        "failed (env_error: the simulator raised or died) count as not won in the success "
        "rate, over all attempted episodes as the paper counts, but are left out of every "
        "cost mean (all cost columns over the same costed episodes) and out of both arms of "
        "the paired tests.")


# a row's numbers as report.json holds them
JsonDict = dict[str, object]


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
    return Costs(replanning_rounds=_mean([e.get("replanning_rounds") for e in kept]),
                 queries=_mean([e.get("queries") for e in kept]),
                 env_steps=_mean([e.get("env_steps") for e in kept]),
                 llm_calls=_mean([float(e.record.llm_calls) for e in kept]),
                 tokens=_mean([float(e.record.tokens) for e in kept]),
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
    for (method, config, model, dataset), es in _configurations(
            e for e in eps if e.task_type in _TYPES):
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
            + f" | {_f(c.replanning_rounds, 2)} | {_f(c.queries, 2)} | "
            f"{_f(c.env_steps, 1)} | {_f(c.llm_calls, 1)} | {_f(c.tokens, 0)} | "
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
                     score=_mean([e.score for e in eps]),
                     tasks=dict(sorted(_count(e.task_type for e in eps).items())))


def table2(eps: list[Episode]) -> list[Table2Row]:
    """Rows by (method, settings, model) over seen/unseen episodes: mean
    score and success per split."""
    groups: dict[tuple[str, str, str, str], list[Episode]] = defaultdict(list)
    for e in eps:
        if e.split in SPLITS and e.task_type not in _TYPES:
            r = e.record
            groups[(r.method, _config(r), _model(r), e.env)].append(e)
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
            cells += [_f(d.score, 2), "n/a" if d.success is None
                      else f"{100 * d.success:.1f} ({d.won}/{d.units})", str(d.units)]
        c = r.costs
        lines.append(f"| {r.method} | {r.config} | {r.model} | " + " | ".join(cells)
                     + f" | {_f(c.replanning_rounds, 2)} | {_f(c.queries, 2)} | "
                     f"{_f(c.env_steps, 1)} | {_f(c.llm_calls, 1)} | "
                     f"{_f(c.tokens, 0)} | {c.costed}/{r.units} |")
    return (lines + _left_out_md([(f"{r.method} ({r.config}; {r.model})", r.units, r.costs)
                                  for r in rows])
            + _gate_md([(f"{r.method} ({r.config}; {r.model}; {r.env})", r.gate)
                        for r in rows]))


# ----- iterations (Figure 3) -------------------------------------------------------------------
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
        groups[(r.method, _config(r), _model(r), r.dataset)].append(e)
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


def _iterations_md(rows: list[IterationRow]) -> list[str]:
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


def _refinement_md(rows: list[RefinementRow]) -> list[str]:
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


def _plot_iterations(rows: list[IterationRow], out: Path,
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
    for (method, config, model, dataset), es in _configurations(
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


# ----- paired tests ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PairRow:
    """AEC arm ``a`` against arm ``b`` on the episodes both ran (``shared``,
    after ``left_out`` pairs were taken out, by reason in ``left_out_by``):
    wins of each, the discordant counts and the exact McNemar p."""

    a: str
    b: str
    model: str
    b_model: str
    dataset: str
    shared: int
    only_a: int
    only_b: int
    both: int
    p_value: float
    a_won: int
    b_won: int
    left_out: int
    left_out_by: dict[str, int]


def paired(eps: list[Episode]) -> list[PairRow]:
    """AEC (each of its settings) against every other configuration on the
    episodes both ran, per dataset and model (a controlled method without a
    predictor: per planner setting, :func:`_matches`): the exact McNemar test on won.
    An episode left out (a harness error or an environment failure, in either
    arm) is taken out of both arms; ``left_out`` counts those pairs by reason
    (a pair left out for both arms' reasons counts under each)."""
    arms: dict[Arm, dict[str, Episode]] = defaultdict(dict)
    for e in eps:
        r = e.record
        arms[(r.method, _config(r), _model(r), r.dataset)][f"{r.instance}/seed{r.seed}"] = e
    out = []
    for a, ea in sorted(arms.items()):
        if a[0] != "aec":
            continue
        for b, eb in sorted(arms.items()):
            if b == a or not _matches(a, b, arms) or (b[0] == "aec" and b < a):
                continue
            both_ran = sorted(set(ea) & set(eb))
            if not both_ran:
                continue
            dropped = [k for k in both_ran if ea[k].left_out or eb[k].left_out]
            kept = [k for k in both_ran if not (ea[k].left_out or eb[k].left_out)]
            wa = {k: ea[k].won for k in kept}
            wb = {k: eb[k].won for k in kept}
            p = mcnemar(wa, wb)
            left = {why: n for why in LEFT_OUT
                    if (n := sum(why in (ea[k].left_out, eb[k].left_out) for k in dropped))}
            out.append(PairRow(a=f"{a[0]} ({a[1]})", b=f"{b[0]} ({b[1]})", model=a[2],
                               b_model=b[2], dataset=a[3], shared=p.shared, only_a=p.only_a,
                               only_b=p.only_b, both=p.both, p_value=p.p_value,
                               a_won=sum(wa.values()), b_won=sum(wb.values()),
                               left_out=len(dropped), left_out_by=left))
    return out


def _paired_md(rows: list[PairRow]) -> list[str]:
    lines = ["", "### AEC against the other configurations, paired on the same episodes", "",
             "Exact McNemar test on won/not won over the episodes both ran with the same "
             "model (only A: A won, B did not). An episode that is a harness error or an "
             "environment failure (env_error) in either arm is left out of both; `left out` "
             "counts those pairs (`shared` is what remains). `veriplan report DIR --compare "
             "aec aec-react` (settings as `method:key=value,...`) adds the generic "
             "comparison.", "",
             "| A | B | model | dataset | shared | A won | B won | only A | only B | both | "
             "McNemar p | left out |", "|" + "---|" * 12]
    for r in rows:
        why = ", ".join(f"{k} {n}" for k, n in r.left_out_by.items())
        lines.append(f"| {r.a} | {r.b} | {r.model} | {r.dataset} | {r.shared} | "
                     f"{r.a_won} | {r.b_won} | {r.only_a} | {r.only_b} | "
                     f"{r.both} | {'n/a' if not r.shared else format(r.p_value, '.4f')}"
                     f" | {r.left_out}{f' ({why})' if why else ''} |")
    return lines


# ----- controlled-model results (issue 33) ---------------------------------------------------
def controlled(e: Episode) -> bool:
    """An episode run with a controlled test model (``--backend controlled-aec``)."""
    return e.record.backend.startswith("controlled")


# methods that ask the controlled model for plans only (no predictor): their episodes are
# the same under every predictor setting of one planner, so a sweep runs them once
PREDICTOR_FREE = ("query-only", "aec-direct", "aec-react")


def planner_of(model: str) -> str:
    """A controlled model's planner setting: its spec without the predictor's
    settings (``acc``, ``conf``); another model's string as it is."""
    if not model.startswith("controlled-aec:"):
        return model
    head, _, rest = model.partition(":aec:")
    keep = [x for x in rest.split(",") if x.partition("=")[0] not in ("acc", "conf")]
    return f"{head}:aec:{','.join(keep)}"


def _matches(a: Arm, b: Arm, arms: Iterable[Arm] = ()) -> bool:
    """Whether arm ``b`` ran the same episodes as AEC arm ``a``: the same model
    and dataset, or (a method without a predictor, controlled models) the same
    planner setting, unless that method's arm also ran under ``a``'s own model
    (in ``arms``): then that one is ``a``'s pair, not each copy."""
    if b[2:] == a[2:]:
        return True
    return (b[0] in PREDICTOR_FREE and b[3] == a[3] and b[2].startswith("controlled-aec:")
            and planner_of(b[2]) == planner_of(a[2]) and (b[0], b[1], a[2], a[3]) not in arms)


# ----- the section -----------------------------------------------------------------------------
def section(records: list[UnitRecord], out: Path
            ) -> tuple[str, JsonDict | None, list[str]]:
    """Markdown, the numbers for report.json, and the plots written into ``out``
    ("", None, [] without environment units). Controlled-model episodes get
    their own section
    (:func:`veriplan.bench.report_aec_controlled.controlled_section`), apart from model
    results."""
    from veriplan.bench.report_aec_controlled import controlled_section

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
        lines += _iterations_md(its) + _refinement_md(refined)
        plots = _plot_iterations(its, out)
        lines += ["", f"![{plots[0]}]({plots[0]})"]
    if flows:
        lines += _flow_md(flows)
    if pairs:
        lines += _paired_md(pairs)
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


__all__ = ["AEC_METHODS", "LEFT_OUT", "NOT_COMPARABLE", "PREDICTOR_FREE", "RULE", "TASK_TYPES",
           "Costs", "Episode", "FlowRow", "GateUse", "IterationRow", "PairRow", "RefinementRow",
           "SplitCell", "Table1Row", "Table2Row", "TauSelection", "controlled", "episodes", "flow",
           "iterations", "package_version", "paired", "planner_of", "refinement", "section",
           "table1", "table2"]
