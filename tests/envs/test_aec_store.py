"""AEC's own grounded store w against the simulators (issue 30, part 4): fed by
the agent's code along gold paths and walkthroughs, w never holds a fact the
simulator's state contradicts, and facts without a frame rule (ScienceWorld's
``in``) do not outlive the step after their observation. A sample here; the
whole sweep is ``veriplan aec check-store`` (docs/RESULTS.md)."""

from __future__ import annotations

import pytest

from veriplan.envs.base import Fact
from veriplan.methods.aec.storecheck import replay_store

SCIENCEWORLD = ("chemistry-mix:24", "find-living-thing:225")
HOUSEHOLD = ("eval/pick_heat_then_place/0", "eval/pick_two_obj_and_place/1")


@pytest.mark.parametrize("task_id", SCIENCEWORLD)
def test_scienceworld_gold_paths_never_contradict_aecs_w(sciworld, task_id):
    r = replay_store(sciworld, task_id)
    assert r.won and r.steps > 0 and r.facts > 0 and not r.problem
    assert r.contradicted == []


@pytest.mark.parametrize("game", HOUSEHOLD)
def test_household_walkthroughs_never_contradict_aecs_w(household, game):
    r = replay_store(household, game)
    assert r.won and r.facts > 0 and r.derived > 0 and not r.problem
    assert r.contradicted == []


def test_an_in_fact_of_scienceworld_lasts_one_observation_in_aecs_w(sciworld):
    """What the first look listed is gone from w after a step that shows no
    listing, as from the environment's own store; the agent's room stays."""
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.aec.config import AgentConfig
    from veriplan.methods.aec.controller import Policy
    from veriplan.methods.aec.episode import Agent
    from veriplan.methods.aec.storecheck import EnvTask

    agent = Agent("t", EnvTask("scienceworld", "boil:21"), LLM(ScriptedBackend()),
                  AgentConfig(), Policy())
    agent.env = sciworld
    agent.start(sciworld)
    listed = [f for f in agent.w.facts() if f.pred == "in" and f.value]
    assert listed
    changed = agent.touched_by(["wait1"])
    agent.after_step(sciworld.step("wait1"), changed)
    assert not [f for f in agent.w.facts() if f.pred == "in"]
    assert not [f for f in sciworld.grounded if f.pred == "in"]
    room = next(f for f in sciworld.grounded if f.pred == "at")
    assert agent.w.value(("at", room.args)) is True and isinstance(room, Fact)


def test_the_check_sees_a_store_that_keeps_facts_past_their_frame(sciworld):
    """The store as it was before issue 30 (every fact kept until the agent's own
    action may change it) is contradicted on a gold path: the animal picked up and
    moved on is still "in" the room it was seen in."""
    r = replay_store(sciworld, "find-living-thing:225", frame_rules=False)
    assert r.won and r.contradicted
    assert all("(in " in c for c in r.contradicted)


@pytest.mark.parametrize("task_id", (*SCIENCEWORLD, "melt:21"))
def test_v_never_refutes_a_scienceworld_gold_path(sciworld, task_id):
    """The whole gold path, from the first observation's w: V cannot call it
    valid (nothing makes a ScienceWorld plan valid), and must not call it
    invalid (its focus steps are the task's; `examine` and the `0` that answers
    an ambiguous request are commands the model has no form for, not refusals)."""
    from veriplan.core.verdict import Verdict
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.aec.config import AgentConfig
    from veriplan.methods.aec.controller import Policy
    from veriplan.methods.aec.episode import Agent
    from veriplan.methods.aec.hypotheses import build, read_plan
    from veriplan.methods.aec.storecheck import EnvTask
    from veriplan.methods.aec.verifier import verify

    path = sciworld.gold_path(task_id)
    agent = Agent("v", EnvTask("scienceworld", task_id), LLM(ScriptedBackend()),
                  AgentConfig(), Policy())
    sciworld.max_steps = max(sciworld.max_steps, len(path) + 1)
    agent.env = sciworld
    agent.start(sciworld)
    m = agent.model
    (h,) = build([read_plan({"actions": path}, m.predicates)], agent.w, agent.rules, m)
    v = verify(h, agent.w.state, agent.rules, m.actions, m.goal_for(sciworld.task_description))
    assert v.verdict is Verdict.UNKNOWN and v.uncheckable, [str(f) for f in v.findings][:3]


def test_a_replay_loads_its_task_once_and_plays_the_gold_path_of_that_load(sciworld,
                                                                            monkeypatch):
    """The engine draws a variation's world anew at each load (from state its
    earlier calls left: which animals are outside, and the gold path with
    them), so the replay on this reused simulator loads the task once, at the
    reset, and plays that load's gold path, a step per engine step."""
    engine, played, golds = sciworld._env, [], []
    load, step = engine.load, type(sciworld)._engine_step

    def spy_load(*args, **kwargs):
        load(*args, **kwargs)
        golds.append(list(engine.get_gold_action_sequence()))

    def spy_step(self, action):
        played.append(action)
        return step(self, action)

    monkeypatch.setattr(engine, "load", spy_load)
    monkeypatch.setattr(type(sciworld), "_engine_step", spy_step)
    r = replay_store(sciworld, "find-non-living-thing:225")
    assert r.won and r.steps > 0 and not r.problem and r.contradicted == []
    assert len(golds) == 1 and played == ["look around", *golds[0]]
