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


# ----- a refused "go to R" (issue 33) ---------------------------------------------------
# 1.2.3 answers "go to R" from the first door of the agent's room whose other side is R:
# closed, "The door is not open." (naming no door); locked, "The door is locked."; no
# such door, "It's not clear how to get there from here."; a room it cannot see, "No
# known action matches that input."

def _grounder(room: str):
    """The grounder alone (no engine: a refusal's text needs none), in ``room``."""
    from veriplan.envs.scienceworld import ScienceWorld

    env = ScienceWorld.__new__(ScienceWorld)
    env._room, env._shared = room, set()
    return env


def test_a_go_to_refused_for_a_closed_door_grounds_that_door_closed():
    from veriplan.envs.base import Fact

    env = _grounder("kitchen")
    assert env.ground("The door is not open.", "go to outside") == \
        {Fact("open", ("door to outside", "kitchen"), False)}
    assert env.ground("The door is not open.\n", " go to living room ") == \
        {Fact("open", ("door to living room", "kitchen"), False)}


@pytest.mark.parametrize(("text", "action"), [
    ("The door is locked.", "go to outside"),                     # locked: not said closed
    ("It's not clear how to get there from here.", "go to kitchen"),  # its own room
    ("It's not clear how to get there from here.", "go to foundry"),
    ("No known action matches that input.", "go to foundry"),
    ("The door is not open.", "go to kitchen"),                   # names no other room
    ("The door is not open.", "go to door to outside"),           # no room
    ("The door is not open.", "go to fridge"),
    ("The door is not open.", "0"),                               # a choice: which action?
    ("The door is not open.", "look at outside"),
    ("The door is not open.", None),
])
def test_no_other_text_or_action_grounds_a_door(text, action):
    assert not {f for f in _grounder("kitchen").ground(text, action)
                if f.pred == "open"}


def test_the_refused_moves_door_fact_agrees_with_the_engine(sciworld):
    """boil:0 starts in the hallway, every door closed. The kitchen's door to
    outside is never described before the refusal ("You move to the kitchen."
    describes nothing), so the refusal is the only word on it; the engine's own
    door states (``true_doors``, read from its objects) agree, and the store
    check's comparison checks the fact against them."""
    from veriplan.envs.actions import ACTIONS
    from veriplan.envs.base import Fact

    sciworld.reset("boil:0")
    sciworld.step("open door to kitchen")
    assert sciworld.step("go to kitchen").observation.text == "You move to the kitchen."
    closed = Fact("open", ("door to outside", "kitchen"), False)
    assert closed not in sciworld.grounded
    result = sciworld.step("go to outside")
    assert result.observation.text == "The door is not open."
    assert ACTIONS["scienceworld"].failed(result.observation.text)  # a refusal: nothing changed
    assert result.observation.facts == {closed} and closed in sciworld.grounded
    truth = sciworld.true_facts() | sciworld.true_doors()
    assert closed in truth and sciworld.contradicted({closed}, truth) == []
    assert sciworld.contradicted(sciworld.grounded, truth) == []
    # the comparison can fail: the other state of the door, and a door opened since
    wrong = Fact("open", ("door to outside", "kitchen"), True)
    assert sciworld.contradicted({wrong}, truth) == [wrong]
    sciworld.step("open door to outside")
    assert sciworld.contradicted({closed}, sciworld.true_doors()) == [closed]


def test_the_engines_door_states_are_what_a_look_describes(sciworld):
    """``true_doors`` names doors as the grounder does: the doors each look
    around describes, in the rooms of a walk, are in it with their states."""
    from veriplan.envs.base import Fact

    sciworld.reset("boil:0")
    looks = 0
    for action in ("look around", "open door to kitchen", "go to kitchen", "look around",
                   "open door to outside", "go to outside", "look around"):
        doors = {f for f in sciworld.step(action).observation.facts
                 if f.pred == "open" and f.args[0].startswith("door to ")}
        if action == "look around":
            looks += 1
            assert doors and doors <= sciworld.true_doors(), action
    assert looks == 3
    assert Fact("open", ("door to kitchen", "outside"), True) in sciworld.true_doors()


# ----- one door, two names (issue 33) --------------------------------------------------
# "door to kitchen" seen from the hallway and "door to hallway" seen from the kitchen are
# one door (true_doors: the engine's portals). Only the agent's "open/close door to R"
# changes a door (1.2.3's ActionOpenDoor and ActionCloseDoor; the open-doors
# simplification at load), and the action model forgets the other side's fact when it
# does, so a store cannot keep a stale "closed" about the side the agent is not on.

@pytest.mark.parametrize("seen", ["look around", "go to hallway"])
def test_a_door_opened_from_one_side_leaves_no_stale_fact_of_the_other(sciworld, seen):
    """boil:0, every door closed, starts in the hallway. Round the loop hallway ->
    greenhouse -> outside -> kitchen (opening those doors), see the kitchen's door
    to the hallway closed (a look, or a refused move), walk back round (no door
    opened on the way), open it from the hallway. Both stores (the environment's
    and AEC's w, with what the rules derive from it) held the kitchen side's
    "closed" until then, and afterwards the engine contradicts neither; the
    same step with the other-side drop taken out of the action model keeps it."""
    from veriplan.envs.actions import ScienceWorldActions, advance
    from veriplan.envs.base import EnvTask, Fact
    from veriplan.envs.rules import derive, entails, rules_for
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.aec.config import AgentConfig
    from veriplan.methods.aec.controller import Policy
    from veriplan.methods.aec.episode import Agent, guard

    agent = Agent("door-sides", EnvTask("scienceworld", "boil:0"), LLM(ScriptedBackend()),
                  AgentConfig(), Policy())
    agent.env = sciworld
    agent.start(sciworld)
    rules = rules_for("scienceworld")

    def step(action: str):
        changed = agent.touched_by([action])
        result = guard(sciworld.step, action)
        agent.after_step(result, changed)
        return result

    for a in ("open door to greenhouse", "go to greenhouse", "open door to outside",
              "go to outside", "open door to kitchen", "go to kitchen"):
        step(a)
    step(seen)
    stale = Fact("open", ("door to hallway", "kitchen"), False)
    for a in ("go to outside", "go to greenhouse", "go to hallway"):
        assert step(a).observation.text.startswith("You move to")
    assert stale in sciworld.grounded and stale in agent.w.facts()  # the case is provoked
    before = sciworld.grounded
    opened = step("open door to kitchen")
    assert opened.observation.text == "The door is now open."
    truth = sciworld.true_facts() | sciworld.true_doors()
    assert Fact("open", ("door to hallway", "kitchen"), True) in truth  # one door
    w = set(agent.w.facts())
    assert stale not in sciworld.grounded and stale not in w
    assert sciworld.contradicted(sciworld.grounded, truth) == []
    assert sciworld.contradicted(w | set(derive(w, rules)), truth) == []
    other = Fact("open", ("door to hallway", "kitchen"), True)
    assert entails(sciworld.grounded, other, rules).name == "door-both-sides"

    # the comparison can fail: the same step, one side forgotten only
    touched = ScienceWorldActions.touched
    one_side = lambda self, action, facts: touched(self, action, facts) - {  # noqa: E731
        ("open", ("door to hallway", "kitchen"))}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ScienceWorldActions, "touched", one_side)
        kept = advance("scienceworld", before, "open door to kitchen", opened.observation)
    assert sciworld.contradicted(kept, truth) == [stale]
