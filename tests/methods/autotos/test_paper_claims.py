"""``veriplan paper autotos`` (issue 48): the paper's claims, the quick protocol
with the controlled writer (small, seeded, through the real loop and sandbox),
and every verdict following from its numbers by the one rule."""

from __future__ import annotations

import math

import pytest

from veriplan.bench.units import BackendSpec
from veriplan.methods.autotos.paper import PAPER, QUICK_SEEDS
from veriplan.papers import get_paper
from veriplan.papers.claims import Verdict, judge
from veriplan.papers.measure import read_units
from veriplan.papers.protocol import RunRequest, backends_for, make_report


def test_the_paper_is_registered_with_every_claim():
    assert get_paper("autotos") is PAPER
    ids = [c.id for c in PAPER.claims()]
    assert len(ids) == len(set(ids))
    for prefix in ("acc100.", "T1.range.", "T1.GPT-4o.", "F2.val.", "F2.completeness."):
        assert sum(i.startswith(prefix) for i in ids) == 5, prefix
    assert all(c.source and c.paper_number and c.setting for c in PAPER.claims())
    assert PAPER.controlled == "controlled-autotos"


@pytest.fixture(scope="module")
def quick(data_dir, tmp_path_factory):
    store = tmp_path_factory.mktemp("autotos-paper")
    request = RunRequest(backends_for(PAPER, (BackendSpec.of("controlled"),)), quick=True,
                         data_root=data_dir)
    summary = PAPER.run(request, store)
    return store, summary


def test_quick_runs_the_stated_subset(quick):
    store, summary = quick
    assert summary.total == 2 * len(QUICK_SEEDS) and summary.errors == 0
    units = read_units([store])
    assert {u.dataset for u in units} == {"autotos_24game"}
    assert {u.record.backend for u in units} == {"controlled-autotos"}
    assert sorted((u.record.seed, u.metrics["partial_check"]) for u in units) == \
        [(s, p) for s in QUICK_SEEDS for p in (False, True)]


def test_each_verdict_follows_from_the_numbers(quick):
    store, _ = quick
    report = make_report(PAPER, [store])
    assert {r.claim.id for r in report.results} == {c.id for c in PAPER.claims()}
    measured = [r for r in report.results if r.measured is not None]
    assert {r.claim.id.split(".")[0] for r in measured} >= {"acc100", "T1", "F2"}
    for r in report.results:
        again = judge(r.claim, r.measured, r.reason if r.measured is None else "")
        assert again.verdict == r.verdict, r.claim.id
        if r.measured is None:
            assert r.verdict is Verdict.NOT_MEASURABLE and r.reason
            continue
        m = r.measured
        assert m.model_kind.value == "controlled" and "veriplan paper autotos" in m.command
        assert m.n > 0 and m.interval is not None
        assert m.interval[0] - 1e-9 <= m.value <= m.interval[1] + 1e-9
    # the numbers themselves, recomputed from the units
    units = read_units([store])
    on = [u for u in units if u.metrics["partial_check"]]
    acc = next(r for r in measured if r.claim.id == "acc100.24game").measured
    ends = [u.metrics["accuracy"]["final"] for u in on]
    assert acc.value == sum(a == 1.0 for a in ends) / len(ends)
    calls = next(r for r in measured if r.claim.id == "T1.range.24game").measured
    assert math.isclose(calls.value, sum(sum(u.metrics["calls"].values()) for u in on)
                        / len(on))
    # a Table 1 cell of a named model needs that model
    cell = next(r for r in report.results if r.claim.id == "T1.GPT-4o.24game")
    assert cell.verdict is Verdict.NOT_MEASURABLE and "GPT-4o" in cell.reason
