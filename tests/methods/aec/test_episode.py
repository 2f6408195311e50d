"""AEC in the kitchen with scripted models: queries that spend steps, the
execution monitor (replanning after a failed action and after a contradicted
precondition), B.4's rule tightening, refinement across iterations, and the
failures that must become results (a dead simulator, answers that are not
plans, budgets)."""

from __future__ import annotations

import json

import pytest

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import Stub, task, three_plans
from veriplan.errors import ConfigError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec import Config, solve

P = kitchen.plan
IN_COUNTER = "apple 1 is in or on countertop 1"


def run(model, t=None, config=None, **kw):
    return solve(t or task(), LLM(ScriptedBackend(fn=model)), config or Config(), **kw)


def test_an_ambiguous_prediction_is_queried_in_the_environment_and_the_task_is_won():
    model = kitchen.Model([three_plans()])  # the predictor answers "unknown": mu 0.5
    r = run(model)
    m = r.metrics
    assert r.verified and r.failure is None and m["won"]
    assert m["queries"] == 1 and m["query_steps"] == 2  # go to the fridge, open it
    assert r.plan[:2] == ["go to fridge 1", "open fridge 1"]  # the query's own steps
    assert m["env_steps"] == 7 and m["skipped"] == 2  # the plan's first two are done
    assert m["replans"] == 0 and m["replanning_rounds"] == 0 and m["simulations"] == 0
    assert m["llm_calls"] == r.llm_calls == 1 + 5  # one planning call, five ensemble votes
    assert m["task_type"] == "pick_heat_then_place" and m["success_by_iteration"] == [True]
    assert m["decisions"][0]["kind"] == "query:ambiguous"


def test_a_confident_prediction_is_simulated_then_grounded_before_commitment():
    model = kitchen.Model([three_plans()], beliefs={"apple 1 is in or on fridge 1": "yes"})
    r = run(model)
    kinds = [(d["kind"], d["phase"]) for d in r.metrics["decisions"]]
    assert r.verified and kinds == [("simulate", "loop"), ("query", "commit")]
    assert r.metrics["simulations"] == 1 and r.metrics["queries"] == 1


def test_replanning_after_a_failed_action():
    # the loose kitchen's model does not know that heating needs a closed microwave
    model = kitchen.Model([[P("countertop 1")],
                           [{"actions": ["close microwave 1", "heat apple 1 with microwave 1",
                                         "go to table 1", "move apple 1 to table 1"]}]])
    r = run(model, task("hot_apple/open_microwaves", "fakekitchen-loose", strict=True))
    m = r.metrics
    assert r.verified and m["failed_actions"] == 1 and m["replans"] == 1
    assert "heat apple 1 with microwave 1) failed" in model.prompts["plans"][1]


def test_replanning_after_an_observation_contradicts_a_grounded_precondition():
    detour = {"actions": ["go to microwave 1", "go to countertop 1",
                          "take apple 1 from countertop 1", "go to microwave 1",
                          "heat apple 1 with microwave 1", "go to table 1",
                          "move apple 1 to table 1"],
              "preconditions": [{"predicate": "in", "args": ["apple 1", "countertop 1"],
                                 "value": True}]}
    model = kitchen.Model([[detour], [P("cabinet 1")]])  # someone moves the apple meanwhile
    r = run(model, task("hot_apple/moving"))
    m = r.metrics
    assert r.verified and m["contradictions"] == 1 and m["replans"] == 1
    assert m["failed_actions"] == 0
    assert "contradicts in(apple 1, countertop 1) = true" in model.prompts["plans"][1]


