"""The paper's Table 1 and Figures 2-4 as tables, over finished runs: the JSON
records of ``veriplan autotos run`` or the results in a bench run store.

- Table 1: average calls to the model per domain run.
- Figure 2: accuracy at the three points of a run (the first components; the
  first time the goal unit tests and the soundness checks pass; the end, with
  every test passing), each over the runs that reached the point, with the
  share of runs that reached it and how many of them were at 100%; "w/ val"
  and "w/o val" (``partial_check``) apart.
- Figure 3: average calls made in answer to feedback on the goal test, on the
  successor function's soundness and on its completeness.
- Figure 4: the errors found, by category, per model over all its runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from veriplan.domains.autotos.harness import CATEGORIES

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

POINTS = ("initial", "sound", "final")
PHASES = ("goal", "soundness", "completeness")


class Table1Row(TypedDict):
    model: str
    domain: str
    val: str  # "w/ val" or "w/o val"
    runs: int
    mean_calls: float


class PointRow(TypedDict):
    """One point of a run (Figure 2) over a row's runs."""

    reached: int
    runs: int
    mean_accuracy: float | None
    at_100: int


class Figure2Row(TypedDict):
    model: str
    domain: str
    val: str
    points: dict[str, PointRow]  # by POINTS
    end_mean_accuracy: float | None
    end_at_100: int


class Figure3Row(TypedDict):
    """Mean feedback calls per run, by phase (the keys of PHASES)."""

    model: str
    domain: str
    val: str
    runs: int
    goal: float
    soundness: float
    completeness: float


class Figure4Row(TypedDict):
    model: str
    errors: dict[str, int]  # by category
    total: int


class Figures(TypedDict):
    """The numbers behind the four tables (:func:`aggregate`)."""

    table1: list[Table1Row]
    figure2: list[Figure2Row]
    figure3: list[Figure3Row]
    figure4: list[Figure4Row]


@dataclass(frozen=True)
class RunSummary:
    """One run, as the tables need it."""

    model: str  # backend:model
    domain: str
    status: str  # passed / budget_exhausted / context_exceeded
    calls: dict[str, int]
    categories: dict[str, int] = field(default_factory=dict)
    feedback: dict[str, int] = field(default_factory=dict)
    accuracy: dict[str, float | None] = field(default_factory=dict)  # the points measured
    partial_check: bool = True

    @classmethod
    def from_metrics(cls, model: str, metrics: Mapping[str, JSONValue]) -> RunSummary:
        """From a stored ``AutoToSResult.metrics``."""
        return cls(model, metrics.get("domain", ""), metrics.get("status", ""),
                   dict(metrics.get("calls") or {}), dict(metrics.get("categories") or {}),
                   dict(metrics.get("feedback") or {}), dict(metrics.get("accuracy") or {}),
                   bool(metrics.get("partial_check", True)))

    @classmethod
    def from_record(cls, record: Mapping[str, JSONValue]) -> RunSummary:
        """From a run record written by ``veriplan autotos run``."""
        accuracy = {k: (v or {}).get("accuracy") for k, v in
                    (record.get("accuracy") or {}).items()}
        return cls(f"{record.get('backend')}:{record.get('model')}", record["domain"],
                   record.get("status", ""), dict(record.get("calls") or {}),
                   dict(record.get("categories") or {}), dict(record.get("feedback") or {}),
                   accuracy, bool(record.get("partial_check",
                                             (record.get("config") or {}).get("partial_check",
                                                                              True))))

    def reached(self, point: str) -> bool:
        """Whether the run reached ``point`` (the end counts only when every
        test passed) and its accuracy there was measured."""
        if point == "final" and self.status != "passed":
            return False
        return self.accuracy.get(point) is not None


def _val(run: RunSummary) -> str:
    return "w/ val" if run.partial_check else "w/o val"


def _domains(runs: list[RunSummary]) -> list[str]:
    return list(dict.fromkeys(r.domain for r in runs))


