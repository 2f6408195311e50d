"""The ablation ladder of the paper's Table 2 keeps its rungs apart.
Its first rung is the CoT backbone *without* question generation (the next
rung, "+ Self-Ask", is what adds questions to the oracle), so SQ-BCP's
``ablation=cot`` never offers or asks questions, whereas the CoT baseline,
which the paper lets ask (Section 5.3), does."""

from __future__ import annotations

from tests.methods.sqbcp.test_baselines import ASK, PLAN_BUTTER, PLAN_MARG
from tests.methods.sqbcp.test_sqbcp import task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import get_method


def _rung(ablation: str, answers: list[str]):
    spec = get_method("sqbcp")
    backend = ScriptedBackend(answers)
    r = spec.solve(task(), LLM(backend), spec.make_config({"k": "0", "ablation": ablation}))
    return r, backend


def test_the_cot_rung_asks_nothing_and_offers_no_questions():
    """A model that asks when it may: the CoT rung shows it no way to ask and
    puts nothing to the oracle, so its questions are its whole answer (no plan);
    with the oracle it would have planned with margarine."""
    r, backend = _rung("cot", [ASK, PLAN_MARG])
    assert r.metrics["ablation"] == "cot"
    assert r.metrics["queries"] == 0 and r.llm_calls == 1 and not r.verified
    assert "Ask:" not in backend.requests[0].messages[-1].content
    r, _ = _rung("cot", [PLAN_BUTTER])
    assert r.metrics["violated"] and r.metrics["queries"] == 0  # butter, which the user lacks


def test_the_cot_baseline_itself_may_still_ask():
    """The paper's CoT baseline (Table 1) has the oracle; only the ladder's
    rung is without it."""
    spec = get_method("hidden-cot")
    backend = ScriptedBackend([ASK, PLAN_MARG])
    r = spec.solve(task(), LLM(backend), spec.make_config({"k": "0"}))
    assert r.metrics["queries"] == 2 and r.verified


def test_the_question_generation_rung_asks():
    answers = ["Are follow-up questions needed here: Yes.\nFollow up: Do you have butter?",
               "Are follow-up questions needed here: No.\n" + PLAN_MARG]
    r, _ = _rung("question_generation", answers)
    assert r.metrics["ablation"] == "question_generation"
    assert r.metrics["queries"] == 1 and r.verified
