"""The prompts carry every instruction of the paper's (section 4.1's system
prompt, an example input in each initial prompt, Appendix A's requests after a
partial check), and feedback shows every argument of the failing call."""

from __future__ import annotations

import re

import pytest

from veriplan.domains.autotos import DOMAINS, get_domain
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.autotos import Config, run_loop
from veriplan.methods.autotos.method import _text

FAST = Config(eval_limit=1, evaluate_progress=False, max_calls_per_function=2)


def block(code: str) -> str:
    return f"```python\n{code}```\n"


def test_the_system_prompt_has_each_item_of_the_papers():
    text = _text("system.txt")
    for item in ("Python", "exactly one function", "every import it needs inside it",
                 "define them inside that function", "Do not write examples of how to call",
                 "Do not put print statements outside the function", "complete function",
                 "no ellipsis"):
        assert item in text, item


@pytest.mark.parametrize("name", sorted(DOMAINS))
@pytest.mark.parametrize("which", ["succ", "goal"])
def test_each_initial_prompt_names_the_signature_and_shows_an_example_input(name, which):
    domain = get_domain(name)
    text = domain.prompt(which)
    params = domain.succ_params if which == "succ" else domain.goal_params
    assert f"{which}({', '.join(('state', *params))})" in text
    assert "Example input" in text
    tail = text[text.index("Example input"):]
    for param in ("state", *params):  # the example gives every argument
        assert re.search(rf"^(Example input {param}: |{param} = )\S", tail, re.M), param


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_each_domain_has_its_appendix_request_after_a_partial_check(name):
    advice = get_domain(name).partial_advice
    assert "think step by step" in advice
    assert "complete Python code of the revised successor function" in advice
    assert "Remember how you fixed earlier mistakes" in advice
    assert "Keep the same function signature" in advice


def test_blocksworld_request_has_the_reminders_of_each_action():
    advice = get_domain("blocksworld").partial_advice
    for action in ("picks up", "unstacks", "puts a block down", "stacks a block"):
        assert action in advice
    assert "which blocks are clear" in advice and "which blocks are on the table" in advice


FALSE_GOAL = {
    "blocksworld": "def goal(state, goal):\n    return False\n",
    "prontoqa": "def goal(state, target):\n    return False\n",
    "crossword": "def goal(state, horizontal_answers, vertical_answers):\n    return False\n",
    "sokoban": "def goal(state, grid):\n    return False\n",
}
SHOWN = {
    "blocksworld": ["goal = {'clear': [], 'on-table': [], 'on': [['a', 'c']"],
    "prontoqa": ["target = 'bony'"],
    "crossword": ["horizontal_answers = [['tasks',", "vertical_answers = [['amass',"],
    "sokoban": ["grid = [[1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 1]"],
}


@pytest.mark.parametrize("name", sorted(FALSE_GOAL))
def test_goal_feedback_shows_every_argument_of_the_failing_call(name, data_dir):
    domain = get_domain(name)
    answers = [block(domain.reference_code("succ")), block(FALSE_GOAL[name]),
               block(domain.reference_code("goal"))]
    rec = run_loop(domain, domain.load(data_dir), LLM(ScriptedBackend(answers)), FAST)
    failure = next(s for s in rec.steps if s["kind"] == "failure")
    assert failure["category"] == "goal_soundness"
    for shown in SHOWN[name]:
        assert shown in failure["feedback"], failure["feedback"]


def test_successor_feedback_shows_the_rules(data_dir):
    pq = get_domain("prontoqa")
    nothing = "def succ(state, rules):\n    return []\n"  # incomplete: Step 4 finds it
    answers = [block(nothing), block(pq.reference_code("goal")),
               block(pq.reference_code("succ"))]
    rec = run_loop(pq, pq.load(data_dir), LLM(ScriptedBackend(answers)), FAST)
    failure = next(s for s in rec.steps if s["kind"] == "failure")
    assert failure["category"] == "succ_completeness"
    text = failure["feedback"]
    assert "rules = [['arthropod', 'protostome']" in text
    assert "state {'painted lady'}" in text and "Missing successors: [{" in text


def test_sokoban_partial_check_feedback_has_the_grid_and_the_request(data_dir):
    sk = get_domain("sokoban")
    stacked = ("def succ(state, grid):\n    r, c = state['at-player']\n"
               "    return [{'at-player': [r, c], 'at-stone': [state['at-stone'][0]] * 2}]\n")
    answers = [block(stacked), block(sk.reference_code("goal")),
               block(sk.reference_code("succ"))]
    rec = run_loop(sk, sk.load(data_dir), LLM(ScriptedBackend(answers)), FAST)
    failure = next(s for s in rec.steps if s["kind"] == "failure")
    text = failure["feedback"]
    assert "two or more stones are on the same cell" in text and "grid = [[" in text
    assert "Example wrong successor state" in text and sk.partial_advice in text
