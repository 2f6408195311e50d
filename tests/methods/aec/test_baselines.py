"""The baselines and ablations in the same harness: registered methods on the
env interface, each with checked settings, each in the kitchen."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import task, three_plans
from veriplan.errors import ConfigError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import get_method
from veriplan.methods.aec import Config, solve

P = kitchen.plan
NAMES = ["aec", "aec-direct", "aec-react", "wkm", "query-only", "walle-standin"]


def run(name, model, t=None, **options):
    spec = get_method(name)
    return spec.solve(t or task(), LLM(ScriptedBackend(fn=model)), spec.make_config(options))


@pytest.mark.parametrize("name", NAMES)
def test_registered_on_the_env_interface_with_checked_settings(name):
    spec = get_method(name)
    assert spec.problem == "env" and "seed" in spec.settings()
    with pytest.raises(ConfigError, match=f"method {name} has no setting 'nope'"):
        spec.make_config({"nope": "1"})
    hints = typing.get_type_hints(spec.config_cls)
    for f in dataclasses.fields(spec.config_cls):
        base = hints[f.name]
        bad = 1.5 if base is str else "not-a-number" if base in (int, float) else "maybe"
        with pytest.raises(ConfigError, match=f.name):
            spec.make_config({f.name: bad})
    assert spec.make_config({}) == spec.config_cls()


def test_settings_have_bounds():
    with pytest.raises(ConfigError, match="epsilon"):
        Config(epsilon=0.7)
    with pytest.raises(ConfigError, match="iterations"):
        Config(iterations=0)
    cfg = get_method("aec").make_config({"verification": "false", "gating": "false",
                                         "tau": "0.3"})
    assert cfg.verification is False and cfg.gating is False and cfg.tau == 0.3


def test_direct_plans_from_the_observation_and_replans_after_a_failure():
    wrong = P("cabinet 1")["actions"]
    right = P("fridge 1")["actions"]
    model = kitchen.Model(direct=[wrong, "no plan today", right])
    r = run("aec-direct", model)
    m = r.metrics
    assert r.verified and m["failed_actions"] == 1 and m["unreadable"] == 1
    assert m["replans"] == 2 and m["queries"] == 0 and "prediction" not in model.asked
    second = model.prompts["plan"][1]
    assert "Current observation:\nNothing happens." in second  # the observation then
    assert "(take apple 1 from cabinet 1) failed" in second


def test_direct_fails_with_the_cap_when_it_never_gets_there():
    model = kitchen.Model(direct=[P("cabinet 1")["actions"]] * 3)
    r = run("aec-direct", model, max_replans="2")
    assert r.failure == "replan_cap" and r.metrics["replanning_rounds"] == 2


def test_react_acts_one_command_at_a_time():
    turns = [f"Thought: next.\nAction: {a}" for a in P("fridge 1")["actions"]]
    turns.insert(2, "I am not sure what to do.")  # not a turn: counted, no step spent
    turns.insert(4, "Thought: try.\nAction: take mug 1 from fridge 1")  # fails
    model = kitchen.Model(turns=turns)
    r = run("aec-react", model)
    m = r.metrics
    assert r.verified and m["unreadable"] == 1 and m["failed_actions"] == 1
    assert m["replans"] == 1 and m["env_steps"] == 8 and r.llm_calls == 9
    assert "Observation: You arrive at fridge 1" in model.prompts["turn"][1]


def test_wkm_takes_predictions_as_facts_and_never_queries():
    beliefs = {"apple 1 is in or on fridge 1": "yes"}
    r = run("wkm", kitchen.Model([three_plans()], beliefs=beliefs))
    assert r.verified and r.metrics["queries"] == 0 and r.metrics["simulations"] >= 1
    # wrong and confident: it commits and acts on the belief until the fridge is seen
    model = kitchen.Model([three_plans(), [P("countertop 1")]], beliefs=beliefs)
    r = run("wkm", model, t=task("hot_apple/counter"))
    m = r.metrics
    assert r.verified and m["commits"] == 2 and m["contradictions"] == 1
    assert m["queries"] == 0 and r.plan[:2] == ["go to fridge 1", "open fridge 1"]


def test_query_only_grounds_every_missing_predicate_and_predicts_nothing():
    model = kitchen.Model([three_plans()])
    r = run("query-only", model, t=task("hot_apple/counter"))
    assert r.verified and "prediction" not in model.asked
    assert r.metrics["queries"] >= 2 and r.metrics["predictions"] == 0


def test_the_no_verification_ablation_executes_an_unchecked_plan():
    again = {"actions": ["take apple 1 from table 1", "go to microwave 1",
                         "heat apple 1 with microwave 1", "go to table 1",
                         "move apple 1 to table 1"]}
    model = kitchen.Model([[P("fridge 1", skip_heat=True)], [again]])
    r = solve(task(), LLM(ScriptedBackend(fn=model)), Config(verification=False))
    m = r.metrics
    assert r.verified and m["commits"] == 2 and m["rejections"] == 0
    assert m["policy"]["verification"] is False and m["replans"] == 1


def test_the_no_gating_ablation_simulates_an_ambiguous_prediction():
    model = kitchen.Model([three_plans()])  # "unknown" votes: mu = 0.5
    r = solve(task(), LLM(ScriptedBackend(fn=model)), Config(gating=False))
    first = r.metrics["decisions"][0]
    assert first["kind"] == "simulate" and first["mu"] == 0.5
    assert r.metrics["policy"]["gating"] == "simulate"


def test_react_keeps_the_first_observation_in_view_after_the_window_moves_on():
    model = kitchen.Model()  # every turn: "look" (Nothing happens.)
    run("aec-react", model, max_steps="12", temperature="0.7")
    first = "Observation: You are in the middle of a room. Looking quickly around you"
    prompts = model.prompts["turn"]
    assert len(prompts) == 12 and all(first in p for p in prompts)
    assert "(earlier turns not shown)" not in prompts[8]  # 8 turns: all shown
    assert "(earlier turns not shown)" in prompts[9] and prompts[9].count("Action: look") == 8


def test_react_at_temperature_0_answers_a_repeated_prompt_without_a_call():
    # "look" fails the same way every turn: from turn 11 the 8 turns in view (and the
    # note that earlier ones are not) are the same, so the prompt is turn 10's and
    # greedy decoding would answer the same
    model = kitchen.Model()
    r = run("aec-react", model, max_steps="12")
    turns = [e for e in r.transcript if e.role == "turn"]
    assert [e.call is None for e in turns] == [False] * 10 + [True] * 2
    assert turns[10].prompt == turns[9].prompt and turns[10].cached
    assert turns[10].verdict.startswith("the same prompt as turn 10: its answer again")
    assert len(model.prompts["turn"]) == 10 and r.llm_calls == 10
    assert r.metrics["env_steps"] == 12 and r.plan == ["look"] * 12  # still acted each turn
    # at a sampling temperature the model is asked every turn
    again = kitchen.Model()
    assert run("aec-react", again, max_steps="12", temperature="0.7").llm_calls == 12


def test_react_stops_when_a_commandless_answer_would_come_back_forever():
    model = kitchen.Model(turns=["I am not sure what to do."] * 30)
    r = run("aec-react", model, max_steps="12")
    # turns 1-10 differ (the window fills with the same empty turn); turn 11 is turn 10
    assert len(model.prompts["turn"]) == 10 and r.metrics["unreadable"] == 11
    assert r.failure == "not_won" and r.metrics["env_steps"] == 0
    assert "same prompt would get the same answer" in r.last_diagnosis


def test_direct_at_temperature_0_answers_a_repeated_prompt_without_a_call():
    # the plan fails at the same step every round: from round 3 the observation
    # ("Nothing happens.") and the feedback are round 2's
    model = kitchen.Model(direct=[P("cabinet 1")["actions"]] * 2)
    r = run("aec-direct", model, max_replans="3")
    plans = [e for e in r.transcript if e.role == "plan"]
    assert [e.call is None for e in plans] == [False, False, True, True]
    assert plans[2].prompt == plans[1].prompt and r.llm_calls == 2
    assert r.metrics["rounds"] == 4 and r.metrics["commits"] == 4
    assert r.failure == "replan_cap"
