"""``veriplan paper NAME --quick --backend controlled`` for SQ-BCP and DRIP (the
controlled models: seeded, a few seconds), AEC over copies of its committed
controlled stores (its quick run takes minutes: ScienceWorld episodes), and the
paper registry: every row's verdict follows from its numbers by the rule, the
document has the schema's shape, a second run resumes, a paper whose module is
missing is "not yet available"."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tests.cli.test_json_cli import check_document
from tests.conftest import REPO
from veriplan.cli import main

RESULTS = REPO / "results"


def expected(claim: dict, measured: dict | None) -> str:
    """The verdict the rule gives, computed again here from the document's numbers."""
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
        return "holds" if hi < claim["threshold"] - 1e-12 else "does not hold"
    return "holds" if lo > claim["threshold"] + 1e-12 else "does not hold"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = main([*argv, "--json"])
    out = capsys.readouterr()
    return code, check_document(out.out, "paper"), out.err


def _check(doc: dict, name: str) -> dict[str, list[dict]]:
    """Every claim once at least, every verdict by the rule; rows by verdict."""
    (paper,) = doc["papers"]
    assert paper["name"] == name and paper["available"] and paper["quick"]
    claims = {c["id"]: c for c in paper["claims"]}
    assert len(claims) == len(paper["claims"]) > 10
    assert {r["claim"] for r in paper["results"]} == set(claims)
    by: dict[str, list[dict]] = {"holds": [], "does not hold": [], "not measurable": []}
    for r in paper["results"]:
        c = claims[r["claim"]]
        assert c["paper_number"] and c["setting"] and c["source"], c
        assert r["verdict"] == expected(c, r["measured"]), r
        assert r["reason"]
        if r["measured"] is not None:
            m = r["measured"]
            assert m["command"] and m["model_kind"]
            assert m["fallback_solved"] in (None, 0)  # no fallback in these methods
        by[r["verdict"]].append(r)
    return by


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory, data_dir: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("papers")
    return {name: root / name for name in ("sqbcp", "drip")}


