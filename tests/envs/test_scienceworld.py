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


# boil:0 starts in the hallway, every door closed; each action with whether the
# engine refuses it (the message it answers with, as 1.2.3 words it, in the comment)
_STEPS = [
    ("open door to kitchen", False),   # The door is now open.
    ("open door to kitchen", True),    # The door is already open.
    ("go to bedroom", True),           # The door is not open.
    ("go to hallway", True),           # It's not clear how to get there from here.
    ("activate agent", True),          # The agent is not something that can be activated.
    ("pick up agent", True),           # The agent is not moveable.
    ("open agent", True),              # The agent is not openable.
    ("eat agent", True),               # The agent is not edible.
    ("read agent", True),              # It's not clear how to read that.
    ("mix air", True),                 # That container is empty, so there are no items to mix.
    ("mix agent", True),               # There is only one thing (inventory)
    ("xyzzy", True),                   # No known action matches that input.
    ("open door", True),               # Ambiguous request: ... (cancelled)
    ("go to kitchen", False),          # You move to the kitchen.  (not taken as a choice)
    ("look in fridge", True),          # The fridge isn't open, so you can't see inside.
    ("open fridge", False),            # The fridge is now open.
    ("close fridge", False),           # The fridge is now closed.
    ("close fridge", True),            # The fridge is already closed.
    ("activate stove", False),         # The stove is now activated.
    ("activate stove", True),          # The stove is already activated.
    ("deactivate stove", False),       # The stove is now deactivated.
    ("deactivate stove", True),        # The stove is already deactivated.
    ("open cupboard", False),          # The cupboard is now open.
    ("look in cupboard", False),       # Inside the cupboard is: ...
    ("pick up metal pot", False),      # You move the metal pot to the inventory.
    ("move metal pot to metal pot", True),  # You can't move something into itself.
    ("mix metal pot", True),           # That container is empty, so ...
    ("move sink to chair", True),      # The sink is not moveable.
    ("dunk metal pot in sink", True),  # The sink does not contain any liquids to dunk into.
    ("move metal pot to chair", False),  # You move the metal pot to the chair.
    ("look in metal pot", False),      # Inside the metal pot is: nothing
]


def test_the_engines_refusals_are_failures_and_nothing_else_is(sciworld):
    """The action model's ``failed`` (which keeps the grounded store as it was)
    and AEC's execution monitor read each refusal of the real engine as a failed
    action, and no successful step as one; an ambiguous command is cancelled, so
    the next command is carried out."""
    from veriplan.envs.actions import ACTIONS
    from veriplan.methods.aec.envmodels import scienceworld
    from veriplan.methods.aec.episode import failed

    model = scienceworld()
    sciworld.reset("boil:0")
    seen = []
    for action, _ in _STEPS:
        result = sciworld.step(action)
        text = result.observation.text
        seen.append((action, text[:60], ACTIONS["scienceworld"].failed(text),
                     failed(result, model)))
    assert [(a, t, r, r) for (a, t, _, _), (_, r) in zip(seen, _STEPS, strict=True)] == seen
    assert sciworld.query("at", "agent", "kitchen").value is True


def test_an_ambiguous_command_can_be_answered_with_a_number(sciworld):
    """Gold paths answer the engine's question with the action's number."""
    sciworld.reset("boil:0")
    assert sciworld.step("open door").observation.text.startswith("Ambiguous request:")
    assert sciworld.step("0").observation.text == "The door is now open."


@pytest.mark.parametrize("check", ["replay", "replay_models"])
def test_env_check_plays_the_gold_path_of_the_world_it_loaded(sciworld, monkeypatch, check):
    """`veriplan env check` once took the gold path from one load and played it in
    the world of another (the engine may draw another world at each load): both
    checks now load once, at the reset, and play that load's path."""
    from veriplan.envs import check as checks

    engine, golds = sciworld._env, []
    load = engine.load

    def spy_load(*args, **kwargs):
        load(*args, **kwargs)
        golds.append(list(engine.get_gold_action_sequence()))

    monkeypatch.setattr(engine, "load", spy_load)
    r = getattr(checks, check)(sciworld, "find-non-living-thing:225")
    assert len(golds) == 1 and r.steps == len(golds[0])
