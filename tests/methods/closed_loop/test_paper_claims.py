"""``veriplan paper closed-loop`` (issue 48): the controlled stand-ins' error rates
follow from Table 1's rates alone, a quick controlled run has every claim with a
verdict that follows from its numbers (recounted here from the store), a second
run resumes, and a model that stands in for no paper model is judged against
each of the three."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec
from veriplan.cli import main
from veriplan.methods.closed_loop import calibration as cal
from veriplan.methods.closed_loop import paper as cl
from veriplan.papers.measure import Unit
from veriplan.papers.protocol import RunRequest, make_report


def rule(claim: dict, measured: dict | None) -> str:
    """The verdict rule, written again from its definition."""
    if measured is None or measured["value"] is None or measured["interval"] is None \
            or measured["n"] == 0:
        return "not measurable"
    lo, hi = measured["interval"]
    if claim["comparison"] == "within":
        return "holds" if lo - 1e-9 <= claim["paper_value"] <= hi + 1e-9 else "does not hold"
    if claim["comparison"] == "overlaps":
        low, high = claim["paper_range"]
        return "holds" if low <= hi + 1e-9 and high >= lo - 1e-9 else "does not hold"
    if claim["comparison"] == "below":
        return "holds" if hi < claim["threshold"] else "does not hold"
    return "holds" if lo > claim["threshold"] else "does not hold"


def test_the_stand_ins_error_rates_come_from_table_1_and_the_reference_lengths(
        data_dir: Path) -> None:
    assert cl.reference_lengths(data_dir) == cal.REFERENCE_LENGTHS
    rates = {(s.paper_model, s.baseline.split()[0]): s.rate for s in cal.CALIBRATION}
    assert rates == {(m, shot): cl.BASELINES[m][shot] for m, shot in rates}
    sweep = tomllib.loads(cl.SWEEP.read_text())
    assert [m["model"] for m in sweep["models"]] == [s.model for s in cal.CALIBRATION]
    for s in cal.CALIBRATION:
        # p makes a plan of the reference's length error-free as often as the baseline
        assert abs(cal.error_free(cal.error_rate(s.rate)) - s.rate) < 1e-9
        assert abs(s.p - cal.error_rate(s.rate)) <= 0.0005
    assert cal.stand_in("plan:p=0.2,seed=0") is None


def _unit(method: str, **settings: object) -> Unit:
    return Unit(SimpleNamespace(method=method), settings, {}, Path("."))  # type: ignore[arg-type]


def test_the_arms() -> None:
    assert cl.arm_of(_unit("closed-loop", max_attempts=2)) is cl.Arm.FULL
    assert cl.arm_of(_unit("closed-loop")) is cl.Arm.FULL
    assert cl.arm_of(_unit("closed-loop", max_attempts=2, ablation="shallow_constraints")) \
        is cl.Arm.WO_DEEP
    assert cl.arm_of(_unit("closed-loop", max_attempts=4)) is None  # not the paper's K
    assert cl.arm_of(_unit("direct", prompt="pddl")) is cl.Arm.DIRECT
    assert cl.arm_of(_unit("drip")) is None


def _solved(store: Path) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(model, arm) -> (model-solved, units, fallback-solved), counted from the
    store's records."""
    s = RunStore(store, create=False)
    try:
        out: dict[tuple[str, str], list[int]] = {}
        for r in s.records():
            config = json.loads(r.config)
            arm = "direct" if r.method == "direct" else config.get("ablation", "none")
            if config.get("fallback", "none") != "none":
                arm += "+fallback"
            k = out.setdefault((r.model, arm), [0, 0, 0])
            k[0] += bool(r.verified) and r.solved_by in (None, "llm")
            k[1] += 1
            k[2] += bool(r.verified) and (r.solved_by or "").startswith("fallback:")
        return {key: (v[0], v[1], v[2]) for key, v in out.items()}
    finally:
        s.close()


