"""DRIP's control flow with scripted models, and the framework's own limits
with the perfect (regression) decomposer on Blocksworld-hard."""

from __future__ import annotations

import pytest

from tests.domains.test_blocksworld import standard_task
from tests.methods.drip.scripts import PerfectActuator, table_decomposer
from veriplan.domains.blocksworld import SPACES, relaxed_task
from veriplan.errors import ConfigError
from veriplan.llm.backends.scripted import ScriptedBackend
from veriplan.llm.client import LLM
from veriplan.methods.drip import Config, solve
from veriplan.methods.drip.actuators import Verdict, read_verdict

SPACES_RELAXED = SPACES["relaxed"]
GOAL = "block red is on top of block orange, block yellow is on top of block red."
FIGURE = {GOAL: "stack red orange\nstack yellow red",
          "stack yellow red": "put-down yellow\nunstack blocks red"}


def llm_for(fn) -> tuple[LLM, ScriptedBackend]:
    backend = ScriptedBackend(fn=fn)
    return LLM(backend), backend


def test_the_papers_example_is_solved_and_counted():
    llm, _ = llm_for(table_decomposer(FIGURE))
    r = solve(standard_task(), llm)
    assert r.verified and r.solved_by == "llm" and r.failure is None
    assert r.metrics["method_plan"] == ["(stack red orange)", "(put-down yellow)",
                                        "(unstack-blocks red)", "(stack yellow red)"]
    # the tower moves in the user's four actions: red carries blue and yellow, so they go
    # to the table and back, and the next moves take them off again (such pairs cancel)
    assert r.plan == [
        "(unstack yellow blue)", "(put-down yellow)", "(unstack blue red)", "(put-down blue)",
        "(pick-up red)", "(stack red orange)", "(pick-up yellow)", "(stack yellow red)"]
    assert r.scope.value == "plan_on_task" and r.metrics["moves_with_blocks_on_top"] == 1
    assert r.llm_calls == 2  # the goal, then "stack yellow red"
    assert r.metrics["tree_size"] == 5 and r.metrics["tree_depth"] == 2
    assert r.metrics["method_plan_length"] == 4 and r.metrics["size"] == 4
    assert r.metrics["plan_length"] == 8 and r.metrics["steps_cancelled"] == 8
    assert r.metrics["calls_by_role"] == {"decompose": 2}


def test_undoing_an_achieved_goal_fact_is_recorded_and_can_be_refused():
    table = dict(FIGURE, **{"stack yellow red": "put-down red\nunstack blocks red"})
    llm, _ = llm_for(table_decomposer(table))
    paper = solve(standard_task(), llm)  # recovers by re-decomposing the goal
    assert paper.verified
    assert paper.metrics["undos"] == [{"step": 2, "action": "put-down red",
                                       "undoes": ["(on red orange)"]}]
    assert paper.metrics["method_plan"].count("(stack red orange)") == 2
    llm, _ = llm_for(table_decomposer(table))
    fixed = solve(standard_task(), llm, Config(condition="on_conflict"))
    assert fixed.verified and not fixed.metrics["undos"]
    assert fixed.metrics["conflicts"][0]["action"] == "put-down red"
    assert fixed.metrics["method_plan_length"] == 3


def test_condition_always_puts_the_condition_in_every_decomposition():
    llm, backend = llm_for(table_decomposer(FIGURE))
    assert solve(standard_task(), llm, Config(condition="always")).verified
    assert all("Current condition: block yellow is clear" in r.messages[-1].content
               or "Current condition:" in r.messages[-1].content for r in backend.requests)
    llm, backend = llm_for(table_decomposer(FIGURE))
    solve(standard_task(), llm)
    assert not any("Current condition:" in r.messages[-1].content for r in backend.requests)


def test_unusable_decompositions_fail_the_node_after_its_budget():
    llm, _ = llm_for(lambda req: "I would first think about the colours.")
    r = solve(standard_task(), llm, Config(max_decompositions=3))
    assert not r.verified and r.failure == "decomposition" and r.plan == []
    assert r.llm_calls == 3 and r.metrics["unread_lines"] == 3
    assert r.metrics["stop"] == "stalled"


def test_a_node_cannot_be_its_own_sub_goal():
    table = dict(FIGURE, **{"stack yellow red": "stack yellow red\nstack red orange"})
    llm, _ = llm_for(table_decomposer(table))
    r = solve(standard_task(), llm, Config(max_iter=4))
    assert r.metrics["cycles_dropped"] >= 1 and not r.verified


def test_call_budget_stops_the_run():
    llm, _ = llm_for(table_decomposer(FIGURE))
    r = solve(standard_task(), llm, Config(max_llm_calls=1))
    assert not r.verified and r.failure == "call_budget" and r.llm_calls == 1


def test_llm_actuator_claims_are_checked_by_the_verifier():
    def gullible(req):
        prompt = req.messages[-1].content
        if prompt.startswith("Condition:"):
            return "yes" if "in place" in prompt else "no"
        if "Final condition" in prompt:
            return "Final condition: everything is in place."
        if "Decision" in prompt:
            return "Decision: executable"
        return "stack yellow red"
    llm, _ = llm_for(gullible)
    r = solve(standard_task(), llm, Config(actuator="llm"))
    assert r.metrics["method_plan"] == ["(stack yellow red)"] and r.plan == []
    assert not r.verified and r.failure == "invalid_plan"


