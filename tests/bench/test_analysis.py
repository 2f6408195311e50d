"""Signal analyses on hand-made records with known answers."""

from __future__ import annotations

import json
import math

import pytest

from veriplan.bench import analysis as A
from veriplan.bench.store import UnitRecord


def rec(signals, verified=False, solved_by=None, seconds=1.0, status="done") -> UnitRecord:
    return UnitRecord("id", "m", "d", "i", "b", "x", "{}", 0, status, verified, solved_by, 1,
                      1, 0.0, seconds, None, None, json.dumps({"signals": signals}), "v", "dv",
                      0.0)


def sig(attempt, failed=None, steps=3, action=None, missing=(), failure=(), ok=False, **data):
    return {"attempt": attempt, "failed_step": failed, "steps": steps, "action": action,
            "missing": list(missing), "failure": list(failure), "verified": ok, "data": data}


RECORDS = [
    rec([sig(1, failed=1, action="a", missing=["p"], failure=["precondition"]),
         sig(2, ok=True)], verified=True, solved_by="llm", seconds=2.0),
    rec([sig(1, failed=2, action="b", missing=["q"], failure=["precondition"]),
         sig(2, failed=None, steps=3, failure=["goal"])], seconds=4.0),
    rec([sig(1, steps=0, failure=["translation"])], verified=True, solved_by="fallback:bfs",
        seconds=6.0),
]


def test_runtime_statistics():
    rt = A.runtime(RECORDS)
    assert rt.p50 == 4.0 and rt.p90 == pytest.approx(5.6) and rt.trimmed_mean == 4.0
    assert A.trimmed_mean([1, 2, 3, 4, 100], trim=0.2) == 3.0


def test_retry_benefit_counts_model_solutions_only():
    curve, mean_attempts = A.retry_benefit(RECORDS)
    assert curve == [0.0, pytest.approx(1 / 3)]
    assert mean_attempts == pytest.approx(5 / 3)


def test_hazard():
    h = A.hazard(RECORDS)
    # Four attempted plans reach step 1 (one fails there), three reach step 2 (one
    # fails there), two reach step 3 (none fails).
    assert h == {1: 0.25, 2: pytest.approx(1 / 3), 3: 0.0}


def test_failure_composition():
    assert A.failure_composition(RECORDS) == {"goal": 1, "translation": 1}


def test_npmi():
    pairs = A.npmi(RECORDS)
    assert {(a, p) for a, p, _, _ in pairs} == {("a", "p"), ("b", "q")}
    assert all(math.isclose(v, 1.0) for _, _, v, _ in pairs)


def test_npmi_positive_and_negative_pairs():
    """Five failure events (the values are worked out by hand in
    tests/bench/test_stats.py::test_npmi_pairs_by_hand)."""
    records = [
        rec([sig(1, failed=2, action="stack", missing=["holding"]),
             sig(2, failed=3, action="stack", missing=["holding"])]),
        rec([sig(1, failed=4, action="stack", missing=["clear"]),
             sig(2, failed=1, action="pick-up", missing=["clear"])]),
        rec([sig(1, failed=1, action="pick-up", missing=["handempty"]), sig(2, ok=True)],
            verified=True, solved_by="llm"),
    ]
    pos = [(a, p, round(v, 4), c) for a, p, v, c in A.npmi(records)]
    assert pos == [("pick-up", "handempty", 0.5693, 1), ("stack", "holding", 0.5575, 2),
                   ("pick-up", "clear", 0.1386, 1)]
    neg = [(a, p, round(v, 4), c) for a, p, v, c in A.npmi_negative(records)]
    assert neg == [("stack", "clear", -0.1133, 1)]
    assert A.npmi(records, top=1)[0][:2] == ("pick-up", "handempty")


def stages(translate=True, cc=True, sim=True, val=True):
    return {"stages": {"translate": translate, "cc": cc, "sim": sim, "val": val}}


