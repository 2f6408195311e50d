"""load_runs: a run store as a pandas DataFrame, one typed row per unit."""

from __future__ import annotations

import json
import sys

import pytest

from tests.bench.test_import import planbench_file
from veriplan.bench import load_runs
from veriplan.bench.frame import COLUMNS, MissingExtraError
from veriplan.bench.imports_planbench import import_planbench
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.errors import DataError

SOLVER = BackendSpec.of("scripted", script="tests.bench.scripts:solver")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data_dir):
    """Our own sweep (two methods, two seeds, a setting) and a published run."""
    root = tmp_path_factory.mktemp("frame")
    out = root / "runs"
    run_sweep(SweepPlan(["backprompt", "direct"], ["blocksworld_3"], [SOLVER],
                        [{"prompt": "pddl"}], [0, 1], 3), out, data_root=data_dir)
    src = root / "published.json"
    planbench_file(data_dir, src)
    import_planbench(src, out, data_dir=data_dir)
    return out


def test_one_typed_row_per_unit(runs):
    df = load_runs(runs)
    records = list(RunStore(runs, create=False).records())
    assert len(df) == len(records) == 2 * 2 * 3 + 6
    assert list(df.columns[: len(COLUMNS)]) == list(COLUMNS)
    assert df["verified"].dtype == bool and str(df["cost"].dtype) == "Float64"
    assert {str(df[c].dtype) for c in ("seed", "calls", "tokens")} == {"int64"}
    by_id = {r.id: r for r in records}
    for row in df.itertuples(index=False):
        r = by_id[row.id]
        assert (row.method, row.dataset, row.instance, row.model, row.seed) == \
            (r.method, r.dataset, r.instance, r.model, r.seed)
        assert (row.verified, row.calls, row.tokens) == (r.verified, r.llm_calls, r.tokens)
        assert json.loads(row.settings) == json.loads(r.config)
    assert set(df["method"]) == {"backprompt", "direct", "published:planbench"}


def test_settings_and_metrics_are_flattened(runs):
    df = load_runs(runs)
    own = df[df["method"] != "published:planbench"]
    assert set(own["settings.prompt"]) == {"pddl"}
    pub = df[df["method"] == "published:planbench"]
    assert set(pub["settings.prompt_type"]) == {"oneshot"}
    assert own["settings.prompt_type"].isna().all()
    store = {r.id: r.result_dict()["metrics"] for r in RunStore(runs, create=False).records()
             if r.method == "published:planbench"}
    for _, row in pub.iterrows():
        m = store[row["id"]]
        assert row["metrics.published_verdict"] == m["published_verdict"]
        assert row["metrics.size"] == m["size"] and m["size"] > 0
    assert pub["metrics.agrees"].sum() == sum(m["agrees"] for m in store.values())


def test_failure_says_why_a_unit_is_not_model_solved(runs):
    df = load_runs(runs)
    solved = df["verified"] & (df["solved_by"] == "llm")
    assert df.loc[solved, "failure"].isna().all()
    assert df.loc[~solved, "failure"].notna().all()
    assert set(df.loc[~solved, "failure"]) <= {"precondition", "goal", "translation",
                                               "goal+translation", "precondition+translation"}


def test_bad_directory_and_missing_pandas(tmp_path, runs, monkeypatch):
    with pytest.raises(DataError, match="no run store"):
        load_runs(tmp_path)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(MissingExtraError, match=r"veriplan\[frames\]"):
        load_runs(runs)