def test_an_update_without_a_final_condition_keeps_the_previous_condition():
    task = standard_task()
    perfect = PerfectActuator(relaxed_task(task), FIGURE)
    prompts = []

    def forgetful(req):
        prompt = req.messages[-1].content
        prompts.append(prompt)
        answer = perfect(req)
        if "Final condition" in prompt:  # reasons, then stops before the new condition
            return "Thinking it over.\n\nThe red block now sits on the orange one."
        return answer

    llm, _ = llm_for(forgetful)
    r = solve(task, llm, Config(actuator="llm"))
    start = relaxed_task(task)
    first = SPACES_RELAXED.describe_state(start, start.init)
    later = [p for p in prompts[1:] if p.startswith("Condition:") or "Condition:" in p]
    # the reasoning never becomes the condition: every later prompt shows the first one
    assert later and all("red block now sits" not in p for p in later)
    assert all(first in p for p in later if "Condition:" in p)
    assert not r.verified and r.failure == "actuator_lost_condition"
    assert r.metrics["actuator_lost_condition"] >= 1
    lost = [e for e in r.transcript if e.role == "update"]
    assert lost and all(e.ok is False and "Final condition" in e.verdict for e in lost)


def test_llm_actuator_with_a_perfect_model_solves_and_counts_roles():
    fn = PerfectActuator(relaxed_task(standard_task()), FIGURE)
    llm, _ = llm_for(fn)
    r = solve(standard_task(), llm, Config(actuator="llm"))
    assert r.verified and r.failure is None
    roles = r.metrics["calls_by_role"]
    assert roles["decompose"] == 2 and roles["update"] == 4
    assert roles["judge"] >= 4 and roles["holds"] >= 1
    assert r.llm_calls == sum(roles.values())


@pytest.mark.parametrize("answer, verdict", [
    ("1. red is on blue\nDecision: executable", Verdict.EXECUTABLE),
    ("Decision: not executable, red is not clear", Verdict.BLOCKED),
    ("4. Decision result: Unnecessary, already there", Verdict.ACHIEVED),
    ("no idea", None),
])
def test_reading_verdicts(answer, verdict):
    assert read_verdict(answer) == verdict


@pytest.mark.parametrize("settings, match", [
    ({"actuator": "llm", "decomposer": "regression"}, "true state"),
    ({"actuator": "llm", "condition": "on_conflict"}, "condition=always"),
    ({"action_space": "towers"}, "action_space"),
    ({"max_iter": 0}, "at least 1"),
])
def test_bad_settings_are_config_errors(settings, match):
    llm, _ = llm_for(lambda req: "")
    with pytest.raises(ConfigError, match=match):
        solve(standard_task(), llm, Config(**settings))


def _instance(data_dir, name, dataset="blocksworld_hard"):
    from veriplan.bench.datasets import load_dataset

    return next(i for i in load_dataset(dataset, data_dir).instances if i.id == name)


def test_perfect_decomposer_meets_the_papers_framework_limit(data_dir):
    """instance-41: the goal-only decomposition puts c down, undoing (on c b);
    the framework cannot recover. Seeing the condition on conflict fixes it."""
    task = _instance(data_dir, "instance-41").task()
    llm, backend = llm_for(lambda req: "")
    paper = solve(task, llm, Config(decomposer="regression"))
    assert not paper.verified and paper.failure == "goal_conflict"
    assert any("(on c b)" in u["undoes"] for u in paper.metrics["undos"])
    fixed = solve(task, llm, Config(decomposer="regression", condition="on_conflict"))
    assert fixed.verified and fixed.solved_by == "decomposer:regression"
    assert fixed.metrics["conflicts"]
    assert not backend.requests  # no model involved


def test_perfect_decomposer_in_the_four_action_space(data_dir):
    from veriplan.pddl.task import load_task

    base = data_dir / "planbench" / "instances" / "blocksworld"
    task = load_task(base / "generated_domain.pddl", base / "generated_basic_3" / "instance-1.pddl")
    llm, _ = llm_for(lambda req: "")
    r = solve(task, llm, Config(decomposer="regression", action_space="standard",
                                condition="always"))
    assert r.verified and r.plan[0] == "(unstack c b)"


@pytest.mark.parametrize("answer, expected", [
    ("block a is on b: yes\nblock c on d: no\nAnswer: no", False),
    ("Answer: Yes", True),
    ("yes, they hold", True),
    ("maybe", None),
])
def test_reading_goal_checks(answer, expected):
    from veriplan.methods.drip.actuators import read_yes_no

    assert read_yes_no(answer) is expected


def test_a_goal_fact_the_decomposer_never_names_is_its_own_category():
    table = {GOAL: "stack red orange"}  # "yellow on red" is left out
    llm, _ = llm_for(table_decomposer(table))
    r = solve(standard_task(), llm)
    assert not r.verified and r.failure == "incomplete_decomposition"
    assert r.metrics["untargeted_goals"] == ["(on yellow red)"]
