"""Issue 33: Direct, CoT and ToT may query the oracle, as the paper lets every
baseline (Section 5.3); ``oracle=False`` keeps the prompt-only behaviour."""

from __future__ import annotations

from tests.methods.sqbcp.test_baselines import PLAN_BUTTER, PLAN_MARG
from tests.methods.sqbcp.test_sqbcp import task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.baselines.hidden import Config, cot, direct, questions, tot

ASK = "Ask: do you have butter?\nAsk: do you have eggs?"


def test_direct_and_cot_ask_the_oracle_then_plan_with_the_answers():
    for fn in (direct, cot):
        backend = ScriptedBackend([ASK, PLAN_MARG])
        r = fn(task(), LLM(backend), Config(k=0))
        assert r.verified and r.metrics["queries"] == 2, fn
        first, second = (q.messages[-1].content for q in backend.requests)
        assert 'write only lines of the form "Ask:' in first
        assert "Answers you were given:" in second and "margarine" in second
        assert "Ask:" not in second.split("Answers you were given:")[1].split("\n", 2)[-1]


def test_without_the_oracle_the_prompt_offers_no_questions():
    backend = ScriptedBackend([PLAN_BUTTER])
    r = direct(task(), LLM(backend), Config(k=0, oracle=False))
    assert r.metrics["queries"] == 0 and not r.verified
    assert "Ask:" not in backend.requests[0].messages[-1].content


def test_a_plan_at_once_asks_nothing():
    r = cot(task(), LLM(ScriptedBackend([PLAN_MARG])), Config(k=0))
    assert r.verified and r.metrics["queries"] == 0 and r.attempts == 1
    assert questions("Ask: x?\nPlan:\n1. y") == []


def test_tot_shares_one_round_of_questions():
    backend = ScriptedBackend([ASK, PLAN_MARG, PLAN_BUTTER, PLAN_MARG, "Best: 1"])
    r = tot(task(), LLM(backend), Config(k=0, branches=3))
    assert r.metrics["queries"] == 2 and r.metrics["branches"] == 3
    assert r.verified and r.plan[-1] == "Fry the batter in margarine"
    assert all("Answers you were given:" in q.messages[-1].content
               for q in backend.requests[1:4])
