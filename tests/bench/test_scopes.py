"""Every stored "verified" names its scope; a store from before scopes were
typed is read with a migration (free text to the scope it meant) or a clear
error naming the unit and field, never relabelled; reports never pool or
compare results of different scopes."""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import replace

import pytest

from veriplan.bench.report import compare, summarize
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.core.verdict import Scope
from veriplan.errors import DataError, RecordError

OLD_SCHEMA = """CREATE TABLE units (
    id TEXT PRIMARY KEY, method TEXT NOT NULL, dataset TEXT NOT NULL, instance TEXT NOT NULL,
    backend TEXT NOT NULL, model TEXT NOT NULL, config TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL, verified INTEGER NOT NULL, solved_by TEXT,
    llm_calls INTEGER NOT NULL, tokens INTEGER NOT NULL, cost REAL, seconds REAL NOT NULL,
    error_category TEXT, error TEXT, result TEXT,
    veriplan_version TEXT NOT NULL, dataset_version TEXT NOT NULL, finished REAL NOT NULL)"""


def _old_store(path, scopes: dict[str, str]) -> None:
    conn = sqlite3.connect(path / "runs.sqlite")
    conn.execute(OLD_SCHEMA)
    for uid, text in scopes.items():
        blob = zlib.compress(json.dumps({"verified": True, "verified_scope": text}).encode())
        conn.execute("INSERT INTO units VALUES (?, 'sqbcp', 'd', ?, 'b', 'm', '{}', 0, 'done', "
                     "1, 'llm', 1, 1, 0, 1.0, NULL, NULL, ?, 'v', 'dv', 0)", (uid, uid, blob))
    conn.commit()
    conn.close()


def test_an_old_store_reads_with_its_scopes_migrated(tmp_path) -> None:
    _old_store(tmp_path, {"u1": "hidden-precondition task: no violation", "u2": "plan"})
    recs = {r.id: r for r in RunStore(tmp_path).records()}
    assert recs["u1"].scope is Scope.HIDDEN_TASK
    assert recs["u2"].scope is Scope.PLAN_ON_TASK


def test_an_unreadable_old_scope_names_the_unit_and_field(tmp_path) -> None:
    _old_store(tmp_path, {"u9": "verified by the model"})
    with pytest.raises(RecordError, match=r"unit u9 in .*runs.sqlite: field verified_scope"):
        list(RunStore(tmp_path).records())


def _rec(uid: str, method: str, scope: Scope | None, verified: bool = True) -> UnitRecord:
    return UnitRecord(uid, method, "d", uid, "b", "m", "{}", 0, "done" if scope else "error",
                      verified and scope is not None, "llm" if verified else None, 1, 1, 0.0,
                      1.0, None, None, json.dumps({"plan": []}), "v", "dv", 0.0, scope)


def test_the_scope_is_stored_in_its_own_column(tmp_path) -> None:
    store = RunStore(tmp_path)
    store.add(_rec("a", "drip", Scope.PLAN_ON_TASK))
    store.add(_rec("b", "drip", Scope.PLAN_IN_METHOD_SPACE, verified=False))
    got = {r.id: r.scope for r in RunStore(tmp_path).records()}
    assert got == {"a": Scope.PLAN_ON_TASK, "b": Scope.PLAN_IN_METHOD_SPACE}


def test_reports_keep_scopes_apart() -> None:
    recs = [_rec("a", "x", Scope.PLAN_ON_TASK), _rec("b", "x", Scope.HIDDEN_TASK),
            _rec("c", "x", Scope.HIDDEN_TASK, verified=False)]
    groups = {s.scope: (s.units, s.verified) for s in summarize(recs)}
    assert groups == {Scope.PLAN_ON_TASK: (1, 1), Scope.HIDDEN_TASK: (2, 1)}
    # an error unit (no check ran) goes with its method's one scope
    errs = [_rec("a", "y", Scope.HIDDEN_TASK), replace(_rec("e", "y", None), verified=False)]
    assert [(s.scope, s.units) for s in summarize(errs)] == [(Scope.HIDDEN_TASK, 2)]


