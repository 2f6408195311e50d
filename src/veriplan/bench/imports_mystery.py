"""The closed-loop authors' per-instance records, read as published runs.

Du, Wang and Hashimoto (2026) released their runs with their code
(github.com/dzdfuture/Mystery_Planning): one folder per model and subset,
``results/runs/mystery_blocksworld_<model>_<500|100>/instances/instance-N.json``
(their runner writes ``<time>_mystery_<domain>_<mode>_<model>_<name>/instances/``).
One record is one JSON object:

- ``problem_id`` (``instance-N``), ``success`` (their final verdict), ``error``
  (their pipeline failed), ``total_execution_time`` (seconds);
- ``attempts``: the model's attempts in order, each with ``attempt``,
  ``structured_plan`` (steps ``{"name": ..., "args": [...]}``), ``simulation``
  (their simulator: ``ok``, ``report``) and, for a plan their simulator passed,
  ``pddl_plan`` and ``val_results`` (VAL: ``success``, ``status``), or ``error``
  (their translation failed);
- ``search_plan``: the breadth-first fallback's steps (same shape), run when no
  attempt passed VAL; the record's final ``val_results`` is then the fallback's.

Each record becomes a unit of method ``published:mystery-planning``: every
attempt's plan and the fallback's plan are re-validated by veriplan; the unit is
model-solved when one of the model's attempts verifies, fallback-solved
(``fallback:bfs``) when only the fallback's plan does. The published
attribution is the same rule on their verdicts: model-solved when an attempt
passed their VAL, fallback-solved when their final success came from the
search plan.

The dataset is ``--dataset`` or, by default, told from the records: the actions
they use (Mystery's ``attack``/``feast``/``succumb``/``overcome``, or
Blocksworld's) and the folder's subset suffix (``_100``: PlanBench's 3-block
set, ``generated_basic_3``; otherwise its 500-instance set). Their ``_100``
folders hold plain Blocksworld, so they import into ``blocksworld_3``; the
``_500`` folders into ``mystery_blocksworld``. The authors ran instance-1 ..
instance-N, while PlanBench's bounds (and veriplan's datasets) start at
instance-2: ``--skip-unknown`` leaves instance-1 out and says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.bench.datasets import Instance, load_dataset
from veriplan.bench.imports_planbench import read_json, verdict
from veriplan.bench.published import (
    Answer,
    ImportSummary,
    PublishedRecord,
    PublishedResultsError,
    lookup,
    store_published,
    unknown_instance,
)

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

METHOD = "published:mystery-planning"
MYSTERY_ACTIONS = frozenset({"attack", "feast", "succumb", "overcome"})
BLOCKS_ACTIONS = frozenset({"pick-up", "put-down", "stack", "unstack"})
_RELEASED = re.compile(r"^mystery_blocksworld_(?P<model>.+)_(?P<n>\d+)$")


def record_files(run_dir: Path) -> list[Path]:
    """The per-instance JSON files of a run folder (``instances/*.json``, or
    ``*.json`` in the folder itself), in instance order."""
    if not run_dir.exists():
        raise PublishedResultsError("no such run folder", file=str(run_dir))
    if not run_dir.is_dir():
        raise PublishedResultsError("expected a run folder (holding instances/*.json), found "
                                    "a file", file=str(run_dir))
    folder = run_dir / "instances" if (run_dir / "instances").is_dir() else run_dir
    files = [f for f in folder.glob("*.json") if f.name != "summary.json"]
    if not files:
        raise PublishedResultsError("no per-instance records (instances/instance-N.json) in "
                                    "this folder", file=str(run_dir))

    def order(p: Path) -> tuple:
        m = re.search(r"(\d+)$", p.stem)
        return (int(m.group(1)) if m else 1 << 30, p.name)

    return sorted(files, key=order)


def _steps(plan: JSONValue, file: Path, where: str) -> str:
    """Structured steps as PDDL lines; a step that is not ``{name, args}`` is
    kept as its JSON text, which veriplan then reports as an unread line."""
    if plan is None:
        return ""
    if not isinstance(plan, list):
        raise PublishedResultsError(f"{where}: a plan must be a list of steps, found "
                                    f"{type(plan).__name__}", file=str(file))
    lines = []
    for s in plan:
        if (isinstance(s, dict) and isinstance(s.get("name"), str)
                and isinstance(s.get("args", []), list)):
            lines.append("(" + " ".join([s["name"], *map(str, s.get("args", []))]) + ")")
        else:
            lines.append(json.dumps(s))
    return "\n".join(lines)


def _actions(rec: dict) -> set[str]:
    names = set()
    meta = rec.get("planning_metadata")
    if isinstance(meta, dict):
        names |= {a.get("name") for a in meta.get("allowed_actions") or []
                  if isinstance(a, dict)}
    for att in rec.get("attempts") or []:
        if isinstance(att, dict):
            names |= {s.get("name") for s in att.get("structured_plan") or []
                      if isinstance(s, dict)}
    names |= {s.get("name") for s in rec.get("search_plan") or [] if isinstance(s, dict)}
    return {n.lower() for n in names if isinstance(n, str)}


def guess_dataset(run_dir: Path, records: list[tuple[Path, dict]]) -> str:
    """The veriplan dataset a run folder was run on (see the module docstring)."""
    names: set[str] = set()
    for _, rec in records:
        names |= _actions(rec)
    if names and names <= MYSTERY_ACTIONS:
        family = "mystery_blocksworld"
    elif names and names <= BLOCKS_ACTIONS:
        family = "blocksworld"
    else:
        raise PublishedResultsError(
            "cannot tell the dataset from the records' actions "
            f"({', '.join(sorted(names)) or 'none'}): pass --dataset", file=str(run_dir))
    three = run_dir.name.endswith("_100") or "basic_3" in run_dir.name
    return family + ("_3" if three else "")


def guess_model(run_dir: Path) -> str:
    m = _RELEASED.match(run_dir.name)
    if not m:
        raise PublishedResultsError(
            "cannot tell the model from the folder name (expected "
            "mystery_blocksworld_<model>_<N>): pass --model", file=str(run_dir))
    return m.group("model")


def _ok(att: dict) -> bool | None:
    """The published verdict on one attempt: VAL's where it ran, else False
    when their simulator or translator rejected it."""
    val = att.get("val_results")
    if isinstance(val, dict) and "success" in val:
        return bool(val["success"])
    sim = att.get("simulation")
    if att.get("error") or (isinstance(sim, dict) and sim.get("ok") is False):
        return False
    return None


def _note(att: dict) -> str:
    parts = []
    sim = att.get("simulation")
    if isinstance(sim, dict) and sim.get("report"):
        parts.append(f"simulator: {sim['report']}")
    if att.get("error"):
        parts.append(f"translation: {att['error']}")
    val = att.get("val_results")
    if isinstance(val, dict) and val.get("status"):
        parts.append(f"VAL: {val['status']}")
    return "; ".join(parts)


def to_record(file: Path, rec: JSONValue, instance: Instance, *, where: str
              ) -> PublishedRecord:
    """One of the authors' records as a :class:`PublishedRecord` on ``instance``."""
    if not isinstance(rec, dict):
        raise PublishedResultsError("a record must be a JSON object", file=str(file), line=1)
    success = verdict(rec.get("success"))
    if success is None:
        raise PublishedResultsError(f"{where} has no published verdict ('success': true or "
                                    f"false; found {rec.get('success')!r})", file=str(file))
    attempts_raw = rec.get("attempts")
    if attempts_raw is None and rec.get("structured_plan") is not None:
        attempts_raw = [{"attempt": 1, "structured_plan": rec["structured_plan"]}]
    if not isinstance(attempts_raw or [], list):
        raise PublishedResultsError(f"{where}: 'attempts' must be a list", file=str(file))
    attempts = []
    for k, att in enumerate(attempts_raw or [], 1):
        if not isinstance(att, dict):
            raise PublishedResultsError(f"{where}: attempt {k} is not a JSON object",
                                        file=str(file))
        attempts.append(Answer(_steps(att.get("structured_plan"), file, f"{where} attempt {k}"),
                               "pddl", _ok(att), _note(att), read_from="structured_plan"))
    search = rec.get("search_plan") or None
    fallback = None
    if search:
        val = rec.get("val_results") if isinstance(rec.get("val_results"), dict) else {}
        fallback = Answer(_steps(search, file, f"{where} search_plan"), "pddl",
                          bool(val.get("success")) if "success" in val else None,
                          f"VAL: {val['status']}" if val.get("status") else "",
                          read_from="search_plan")
    model_ok = any(a.published_ok for a in attempts)
    solved_by = "llm" if model_ok else ("fallback:bfs" if success and fallback else
                                       ("llm" if success else None))
    seconds = rec.get("total_execution_time")
    extra = {k: rec[k] for k in ("problem_id", "success", "domain", "experiment_type",
                                 "search_error", "timestamp") if k in rec}
    return PublishedRecord(instance, where, tuple(attempts), success,
                           solved_by if success else None, fallback=fallback,
                           seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
                           error=str(rec["error"]) if rec.get("error") else None, extra=extra)


def import_mystery_planning(run_dir: str | Path, out: str | Path, *,
                            data_dir: str | Path | None = None, dataset: str | None = None,
                            model: str | None = None, skip_unknown: bool = False
                            ) -> ImportSummary:
    """Import one of the closed-loop authors' run folders into the run store in
    ``out``: every attempt's plan and the fallback's re-validated by veriplan,
    their verdict and model-solved / fallback-solved attribution kept beside.
    ``dataset`` and ``model`` default to what the folder says (see the module
    docstring). Importing again adds nothing twice."""
    run_dir = Path(run_dir)
    files = record_files(run_dir)
    loaded = [(f, read_json(f, "record")[0]) for f in files]
    name = dataset or guess_dataset(run_dir, loaded)
    who = model or guess_model(run_dir)
    ds = load_dataset(name, data_dir)
    known = lookup(ds)
    records, skipped = [], []
    for f, rec in loaded:
        pid = rec.get("problem_id") if isinstance(rec, dict) else None
        pid = pid if isinstance(pid, str) and pid else f.stem
        inst = known.get(pid)
        if inst is None:
            if skip_unknown:
                skipped.append(pid)
                continue
            raise unknown_instance(ds, pid, str(f), f"record {f.name}")
        records.append(to_record(f, rec, inst, where=f"record {f.name}"))
    return store_published(records, out, method=METHOD, model=who, dataset=ds,
                           source=str(run_dir), skipped_unknown=skipped)
