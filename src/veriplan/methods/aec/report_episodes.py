"""AEC's episodes as the report reads them from the store, and the arms they
are grouped in: each unit of AEC or a baseline in an environment as an
:class:`Episode` (won, environment, task type, split, metrics, how its rounds
ended), the arms (method, settings, model, dataset), which arms ran the same
episodes (a controlled model's planner setting included), and AEC's paired
tests against every arm that did. Both parts of the report's AEC section, the
model results (:mod:`veriplan.methods.aec.report`) and the controlled-model
results (:mod:`veriplan.methods.aec.report_controlled`), read them from here."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from veriplan.bench.stats import mcnemar
from veriplan.bench.store import UnitRecord

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

AEC_METHODS = ("aec", "aec-direct", "aec-react", "wkm", "query-only", "walle-standin")
# Table 1's columns: (heading, ALFWorld task type)
TASK_TYPES = (("pick", "pick_and_place"), ("clean", "pick_clean_then_place"),
              ("heat", "pick_heat_then_place"), ("cool", "pick_cool_then_place"),
              ("examine", "look_at_obj_in_light"), ("pick two", "pick_two_obj_and_place"))
HOUSEHOLD_TYPES = {t for _, t in TASK_TYPES}
SPLITS = ("seen", "unseen")


@dataclass(frozen=True)
class Episode:
    """One unit as the AEC section reads it (metrics missing for a unit the
    harness recorded as an error: it counts as not won)."""

    record: UnitRecord
    won: bool
    env: str
    task_type: str
    split: str
    metrics: dict[str, JSONValue] = field(default_factory=dict)  # the result's, as stored
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


def _split_of(r: UnitRecord, m: dict[str, JSONValue]) -> str:
    if m.get("split"):
        return str(m["split"])
    for s in (*SPLITS, "eval", "train", "valid"):
        if r.dataset.endswith(f"_{s}"):
            return s
    return ""


def _type_of(r: UnitRecord, m: dict[str, JSONValue]) -> str:
    """The task type: the metrics', else read from the id (household
    ``eval/pick_and_place/3``, ScienceWorld ``boil:21``)."""
    if m.get("task_type"):
        return str(m["task_type"])
    parts = r.instance.split("/")
    if len(parts) == 3 and parts[1] in HOUSEHOLD_TYPES:
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


def _round_ends(result: dict[str, JSONValue]) -> dict[str, int] | None:
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


def config_of(r: UnitRecord) -> str:
    cfg = json.loads(r.config)
    return ", ".join(f"{k}={v}" for k, v in sorted(cfg.items())) or "defaults"


def model_of(r: UnitRecord) -> str:
    return f"{r.backend}:{r.model}"


# an arm: (method, settings, model, dataset)
Arm = tuple[str, str, str, str]


def configurations(eps: Iterable[Episode]) -> list[tuple[Arm, list[Episode]]]:
    """The episodes by configuration (method, settings, model, dataset), sorted."""
    groups: dict[Arm, list[Episode]] = defaultdict(list)
    for e in eps:
        r = e.record
        groups[(r.method, config_of(r), model_of(r), r.dataset)].append(e)
    return sorted(groups.items())


def mean_of(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def fmt_number(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


LEFT_OUT = ("error", "env_error")

# a row's numbers as report.json holds them
JsonDict = dict[str, object]


# ----- controlled-model episodes (issue 33) -------------------------------------------------
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


def same_episodes(a: Arm, b: Arm, arms: Iterable[Arm] = ()) -> bool:
    """Whether arm ``b`` ran the same episodes as AEC arm ``a``: the same model
    and dataset, or (a method without a predictor, controlled models) the same
    planner setting, unless that method's arm also ran under ``a``'s own model
    (in ``arms``): then that one is ``a``'s pair, not each copy."""
    if b[2:] == a[2:]:
        return True
    return (b[0] in PREDICTOR_FREE and b[3] == a[3] and b[2].startswith("controlled-aec:")
            and planner_of(b[2]) == planner_of(a[2]) and (b[0], b[1], a[2], a[3]) not in arms)


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
    predictor: per planner setting, :func:`same_episodes`): the exact McNemar test on won.
    An episode left out (a harness error or an environment failure, in either
    arm) is taken out of both arms; ``left_out`` counts those pairs by reason
    (a pair left out for both arms' reasons counts under each)."""
    arms: dict[Arm, dict[str, Episode]] = defaultdict(dict)
    for e in eps:
        r = e.record
        arms[(r.method, config_of(r), model_of(r), r.dataset)][f"{r.instance}/seed{r.seed}"] = e
    out = []
    for a, ea in sorted(arms.items()):
        if a[0] != "aec":
            continue
        for b, eb in sorted(arms.items()):
            if b == a or not same_episodes(a, b, arms) or (b[0] == "aec" and b < a):
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


def paired_md(rows: list[PairRow]) -> list[str]:
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


__all__ = ["AEC_METHODS", "HOUSEHOLD_TYPES", "LEFT_OUT", "PREDICTOR_FREE", "ROUND_ENDS", "SPLITS",
           "TASK_TYPES", "Arm", "Episode", "JsonDict", "PairRow", "config_of", "configurations",
           "controlled", "episodes", "fmt_number", "mean_of", "model_of", "paired", "paired_md",
           "planner_of", "same_episodes"]