@pytest.mark.parametrize("name", ["sqbcp", "drip"])
def test_a_quick_controlled_run(name: str, quick_runs: dict[str, Path], data_dir: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    store = quick_runs[name]
    argv = ["paper", name, "--quick", "--backend", "controlled", "--store", str(store),
            "--no-cache", "--data-dir", str(data_dir)]
    code, doc, err = _run(argv, capsys)
    assert code == 0, err
    by = _check(doc, name)
    measured = [r for v in ("holds", "does not hold") for r in by[v]]
    assert measured and all(r["measured"]["model_kind"] == "controlled" for r in measured)
    assert all(f"--store {store}" in r["measured"]["command"] for r in measured)
    assert by["does not hold"], "the rule gives DOES_NOT_HOLD on some claim of the run"
    # the store resumes: nothing is run again, and the same rows come back
    code, again, err = _run(argv, capsys)
    assert code == 0 and "0 unit(s) run" in err
    assert again["papers"][0]["results"] == doc["papers"][0]["results"]


def test_the_text_and_markdown_say_the_same(quick_runs: dict[str, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    store = quick_runs["drip"]
    if not (store / "runs.sqlite").is_file():
        pytest.skip("runs after test_a_quick_controlled_run")
    assert main(["paper", "drip", "--no-run", "--store", str(store), "--markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("## drip: ") and "| claim | source |" in md
    assert main(["paper", "drip", "--no-run", "--store", str(store)]) == 0
    text = capsys.readouterr().out
    assert "[does not hold] T2.failures" in text or "[holds] T2.failures" in text


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_aec_over_its_committed_controlled_stores(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    stores = [RESULTS / d for d in ("aec-controlled-scienceworld",
                                    "aec-controlled-scienceworld-iterations")]
    before = [_digest(s / "runs.sqlite") for s in stores]
    merged = tmp_path / "aec"
    shutil.copytree(stores[1], merged)  # one store: the iterations' units
    code, doc, err = _run(["paper", "aec", "--no-run", "--store", str(merged)], capsys)
    assert code == 0, err
    by = _check(doc, "aec")
    ids = {r["claim"] for v in ("holds", "does not hold") for r in by[v]}
    assert {"F3.iteration-0", "F3.refinement-raises-success"} <= ids
    assert [_digest(s / "runs.sqlite") for s in stores] == before  # read, never written


def test_aec_quick_is_the_stated_subset() -> None:
    from veriplan.bench.units import BackendSpec
    from veriplan.methods.aec.paper import PAPER, QUICK_SW, plans
    from veriplan.papers.protocol import RunRequest

    (plan,) = plans(RunRequest((BackendSpec("controlled-aec"),), quick=True))
    assert plan.datasets == ["scienceworld_unseen_short"] and plan.limit == QUICK_SW
    assert plan.configs_for("aec") == [{"tau": 0.2}, {"verification": False, "tau": 0.2}]
    assert plan.configs_for("aec-react") == [{}]
    assert f"first {QUICK_SW} short ScienceWorld" in PAPER.quick
    full = plans(RunRequest((BackendSpec("openai", "gpt-4"),)))
    assert [p.datasets for p in full] == [["household_eval"],
                                          ["scienceworld_seen", "scienceworld_unseen"]]
    assert all(p.limit is None for p in full)  # the paper's sizes


def test_a_registered_paper_without_its_module_is_not_yet_available(
        capsys: pytest.CaptureFixture[str]) -> None:
    from veriplan.papers import PAPERS, PaperNotAvailableError, get_paper, paper_names

    assert paper_names()[:5] == ["sqbcp", "autotos", "aec", "closed-loop", "drip"]
    PAPERS.register("ghost", "veriplan.methods.ghost.paper:PAPER")
    try:
        with pytest.raises(PaperNotAvailableError, match="ghost.*not yet available"):
            get_paper("ghost")
        assert main(["paper", "--list"]) == 0
        out = capsys.readouterr().out
        assert "ghost: not yet available" in out and "T1.RecipeNLG.below-self-ask" in out
        assert main(["paper", "ghost"]) == 2
        assert "not yet available" in capsys.readouterr().err
    finally:
        PAPERS.unregister("ghost")


def test_an_unknown_paper_names_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["paper", "nope", "--no-run"]) == 2
    assert "use one of sqbcp, autotos, aec, closed-loop, drip" in capsys.readouterr().err


def test_backbone_claims_need_several_user_models() -> None:
    """Table 3's "every backbone" claim: not measurable with one user model;
    measured (the least favourable model's difference) with two."""
    from veriplan.bench.store import UnitRecord
    from veriplan.methods.sqbcp.paper import PAPER
    from veriplan.papers.claims import Verdict
    from veriplan.papers.measure import Unit

    def unit(method: str, model: str, i: int, violated: bool) -> Unit:
        metrics = {"violated": violated, "no_plan": False, "judgement": {"verdict": "x"}}
        rec = UnitRecord(f"{method}{model}{i}", method, "sqbcp_recipes", str(i), "openai",
                         model, json.dumps({"k": 1}), 0, "done", not violated, "llm", 1, 1,
                         None, 0.1, None, None, None, "v", "d", 0.0)
        return Unit(rec, {"k": 1}, {"metrics": metrics}, Path("user-store"))

    def units(model: str, sq_bad: int, sa_bad: int) -> list[Unit]:
        return ([unit("sqbcp", model, i, i < sq_bad) for i in range(40)]
                + [unit("self-ask", model, i, i < sa_bad) for i in range(40)])

    cid = "T3.RecipeNLG.every-backbone-below-self-ask"

    def row(us: list[Unit]):
        (r,) = [r for r in PAPER.results_of(us) if r.claim.id == cid]
        return r

    one = row(units("gpt-4o", 2, 20))
    assert one.verdict is Verdict.NOT_MEASURABLE and "several real models" in one.reason
    two = row(units("gpt-4o", 2, 20) + units("qwen3-14b", 3, 25))
    assert two.verdict is Verdict.HOLDS and two.measured is not None
    assert two.measured.detail == "sqbcp 3/40 against self-ask 25/40 violating" or \
        two.measured.detail == "sqbcp 2/40 against self-ask 20/40 violating"
    worse = row(units("gpt-4o", 2, 20) + units("qwen3-14b", 10, 11))
    assert worse.verdict is Verdict.DOES_NOT_HOLD  # one model without the gain
    table3 = [r for r in PAPER.results_of(units("qwen3-14b", 3, 25))
              if r.claim.id == "T3.Qwen3-14B.RecipeNLG"]
    assert table3[0].verdict is Verdict.HOLDS and table3[0].measured.n == 40  # 7.5% ~ 5.2%
