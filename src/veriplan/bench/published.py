"""Published results re-judged: other people's runs in a veriplan run store.

A reader (``imports_planbench``, ``imports_mystery``) turns a published results
file into :class:`PublishedRecord` values: the dataset instance, the model's
answers (and a search fallback's plan, if the publishers ran one) and the
published verdict with its attribution. :func:`store_published` re-reads and
re-validates every answer with veriplan (through
:func:`veriplan.verify.batch.validate_many`) and writes one
:class:`~veriplan.bench.store.UnitRecord` per record, shaped like the harness's
own units, so ``veriplan report`` and ``--compare`` treat them alike. The
published verdict is kept beside veriplan's in the result's ``metrics``
(``published_verdict``, ``published_solved_by``, ``agrees``, ``overturn``)
and the whole published record's verdicts in ``result["published"]``.

A published verdict is *overturned* when veriplan's verdict or attribution
differs. The reason is a category and veriplan's diagnosis:

- ``rejected:<kind>``: published as solved, but the plan it credits is not
  valid; ``<kind>`` is what veriplan found first: ``unread-line`` (a line of the
  answer that reads as no action), ``no-plan`` (nothing read), a step fault
  (``precondition``, ``unknown-action``, ``unknown-object``, ``wrong-arity``,
  ``wrong-type``), or ``goal`` (the plan runs but misses the goal);
- ``accepted``: published as not solved, but veriplan verifies a plan the model
  wrote (or the fallback's, then ``accepted:fallback``);
- ``attribution:llm`` / ``attribution:fallback``: solved either way, but by
  someone else than the publishers credit (the model's own attempt verifies
  where the fallback was credited, or the reverse).

:func:`section` is the report's section on these units.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.bench.datasets import Dataset, Instance
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.bench.units import Unit, canonical
from veriplan.core.verdict import Scope
from veriplan.errors import DataError, SourceError
from veriplan.planio import ParsedPlan
from veriplan.verify import ValidationResult

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

BACKEND = "published"  # the backend column of imported units: the answers were not run here


class PublishedResultsError(SourceError, DataError):
    """A published results file or folder that cannot be read: missing,
    malformed (with the line and column), or a record without what it needs.
    ``file`` names it, ``line`` where known."""


class UnknownInstanceError(PublishedResultsError):
    """A record whose instance is not in the dataset it is imported into."""


@dataclass(frozen=True)
class Answer:
    """One plan to judge: the text veriplan reads (``fmt`` ``planbench``:
    natural language with the dataset's PlanBench config; ``pddl``: action
    lines), who wrote it, and what the publishers said about it."""

    text: str
    fmt: str = "pddl"
    published_ok: bool | None = None  # None: the publishers did not judge it
    published_note: str = ""  # their judge's words (a simulator report, a status)
    read_from: str = "response"  # "response", "extracted", "structured_plan", ...
    prompt: str = ""


@dataclass(frozen=True)
class PublishedRecord:
    """One published unit: ``attempts`` are the model's answers in order,
    ``fallback`` a search's plan the publishers ran when the model failed;
    ``published_verdict`` / ``published_solved_by`` what they reported
    (``"llm"``, ``"fallback:..."`` or None). ``beside``: plans judged for
    reference only (PlanBench's extracted plan), by name. ``where`` says where
    in the source the record is (for messages)."""

    instance: Instance
    where: str
    attempts: tuple[Answer, ...]
    published_verdict: bool
    published_solved_by: str | None
    fallback: Answer | None = None
    fallback_name: str = "fallback:bfs"
    beside: Mapping[str, Answer] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None  # the publishers' pipeline failed on this record
    extra: Mapping[str, JSONValue] = field(default_factory=dict)  # the record's own fields


@dataclass
class ImportSummary:
    """What an import did: units added and already in the store, records left
    out (``skipped_unknown``: instances not in the dataset), and over all the
    source's units now in the store, published-valid and veriplan-valid
    counts, agreements and overturns (by reason, and each one)."""

    source: str
    store: Path
    method: str
    dataset: str
    model: str
    records: int = 0
    added: int = 0
    already: int = 0
    skipped_unknown: list[str] = field(default_factory=list)
    published_valid: int = 0
    veriplan_valid: int = 0
    agree: int = 0
    overturns: dict[str, int] = field(default_factory=dict)
    overturned: list[dict] = field(default_factory=list)  # instance, unit, reason, detail
    solved_by: dict[str, int] = field(default_factory=dict)  # veriplan's attribution
    published_solved_by: dict[str, int] = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        """The experiment directory holding the store (for ``veriplan report``)."""
        return self.store.parent


def lookup(dataset: Dataset) -> dict[str, Instance]:
    """The dataset's instances by id and, for a union's ``part/id`` ids, also by
    the bare id when it is unique."""
    out = {i.id: i for i in dataset.instances}
    bare: dict[str, list[Instance]] = {}
    for i in dataset.instances:
        if "/" in i.id:
            bare.setdefault(i.id.rsplit("/", 1)[1], []).append(i)
    for k, v in bare.items():
        if len(v) == 1 and k not in out:
            out[k] = v[0]
    return out


def unknown_instance(dataset: Dataset, instance: str, file: str, where: str,
                     line: int | None = None) -> UnknownInstanceError:
    ids = [i.id for i in dataset.instances]
    span = f"{ids[0]} .. {ids[-1]}" if ids else "none"
    return UnknownInstanceError(
        f"{where}: instance {instance!r} is not in dataset {dataset.name} ({len(ids)} "
        f"instances: {span}); import into another dataset with --dataset NAME, or leave "
        "such records out with --skip-unknown", file=file, line=line)


# ----- judging -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Judged:
    answer: Answer
    result: ValidationResult

    @property
    def valid(self) -> bool:
        return self.result.valid

    @property
    def steps(self) -> list[str]:
        return [str(s) for s in self.result.plan]

    def parsed(self) -> ParsedPlan:
        return ParsedPlan(tuple(self.result.plan), tuple(self.result.unread))

    def kind(self) -> str:
        """What is wrong first: unread-line, no-plan, a step fault, goal."""
        r = self.result
        if r.unread:
            return "unread-line"
        if not r.plan:
            return "no-plan"
        if r.failed_step is not None:
            return str(r.error) if r.error else "precondition"
        return "goal"


def _judge_all(items: list[tuple[str, Instance, Answer]]) -> dict[str, ValidationResult]:
    """Every answer judged by validate_many, by key."""
    from veriplan.verify.batch import validate_many

    batch = []
    for key, inst, ans in items:
        item = {"id": key, "domain": str(inst.domain_path), "problem": str(inst.problem_path),
                "plan": ans.text, "format": ans.fmt}
        if ans.fmt == "planbench":
            if inst.config_path is None:
                raise DataError(f"dataset {inst.dataset} has no PlanBench config, so answers "
                                "in PlanBench's natural language cannot be read on it")
            item["planbench_config"] = str(inst.config_path)
        batch.append(item)
    out = {}
    for v in validate_many(batch):
        if v.result is None:  # a problem, domain or config of the dataset that cannot be read
            e = v.error
            raise DataError(f"cannot judge the answers on {items[v.line - 1][1].dataset}/"
                            f"{items[v.line - 1][1].id}: "
                            f"{e.message if e else 'unknown error'}")
        out[v.id] = v.result
    return out


def _size(inst: Instance) -> int | None:
    from veriplan.verify.batch import cached_task

    try:
        return len(cached_task(inst.domain_path, inst.problem_path).objects)
    except Exception:  # the size is a report breakdown, never a reason to stop an import
        return None


def _clip(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _entry(call: int | None, role: str, j: Judged) -> dict:
    from veriplan.methods.records import Entry

    data: dict[str, JSONValue] = {"read_from": j.answer.read_from}
    if j.answer.published_ok is not None:
        data["published_ok"] = j.answer.published_ok
    if j.answer.published_note:
        data["published_note"] = j.answer.published_note
    return Entry(call, role, j.answer.prompt, j.answer.text, False, j.steps,
                 [str(u) for u in j.result.unread], j.valid,
                 "verified" if j.valid else j.result.feedback(), data).to_dict()


def _verdict(rec: PublishedRecord, judged: list[Judged], fallback: Judged | None
             ) -> tuple[bool, str | None, list[str]]:
    first = next((j for j in judged if j.valid), None)
    if first is not None:
        return True, "llm", first.steps
    if fallback is not None and fallback.valid:
        return True, rec.fallback_name, fallback.steps
    return False, None, []


def _credited(rec: PublishedRecord, judged: list[Judged], fallback: Judged | None
              ) -> Judged | None:
    """The judged plan the published verdict credits."""
    if rec.published_solved_by == "llm":
        ok = [j for j in judged if j.answer.published_ok]
        return ok[0] if ok else (judged[-1] if judged else None)
    if rec.published_solved_by is not None:
        return fallback
    return None


def overturn(rec: PublishedRecord, judged: list[Judged], fallback: Judged | None,
             beside: Mapping[str, Judged], verified: bool, solved_by: str | None
             ) -> tuple[str, str] | None:
    """(category, reason) when veriplan's verdict or attribution differs from
    the published one, else None."""
    pub = rec.published_verdict
    pub_by = rec.published_solved_by if pub else None
    if (pub, pub_by) == (verified, solved_by if verified else None):
        return None
    if pub and not verified:
        j = _credited(rec, judged, fallback)
        if j is None:
            return "rejected:no-plan", "published as solved, but the record holds no plan"
        who = "the fallback's plan" if j is fallback else "the model's answer"
        return f"rejected:{j.kind()}", f"{who}: {j.result.feedback()}"
    if verified and not pub:
        n = next((k for k, j in enumerate(judged, 1) if j.valid), None)
        if n is None:
            return "accepted:fallback", ("published as not solved, but the fallback's plan "
                                         "is valid")
        j = judged[n - 1]
        said = f" (published: {j.answer.published_note})" if j.answer.published_note else ""
        why = (f"published as not solved, but the model's answer"
               f"{f' (attempt {n})' if len(judged) > 1 else ''} is a valid plan of "
               f"{len(j.steps)} steps{said}")
        ext = beside.get("extracted")
        if ext is not None and ext.steps != j.steps:
            why += (f"; the published extracted plan ({len(ext.steps)} steps) differs from "
                    f"veriplan's reading and is {'valid' if ext.valid else 'not valid'}: "
                    f"{'' if ext.valid else ext.result.feedback()}").rstrip(": ")
        return "accepted", why
    # solved either way, credited to someone else
    if solved_by == "llm":
        n = next(k for k, j in enumerate(judged, 1) if j.valid)
        note = judged[n - 1].answer.published_note
        return "attribution:llm", (f"credited to {pub_by}, but the model's attempt {n} is a "
                                   f"valid plan{f' (published: {note})' if note else ''}")
    j = _credited(rec, judged, fallback)
    bad = f": {j.result.feedback()}" if j is not None and j is not fallback else ""
    return "attribution:fallback", (f"credited to the model, but its plan is not valid{bad}; "
                                    f"the fallback's plan is")


def to_unit(rec: PublishedRecord, method: str, model: str, settings: Mapping[str, JSONValue]
            ) -> Unit:
    return Unit(method, rec.instance.dataset, rec.instance.id, BACKEND, model,
                canonical(dict(settings)), 0)


def judge_record(rec: PublishedRecord, unit: Unit, results: Mapping[str, ValidationResult],
                 dataset_version: str, source: str) -> UnitRecord:
    """The unit record of one published record, from veriplan's verdicts."""
    from veriplan.bench.execute import version
    from veriplan.methods.backprompt.method import attempt_signal

    judged = [Judged(a, results[f"{unit.id}/{k}"]) for k, a in enumerate(rec.attempts, 1)]
    fallback = (Judged(rec.fallback, results[f"{unit.id}/fallback"])
                if rec.fallback is not None else None)
    beside = {name: Judged(a, results[f"{unit.id}/{name}"]) for name, a in rec.beside.items()}
    verified, solved_by, plan = _verdict(rec, judged, fallback)
    turned = overturn(rec, judged, fallback, beside, verified, solved_by)
    transcript = [_entry(k, "plan", j) for k, j in enumerate(judged, 1)]
    if fallback is not None:
        transcript.append(_entry(None, "fallback", fallback))
    signals = [attempt_signal(k, j.parsed(), j.result, j.valid).to_dict()
               for k, j in enumerate(judged, 1)]
    last = "" if verified or not judged else judged[-1].result.feedback()
    metrics: dict[str, JSONValue] = {
        "published_verdict": rec.published_verdict,
        "published_solved_by": rec.published_solved_by if rec.published_verdict else None,
        "agrees": turned is None, "overturn": turned[0] if turned else None,
        "size": _size(rec.instance), "plan_length": len(plan) if verified else None,
        "attempts": len(judged)}
    for name, j in beside.items():
        metrics[f"{name}_valid"] = j.valid
        metrics[f"{name}_read_alike"] = bool(judged) and j.steps == judged[0].steps
    published = {"source": source, "where": rec.where, **dict(rec.extra),
                 "beside": {n: {"plan": j.steps, "valid": j.valid,
                                "verdict": "verified" if j.valid else j.result.feedback()}
                            for n, j in beside.items()}}
    if rec.error:
        published["error"] = rec.error
    result = {
        "method": unit.method, "verified": verified, "plan": plan, "attempts": len(judged),
        "llm_calls": len(judged), "tokens": 0, "seconds": rec.seconds, "backend": BACKEND,
        "model": unit.model, "solved_by": solved_by, "cost": None, "cache_hits": 0,
        "last_diagnosis": last, "transcript": transcript, "signals": signals,
        "failure": None, "metrics": metrics, "scope": Scope.PLAN_ON_TASK.value,
        "overturn_reason": turned[1] if turned else None, "published": published}
    return UnitRecord(unit.id, unit.method, unit.dataset, unit.instance, unit.backend,
                      unit.model, unit.config, unit.seed, "done", verified, solved_by,
                      len(judged), 0, None, rec.seconds, None, None, json.dumps(result),
                      version(), dataset_version, time.time(), Scope.PLAN_ON_TASK)


def store_published(records: Iterable[PublishedRecord], out: str | Path, *, method: str,
                    model: str, dataset: Dataset, source: str,
                    settings: Mapping[str, JSONValue] | None = None,
                    skipped_unknown: list[str] | None = None) -> ImportSummary:
    """Judge every record not yet in ``out``'s store and add it (a unit already
    there is kept as it is: importing again changes nothing)."""
    settings = dict(settings or {})
    store = RunStore(out)
    try:
        have = store.finished_ids()
        recs = list(records)
        units = [to_unit(r, method, model, settings) for r in recs]
        todo = [(r, u) for r, u in zip(recs, units) if u.id not in have]
        items: list[tuple[str, Instance, Answer]] = []
        for r, u in todo:
            items += [(f"{u.id}/{k}", r.instance, a) for k, a in enumerate(r.attempts, 1)]
            if r.fallback is not None:
                items.append((f"{u.id}/fallback", r.instance, r.fallback))
            items += [(f"{u.id}/{n}", r.instance, a) for n, a in r.beside.items()]
        results = _judge_all(items) if items else {}
        summary = ImportSummary(source, store.path, method, dataset.name, model,
                                records=len(recs), skipped_unknown=list(skipped_unknown or []))
        for r, u in todo:
            summary.added += store.add(judge_record(r, u, results, dataset.version, source))
        summary.already = len(recs) - len(todo)
        ids = {u.id for u in units}
        mine = [x for x in store.records() if x.id in ids]
    finally:
        store.close()
    _tally(summary, mine)
    return summary


def _tally(summary: ImportSummary, records: list[UnitRecord]) -> None:
    over: Counter = Counter()
    by: Counter = Counter()
    pub_by: Counter = Counter()
    for r in sorted(records, key=lambda x: _order(x.instance)):
        res = r.result_dict()
        m = res.get("metrics", {})
        summary.published_valid += bool(m.get("published_verdict"))
        summary.veriplan_valid += bool(r.verified)
        summary.agree += bool(m.get("agrees"))
        by[r.solved_by or "none"] += 1
        pub_by[m.get("published_solved_by") or "none"] += 1
        if m.get("overturn"):
            over[m["overturn"]] += 1
            summary.overturned.append({"instance": r.instance, "unit": r.id,
                                       "reason": m["overturn"],
                                       "detail": res.get("overturn_reason") or ""})
    summary.overturns = dict(sorted(over.items()))
    summary.solved_by = dict(sorted(by.items()))
    summary.published_solved_by = dict(sorted(pub_by.items()))


def _order(instance: str) -> tuple:
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", instance))


# ----- the report's section ----------------------------------------------------------------
def is_published(r: UnitRecord) -> bool:
    return r.backend == BACKEND and r.status == "done" and "published_verdict" in (
        r.result_dict().get("metrics") or {})


def section(records: list[UnitRecord]) -> tuple[str, dict | None]:
    """Markdown for the report (published against veriplan's verdicts per
    group, and every overturned verdict with its reason) and the numbers for
    report.json; ("", None) when the store holds no imported units."""
    mine = [r for r in records if is_published(r)]
    if not mine:
        return "", None
    groups: dict[tuple, list[UnitRecord]] = {}
    for r in mine:
        groups.setdefault((r.method, f"{r.backend}:{r.model}", r.dataset, r.config), []).append(r)
    lines = ["", "## Published verdicts re-judged", "",
             "Imported units: each answer re-read and re-validated by veriplan; the published "
             "verdict is kept beside veriplan's. An overturn is a verdict or an attribution "
             "(model-solved, fallback-solved) that veriplan does not confirm.", "",
             "| method | model | dataset | config | units | published solved | veriplan "
             "verified | published model / fallback | veriplan model / fallback | agree | "
             "overturned (by reason) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    out_groups = []
    listed = []
    for (method, model, dataset, config), rs in sorted(groups.items()):
        s = ImportSummary("", Path(), method, dataset, model, records=len(rs))
        _tally(s, rs)
        pub_llm = s.published_solved_by.get("llm", 0)
        pub_fb = sum(v for k, v in s.published_solved_by.items() if k.startswith("fallback"))
        our_llm = s.solved_by.get("llm", 0)
        our_fb = sum(v for k, v in s.solved_by.items() if k.startswith("fallback"))
        reasons = ", ".join(f"{k}: {v}" for k, v in s.overturns.items()) or "none"
        lines.append(f"| {method} | {model} | {dataset} | `{config}` | {len(rs)} | "
                     f"{s.published_valid} | {s.veriplan_valid} | {pub_llm} / {pub_fb} | "
                     f"{our_llm} / {our_fb} | {s.agree} | {len(s.overturned)} ({reasons}) |")
        out_groups.append({"method": method, "model": model, "dataset": dataset,
                           "config": config, "units": len(rs),
                           "published_solved": s.published_valid,
                           "veriplan_verified": s.veriplan_valid, "agree": s.agree,
                           "published_solved_by": s.published_solved_by,
                           "veriplan_solved_by": s.solved_by, "overturns": s.overturns,
                           "overturned": s.overturned})
        listed += [(method, model, dataset, o) for o in s.overturned]
    if listed:
        lines += ["", f"### Every overturned verdict ({len(listed)})", "",
                  "| method | model | dataset/instance | unit | reason | what veriplan found |",
                  "|---|---|---|---|---|---|"]
        for method, model, dataset, o in listed:
            detail = _clip(o["detail"], 400).replace("|", "\\|")
            lines.append(f"| {method} | {model} | {dataset}/{o['instance']} | "
                         f"`{o['unit']}` | {o['reason']} | {detail} |")
    else:
        lines += ["", "veriplan overturns no published verdict."]
    return "\n".join(lines) + "\n", {"groups": out_groups}