def test_failure_overlap_shows_every_region():
    """Per unsolved unit, the stages that rejected any attempt: SIM and VAL are
    separate verdicts, so sim+val appears (SIM rejected one attempt, VAL the
    next), as does every other region of translate, sim and val."""
    runs = {
        "translate": [stages(translate=False, val=True)],
        "sim": [stages(sim=False, val=None)],
        "val": [stages(val=False)],
        "translate+sim": [stages(translate=False, sim=False, val=None)],
        "translate+val": [stages(translate=False, val=False)],
        "sim+val": [stages(sim=False, val=None), stages(val=False)],
        "translate+sim+val": [stages(translate=False, sim=False, val=None), stages(val=False)],
        "cc": [stages(cc=False, sim=None, val=None)],
    }
    records = [rec([sig(k + 1, **d) for k, d in enumerate(ds)]) for ds in runs.values()]
    records.append(rec([sig(1, **stages(sim=False, val=None)), sig(2, ok=True, **stages())],
                       verified=True, solved_by="llm"))  # solved: not a failure
    overlap = A.failure_overlap(records)
    assert overlap == {region: 1 for region in runs}
    # Methods that record no stages: from the failure kinds.
    assert A.failure_overlap(RECORDS) == {"translate": 1, "sim+val": 1}


def test_distributions_split_by_success_and_failure():
    records = [rec([sig(1, failed=2, actions=["unstack", "pick-up"],
                        predicates=["clear", "handempty", "on"]),
                    sig(2, ok=True, actions=["unstack", "put-down"],
                        predicates=["clear", "handempty", "holding", "on"])],
                   verified=True, solved_by="llm"),
               rec([sig(1, failed=2, actions=["pick-up", "stack"], predicates=["clear"]),
                    sig(2, failed=1, actions=["stack"], predicates=["holding"])])]
    assert A.distribution(records, "actions") == {
        "success": {"put-down": 1, "unstack": 1},
        "failure": {"pick-up": 2, "stack": 2, "unstack": 1}}
    assert A.distribution(records, "predicates")["failure"] == {
        "clear": 2, "handempty": 1, "holding": 1, "on": 1}
    assert A.step_distribution(records) == {1: 1, 2: 2}


def test_hazard_skips_plans_no_stage_executed():
    """A plan the static screen rejected was not executed: it tells the hazard
    nothing unless what was rejected is the first step."""
    records = [rec([sig(1, steps=4, failure=["static"], simulated=False),
                    sig(2, failed=1, steps=4, failure=["precondition"], simulated=False),
                    sig(3, failed=2, steps=4, failure=["precondition"], simulated=True)])]
    assert A.hazard(records) == {1: 0.5, 2: 1.0}


def sized(size, verified, failure=None) -> UnitRecord:
    result = {"signals": [], "metrics": {"size": size}, "failure": failure}
    return UnitRecord("id", "drip", "d", "i", "b", "x", "{}", 0, "done", verified,
                      "llm" if verified else None, 1, 1, 0.0, 1.0, None, None,
                      json.dumps(result), "v", "dv", 0.0)


def test_accuracy_by_size_and_method_failure_categories():
    recs = [sized(6, True), sized(9, False, "goal_conflict"), sized(9, True),
            sized(9, False, "decomposition"), sized(12, False, "goal_conflict")]
    assert A.accuracy_by_size(recs) == {6: (1, 1), 9: (1, 3), 12: (0, 1)}
    assert A.failure_composition(recs) == {"decomposition": 1, "goal_conflict": 2}
    assert A.accuracy_by_size(RECORDS) == {}  # methods that report no size


def test_smallest_instances_dataset(data_dir):
    from veriplan.bench.datasets import load_dataset

    ds = load_dataset("blocksworld_hard_smallest20", data_dir)
    sizes = [len(i.task().objects) for i in ds.instances]
    everything = sorted(len(i.task().objects)
                        for i in load_dataset("blocksworld_hard", data_dir).instances)
    assert len(sizes) == 20 and sorted(sizes) == everything[:20]
    assert all(i.dataset == "blocksworld_hard_smallest20" for i in ds.instances)