def test_a_quick_controlled_run(tmp_path: Path, data_dir: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "cl"
    argv = ["paper", "closed-loop", "--quick", "--backend", "controlled-plan", "--store",
            str(store), "--no-cache", "--data-dir", str(data_dir), "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    (paper,) = doc["papers"]
    claims = {c["id"]: c for c in paper["claims"]}
    assert paper["name"] == "closed-loop" and len(claims) == len(paper["claims"]) > 40
    assert {r["claim"] for r in paper["results"]} == set(claims)
    counts = _solved(store)
    n = cl.QUICK_LIMIT
    assert sum(v[1] for v in counts.values()) == cl.ARMS * n * len(cal.CALIBRATION)
    verdicts = {}
    for r in paper["results"]:
        c, m = claims[r["claim"]], r["measured"]
        assert c["paper_number"] and c["setting"] and c["source"] and r["reason"]
        assert r["verdict"] == rule(c, m), r
        verdicts[r["claim"]] = r["verdict"]
        if m is not None:
            assert m["model_kind"] == "controlled" and m["command"]
    for s in cal.CALIBRATION:
        slug = cl.slug(s.paper_model)
        # once without the fallback, once with it (its plans apart, never in the rate)
        plain, with_fb = [r for r in paper["results"] if r["claim"] == f"T1.full.{slug}"]
        k, units, _ = counts[(s.model, "none")]
        assert plain["measured"]["n"] == units == n
        assert plain["measured"]["value"] == pytest.approx(k / n)
        assert plain["measured"]["model"] == s.model
        assert not plain["measured"]["fallback_solved"]
        k_model, _, k_fb = counts[(s.model, "none+fallback")]
        assert k_model == k  # the model's part is the loop's without the fallback
        assert with_fb["measured"]["value"] == pytest.approx(k / n)
        assert with_fb["measured"]["fallback_solved"] == k_fb > 0
        drop = next(r for r in paper["results"] if r["claim"] == f"T2.wo_repair.size.{slug}")
        k_rr = counts[(s.model, "random_regeneration")][0]
        assert drop["measured"]["value"] == pytest.approx((k - k_rr) / n)
        # the controlled model never reads C: w/o Deep Constraints cannot be measured
        assert verdicts[f"T2.wo_deep.{slug}"] == "not measurable"
        assert counts[(s.model, "shallow_constraints")] == counts[(s.model, "none")]
    assert verdicts["C.temporal_robustness"] == "not measurable"
    assert "S5.1.convergence" in verdicts and verdicts["S5.1.convergence"] != "not measurable"
    # a second run resumes: nothing runs again
    assert main(argv) == 0
    assert "0 unit(s) run" in capsys.readouterr().err


def test_a_model_standing_in_for_none_is_judged_against_each_paper_model(
        tmp_path: Path, data_dir: Path) -> None:
    spec = BackendSpec.of("controlled-plan", "plan:p=0.2,seed=0")
    request = RunRequest((spec,), quick=True, data_root=data_dir)
    summary = cl.PAPER.run(request, tmp_path)
    assert summary.done == cl.ARMS * cl.QUICK_LIMIT
    report = make_report(cl.PAPER, [tmp_path])
    full = [r for r in report.results if r.claim.id.startswith("T1.full.")]
    assert [r.claim.id for r in full] == [f"T1.full.{cl.slug(m)}" for m in cl.MODELS
                                          for _ in ("plain", "with the fallback")]
    assert len({r.measured.value for r in full if r.measured}) == 1
    assert all(r.measured and r.measured.model == spec.model for r in full)
    conv = next(r for r in report.results if r.claim.id == "S5.1.convergence")
    assert conv.measured is None  # one model: nothing converges


def test_the_authors_fallback_finds_every_plan_within_its_depth(data_dir: Path) -> None:
    """Breadth-first to depth 6, as the authors' code: Mystery instance-11's shortest
    plan has 6 steps (an iterative-deepening search sharing one visited set missed it)."""
    from veriplan.methods.closed_loop.config import Config
    from veriplan.methods.closed_loop.method import _fallback
    from veriplan.pddl.task import load_task
    from veriplan.verify import validate_plan

    d = data_dir / "planbench" / "instances" / "blocksworld" / "mystery"
    task = load_task(d / "generated_domain.pddl", d / "generated_basic" / "instance-11.pddl")
    plan = _fallback(task, Config(fallback="bfs"))
    assert plan is not None and len(plan) == 6 and validate_plan(task, plan).valid
    assert _fallback(task, Config(fallback="bfs", fallback_depth=5)) is None


def test_the_report_keeps_the_fallback_arm_apart() -> None:
    from veriplan.methods.closed_loop.report import arm_of

    def rec(**config: object) -> SimpleNamespace:
        return SimpleNamespace(method="closed-loop", config=json.dumps(config))

    assert arm_of(rec(max_attempts=2)) == "closed-loop K=2"  # type: ignore[arg-type]
    assert arm_of(rec(max_attempts=2, fallback="bfs")) == \
        "closed-loop K=2 fallback=bfs"  # type: ignore[arg-type]


def test_the_protocol_sizes() -> None:
    full = cl.PAPER.plans(RunRequest((BackendSpec.of("controlled-plan"),)))
    assert [p.limit for p in full] == [None, None]  # the paper's 600
    assert [b.model for b in full[0].backends] == [s.model for s in cal.CALIBRATION]
    assert full[0].datasets == [cal.DATASET] and set(full[0].methods) == {"closed-loop",
                                                                          "direct"}
    quick = cl.PAPER.plans(RunRequest((BackendSpec.of("openai", "m"),), quick=True))
    assert [p.limit for p in quick] == [cl.QUICK_LIMIT] * 2
    assert [b.model for p in quick for b in p.backends] == ["m", "m"]
    assert [p.limit for p in cl.PAPER.plans(RunRequest((BackendSpec.of("controlled-plan"),),
                                                       limit=7))] == [7, 7]
