"""The controlled SQ-BCP model reads hidden-fact PDDL from the sweep's data
directory (``--data-dir``), not only from ``VERIPLAN_DATA`` (issue 46, item 7:
every unit erred with "no data directory" unless the variable was set)."""

from __future__ import annotations

from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan


def test_bench_data_dir_reaches_the_controlled_model(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("VERIPLAN_DATA", raising=False)
    spec = BackendSpec.of("controlled", "sqbcp:p_hidden=0.0,acc=0.5,seed=0")
    plan = SweepPlan(["sqbcp"], ["sqbcp_pddl_hidden"], [spec], [{"k": 1}], [0], 1)
    progress = run_sweep(plan, tmp_path / "runs", data_root=data_dir, stop_after=0)
    reasons = [r.error for r in RunStore(tmp_path / "runs").records() if r.status == "error"]
    assert progress.errors == 0, reasons
    assert progress.done == 1