def test_arms_of_different_scopes_are_not_compared() -> None:
    recs = [_rec("a", "x", Scope.PLAN_ON_TASK), _rec("b", "y", Scope.PLAN_IN_METHOD_SPACE)]
    with pytest.raises(DataError, match="different things"):
        compare(recs, "x", "y")


def test_a_plan_made_on_a_renamed_task_is_stored_as_valid_on_the_dataset_files(
        tmp_path, data_dir, capsys) -> None:
    """The obfuscated datasets give a method a renamed task; what the store
    holds (and calls verified) is the plan in the dataset's own names, which
    ``veriplan validate`` accepts on the dataset's own domain and problem."""
    from tests.methods import greedy_plugin
    from veriplan.bench.datasets import load_dataset
    from veriplan.bench.execute import execute
    from veriplan.bench.units import Unit
    from veriplan.cli import main
    from veriplan.llm import LLM, create_backend
    from veriplan.methods import METHODS, register_method

    register_method("greedy-renamed", greedy_plugin.solve, greedy_plugin.Config)
    try:
        inst = load_dataset("blocksworld_3_obfuscated", data_dir).instances[0]
        unit = Unit("greedy-renamed", inst.dataset, inst.id, "scripted", "s", "{}", 0)
        rec = execute(unit, inst, LLM(create_backend("scripted")), "v")
    finally:
        METHODS.unregister("greedy-renamed")
    result = rec.result_dict()
    renamed, plan = result["metrics"]["renamed_plan"], result["plan"]
    assert rec.verified and rec.scope is Scope.PLAN_ON_TASK and renamed != plan
    (tmp_path / "plan.txt").write_text("\n".join(plan) + "\n")
    code = main(["validate", "--domain", str(inst.domain_path), "--problem",
                 str(inst.problem_path), "--plan", str(tmp_path / "plan.txt")])
    assert code == 0, capsys.readouterr().out


@pytest.mark.parametrize("metrics, dataset, scope", [
    ({"action_space": "relaxed"}, "blocksworld_hard", Scope.PLAN_IN_METHOD_SPACE),
    ({"action_space": "standard"}, "blocksworld_hard", Scope.PLAN_ON_TASK),
    ({}, "blocksworld_3_obfuscated", Scope.PLAN_IN_METHOD_SPACE),
    ({}, "blocksworld_3", Scope.PLAN_ON_TASK)])
def test_an_old_plan_scope_migrates_to_what_it_was_checked_on(metrics, dataset, scope) -> None:
    """Before scopes were typed, "plan" meant "valid on the task the method was
    given": DRIP's tower-move space or a renamed copy are not the user's task."""
    from veriplan.bench.store import stored_scope

    result = json.dumps({"verified_scope": "plan", "metrics": metrics})
    assert stored_scope("u", result, dataset=dataset) is scope


def test_hidden_task_units_judged_before_typing_are_left_out_of_reports(tmp_path) -> None:
    from veriplan.bench.report import write_report

    _old_store(tmp_path, {"h1": "hidden-precondition task: no violation"})
    out = write_report(tmp_path)
    report = json.loads(out["json"].read_text())
    assert report["groups"] == []
    assert "unit h1" in report["left_out"][0] and "metrics.judgement" in report["left_out"][0]
    assert "Left out (1 units" in out["markdown"].read_text()


def test_plan_lengths_leave_fallback_plans_out() -> None:
    """A search fallback's plan is not the method's: comparing its length with
    the other arm's would credit the method with the fallback's plan."""
    def rec(uid: str, method: str, solved_by: str, n: int) -> UnitRecord:
        return replace(_rec(uid, method, Scope.PLAN_ON_TASK), instance="i" + uid[-1],
                       solved_by=solved_by, result=json.dumps({"plan": ["(a)"] * n}))

    recs = [rec("a1", "x", "llm", 2), rec("b1", "y", "llm", 4),
            rec("a2", "x", "fallback:bfs", 9), rec("b2", "y", "llm", 3)]
    lengths = compare(recs, "x", "y")["plan_lengths"]
    assert lengths["both_verified"] == 1
    assert (lengths["a_mean_length"], lengths["b_mean_length"]) == (2, 4)
