"""The hidden-precondition baselines: same prompt structure, same oracle,
plans judged on the true task."""

from __future__ import annotations

from tests.methods.sqbcp.test_sqbcp import task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import get_method
from veriplan.methods.baselines.hidden import Config, cot, direct, react, self_ask, tot

PLAN_BUTTER = "Plan:\n1. Mix flour and eggs into a batter\n2. Fry the batter in butter\n"
PLAN_MARG = "Plan:\n1. Mix flour and eggs into a batter\n2. Fry the batter in margarine\n"


def test_direct_plans_are_judged_on_the_true_task():
    r = direct(task(), LLM(ScriptedBackend([PLAN_BUTTER])), Config(k=0))
    assert not r.verified and r.failure == "violation" and r.metrics["violated"]
    assert "butter" in r.metrics["violations"][0] and r.metrics["rouge1"] > 50
    ok = direct(task(), LLM(ScriptedBackend([PLAN_MARG])), Config(k=0))
    assert ok.verified and ok.metrics["queries"] == 0
    none = direct(task(), LLM(ScriptedBackend(["I cannot help."])), Config(k=0))
    assert not none.verified and none.failure == "no_plan"


def test_the_prompt_shows_the_same_revealed_facts():
    a, b = ScriptedBackend([PLAN_MARG]), ScriptedBackend([PLAN_MARG])
    cot(task(), LLM(a), Config(k=2))
    from veriplan.methods.sqbcp import Config as SQ
    from veriplan.methods.sqbcp.method import request_for

    facts = request_for(task(), SQ(k=2)).facts
    shown = a.requests[0].messages[0].content
    assert all(f in shown for f in facts) and "reason step by step" in shown
    direct(task(), LLM(b), Config(k=2))
    assert all(f in b.requests[0].messages[0].content for f in facts)


def test_self_ask_questions_go_to_the_oracle():
    answers = ["Are follow-up questions needed here: Yes.\nFollow up: Do you have butter?",
               "Are follow-up questions needed here: No.\n" + PLAN_MARG]
    backend = ScriptedBackend(answers)
    r = self_ask(task(), LLM(backend), Config(k=0))
    assert r.verified and r.metrics["queries"] == 1 and r.metrics["questions"] == 1
    assert "Intermediate answer: No: it is not so that you have butter" in \
        backend.requests[1].messages[0].content
    assert "margarine" in backend.requests[1].messages[0].content


def test_react_asks_steps_and_finishes():
    turns = ["Thought: need fat.\nAction: Ask: do you have butter?",
             "Thought: ok.\nAction: Step: Mix flour and eggs into a batter",
             "Thought: fry.\nAction: Step: Fry the batter in margarine",
             "Thought: done.\nAction: Finish"]
    r = react(task(), LLM(ScriptedBackend(turns)), Config(k=0))
    assert r.verified and r.plan[-1] == "Fry the batter in margarine"
    assert r.metrics["queries"] == 1 and r.metrics["turns"] == 3


def test_tot_branches_then_votes():
    backend = ScriptedBackend([PLAN_BUTTER, PLAN_MARG, PLAN_BUTTER, "Reasons.\nBest: 2"])
    r = tot(task(), LLM(backend), Config(k=0, branches=3))
    assert r.verified and r.metrics["chosen"] == 2 and r.llm_calls == 4
    assert [q.sample_index for q in backend.requests[:3]] == [0, 1, 2]


def test_the_ablation_ladder_is_a_setting_of_sqbcp():
    spec = get_method("sqbcp")
    r = spec.solve(task(), LLM(ScriptedBackend([PLAN_BUTTER])),
                   spec.make_config({"k": "0", "ablation": "cot"}))
    assert r.method == "sqbcp" and r.metrics["ablation"] == "cot" and r.metrics["violated"]
    for name in ("hidden-direct", "hidden-cot", "hidden-tot", "hidden-react", "self-ask"):
        assert get_method(name).problem == "hidden"
