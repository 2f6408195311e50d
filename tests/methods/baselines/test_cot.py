from __future__ import annotations

from tests.domains.test_blocksworld import standard_task
from veriplan.llm.backends.scripted import ScriptedBackend
from veriplan.llm.client import LLM
from veriplan.methods.baselines.cot import solve

GOOD = """Red has to go onto orange first; yellow must leave blue.
Plan:
stack red orange
put-down yellow
unstack blocks red
stack yellow red
"""


def run(answer: str, **settings):
    backend = ScriptedBackend([answer])
    return solve(standard_task(), LLM(backend)), backend


def test_a_correct_plan_after_reasoning_is_verified():
    r, backend = run(GOOD)
    assert r.verified and r.llm_calls == 1 and r.metrics["method_plan_length"] == 4
    assert r.metrics["plan_length"] == len(r.plan) == 8  # in the user's four actions
    prompt = backend.requests[0].messages[0].content
    assert "Let's think step by step" in prompt
    assert "Initial condition: block orange is clear, block yellow is clear" in prompt


def test_failures_are_categorized():
    assert run("Plan:\nstack yellow red\n")[0].failure == "precondition"
    assert run("Plan:\nstack red orange\n")[0].failure == "goal"
    assert run("I am not sure.")[0].failure == "no_plan"
    r, _ = run("Plan:\nstack red orange\nthen celebrate\nstack yellow red\n")
    assert r.failure == "unread_lines" and not r.verified


def test_without_a_plan_line_every_action_line_counts():
    r, _ = run("stack red orange\nput-down yellow\nunstack blocks red\nstack yellow red")
    assert r.verified
