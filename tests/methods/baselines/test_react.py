from __future__ import annotations

import pytest

from tests.domains.test_blocksworld import standard_task
from veriplan.errors import ConfigError
from veriplan.llm.backends.scripted import ScriptedBackend
from veriplan.llm.client import LLM
from veriplan.methods.baselines.react import Config, read_turn, solve


def turns(*actions: str, observation: str = "") -> list[str]:
    obs = f"\nObservation: {observation}" if observation else ""
    return [f"Thought: next.\nAction: {a}{obs}" for a in actions]


def test_symbolic_environment_executes_and_stops_at_the_goal():
    backend = ScriptedBackend(turns("stack red orange", "stack yellow red", "put-down yellow",
                                    "unstack blocks red", "stack yellow red"))
    r = solve(standard_task(), LLM(backend))
    assert r.verified and r.metrics["stop"] == "goal" and r.metrics["invalid_actions"] == 1
    assert r.metrics["method_plan"] == ["(stack red orange)", "(put-down yellow)",
                                        "(unstack-blocks red)", "(stack yellow red)"]
    assert r.plan[:2] == ["(unstack yellow blue)", "(put-down yellow)"]  # the user's actions
    assert r.scope.value == "plan_on_task" and r.metrics["plan_length"] == len(r.plan) == 8
    second = backend.requests[2].messages[0].content  # the history is in the prompt
    assert "cannot be executed now: it needs that block red is clear" in second
    assert backend.requests[0].stop == ("\nObservation",)


def test_five_unexecutable_actions_in_a_row_fail_the_run():
    backend = ScriptedBackend(turns(*(["stack yellow red"] * 5)))
    r = solve(standard_task(), LLM(backend))
    assert not r.verified and r.failure == "invalid_actions" and r.llm_calls == 5


def test_more_than_the_step_limit_fails():
    def shuffle(req):
        turn = req.messages[0].content.count("\nObservation: ")
        return "Action: put-down yellow" if turn % 2 == 0 else "Action: stack yellow blue"

    backend = ScriptedBackend(fn=shuffle)
    r = solve(standard_task(), LLM(backend), Config(max_steps=6))
    assert not r.verified and r.failure == "too_long" and r.metrics["method_plan_length"] == 6
    assert r.llm_calls == 6  # no turn beyond the limit


SOLUTION = ["stack red orange", "put-down yellow", "unstack blocks red", "stack yellow red"]


@pytest.mark.parametrize("limit, verified", [(4, True), (3, False)])
def test_a_plan_longer_than_the_limit_fails_even_if_it_reaches_the_goal(limit, verified):
    r = solve(standard_task(), LLM(ScriptedBackend(turns(*SOLUTION))), Config(max_steps=limit))
    assert r.verified is verified
    assert r.failure == (None if verified else "too_long")


def test_a_plan_longer_than_the_limit_fails_in_the_models_own_environment():
    answers = turns(*SOLUTION, observation="fine") + ["Thought: finished.\nAction: done"]
    r = solve(standard_task(), LLM(ScriptedBackend(answers)), Config(env="llm", max_steps=3))
    assert not r.verified and r.failure == "too_long" and r.metrics["method_plan_length"] == 4
    ok = solve(standard_task(), LLM(ScriptedBackend(answers)), Config(env="llm", max_steps=4))
    assert ok.verified and ok.metrics["stop"] == "done"


def test_llm_environment_uses_the_models_own_observations_then_validates():
    backend = ScriptedBackend(turns("stack yellow red", observation="yellow is on red") +
                              ["Thought: finished.\nAction: done"])
    r = solve(standard_task(), LLM(backend), Config(env="llm"))
    assert r.metrics["method_plan"] == ["(stack yellow red)"] and not r.verified
    assert r.plan == []  # its first step cannot be executed, so nothing of it maps
    assert r.failure == "precondition"
    assert "Observation: yellow is on red" in backend.requests[1].messages[0].content
    assert backend.requests[0].stop == ()


def test_read_turn_and_bad_env():
    assert read_turn("Thought: a\nAction: stack a b\nAction: other") == {
        "thought": "a", "action": "stack a b"}
    with pytest.raises(ConfigError, match="use one of symbolic, llm"):
        solve(standard_task(), LLM(ScriptedBackend()), Config(env="world"))
