"""The harness: resumable store, exactly-once units, reports that equal the
store, Ray executor, trace."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from veriplan.bench.report import compare, summarize, write_report
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan, load_matrix
from veriplan.cli import main

SOLVER = BackendSpec.of("scripted", script="tests.bench.scripts:solver")


def plan(**kw) -> SweepPlan:
    base = dict(methods=["backprompt", "direct"],
                datasets=["blocksworld_3", "mystery_blocksworld_3"], backends=[SOLVER],
                configs=[{"prompt": "pddl"}], seeds=[0, 1], limit=3)
    base.update(kw)
    return SweepPlan(**base)


def test_sweep_runs_each_unit_once_and_resumes(tmp_path, data_dir):
    p = run_sweep(plan(), tmp_path, data_root=data_dir, workers=2)
    assert p.done == 2 * 2 * 2 * 3 and p.skipped == 0 and p.errors == 0
    assert 0 < p.verified < p.done  # the script solves two thirds
    again = run_sweep(plan(), tmp_path, data_root=data_dir, workers=2)
    assert again.done == 0 and again.skipped == 24
    assert len(RunStore(tmp_path)) == 24


def test_report_numbers_equal_the_store(tmp_path, data_dir):
    run_sweep(plan(), tmp_path, data_root=data_dir)
    paths = write_report(tmp_path, compare_arms=("backprompt:prompt=pddl", "direct:prompt=pddl"))
    report = json.loads(paths["json"].read_text())
    conn = sqlite3.connect(tmp_path / "runs.sqlite")
    rows = conn.execute(
        "SELECT method, backend || ':' || model, dataset, config, COUNT(*), SUM(verified), "
        "SUM(status = 'error'), AVG(llm_calls), AVG(tokens), AVG(seconds), "
        "SUM(verified AND solved_by = 'llm') FROM units "
        "GROUP BY method, backend, model, dataset, config ORDER BY 1, 2, 3, 4").fetchall()
    groups = report["groups"]
    assert len(groups) == len(rows) == 4
    for g, r in zip(groups, rows):
        assert (g["method"], g["model"], g["dataset"], g["config"]) == r[:4]
        assert (g["units"], g["verified"], g["errors"]) == (r[4], r[5], r[6])
        assert g["rate"] == pytest.approx(r[10] / r[4])  # the headline: model-solved
        assert g["rate_all"] == pytest.approx(r[5] / r[4])
        assert g["mean_calls"] == pytest.approx(r[7]) and g["mean_tokens"] == pytest.approx(r[8])
        assert g["mean_seconds"] == pytest.approx(r[9])
        assert g["llm_solved"] == r[5] and g["fallback_solved"] == 0
    md = paths["markdown"].read_text()
    for g in groups:
        assert f"| {g['units']} | {g['verified']} | {g['llm_solved']} |" in md
    html = paths["html"].read_text()
    assert "<table>" in html and "data:image/png;base64," in html
    assert (tmp_path / "verified_rate.png").stat().st_size > 1000
    for section in ("## Runtime and retries", "## Step-wise hazard", "## Failure composition",
                    "## NPMI"):
        assert section in md
    for png in ("retry_benefit.png", "hazard.png", "failure_composition.png", "runtime.png"):
        assert (tmp_path / png).stat().st_size > 1000 and f"]({png})" in md
    assert len(report["analyses"]) == 4
    c = report["comparison"]
    assert c["a_units"] == c["b_units"] == 12 and c["paired"]["shared"] == 12


def test_failing_units_are_recorded_and_do_not_stop_the_sweep(tmp_path, data_dir):
    broken = BackendSpec.of("scripted", script="tests.bench.scripts:no_such_function")
    with pytest.raises(Exception, match="cannot import"):
        run_sweep(plan(backends=[broken]), tmp_path, data_root=data_dir)
    bad = SweepPlan(["backprompt"], ["blocksworld_3"],
                    [BackendSpec.of("replay", cassette=str(tmp_path / "empty.jsonl"))],
                    seeds=[0], limit=2)
    (tmp_path / "empty.jsonl").write_text("")
    p = run_sweep(bad, tmp_path / "run", data_root=data_dir)
    assert p.errors == 2
    rec = next(RunStore(tmp_path / "run").records())
    assert rec.status == "error" and rec.error_category == "backend:ReplayMissError"
    assert "Traceback" in rec.error


def test_matrix_file(tmp_path, data_dir):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text("""
methods = ["backprompt"]
datasets = ["blocksworld_3"]
seeds = [0]
limit = 2
[[models]]
backend = "scripted"
script = "tests.bench.scripts:solver"
[[configs]]
prompt = "pddl"
max_attempts = 1
""")
    p = load_matrix(sweep)
    assert p.backends == [SOLVER] and p.configs == [{"prompt": "pddl", "max_attempts": 1}]
    code = main(["bench", "--matrix", str(sweep), "--data-dir", str(data_dir), "--out",
                 str(tmp_path / "run"), "--no-cache"])
    assert code == 0
    # The same settings from the command line are the same units.
    code = main(["bench", "backprompt", "--dataset", "blocksworld_3", "--data-dir",
                 str(data_dir), "--backend", "scripted", "--script",
                 "tests.bench.scripts:solver", "--config", "prompt=pddl", "--config",
                 "max_attempts=1", "--limit", "2", "--out", str(tmp_path / "run"),
                 "--no-cache"])
    assert code == 0 and len(RunStore(tmp_path / "run")) == 2


def test_trace_and_report_cli(tmp_path, data_dir, capsys):
    run_sweep(plan(methods=["backprompt"], datasets=["blocksworld_3"], seeds=[0], limit=2),
              tmp_path, data_root=data_dir)
    rec = next(RunStore(tmp_path).records())
    assert main(["trace", rec.id[:8], "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"unit {rec.id}" in out and "--- call 1: plan ---" in out
    assert "=> verified" in out or "=> not valid: " in out
    assert main(["report", str(tmp_path)]) == 0
    assert "| backprompt |" in capsys.readouterr().out


KILLER = """
import sys
sys.path.insert(0, {repo!r})
from veriplan.bench.runner import run_sweep
from veriplan.bench.units import BackendSpec, SweepPlan
plan = SweepPlan(["backprompt"], ["blocksworld_3"],
                 [BackendSpec.of("scripted", script="tests.bench.scripts:slow")],
                 configs=[{{"prompt": "pddl", "max_attempts": 1}}], seeds=[0, 1, 2], limit=30)
