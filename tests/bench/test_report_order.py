"""`veriplan report` is a function of the units in a store, not of the order the
store gives them in (a re-run unit moves its row to the end): the bootstrap
intervals, every float mean, the controlled AEC rows and the units listed as
left out come out the same for the same units in any order."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from veriplan.bench.report import write_report
from veriplan.bench.stats import bootstrap_mean_interval
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.core.verdict import Scope


def test_the_bootstrap_interval_is_a_function_of_the_values_not_their_order():
    values = [float(v) for v in (3, 90, 14, 7, 55, 21, 8, 130, 2, 41, 60, 5)]
    first = bootstrap_mean_interval(values)
    rng = random.Random(1)
    for _ in range(5):
        shuffled = values[:]
        rng.shuffle(shuffled)
        assert bootstrap_mean_interval(shuffled) == first
    assert bootstrap_mean_interval(values[::-1]) == first
    lo, hi = first
    assert lo < sum(values) / len(values) < hi  # an interval around the mean still


def test_a_nan_among_the_values_gives_no_interval_in_any_order():
    for values in ([1.0, float("nan"), 2.0], [float("nan"), 2.0, 1.0]):
        lo, hi = bootstrap_mean_interval(values)
        assert lo != lo and hi != hi  # nan


def _uid(key: str) -> str:
    # ids like the harness's (a hash of what the unit is): their order is neither
    # the order the units are built in nor the order they are stored in
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _unit(key: str, method: str, *, tokens: int, seconds: float, verified: bool,
          result: dict, scope: Scope, backend: str = "scripted", model: str = "s",
          dataset: str = "blocks", instance: str = "") -> UnitRecord:
    return UnitRecord(
        id=_uid(key), method=method, dataset=dataset, instance=instance or key,
        backend=backend, model=model, config="{}", seed=0, status="done",
        verified=verified, solved_by="llm" if verified else None, llm_calls=1 + tokens % 3,
        tokens=tokens, cost=None, seconds=seconds, error_category=None, error=None,
        result=json.dumps(result), veriplan_version="0", dataset_version="0", finished=0.0,
        scope=scope)


def _units() -> list[UnitRecord]:
    out = []
    # plain planning units: the main table's tokens (bootstrap) and mean seconds
    for i in range(12):
        out.append(_unit(f"plan{i}", "direct", tokens=50 + 37 * i % 101,
                         seconds=0.1 * (i + 1) + 1 / 3, verified=i % 3 == 0,
                         result={"plan": ["(a)"] * (i % 4)}, scope=Scope.PLAN_ON_TASK))
    # hidden-task units stored before verdicts were typed: listed as left out
    for i in range(3):
        out.append(_unit(f"old{i}", "sqbcp", tokens=10, seconds=1.0, verified=True,
                         result={"metrics": {"violated": False, "no_plan": False}},
                         scope=Scope.HIDDEN_TASK, dataset="sqbcp_recipes"))
    # controlled AEC episodes: queries per episode (bootstrap), AEC minus Query-Only
    for method, queries in (("aec", (1, 4, 0, 2, 7, 3, 1, 5)), ("query-only", (4, 4, 2, 6, 7,
                                                                                3, 5, 5))):
        for j, q in enumerate(queries):
            metrics = {"env": "household", "won": True, "queries": q,
                       "totals": {"queries": q}, "replanning_rounds": j % 2,
                       "env_steps": 5 + q, "task_type": "pick_and_place", "split": "eval"}
            out.append(_unit(f"{method}{j}", method, tokens=0, seconds=0.2 * j + 0.1,
                             verified=True, result={"metrics": metrics},
                             scope=Scope.ENV_EPISODE, backend="controlled-aec",
                             model="aec:p=0.4,g=0.2,acc=0.9,conf=calibrated,seed=0",
                             dataset="household_eval",
                             instance=f"eval/pick_and_place/{j}"))
    return out


def _report(directory: Path, units: list[UnitRecord]) -> tuple[str, dict]:
    store = RunStore(directory)
    for n, u in enumerate(units):  # the store gives its units in the order they finished
        store.add(replace(u, finished=float(n)))
    store.close()
    paths = write_report(directory)
    md = paths["markdown"].read_text().replace(str(directory), "DIR")
    return md, json.loads(paths["json"].read_text())


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> list[tuple[str, dict]]:
    units = _units()
    rng = random.Random(7)
    shuffled = units[:]
    rng.shuffle(shuffled)
    orders = [units, units[::-1], shuffled]
    return [_report(tmp_path_factory.mktemp(f"order{k}"), order)
            for k, order in enumerate(orders)]


def test_the_same_units_in_any_order_give_the_same_report_md(reports):
    first, _ = reports[0]
    assert "mean tokens (bootstrap 95%)" in first
    assert "Controlled-model results: AEC" in first and "left out" in first.lower()
    for md, _ in reports[1:]:
        assert md == first


def test_the_same_units_in_any_order_give_the_same_report_json(reports):
    _, first = reports[0]
    assert [g["method"] for g in first["groups"]][:1] and first["left_out"]
    controlled = first["aec"]["controlled"]
    assert controlled["rows"][0]["queries_ci"] and controlled["query_pairs"]
    for _, data in reports[1:]:
        assert data == first
