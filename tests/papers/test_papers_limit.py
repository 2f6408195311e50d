"""``veriplan paper NAME --limit N`` measures only the first N instances, for the
papers whose protocol sizes are their own (AutoToS: the evaluation instances a
run is measured on, a domain being one dataset instance; the closed loop: the
first N of its 600 problems), and every row's command says so. The controlled
models keep the runs to about a second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriplan.bench.units import BackendSpec
from veriplan.cli import main
from veriplan.papers.measure import read_units
from veriplan.papers.protocol import RunRequest

LIMIT = 2


def _run(name: str, store: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    argv = ["paper", name, "--quick", "--limit", str(LIMIT), "--backend", "controlled",
            "--store", str(store), "--no-cache", "--data-dir", str(data_dir), "--json"]
    assert main(argv) == 0
    (paper,) = json.loads(capsys.readouterr().out)["papers"]
    measured = [r["measured"] for r in paper["results"] if r["measured"] is not None]
    assert measured
    assert all(f"--limit {LIMIT}" in m["command"] for m in measured)
    return paper


def test_autotos_measures_each_run_on_the_first_n_instances(tmp_path: Path,
                                                           data_dir: Path) -> None:
    """The quick protocol's plan with ``--limit``, cut to one of its runs (each
    AutoToS run is a loop in the sandbox: the CLI's plumbing of ``--limit`` is the
    closed loop's test below), run by the paper's runner and read back."""
    from veriplan.methods.autotos.paper import PAPER, QUICK_LIMIT, plans
    from veriplan.papers.protocol import make_report, run_plans

    assert LIMIT < QUICK_LIMIT  # else the limit would not show
    request = RunRequest((BackendSpec.of("controlled-autotos"),), quick=True, limit=LIMIT,
                         data_root=data_dir)
    (plan,) = plans(request)
    assert [c.get("eval_limit") for c in plan.configs] == [LIMIT] * len(plan.configs)
    plan.configs, plan.seeds = plan.configs[:1], plan.seeds[:1]  # one run: w/ val, seed 0
    assert run_plans(PAPER, [plan], tmp_path, request).done == 1
    (unit,) = read_units([tmp_path])
    assert unit.settings.get("eval_limit") == LIMIT
    assert unit.result.get("instances") == LIMIT  # what the run was measured on
    row = next(r for r in make_report(PAPER, [tmp_path]).results
               if r.claim.id == "acc100.24game")
    assert row.measured is not None and f"--limit {LIMIT}" in row.measured.command
    assert f"evaluated on the first {LIMIT} instances" in row.measured.detail


def test_autotos_limit_sizes_the_full_protocol_too() -> None:
    from veriplan.methods.autotos.paper import plans

    spec = (BackendSpec.of("controlled-autotos"),)
    (full,) = plans(RunRequest(spec))
    assert all("eval_limit" not in c for c in full.configs)  # the whole evaluation sets
    (limited,) = plans(RunRequest(spec, limit=7))
    assert [c.get("eval_limit") for c in limited.configs] == [7] * len(limited.configs)
    assert limited.datasets == full.datasets and limited.seeds == full.seeds


def test_closed_loop_measures_the_first_n_problems(
        tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from veriplan.bench.datasets import load_dataset
    from veriplan.methods.closed_loop.calibration import CALIBRATION, DATASET
    from veriplan.methods.closed_loop.paper import ARMS

    paper = _run("closed-loop", tmp_path, data_dir, capsys)
    units = read_units([tmp_path])
    assert len(units) == ARMS * LIMIT * len(CALIBRATION)
    first = [i.id for i in load_dataset(DATASET, data_dir).instances[:LIMIT]]
    assert sorted({u.record.instance for u in units}) == sorted(first)
    full = [r["measured"] for r in paper["results"]
            if r["claim"].startswith("T1.full.") and r["measured"] is not None]
    assert len(full) == 2 * len(CALIBRATION) and all(m["n"] == LIMIT for m in full)
