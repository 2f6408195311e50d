"""The report on closed-loop runs: the headline and every comparison count
model-solved units (fallback solutions beside them, labelled), and the
paper's analyses (stage overlap, NPMI both ways, Figures 10-12) are there."""

from __future__ import annotations

import json

import pytest

from veriplan.bench.report import compare, write_report
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan

MODEL = BackendSpec.of("scripted", script="tests.bench.closed_loop_scripts:structural")


@pytest.fixture(scope="module")
def store(tmp_path_factory, data_dir):
    out = tmp_path_factory.mktemp("closed-loop-report")
    plan = SweepPlan(["closed-loop"], ["blocksworld_3"], [MODEL],
                     configs=[{}, {"fallback": "bfs"}], seeds=[0], limit=8)
    p = run_sweep(plan, out, data_root=data_dir)
    assert p.done == 16 and p.errors == 0
    return out


def test_headline_and_comparisons_count_model_solved_units(store):
    paths = write_report(store, compare_arms=("closed-loop:fallback=bfs", "closed-loop"))
    report = json.loads(paths["json"].read_text())
    records = list(RunStore(store).records())
    by_cfg = {g["config"]: g for g in report["groups"]}
    with_fb = by_cfg['{"fallback":"bfs"}']
    without = by_cfg["{}"]
    solved = sum(1 for r in records if r.verified and r.solved_by == "llm"
                 and json.loads(r.config) == {})
    assert 0 < solved < 8
    assert without["rate"] == with_fb["rate"] == solved / 8
    assert with_fb["verified"] == 8 and with_fb["rate_all"] == 1.0
    assert with_fb["fallback_solved"] == 8 - solved
    assert with_fb["rate_high"] < 1.0  # the Wilson interval is the model-solved one
    c = report["comparison"]
    # The fallback solves what the model did not: no difference in what the model did.
    assert c["a_model_solved"] == c["b_model_solved"] == solved
    assert c["z"] == 0 and c["cohens_h"] == 0 and c["p_value"] == 1.0
    assert c["paired"]["only_a"] == c["paired"]["only_b"] == 0
    assert c["a_rate_with_fallback"] == 1.0 and c["b_rate_with_fallback"] == solved / 8
    md = paths["markdown"].read_text()
    assert "model-solved rate (Wilson 95%) | rate incl. fallback (Wilson 95%)" in md
    assert "| rate incl. fallback | 100.0% |" in md
    assert compare(records, "closed-loop", "closed-loop:fallback=bfs")["z"] == 0


def test_the_papers_analyses_are_in_the_report(store):
    paths = write_report(store)
    report = json.loads(paths["json"].read_text())
    md = paths["markdown"].read_text()
    a = next(x for x in report["analyses"] if x["config"] == "{}")
    # Units never solved (prose first, then a plan one step short): translate and val.
    assert a["overlap"].get("translate+val", 0) >= 1
    assert set(a["overlap"]) <= {"translate", "cc", "sim", "val", "translate+val", "cc+val",
                                 "sim+val", "translate+cc+val", "translate+sim+val"}
    assert sum(a["actions"]["success"].values()) > 0 and sum(a["actions"]["failure"].values())
    assert a["predicates"]["success"] and a["steps"]
    for section in ("## Failure overlap by stage", "top negative pairs",
                    "## What simulation saw"):
        assert section in md
    for png in ("action_distribution.png", "predicate_distribution.png",
                "step_distribution.png"):
        assert (store / png).stat().st_size > 1000 and f"]({png})" in md
