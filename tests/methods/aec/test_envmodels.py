"""AEC's models of the built-in environments: the household goal reader, and
the adapters to the environment side's rules and action models."""

from __future__ import annotations

import sys
import types

import pytest

from veriplan.envs.base import Fact
from veriplan.methods.aec import envmodels
from veriplan.methods.aec.domain import FactState, env_model
from veriplan.methods.aec.envmodels import household_goal


def state(*facts):
    return FactState(Fact(p, tuple(a), v) for p, a, v in facts)


@pytest.mark.parametrize("text, task_type, obj, place", [
    ("put a apple in fridge.", "pick_and_place", "apple", "fridge"),
    ("put a clean mug in coffeemachine.", "pick_clean_then_place", "mug", "coffeemachine"),
    ("put a hot bread in garbagecan.", "pick_heat_then_place", "bread", "garbagecan"),
    ("put a cool tomato in countertop.", "pick_cool_then_place", "tomato", "countertop"),
    ("look at bowl under the desklamp.", "look_at_obj_in_light", "bowl", "desklamp"),
    ("put two cellphone in sofa.", "pick_two_obj_and_place", "cellphone", "sofa"),
    ("Your task is to: put a hot bread in garbagecan.", "pick_heat_then_place", "bread",
     "garbagecan"),
])
def test_the_six_task_types_are_read(text, task_type, obj, place):
    g = household_goal(text)
    assert g is not None and (g.task_type, g.obj, g.place) == (task_type, obj, place)


def test_household_goals_are_checked_on_grounded_facts_only():
    hot = household_goal("put a hot bread in garbagecan.")
    placed = ("in", ("bread 1", "garbagecan 1"), True)
    assert not hot.check(state(placed))  # hotness unknown is not satisfied
    assert hot.check(state(placed, ("hot", ("bread 1",), True)))
    two = household_goal("put two cellphone in sofa.")
    assert not two.check(state(("in", ("cellphone 1", "sofa 1"), True),
                               ("in", ("cellphone 2", "sofa 2"), True)))  # not the same sofa
    assert two.check(state(("in", ("cellphone 1", "sofa 1"), True),
                           ("in", ("cellphone 2", "sofa 1"), True)))
    look = household_goal("look at bowl under the desklamp.")
    assert look.check(state(("holds", ("agent", "bowl 2"), True),
                            ("toggled", ("desklamp 1",), True)))
    assert household_goal("make me a sandwich") is None


def test_the_environment_sides_household_rules_are_adapted():
    model = env_model("household")
    names = [r.name for r in model.rules]
    assert "one-receptacle" in names and not any(n.startswith("persist-") for n in names)
    rule = {r.name: r for r in model.rules}
    s = state(("in", ("apple 1", "countertop 1"), True), ("kind", ("fridge 1", "fridge"), True))
    assert rule["one-receptacle"].entails(s, "in", ("apple 1", "fridge 1")) is False
    assert rule["openable-by-kind"].entails(s, "openable", ("fridge 1",)) is True
    assert rule["one-receptacle"].entails(s, "in", ("apple 1", "countertop 1")) is None


def test_the_action_model_adapter_reads_the_environment_sides_models(monkeypatch):
    seen = []

    class Impl:
        static = frozenset({"kind"})

        def preconditions(self, action, facts):
            seen.append(facts)
            return [Fact("at", ("agent", "fridge 1"))] if action == "open fridge 1" else None

        def effects(self, action, facts):
            return {Fact("open", ("fridge 1",))}, {Fact("open", ("fridge 1",), False)}

        def touched(self, action, facts):
            return None if action == "dance" else {("open", ("fridge 1",))}

        def command(self, action):
            return action.replace("put", "move")

    fake = types.ModuleType("veriplan.envs.actions")
    fake.ACTIONS = {"household": Impl()}
    monkeypatch.setitem(sys.modules, "veriplan.envs.actions", fake)
    model = envmodels.env_action_model("household")
    s = state(("at", ("agent", "fridge 1"), True), ("kind", ("fridge 1", "fridge"), True))
    assert model.preconditions("open fridge 1", s) == [Fact("at", ("agent", "fridge 1"))]
    assert model.preconditions("fly", s) is None
    assert model.effects("open fridge 1", s) == [Fact("open", ("fridge 1",))]
    assert seen[0] == frozenset(s.facts())
    assert model.command("put x in y") == "move x in y"
    from veriplan.methods.aec.verifier import may_change

    assert may_change(model, "open fridge 1", s) == {("open", ("fridge 1",))}
    # an action the model cannot bound may change every fact but the static ones
    assert may_change(model, "dance", s) == {("open", ("fridge 1",)),
                                             ("at", ("agent", "fridge 1"))}
    assert envmodels.env_action_model("scienceworld") is None