def test_a_rule_that_keeps_producing_counterexamples_is_disabled():
    # the strict kitchen's microwaves start open, and one rule says microwaves are closed
    via2 = {"actions": ["go to microwave 2", "heat apple 1 with microwave 2", "go to table 1",
                        "move apple 1 to table 1"]}
    close2 = {"actions": ["close microwave 2", "heat apple 1 with microwave 2", "go to table 1",
                          "move apple 1 to table 1"]}
    model = kitchen.Model([[P("countertop 1")], [via2], [close2]])
    r = run(model, task("hot_apple/open_microwaves", "fakekitchen-strict", strict=True))
    m = r.metrics
    assert r.verified and m["replans"] == 2
    assert m["disabled_rules"] == ["microwave_closed"] and m["rule_disables"] == 1
    rules = [(c["rule"], c["key"]) for c in m["counterexamples"]]
    assert rules == [("microwave_closed", "open(microwave 1)"),
                     ("microwave_closed", "open(microwave 2)")]
    assert sum(e.role == "counterexample" for e in r.transcript) == 2
    json.dumps(r.to_dict())  # what the run store keeps


def test_a_rule_is_kept_when_tightening_is_off():
    via2 = {"actions": ["go to microwave 2", "heat apple 1 with microwave 2", "go to table 1",
                        "move apple 1 to table 1"]}
    model = kitchen.Model([[P("countertop 1")], [via2]])
    r = run(model, task("hot_apple/open_microwaves", "fakekitchen-strict", strict=True),
            Config(rule_disable_after=0, max_replans=1))
    assert not r.verified and r.failure == "replan_cap"
    assert r.metrics["disabled_rules"] == [] and len(r.metrics["counterexamples"]) == 2


def test_failure_driven_refinement_carries_disabled_rules_to_the_next_iteration():
    no_close = P("countertop 1", score=0.9)
    with_close = P("countertop 1", score=0.5, close_first=True)
    rounds = [[no_close], [no_close, with_close]]
    strict = task("hot_apple/open_microwaves", "fakekitchen-strict", strict=True)
    cfg = Config(iterations=2, max_replans=0, rule_disable_after=1)
    # a decided prediction (an all-"unknown" one gives no calibration sample)
    beliefs = {"apple 1 is in or on countertop 1": "yes"}
    r = run(kitchen.Model(rounds, beliefs), strict, cfg)
    m = r.metrics
    assert m["success_by_iteration"] == [False, True] and m["iteration"] == 1 and r.verified
    assert m["per_iteration"][0]["failure"] == "replan_cap"
    assert m["calibration_samples"] >= 1  # iteration 0's labelled predictions
    # without tightening, the second pass repeats the first one's mistake
    r0 = run(kitchen.Model(rounds), strict, Config(iterations=2, max_replans=0,
                                                   rule_disable_after=0))
    assert r0.metrics["success_by_iteration"] == [False, False]


def test_the_verifier_rejecting_h_star_is_a_replanning_round():
    model = kitchen.Model([[P("fridge 1", skip_heat=True)], three_plans()])
    r = run(model)
    assert r.verified and r.metrics["rejections"] == 1 and r.metrics["replans"] == 1
    assert "does not reach the goal" in model.prompts["plans"][1]


def test_an_answer_that_is_not_a_plan_is_counted_and_the_episode_goes_on():
    model = kitchen.Model(["Let me think about the kitchen first.",
                           '{"plans": [{"actions": "go to fridge 1"}, 7]}', three_plans()])
    r = run(model)
    assert r.verified and r.metrics["unreadable"] == 3 and r.metrics["replans"] == 2
    assert r.transcript[0].ok is False


