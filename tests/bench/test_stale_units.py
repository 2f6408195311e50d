"""A resumed sweep never pools units run on an older version of the data."""

from __future__ import annotations

import sqlite3

import pytest

from tests.bench.test_harness import plan
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.errors import StaleUnitsError


def test_changed_dataset_refuses_then_reruns_stale(tmp_path, data_dir):
    small = plan(methods=["backprompt"], datasets=["blocksworld_3"], seeds=[0], limit=2)
    first = run_sweep(small, tmp_path, data_root=data_dir)
    assert first.done == 2
    conn = sqlite3.connect(tmp_path / "runs.sqlite")
    (uid,) = conn.execute("SELECT id FROM units LIMIT 1").fetchone()
    with conn:  # as if this unit ran on the data before it changed
        conn.execute("UPDATE units SET dataset_version = 'old' WHERE id = ?", (uid,))
    conn.close()
    with pytest.raises(StaleUnitsError, match=r"1 unit\(s\).*blocksworld_3.*--rerun-stale") as e:
        run_sweep(small, tmp_path, data_root=data_dir)
    assert list(e.value.units) == [uid] and e.value.units[uid].stored_version == "old"
    again = run_sweep(small, tmp_path, data_root=data_dir, rerun_stale=True)
    assert again.done == 1 and again.skipped == 1
    versions = RunStore(tmp_path).dataset_versions()
    assert len(versions) == 2 and "old" not in versions.values()
