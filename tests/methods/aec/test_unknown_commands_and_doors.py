"""Issue 33, two known AEC defects on ScienceWorld (no engine here):

- V stopped at a command the action model does not know, before the goal
  check, so a wrong focus next to such a command was not refuted (unknown
  instead of invalid). Now V goes on past it with what it may change
  forgotten: everything but the agent's focus, which only "focus on X" and
  "reset task" write in the engine.
- Opening the door to R forgot every room's "door to R" fact, not only the
  two sides of the door opened.
"""

from __future__ import annotations

import pytest

from veriplan.core.verdict import FindingKind, Verdict
from veriplan.envs.actions import ScienceWorldActions, advance
from veriplan.envs.base import Fact
from veriplan.methods.aec.domain import FactState
from veriplan.methods.aec.envmodels import household, scienceworld
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import Hypothesis
from veriplan.methods.aec.verifier import verify

PAINT = ("Your task is to use chemistry to create violet paint. When you are done, focus on "
         "the violet paint.")


@pytest.fixture(scope="module")
def sw():
    m = scienceworld()
    return m, m.goal_for(PAINT), RuleBook(m.rules, persistent=m.persistent)


@pytest.mark.parametrize("acts", [
    ("drop unknown substance", "focus on stopwatch"),
    ("focus on stopwatch", "drop unknown substance"),
    ("focus on stopwatch", "drop unknown substance", "look around"),
    ("look around", "drop unknown substance", "focus on stopwatch", "frobnicate the thing"),
])
def test_v_refutes_a_wrong_focus_beside_a_command_the_model_does_not_know(sw, acts):
    m, goal, rules = sw
    assert m.actions.preconditions("drop unknown substance", FactState()) is None  # unknown
    v = verify(Hypothesis(acts, {}), FactState(), rules, m.actions, goal)
    assert v.verdict is Verdict.INVALID, (acts, v.reason)
    assert any(f.kind is FindingKind.GOAL for f in v.findings)


@pytest.mark.parametrize("acts", [
    ("drop unknown substance", "focus on violet paint"),
    ("focus on violet paint", "drop unknown substance"),
    # "reset task" clears the engine's focus monitor: the wrong focus before it is
    # not certain to count, so V must not refute on it (nor accept)
    ("focus on stopwatch", "reset task", "focus on violet paint"),
])
def test_v_never_accepts_past_an_unknown_command_nor_refutes_what_it_may_undo(sw, acts):
    m, goal, rules = sw
    v = verify(Hypothesis(acts, {}), FactState(), rules, m.actions, goal)
    assert v.verdict is Verdict.UNKNOWN and v.uncheckable, (acts, v.reason)
    assert not v.ok


def test_a_need_after_an_unknown_command_is_not_taken_from_before_it(sw):
    """What the unknown command may change is forgotten: the door grounded open
    before it does not make "go to bedroom" after it checkable (nor refuted)."""
    m, _, rules = sw
    w = FactState()
    w.set(("at", ("agent", "hallway")), True)
    w.set(("open", ("door to bedroom", "hallway")), False)
    v = verify(Hypothesis(("frobnicate cup", "go to bedroom"), {}), w, rules, m.actions, None)
    assert v.verdict is Verdict.UNKNOWN and not v.contradicted
    # without the unknown command, the grounded closed door refutes the plan
    v = verify(Hypothesis(("go to bedroom",), {}), w, rules, m.actions, None)
    assert v.verdict is Verdict.INVALID


def test_household_still_refuses_a_command_of_no_known_form():
    m = household()
    rules = RuleBook(m.rules, persistent=m.persistent)
    v = verify(Hypothesis(("dance with fridge 1",), {}), FactState(), rules, m.actions, None)
    assert v.verdict is Verdict.INVALID
    assert [f.kind for f in v.findings] == [FindingKind.UNKNOWN_ACTION]


def test_the_stores_keep_a_focus_over_an_unknown_command_but_not_over_reset_task():
    model = ScienceWorldActions()
    focus = Fact("focus", ("stopwatch",))
    here = Fact("at", ("agent", "kitchen"))
    assert ("focus", ("stopwatch",)) not in model.touched("drop stopwatch", {focus, here})
    assert ("at", ("agent", "kitchen")) in model.touched("drop stopwatch", {focus, here})
    assert model.touched("reset task", {focus, here}) is None
    kept = advance("scienceworld", {focus, here}, "drop stopwatch", set())
    assert focus in kept and here not in kept


DOORS = {Fact("at", ("agent", "hallway")),
         Fact("open", ("door to kitchen", "hallway"), False),
         Fact("open", ("door to hallway", "kitchen"), False),
         Fact("open", ("door to kitchen", "outside"), False),   # another door to the kitchen
         Fact("open", ("door to greenhouse", "hallway"), True)}


@pytest.mark.parametrize("verb", ["open", "close"])
def test_a_door_changes_only_its_own_two_sides(verb):
    model = ScienceWorldActions()
    touched = model.touched(f"{verb} door to kitchen", DOORS)
    assert ("open", ("door to kitchen", "hallway")) in touched
    assert ("open", ("door to hallway", "kitchen")) in touched      # the same door from R
    assert ("open", ("door to kitchen", "outside")) not in touched  # the outside's own door
    assert ("open", ("door to greenhouse", "hallway")) not in touched


def test_the_grounded_store_keeps_another_rooms_door_to_the_same_room():
    opened = Fact("open", ("door to kitchen", "hallway"))
    kept = advance("scienceworld", DOORS, "open door to kitchen",
                   {Fact("at", ("agent", "hallway")), opened})
    assert Fact("open", ("door to kitchen", "outside"), False) in kept
    assert opened in kept
    assert not any(f.args == ("door to hallway", "kitchen") for f in kept)  # forgotten


def test_a_door_named_where_the_agents_room_is_unknown_forgets_every_open_state():
    model = ScienceWorldActions()
    doors = {f for f in DOORS if f.pred == "open"}
    touched = model.touched("open door to kitchen", doors)
    assert {("open", f.args) for f in doors} <= touched
