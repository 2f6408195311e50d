"""PlanBench's published response files, read as published runs.

A response file (PlanBench's ``results/<domain>/<engine>/<prompt>.json``; the
bundled ``planbench/responses/<domain>__<engine>__<prompt>.json``) is one JSON
object: ``domain`` (the config name: ``blocksworld``, ``mystery_blocksworld``,
...), ``engine`` (the model), ``prompt_type``, and ``instances``, a list of
records with ``instance_id`` (the number in ``instance-N.pddl``), ``query``
(the prompt), ``llm_raw_response`` (the model's answer), ``extracted_llm_plan``
(PlanBench's reading of it, PDDL lines as a list or one string),
``ground_truth_plan``, and the published verdict, ``correct`` or
``llm_correct`` (a boolean, or the strings ``"True"`` / ``"False"``).

Each record becomes a unit of method ``published:planbench`` on the veriplan
dataset of the same name, instance ``instance-N``, model ``engine``, settings
``{"prompt_type": ...}``. veriplan reads the raw answer with the dataset's
PlanBench config (PlanBench's extracted plan only where the raw answer is
missing or blank) and judges PlanBench's extracted plan beside it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.bench.datasets import Dataset, Instance, load_dataset
from veriplan.bench.published import (
    Answer,
    ImportSummary,
    PublishedRecord,
    PublishedResultsError,
    store_published,
    unknown_instance,
)

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

METHOD = "published:planbench"
VERDICT_KEYS = ("correct", "llm_correct")


def read_json(path: Path, what: str) -> tuple[JSONValue, str]:
    """The parsed JSON of ``path`` and its text; a typed error naming the file
    (and the line and column of a syntax error)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PublishedResultsError(f"no such {what}", file=str(path)) from None
    except IsADirectoryError:
        raise PublishedResultsError(f"expected a {what}, found a directory",
                                    file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PublishedResultsError(f"cannot read the {what}: {exc}", file=str(path)) from None
    try:
        return json.loads(text), text
    except json.JSONDecodeError as exc:
        raise PublishedResultsError(f"not valid JSON: {exc.msg}", file=str(path),
                                    line=exc.lineno, col=exc.colno) from None


def verdict(value: object) -> bool | None:
    """A published verdict as a bool (True/False, "True"/"False", 1/0), else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _line_of(text: str, instance_id: JSONValue) -> int | None:
    m = re.search(r'"instance_id"\s*:\s*"?' + re.escape(str(instance_id)) + r'"?\s*[,}]', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _by_number(dataset: Dataset) -> dict[int, list[Instance]]:
    out: dict[int, list[Instance]] = {}
    for inst in dataset.instances:
        m = re.search(r"(\d+)$", Path(inst.problem_path).stem)
        if m:
            out.setdefault(int(m.group(1)), []).append(inst)
    return out


def _plan_text(plan: JSONValue) -> str | None:
    if isinstance(plan, list) and all(isinstance(s, str) for s in plan):
        return "\n".join(plan)
    return plan if isinstance(plan, str) else None


def read_records(path: str | Path, dataset: Dataset, *, skip_unknown: bool = False,
                 loaded: tuple[JSONValue, str] | None = None
                 ) -> tuple[dict, list[PublishedRecord], list[str]]:
    """The file's header, its records as :class:`PublishedRecord`, and the ids
    left out as unknown (only with ``skip_unknown``; else such a record is an
    :class:`~veriplan.bench.published.UnknownInstanceError`). ``loaded``: the
    file's JSON and text, if already read."""
    path = Path(path)
    data, text = loaded or read_json(path, "PlanBench response file")
    if not isinstance(data, dict) or not isinstance(data.get("instances"), list):
        raise PublishedResultsError("not a PlanBench response file: expected a JSON object "
                                    "with an 'instances' list", file=str(path), line=1)
    header = {k: v for k, v in data.items() if k != "instances"}
    numbers = _by_number(dataset)
    records, skipped = [], []
    for k, rec in enumerate(data["instances"], 1):
        where = f"record {k}"
        if not isinstance(rec, dict):
            raise PublishedResultsError(f"{where} is not a JSON object", file=str(path))
        raw_id = rec.get("instance_id")
        try:
            number = int(raw_id)
        except (TypeError, ValueError):
            raise PublishedResultsError(f"{where} has no integer 'instance_id' (found "
                                        f"{raw_id!r})", file=str(path)) from None
        where = f"record {k} (instance_id {number})"
        line = _line_of(text, raw_id)
        key = next((key for key in VERDICT_KEYS if rec.get(key) is not None), None)
        published = verdict(rec[key]) if key else None
        if published is None:
            raise PublishedResultsError(
                f"{where} has no published verdict: expected 'correct' or 'llm_correct' "
                f"(true or false), found {rec.get(key) if key else 'neither'!r}",
                file=str(path), line=line)
        found = numbers.get(number, [])
        if len(found) != 1:
            if skip_unknown and not found:
                skipped.append(f"instance-{number}")
                continue
            if found:
                raise PublishedResultsError(
                    f"{where}: instance {number} is ambiguous in dataset {dataset.name} "
                    f"({', '.join(i.id for i in found)}); import into one of its parts with "
                    "--dataset", file=str(path), line=line)
            raise unknown_instance(dataset, f"instance-{number}", str(path), where, line)
        inst = found[0]
        raw = rec.get("llm_raw_response")
        extracted = _plan_text(rec.get("extracted_llm_plan"))
        prompt = rec.get("query") if isinstance(rec.get("query"), str) else ""
        beside: dict[str, Answer] = {}
        if isinstance(raw, str) and raw.strip():
            answer = Answer(raw, "planbench", published, read_from="response", prompt=prompt)
            if extracted is not None:
                beside["extracted"] = Answer(extracted, "pddl", published,
                                             read_from="extracted")
        elif extracted is not None:
            answer = Answer(extracted, "pddl", published, read_from="extracted", prompt=prompt)
        else:
            answer = Answer("", "pddl", published, read_from="none", prompt=prompt)
        extra = {k2: v for k2, v in rec.items() if k2 not in ("query", "llm_raw_response")}
        extra["verdict_key"] = key
        records.append(PublishedRecord(inst, where, (answer,), published,
                                       "llm" if published else None, beside=beside,
                                       extra=extra))
    return header, records, skipped


def import_planbench(path: str | Path, out: str | Path, *,
                     data_dir: str | Path | None = None, dataset: str | None = None,
                     model: str | None = None, skip_unknown: bool = False) -> ImportSummary:
    """Import a PlanBench response file into the run store in ``out``: every
    answer re-read and re-validated by veriplan, the published verdict kept
    beside. ``dataset`` (default: the file's ``domain``) names the veriplan
    dataset, read from ``data_dir`` (default ``VERIPLAN_DATA``); ``model``
    (default: the file's ``engine``). Importing again adds nothing twice."""
    path = Path(path)
    loaded = read_json(path, "PlanBench response file")
    head = loaded[0]
    name = dataset or (head.get("domain") if isinstance(head, dict) else None)
    if not isinstance(name, str) or not name:
        raise PublishedResultsError("the file names no 'domain': pass the veriplan dataset "
                                    "with --dataset", file=str(path), line=1)
    ds = load_dataset(name, data_dir)
    header, records, skipped = read_records(path, ds, skip_unknown=skip_unknown, loaded=loaded)
    engine = model or header.get("engine")
    if not isinstance(engine, str) or not engine:
        raise PublishedResultsError("the file names no 'engine' (the model): pass --model",
                                    file=str(path), line=1)
    settings = {"prompt_type": header["prompt_type"]} if header.get("prompt_type") else {}
    return store_published(records, out, method=METHOD, model=engine, dataset=ds,
                           source=str(path), settings=settings, skipped_unknown=skipped)
