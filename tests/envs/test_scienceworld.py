"""ScienceWorld through the common interface (the real Java engine)."""

from __future__ import annotations

import pytest

from veriplan.envs.check import replay
from veriplan.errors import ConfigError, VeriplanError


def test_gold_path_is_won_and_the_grounder_is_never_contradicted(sciworld):
    ep = replay(sciworld, "find-living-thing:0")
    assert ep.won and ep.contradicted == [] and ep.facts > 0
    assert sciworld.score == 100.0  # the engine's score after the last step
    sciworld.reset("find-living-thing:0")
    assert sciworld.score == 0.0


def test_same_task_same_actions_same_observations(sciworld):
    actions = ["look around", "open door to kitchen", "go to kitchen", "look around"]
    runs = []
    for _ in range(2):
        texts = [sciworld.reset("boil:0").text]
        texts += [sciworld.step(a).observation.text for a in actions]
        runs.append(texts)
    assert runs[0] == runs[1]


def test_parallel_environments_share_nothing(sciworld):
    from veriplan.envs import make_env

    other = make_env("scienceworld")
    try:
        sciworld.reset("boil:0")
        first = other.reset("melt:1").text
        sciworld.step("open door to kitchen")
        sciworld.step("go to kitchen")
        assert other.step("look around").observation.text.split("\n")[0] == \
            first.split("\n")[0]
    finally:
        other.close()


def test_query_open_costs_a_step(sciworld):
    sciworld.reset("boil:0")
    sciworld.step("open door to kitchen")
    sciworld.step("go to kitchen")
    before = sciworld.steps
    q = sciworld.query("open", "fridge")
    assert q.value is False and q.steps == 1 and sciworld.steps == before + 1


def test_seen_and_unseen_splits(sciworld):
    seen, unseen = sciworld.split("seen"), sciworld.split("unseen")
    assert seen and unseen and not set(seen) & set(unseen)
    with pytest.raises(ConfigError, match="train, seen or unseen"):
        sciworld.split("holdout")
    with pytest.raises(ConfigError, match="TASK:VARIATION"):
        sciworld.reset("juggling:0")


def test_missing_java_says_how_to_install_it(monkeypatch):
    import veriplan.envs.scienceworld as sw

    monkeypatch.setattr(sw.shutil, "which", lambda name: None)
    with pytest.raises(VeriplanError, match="apt-get install default-jre-headless"):
        sw.ScienceWorld()


def test_query_in_another_room_looks_at_it_from_here(sciworld):
    # boil:0 starts in the hallway; the kitchen is next door (its door closed), and
    # "look at kitchen" lists it without moving the agent
    sciworld.reset("boil:0")
    q = sciworld.query("in", "fridge", "kitchen")
    assert q.value is True and q.steps == 1 and q.actions == ("look at kitchen",)
    assert sciworld.query("at", "agent", "hallway").value is True  # the agent stayed
    q = sciworld.query("in", "no such thing", "kitchen")  # absence is not evidence
    assert q.value is None and q.steps == 1
    q = sciworld.query("in", "fridge", "foundry")  # not in view from the hallway
    assert q.value is None and q.steps == 0