def test_the_environment_sides_household_action_model_is_adapted():
    model = env_model("household")
    assert model.actions is not None
    s = state(("kind", ("fridge 1", "fridge"), True), ("at", ("agent", "fridge 1"), True))
    pre = model.actions.preconditions("take apple 1 from fridge 1", s)
    assert Fact("in", ("apple 1", "fridge 1")) in pre and Fact("open", ("fridge 1",)) in pre
    assert Fact("at", ("agent", "microwave 1")) in model.actions.effects("go to microwave 1", s)


def test_scienceworld_has_no_symbolic_goal_and_only_its_sound_rules():
    model = env_model("scienceworld")
    assert model.goal_for("Your task is to boil water.") is None
    assert {r.name for r in model.rules} <= {"one-room", "door-both-sides", "at_one_place"}


def test_an_environment_without_a_model_gets_no_verification():
    model = env_model("no-such-env")
    assert model.actions is None and [r.name for r in model.rules] == ["at_one_place"]


def test_a_stated_household_precondition_of_the_wrong_sort_is_dropped():
    """No query could settle cancontain(creditcard, shelf 1) (the arguments
    swapped) or at(creditcard, shelf 1): they are dropped like a wrong arity,
    so they neither cost predictions nor keep V from ever accepting the plan."""
    from veriplan.methods.aec.hypotheses import read_plan

    model = env_model("household")
    item = {"actions": ["go to shelf 1"], "preconditions": [
        {"predicate": "cancontain", "args": ["creditcard 1", "shelf 1"], "value": True},
        {"predicate": "at", "args": ["creditcard 1", "shelf 1"], "value": False},
        {"predicate": "open", "args": ["agent"], "value": True},
        {"predicate": "cancontain", "args": ["shelf 1", "creditcard 1"], "value": True},
        {"predicate": "in", "args": ["apple 1", "mug 1"], "value": False},
        {"predicate": "in", "args": ["apple 1", "gizmo 3"], "value": False}]}
    p = read_plan(item, model.predicates, model.well_formed)
    assert set(p.stated) == {("cancontain", ("shelf 1", "creditcard 1")),
                             ("in", ("apple 1", "mug 1")), ("in", ("apple 1", "gizmo 3"))}
    assert p.dropped == 3
    assert len(read_plan(item, model.predicates).stated) == 6  # without the check


def test_a_stated_scienceworld_precondition_no_query_can_settle_is_dropped():
    """in(agent, bathroom) (the household's way to say where the agent is) and a
    place that is neither a room nor the inventory can never be grounded in
    ScienceWorld: dropped before they cost a query."""
    from veriplan.methods.aec.hypotheses import read_plan

    model = env_model("scienceworld")
    item = {"actions": ["go to kitchen"], "preconditions": [
        {"predicate": "in", "args": ["agent", "bathroom"], "value": True},
        {"predicate": "at", "args": ["agent", "bathroom"], "value": True},
        {"predicate": "at", "args": ["agent", "fridge"], "value": False},
        {"predicate": "in", "args": ["water", "metal pot"], "value": True},
        {"predicate": "in", "args": ["thermometer", "inventory"], "value": True},
        {"predicate": "open", "args": ["door to kitchen", "bathroom"], "value": True},
        {"predicate": "open", "args": ["fridge", "fridge"], "value": True}]}
    p = read_plan(item, model.predicates, model.well_formed)
    assert set(p.stated) == {("at", ("agent", "bathroom")),
                             ("in", ("thermometer", "inventory")),
                             ("open", ("door to kitchen", "bathroom"))}
    assert p.dropped == 4
