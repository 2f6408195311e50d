"""The hidden-precondition baselines: same prompt structure, same oracle,
plans judged on the true task; Direct, CoT and ToT may query the oracle, as
the paper lets every baseline (Section 5.3), and ``oracle=False`` keeps the
prompt-only behaviour."""

from __future__ import annotations

from tests.methods.sqbcp.test_sqbcp import task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import get_method
from veriplan.methods.baselines.hidden import (
    Config,
    cot,
    direct,
    follow_up,
    questions,
    react,
    read_steps,
    self_ask,
    tot,
)

PLAN_BUTTER = "Plan:\n1. Mix flour and eggs into a batter\n2. Fry the batter in butter\n"
PLAN_MARG = "Plan:\n1. Mix flour and eggs into a batter\n2. Fry the batter in margarine\n"
ASK = "Ask: do you have butter?\nAsk: do you have eggs?"


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
    from veriplan.methods.sqbcp.request import request_for

    facts = request_for(task(), SQ(k=2)).facts
    shown = a.requests[0].messages[-1].content
    assert all(f in shown for f in facts) and "reason step by step" in shown
    direct(task(), LLM(b), Config(k=2))
    assert all(f in b.requests[0].messages[-1].content for f in facts)


def test_self_ask_questions_go_to_the_oracle():
    answers = ["Are follow-up questions needed here: Yes.\nFollow up: Do you have butter?",
               "Are follow-up questions needed here: No.\n" + PLAN_MARG]
    backend = ScriptedBackend(answers)
    r = self_ask(task(), LLM(backend), Config(k=0))
    assert r.verified and r.metrics["queries"] == 1 and r.metrics["questions"] == 1
    assert "Intermediate answer: No: it is not so that you have butter" in \
        backend.requests[1].messages[-1].content
    assert "margarine" in backend.requests[1].messages[-1].content


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


# ----- Self-Ask: which answers ask ----------------------------------------------------------
ECHO = ('Are follow-up questions needed here: Yes.\nFollow up: Do you have butter?\n'
        'When no more are needed, write "Are follow-up questions needed here: No." and then '
        '"Plan:" followed by numbered steps, one per line.\n\n' + PLAN_BUTTER)


def test_self_ask_asks_when_the_answer_echoes_the_instruction():
    """A small model copies the instruction line (which quotes "...needed here: No")
    after its follow-up question: the question still goes to the oracle."""
    backend = ScriptedBackend([ECHO, "Are follow-up questions needed here: No.\n" + PLAN_MARG])
    r = self_ask(task(), LLM(backend), Config(k=0))
    assert r.metrics["queries"] == 1 and r.metrics["questions"] == 1 and r.llm_calls == 2
    assert "Follow up: Do you have butter?\nIntermediate answer: No" in \
        backend.requests[1].messages[-1].content
    assert r.verified and r.plan[-1] == "Fry the batter in margarine"


def test_a_follow_up_counts_only_before_no_and_before_the_plan():
    assert follow_up(ECHO) == "Do you have butter?"
    assert follow_up("  **Follow-up:** Is there a frying pan?\nPlan:\n1. Fry") == \
        "Is there a frying pan?"
    assert follow_up("Are follow-up questions needed here: No.\nPlan:\n1. Mix\n"
                     "Follow up: Do you have butter?") is None
    assert follow_up("Plan:\n1. Mix flour\nFollow up: Do you have butter?") is None
    assert follow_up("**Are follow-up questions needed here:** no\nFollow up: a?") is None
    assert follow_up("Plan:\n1. Mix flour and eggs") is None
    assert follow_up("I wonder. Follow up: do you have eggs?") is None  # not line-anchored
    assert follow_up("Follow up:\nPlan:\n1. Mix flour") is None  # no question on its line


def test_self_ask_keeps_one_question_per_turn_and_its_cap():
    two = "Follow up: Do you have butter?\nFollow up: Do you have a blender?\n"
    backend = ScriptedBackend([two, two, two + PLAN_MARG])
    r = self_ask(task(), LLM(backend), Config(k=0, max_questions=2))
    assert r.metrics["questions"] == 2 and r.metrics["queries"] == 2 and r.llm_calls == 3
    assert r.plan == ["Mix flour and eggs into a batter", "Fry the batter in margarine"]


# ----- the plan reader ------------------------------------------------------------------------
MARKDOWN = """### What the task needs

- **Flour**: you have it
- **Butter**: not known

### Plan:

1. **Mix the dry ingredients**:
   - Whisk flour and salt in a bowl.
   - Stir in the eggs until smooth.

2. **Fry the pancakes**:
   - **Step 3**: Heat the frying pan.
   - **Step 4**: Fry the batter in margarine

3. **Serve** hot.

### Notes:
- Butter would also work if you have it.
"""


def test_a_numbered_item_runs_over_its_sub_lines_and_blank_lines():
    assert read_steps(MARKDOWN) == [
        "Mix the dry ingredients: Whisk flour and salt in a bowl. Stir in the eggs until smooth.",
        "Fry the pancakes: Heat the frying pan. Fry the batter in margarine",
        "Serve hot."]


