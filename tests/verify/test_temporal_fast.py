"""The temporal one-pass judge (veriplan.verify.temporal_fast) against the general
validator: on every plan of the temporal corpus (TAMER's plans and their mutants on
ipc-dev), on the feature plans and on bad timed input, --batch's record equals the
record of validate_plan's result, at VAL's default tolerance and at others. The
corpus's plans are all clean timed text: the fast path judges each (it says None
for none of them)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import yaml

from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task, load_task
from veriplan.planio import parse_plan
from veriplan.verify.batch import batch_lines
from veriplan.verify.records import result_record
from veriplan.verify.temporal_fast import timed_record
from veriplan.verify.validator import validate_plan

HERE = Path(__file__).parent
CORPUS = HERE.parent / "data" / "temporal_plans"
SPEC = yaml.safe_load((HERE / "temporal_features.yaml").read_text())


def _general(task: Task, text: str, tolerance: float = 0.01) -> tuple[bool, str]:
    return result_record(7, "x", validate_plan(task, parse_plan(text, task),
                                               tolerance=tolerance))


def _fast(task: Task, text: str, tolerance: float = 0.01) -> tuple[bool, str] | None:
    return timed_record(task, 7, "x", text.lower().split("\n"), tolerance)


@pytest.fixture(scope="module")
def corpus(data_dir):
    rows = [json.loads(x) for x in (CORPUS / "plans.jsonl").read_text().splitlines()]
    tasks: dict[tuple[str, str], Task] = {}
    for r in rows:
        key = (r["domain"], r["problem"])
        if key not in tasks:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tasks[key] = load_task(data_dir / key[0], data_dir / key[1])
    return rows, tasks


def test_every_corpus_plan_gets_the_general_path_s_record(corpus):
    rows, tasks = corpus
    verdicts = {True: 0, False: 0}
    for r in rows:
        task = tasks[(r["domain"], r["problem"])]
        fast = _fast(task, r["plan"])
        assert fast is not None, r["id"]
        assert fast == _general(task, r["plan"]), r["id"]
        verdicts[fast[0]] += 1
    assert verdicts[True] >= 15 and verdicts[False] >= 100, verdicts


@pytest.mark.parametrize("tolerance", [0.001, 0.1, 0.5])
def test_other_tolerances_too(corpus, tolerance):
    rows, tasks = corpus
    for r in rows[::3]:
        task = tasks[(r["domain"], r["problem"])]
        assert _fast(task, r["plan"], tolerance) == _general(task, r["plan"], tolerance), r["id"]


def test_batch_takes_the_fast_path_with_the_same_records(corpus, data_dir, monkeypatch):
    from veriplan.verify import temporal_fast

    rows, _tasks = corpus
    lines = [json.dumps({"id": r["id"], "domain": str(data_dir / r["domain"]),
                         "problem": str(data_dir / r["problem"]), "plan": r["plan"]})
             for r in rows[:40]]
    fast = list(batch_lines(lines, window=100))
    calls = []
    monkeypatch.setattr(temporal_fast, "timed_record", lambda *a: calls.append(a))
    general = list(batch_lines(lines, window=100))
    assert len(calls) == 40 and fast == general


@pytest.fixture(scope="module")
def feature_task() -> Task:
    domain = parse_domain(SPEC["domain"])
    return Task(domain, parse_problem(SPEC["problem"], domain))


# Happenings the compiled parts cannot judge alone (the general path resumed there),
# timed literals, instantaneous steps, steps out of order and bad input.
EXTRA = [
    ["0.000: (move c1 x y) [4.000]", "0.000: (move c2 y z) [2.000]", "4.5: (load c1 y) [2]"],
    ["0.000: (move c1 x y) [4.000]", "0.000: (load c2 y) [2.000]", "4.5: (load c1 y) [2]"],
    ["0.000: (load c1 x) [2.000]", "0.000: (load c1 x) [2.000]"],
    ["0.000: (load c1 x) [2.000]", "0.0005: (close z) [1]"],
    ["0.000: (close z)", "0.000: (move c1 x y) [4.000]", "4.5: (load c1 y) [2.000]"],
    ["19.000: (move c2 y z) [2.000]", "0.000: (move c1 x y) [4.000]", "4.5: (load c1 y) [2]"],
    ["0.000: (move c1 x y) [4.000]", "4.5: (load c1 y) [2.000]", "20.000: (close y)"],
    ["0.000: (move c1 x y) [4.02]", "4.5: (load c1 y) [2.000]"],
    ["0.000: (move c1 x y)", "4.5: (load c1 y) [2.000]"],
    ["0.000: (move c1 x y) [-4]", "nan: (load c1 y) [2.000]"],
    ["0.000: (move c1 x w) [4.000]"],
    ["0.000: (load c1 x) [2.000]", "2.000: (load c1 x) [0.5]", "(load c1 x)"],
    [],
]


@pytest.mark.parametrize("plan", [p["plan"] for p in SPEC["plans"]] + EXTRA)
def test_feature_and_bad_plans_get_the_general_path_s_record(feature_task, plan):
    text = "\n".join(plan) + "\n"
    fast = _fast(feature_task, text)
    if fast is not None:
        assert fast == _general(feature_task, text)


def test_most_of_those_take_the_fast_path(feature_task):
    plans = [p["plan"] for p in SPEC["plans"]] + EXTRA
    taken = [_fast(feature_task, "\n".join(p) + "\n") for p in plans]
    assert sum(t is not None for t in taken) >= len(plans) - 4
    assert {t[0] for t in taken if t is not None} == {True, False}