def test_an_answer_cut_off_at_the_token_limit_is_named_in_the_next_round():
    """A planning answer whose JSON never closed (the model listed preconditions until
    max_tokens) is fed back as such; the schema caps the stated preconditions."""
    import dataclasses

    class CutOff(ScriptedBackend):
        def complete(self, request):
            response = super().complete(request)
            if response.text.endswith("..."):
                return dataclasses.replace(response, text=response.text[:-3],
                                           finish_reason="length")
            return response

    model = kitchen.Model(['{"plans": [{"actions": ["go to fridge 1"], "preconditions": [...',
                           three_plans()])
    backend = CutOff(fn=model)
    r = solve(task(), LLM(backend), Config(max_tokens=300))
    assert r.verified and r.metrics["replans"] == 1
    assert "cut off at the token limit (300)" in model.prompts["plans"][1]
    assert "(the 8 that matter most, at most)" in " ".join(model.prompts["plans"][0].split())
    schema = next(q.schema for q in backend.requests if q.schema_name == "plans")
    plan = schema["properties"]["plans"]["items"]
    assert plan["properties"]["preconditions"]["maxItems"] == 8
    # a plan longer than the whole step budget could never be carried out
    assert plan["properties"]["actions"]["maxItems"] == 50  # the test kitchen's step budget
    short = CutOff(fn=kitchen.Model([three_plans()]))
    solve(task(), LLM(short), Config(max_steps=30))
    assert next(q.schema for q in short.requests if q.schema_name == "plans")[
        "properties"]["plans"]["items"]["properties"]["actions"]["maxItems"] == 30
    uncapped = solve(task(), LLM(ScriptedBackend(fn=kitchen.Model([three_plans()]))),
                     Config(max_preconditions=0))
    assert uncapped.verified


def test_a_simulator_that_dies_mid_episode_is_an_env_error_result():
    r = run(kitchen.Model([three_plans()]), task(die_after=1))
    assert not r.verified and r.failure == "env_error"
    assert "process ended unexpectedly" in r.last_diagnosis
    assert r.metrics["replanning_rounds"] == r.metrics["replan_cap"]


def test_an_unknown_task_id_is_a_clear_error():
    with pytest.raises(ConfigError, match="unknown kitchen task"):
        run(kitchen.Model(), task("hot_apple/nowhere"))


def test_the_step_budget_ends_the_episode():
    r = run(kitchen.Model([three_plans()]), config=Config(max_steps=4))
    assert not r.verified and r.failure == "step_budget" and r.metrics["env_steps"] == 4
    assert r.metrics["replanning_rounds"] == 10


def test_the_replanning_cap_ends_the_episode_and_is_reported():
    model = kitchen.Model([[P("fridge 1", skip_heat=True)]] * 3)
    r = run(model, config=Config(max_replans=2))
    m = r.metrics
    assert r.failure == "replan_cap" and m["replans"] == 2 and m["rounds"] == 3
    assert m["replanning_rounds"] == 2 == m["replan_cap"]


def test_another_estimator_plugs_into_the_predictor_interface():
    stub = Stub({("in", ("apple 1", "fridge 1")): (0.99, 0.0)})
    model = kitchen.Model([three_plans()])
    r = run(model, predictor=stub)
    assert r.verified and len(stub.calls) == 1 and "prediction" not in model.asked


def test_without_an_action_model_aec_stops_at_once(monkeypatch):
    from veriplan.methods.aec.domain import ENV_MODELS, EnvModel

    ENV_MODELS.register("fakekitchen", EnvModel("fakekitchen"))
    r = run(kitchen.Model())
    assert r.failure == "no_action_model" and r.llm_calls == 0


def test_tau_comes_from_a_tau_file_and_the_run_records_it(tmp_path):
    from veriplan.methods.aec.tau import save_tau

    path = save_tau(str(tmp_path / "t.json"), {"tau": 0.35}, [{"tau": 0.35}])
    r = run(kitchen.Model([three_plans()]), config=Config(tau_file=str(path)))
    assert r.metrics["tau"] == 0.35 and r.metrics["tau_source"] == str(path)
    with pytest.raises(ConfigError, match="select-tau"):
        run(kitchen.Model(), config=Config(tau_file="missing"))


def test_an_environment_without_query_macros_leaves_predicates_unknown(monkeypatch):
    def no_query(self, pred, *args):
        raise NotImplementedError

    monkeypatch.setattr(kitchen.FakeKitchen, "query", no_query)
    r = run(kitchen.Model([three_plans()] * 2), config=Config(max_replans=1))
    assert not r.verified and r.failure == "replan_cap"
    assert r.metrics["unanswerable"] >= 1 and r.metrics["env_steps"] == 0