run_sweep(plan, sys.argv[1], data_root=sys.argv[2], workers=3,
          on_done=lambda rec, p: print(p.done, flush=True))
"""


def test_kill_9_mid_sweep_then_resume_exactly_once(tmp_path, data_dir):
    script = KILLER.format(repo=str(REPO))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-c", script, str(out), str(data_dir)],
                            stdout=subprocess.PIPE, text=True, cwd=REPO)
    seen = 0
    for line in proc.stdout:
        seen = int(line)
        if seen >= 25:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    partial = len(RunStore(out))
    assert 25 <= partial < 90
    done = subprocess.run([sys.executable, "-c", script, str(out), str(data_dir)],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    ids = [r.id for r in RunStore(out).records()]
    assert len(ids) == 90 and len(set(ids)) == 90


def test_ray_executor_writes_back_to_the_store(tmp_path, data_dir):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    try:
        start = time.time()
        p = run_sweep(plan(methods=["backprompt"], seeds=[0]), tmp_path, data_root=data_dir,
                      workers=2, executor="ray")
        assert p.done == 6 and p.errors == 0 and time.time() - start < 300
        local = run_sweep(plan(methods=["backprompt"], seeds=[0]), tmp_path / "local",
                          data_root=data_dir)
        a = {r.id: r.verified for r in RunStore(tmp_path).records()}
        b = {r.id: r.verified for r in RunStore(tmp_path / "local").records()}
        assert a == b and local.done == 6
    finally:
        ray.shutdown()


def test_compare_needs_matching_units(tmp_path, data_dir):
    run_sweep(plan(methods=["backprompt"], seeds=[0], limit=1), tmp_path, data_root=data_dir)
    records = list(RunStore(tmp_path).records())
    assert [s.units for s in summarize(records)] == [1, 1]
    with pytest.raises(Exception, match="no units match"):
        compare(records, "backprompt:prompt=pddl", "direct:prompt=pddl")


def test_store_must_exist_for_reports(tmp_path):
    with pytest.raises(Exception, match="no run store"):
        write_report(Path(tmp_path) / "nothing")


def test_results_are_stored_compressed_and_an_older_store_is_compacted(tmp_path, data_dir):
    run_sweep(plan(), tmp_path, data_root=data_dir)
    path = tmp_path / "runs.sqlite"
    conn = sqlite3.connect(path)
    kinds = {k for (k,) in conn.execute("SELECT typeof(result) FROM units")}
    assert kinds == {"blob"}
    before = {r.id: r.result_dict() for r in RunStore(tmp_path).records()}
    assert all(d.get("transcript") for d in before.values())
    # a store from before compression: the same results as text, padded to show the saving
    for uid, d in before.items():
        d["padding"] = ["the same prompt again"] * 500
        conn.execute("UPDATE units SET result = ? WHERE id = ?", (json.dumps(d), uid))
    conn.commit()
    conn.execute("VACUUM")
    conn.close()

    def size() -> int:  # the file with everything in it (WAL checkpointed)
        with sqlite3.connect(path) as c:
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return path.stat().st_size

    texts = {r.id: r.result_dict() for r in RunStore(tmp_path).records()}
    assert texts == before  # read as it is
    old = size()
    store = RunStore(tmp_path)
    assert store.compact() == len(before) and store.compact() == 0
    store.close()
    assert {r.id: r.result_dict() for r in RunStore(tmp_path).records()} == before
    assert size() < old / 2
    conn = sqlite3.connect(path)
    assert {k for (k,) in conn.execute("SELECT typeof(result) FROM units")} == {"blob"}