def test_prose_or_a_heading_after_the_list_ends_the_plan():
    text = ("Let me think about the fat first.\nPlan:\n1. Mix flour and eggs\n\n"
            "2. Fry the batter in margarine\n\nThis plan uses only what you have.\n"
            "3. Not a step")
    assert read_steps(text) == ["Mix flour and eggs", "Fry the batter in margarine"]
    assert read_steps("Plan: 1. Mix flour\n2. Fry it\n**Summary:** done\n3. x") == [
        "Mix flour", "Fry it"]
    assert read_steps("1. Check the pantry\n2. Mix flour and eggs\n\nThat is all.") == [
        "Check the pantry", "Mix flour and eggs"]  # no "Plan:" line: the first list
    assert read_steps("Plan:\n- Mix flour\n- Fry the batter\n\nEnjoy!") == [
        "Mix flour", "Fry the batter"]
    assert read_steps("I cannot plan this.") == []


BW = ("(pick-up ?x) requires (and (clear ?x) (ontable ?x) (handempty)); effects: ...",
      "(put-down ?x) requires (holding ?x); effects: ...",
      "(stack ?x ?y) requires (and (holding ?x) (clear ?y)); effects: ...",
      "(unstack ?x ?y) requires (and (on ?x ?y) (clear ?x) (handempty)); effects: ...")
NAMES = ("pick-up", "put-down", "stack", "unstack")


def test_a_pddl_step_is_the_one_action_its_text_names():
    self_ask_style = ("Plan:\n1. (pick-up b) - Precondition: (clear b) (ontable b) (handempty)."
                      " Effect: (holding b) (not (ontable b)).\n"
                      "2. (stack b c) (clear c) (holding b)\n")
    assert read_steps(self_ask_style, NAMES) == ["(pick-up b)", "(stack b c)"]
    headings = ("### Plan:\n\n1. **Pick up the red block (r)**\n   - **Action**: (pick-up r)\n"
                "   - **Preconditions**: (clear r) (handempty)\n"
                "   - **Effects**: (holding r) (not (clear r))\n\n"
                "2. **Put the red block on the blue one**\n   - Action: ( Stack  r  b )\n\n"
                "3. **Pick up the green block (g)**\n   - Preconditions: (clear g)\n\n"
                "4. Move r onto b: (unstack r b) then (stack r b)\n")
    assert read_steps(headings, NAMES) == [
        "(pick-up r)", "(stack r b)",
        "Pick up the green block (g); Preconditions: (clear g)",  # no action: as written
        "Move r onto b: (unstack r b) then (stack r b)"]  # two actions: as written
    assert read_steps("Plan:\n(unstack c a)\n(put-down c)\nDone.", NAMES) == [
        "(unstack c a)", "(put-down c)"]
    assert read_steps(self_ask_style)[0].startswith("(pick-up b) - Precondition")  # no actions


def test_the_baselines_read_pddl_steps_with_the_tasks_actions():
    answer = ("Plan:\n1. Pick up the pan (pan) - Precondition: (clear pan)\n"
              "   Action: (pick-up pan)\n2. Mix flour and eggs into a batter\n")
    backend = ScriptedBackend([answer])
    r = cot(task(actions=BW), LLM(backend), Config(k=0))
    assert r.plan == ["(pick-up pan)", "Mix flour and eggs into a batter"]


# ----- the same prompt structure as SQ-BCP --------------------------------------------------
def _facts_block(prompt: str) -> list[str]:
    lines = prompt.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Known facts"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("- "))
    return lines[start:end]


def test_the_baselines_use_sqbcps_system_message_token_limit_and_facts():
    from veriplan.methods.sqbcp import Config as SQ
    from veriplan.methods.sqbcp.method import solve
    from veriplan.methods.sqbcp.request import SYSTEM

    sq = ScriptedBackend(fn=lambda r: "{}")
    solve(task(), LLM(sq), SQ(k=2, t_max=1))
    forward = sq.requests[0]
    for fn in (direct, cot, self_ask, react):
        backend = ScriptedBackend(fn=lambda r: PLAN_MARG)
        fn(task(), LLM(backend), Config(k=2))
        req = backend.requests[0]
        system, user = req.messages[0], req.messages[-1]
        assert system.role == "system" and system.content
        assert SYSTEM.startswith(system.content) and "JSON" not in system.content
        assert req.max_tokens == forward.max_tokens == 900
        assert _facts_block(user.content) == _facts_block(forward.messages[-1].content)
        assert _facts_block(user.content)[0] == \
            "Known facts (anything not listed is unknown, not false):"


def test_a_revealed_missing_item_is_one_fact_with_its_substitute():
    backend = ScriptedBackend([PLAN_MARG])
    cot(task(), LLM(backend), Config(k=4))
    shown = _facts_block(backend.requests[0].messages[-1].content)[1:]
    assert shown == [f"- {f}" for f in task().variant(4).prompt_facts()]
    assert "- not so: you have butter (you could use margarine instead)" in shown
    assert "- margarine" not in shown and "- not so: butter" not in shown


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