def test_the_next_planning_prompt_names_the_grounded_evidence_that_discarded_each_plan():
    # round 1: the fridge plan; a query finds no apple there (H is emptied). Round 2: a
    # plan that takes the apple from the cabinet without going there; the agent was seen
    # at the fridge, so it is discarded before any query. Round 3: the cabinet plan.
    skip = {"actions": ["open cabinet 1", "take apple 1 from cabinet 1", "go to microwave 1",
                        "heat apple 1 with microwave 1", "go to table 1",
                        "move apple 1 to table 1"]}
    model = kitchen.Model([[P("fridge 1")], [skip], [P("cabinet 1")]])
    r = run(model, task("hot_apple/cabinet"))
    assert r.verified and r.metrics["replans"] == 2 and r.metrics["discarded"] == 1
    second, third = (" ".join(p.split()) for p in model.prompts["plans"][1:])
    assert ("- step 3 (take apple 1 from fridge 1) needs in(apple 1, fridge 1) = true, but "
            "in(apple 1, fridge 1) = false was found by a query") in second
    assert ("- step 1 (open cabinet 1) needs at(agent, cabinet 1) = true, but at(agent, "
            "cabinet 1) = false follows from what was observed (rule at_one_place)") in third
    assert third.count("every plan was discarded") == 1  # a repeated line is kept once
    # the record: each round's discarded hypotheses with the reason
    verify = [e for e in r.transcript if e.role == "verify"]
    assert verify[0].verdict == "no hypothesis is left (H is empty): 1 discarded"
    (d,) = verify[1].data["dropped"]
    assert (d["by"], d["p"], d["expected"], d["value"], d["rule"]) == (
        "evidence", "at(agent, cabinet 1)", True, False, "at_one_place")
    assert verify[1].response.startswith("plan #1 (open cabinet 1 | take apple 1 from")
    json.dumps(r.to_dict())


def test_a_planning_prompt_asked_before_is_answered_by_the_earlier_answer_without_a_call():
    # the plan never heats the apple: V rejects it every round; from round 3 on, nothing
    # new was grounded and the feedback is the same, so the prompt is round 2's
    model = kitchen.Model([[P("fridge 1", skip_heat=True)]] * 2)
    r = run(model, config=Config(max_replans=3))
    planning = [e for e in r.transcript if e.role == "hypotheses"]
    assert [e.call is None for e in planning] == [False, False, True, True]
    assert planning[2].prompt == planning[1].prompt and planning[2].cached
    assert planning[2].verdict.startswith("the same prompt as round 2: its answer again")
    assert len(model.prompts["plans"]) == 2 and r.metrics["rounds"] == 4
    assert r.failure == "replan_cap" and r.metrics["rejections"] == 4
    # at a sampling temperature the model is asked again
    again = kitchen.Model([[P("fridge 1", skip_heat=True)]] * 4)
    run(again, config=Config(max_replans=3, temperature=0.7))
    assert len(again.prompts["plans"]) == 4


def test_each_call_records_its_tokens_and_seconds():
    r = run(kitchen.Model([three_plans()]))
    calls = [e for e in r.transcript if e.call is not None]
    assert calls and all(e.data["prompt_tokens"] > 0 and "completion_tokens" in e.data and
                         "seconds" in e.data for e in calls)


def test_feedback_keeps_each_line_once_newest_last():
    from veriplan.methods.aec.episode import FEEDBACK_LINES, remember

    assert remember(["a", "b", "c"], ["b", "d", "d"]) == ["a", "c", "b", "d"]
    many = remember([], [str(i) for i in range(FEEDBACK_LINES + 3)])
    assert len(many) == FEEDBACK_LINES and many[-1] == str(FEEDBACK_LINES + 2)


# ----- a query that could not settle a predicate is not asked again in the same state --------
MUG_COLD = ("hot", ("mug 1",), False)  # the kitchen has no query for hot: unknown, 0 steps


def hot_mug_queries(r) -> list[int]:
    """The round (1-based, counted by planning calls) of each query of hot(mug 1)."""
    rounds, n = [], 0
    for e in r.transcript:
        if e.role == "hypotheses":
            n += 1
        if e.role == "query" and e.prompt == "hot(mug 1)":
            rounds.append(n)
    return rounds