def aggregate(runs: list[RunSummary]) -> Figures:
    """The numbers behind the four tables (also what report.json keeps)."""
    by: dict[tuple, list[RunSummary]] = defaultdict(list)
    for r in runs:
        by[(r.model, r.domain, _val(r))].append(r)
    table1, figure2, figure3 = [], [], []
    for (model, domain, val), rs in sorted(by.items()):
        n = len(rs)
        table1.append({"model": model, "domain": domain, "val": val, "runs": n,
                       "mean_calls": sum(sum(r.calls.values()) for r in rs) / n})
        points = {}
        for p in POINTS:
            got = [r.accuracy[p] for r in rs if r.reached(p)]
            points[p] = {"reached": len(got), "runs": n,
                         "mean_accuracy": sum(got) / len(got) if got else None,
                         "at_100": sum(a == 1.0 for a in got)}
        end = [r.accuracy["final"] for r in rs if r.accuracy.get("final") is not None]
        figure2.append({"model": model, "domain": domain, "val": val, "points": points,
                        "end_mean_accuracy": sum(end) / len(end) if end else None,
                        "end_at_100": sum(a == 1.0 for a in end)})
        figure3.append({"model": model, "domain": domain, "val": val, "runs": n,
                        **{ph: sum(r.feedback.get(ph, 0) for r in rs) / n for ph in PHASES}})
    errors: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(CATEGORIES, 0))
    for r in runs:
        counts = errors[r.model]  # a model without errors still gets its row
        for cat, k in r.categories.items():
            counts[cat] = counts.get(cat, 0) + k
    figure4 = [{"model": m, "errors": dict(c), "total": sum(c.values())}
               for m, c in sorted(errors.items())]
    return {"table1": table1, "figure2": figure2, "figure3": figure3, "figure4": figure4}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def markdown(runs: list[RunSummary], heading: str = "##") -> str:
    """Table 1 and Figures 2-4 as Markdown tables."""
    if not runs:
        return ""
    agg = aggregate(runs)
    domains = _domains(runs)
    cells: dict[tuple, str] = {(t["model"], t["val"], t["domain"]):
                               f"{t['mean_calls']:.1f} ({t['runs']} runs)" for t in agg["table1"]}
    rows = sorted({(t["model"], t["val"]) for t in agg["table1"]})
    out = [f"{heading} AutoToS: average calls to the model per domain run (Table 1)", "",
           "| model | " + " | ".join(domains) + " |", "|---|" + "---|" * len(domains)]
    for model, val in rows:
        label = model if val == "w/ val" else f"{model} (w/o val)"
        out.append(f"| {label} | " + " | ".join(cells.get((model, val, d), "")
                                              for d in domains) + " |")
    out += ["", f"{heading} AutoToS: accuracy at the three points of a run (Figure 2)", "",
            "Each point: mean accuracy over the runs that reached it (reached/runs; "
            "runs there at 100%). The final point is reached when every test passed; "
            "'end' is the accuracy every run ended with, whatever its status.", "",
            "| model | domain | val | initial | sound | final | end (runs at 100%) |",
            "|---|---|---|---|---|---|---|"]
    for f in agg["figure2"]:
        pts = [f"{_pct(p['mean_accuracy'])} ({p['reached']}/{p['runs']}; {p['at_100']})"
               for p in (f["points"][x] for x in POINTS)]
        out.append(f"| {f['model']} | {f['domain']} | {f['val']} | " + " | ".join(pts) +
                   f" | {_pct(f['end_mean_accuracy'])} ({f['end_at_100']}) |")
    out += ["", f"{heading} AutoToS: average feedback calls by phase (Figure 3)", "",
            "| model | domain | val | goal soundness | successor soundness | "
            "successor completeness |", "|---|---|---|---|---|---|"]
    for f in agg["figure3"]:
        out.append(f"| {f['model']} | {f['domain']} | {f['val']} | {f['goal']:.1f} | "
                   f"{f['soundness']:.1f} | {f['completeness']:.1f} |")
    cats = list(CATEGORIES) + sorted({c for f in agg["figure4"] for c in f["errors"]}
                                     - set(CATEGORIES))
    out += ["", f"{heading} AutoToS: errors found, by category (Figure 4)", "",
            "Count (share of the model's errors), over all its runs and domains.", "",
            "| model | " + " | ".join(cats) + " | all |", "|---|" + "---|" * (len(cats) + 1)]
    for f in agg["figure4"]:
        total = f["total"]
        out.append(f"| {f['model']} | " + " | ".join(
            f"{f['errors'].get(c, 0)} ({_pct(f['errors'].get(c, 0) / total) if total else 'n/a'})"
            for c in cats) + f" | {total} |")
    return "\n".join(out) + "\n"