def test_an_unsettled_query_is_not_asked_again_until_the_state_changes():
    # every round proposes the same plan, which states hot(mug 1) = false: the query
    # cannot settle it and V rejects the plan. Round 1 asks it, then queries the fridge
    # (w grows), so round 2 asks it once more; after that nothing changes between the
    # rounds and it is left out (the old code asked it in every round: 1, 2, 3, 4)
    model = kitchen.Model([[P("fridge 1", stated=[MUG_COLD])]] * 4)
    r = run(model, config=Config(max_replans=3, temperature=0.7))
    m = r.metrics
    assert m["rounds"] == 4 and m["rejections"] == 4
    assert hot_mug_queries(r) == [1, 2]
    assert m["queries"] == 3 and m["unanswerable"] == 2  # hot(mug 1) twice, the fridge
    assert m["unasked"] == 2  # rounds 3 and 4 left it out of U
    assert m["predictions"] == 3  # no prediction for a predicate left out


def test_an_unsettled_query_is_asked_again_after_the_agent_has_acted():
    # rounds 1-3: hot(mug 1) unsettled, the plan rejected (asked in rounds 1 and 2, as
    # above); round 4: a plan without it runs, takes the apple and fails (the strict
    # kitchen heats only with a closed microwave); round 5: a plan stating it again:
    # the agent has acted since, so it is asked again
    a = P("countertop 1", stated=[MUG_COLD])
    finish = {"actions": ["close microwave 1", "heat apple 1 with microwave 1",
                          "go to table 1", "move apple 1 to table 1"],
              "preconditions": [{"predicate": "hot", "args": ["mug 1"], "value": False}]}
    model = kitchen.Model([[a], [a], [a], [P("countertop 1")], [finish]])
    r = run(model, task("hot_apple/open_microwaves", "fakekitchen-loose", strict=True),
            Config(max_replans=4, temperature=0.7))
    assert r.metrics["failed_actions"] == 1
    assert hot_mug_queries(r) == [1, 2, 5]
    assert r.metrics["unasked"] == 1


# ----- the admissible commands a prompt shows ----------------------------------------------------
def test_a_long_command_list_is_shown_kind_by_kind_within_the_cap():
    from veriplan.methods.aec.episode import spread

    # alphabetical, as ScienceWorld lists them: the first 60 are all "connect ..."
    things = [f"thing {i:02d}" for i in range(40)]
    commands = sorted([f"connect {a} to {b}" for a in things[:10] for b in things[10:20]]
                      + ["go to kitchen", "go to hallway", "look around", "wait"]
                      + [f"look at {t}" for t in things] + [f"open door to {r}" for r in "abc"])
    shown = spread(commands, 12)
    assert len(shown) == 12 and shown == spread(list(commands), 12)  # deterministic
    assert set(shown) <= set(commands) and len(set(shown)) == 12
    assert shown[:5] == ["connect thing 00 to thing 10", "go to hallway", "look around",
                         "open door to a", "wait"]  # each kind once, in order of appearance
    assert "look at thing 00" in shown and "go to kitchen" in shown
    assert {"open door to a", "open door to b", "open door to c"} <= set(shown)
    # a list that fits is shown as it is (the household games' lists)
    assert spread(commands[:12], 12) == commands[:12]


def test_the_planning_prompt_shows_every_kind_of_command_when_the_list_is_long(monkeypatch):
    many = sorted(f"connect {a} to {b}" for a in "abcdefghij" for b in "klmnopqrst")
    monkeypatch.setattr(kitchen.FakeKitchen, "valid_actions",
                        lambda self: many + [f"go to {r}" for r in kitchen.RECEPTACLES])
    model = kitchen.Model([three_plans()])
    run(model)
    shown = model.prompts["plans"][0].split("Commands available right now include: ")[1]
    shown = shown.split("\n")[0].split(", ")
    assert len(shown) == 60
    assert {f"go to {r}" for r in kitchen.RECEPTACLES} <= set(shown)  # was: 60 connects
