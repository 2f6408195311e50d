"""Query macro-actions answer only what the observation supports (unknown
otherwise), and every answer agrees with the simulator's state."""

from __future__ import annotations

import pytest

from veriplan.envs.base import Fact
from veriplan.envs.household import grounder

A = "agent"


def F(pred, *args, value=True):
    return Fact(pred, tuple(args), value)


@pytest.mark.parametrize("text, facts, absent", [
    # the last item of a listing comes after ", and"
    ("You arrive at garbagecan 1. On the garbagecan 1, you see a egg 2, and a potato 1.",
     {F("at", A, "garbagecan 1"), F("in", "egg 2", "garbagecan 1"),
      F("in", "potato 1", "garbagecan 1"), F("openable", "garbagecan 1", value=False)}, set()),
    ("You arrive at fridge 1. The fridge 1 is closed.",
     {F("open", "fridge 1", value=False), F("openable", "fridge 1")}, set()),
    ("You pick up the mug 1 from the countertop 2.",
     {F("holds", A, "mug 1"), F("handempty", A, value=False)}, set()),
    ("You are carrying: a statue 1.", {F("holds", A, "statue 1"), F("handempty", A, value=False)},
     set()),
    ("You are not carrying anything.", {F("handempty", A)}, set()),
    ("This is a hot and clean apple 1.", {F("hot", "apple 1"), F("clean", "apple 1")},
     {F("hot", "apple 1", value=False), F("cool", "apple 1", value=False)}),
    ("This is a cold apple 1.", {F("cool", "apple 1"), F("hot", "apple 1", value=False),
                                 F("clean", "apple 1", value=False)}, set()),
    ("There's nothing special about statue 1.", {F("hot", "statue 1", value=False),
                                                  F("toggled", "statue 1", value=False)}, set()),
    ("You are facing the diningtable 1. Next to it, you see nothing.",
     {F("at", A, "diningtable 1")}, set()),
    ("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly "
     "around you, you see a cabinet 1, a sinkbasin 1, and a toaster 1.\n\nYour task is to: x.",
     {F("kind", "cabinet 1", "cabinet"), F("kind", "toaster 1", "toaster"),
      F("at", A, "sinkbasin 1", value=False)}, set()),
    # a listing that does not read to its end asserts nothing about its items
    ("On the desk 1, you see a pen 1, and some glue.", set(), {F("in", "pen 1", "desk 1")}),
])
def test_the_household_grounder_reads_what_the_text_says(text, facts, absent):
    got = grounder.ground(text)
    assert facts <= got and not absent & got


def _check(env, q):
    """The answer and the facts grounded on the way agree with the simulator."""
    assert env.contradicted(q.facts) == [], q
    if q.value is not None:
        assert q.facts and env.steps >= q.steps


def test_household_queries_answer_only_what_the_text_supports(household):
    env = household
    env.reset("eval/pick_heat_then_place/0")  # bread in garbagecan; a closed fridge, ...
    # a receptacle that cannot be opened has no open state: unknown, never a guess
    q = env.query("open", "countertop 1")
    assert q.value is None and q.steps == 1 and F("openable", "countertop 1", value=False) in \
        q.facts
    _check(env, q)
    q = env.query("open", "fridge 1")
    assert q.value is False
    _check(env, q)
    garbage = grounder.listings(env.step("go to garbagecan 1").observation.text)["garbagecan 1"]
    last = garbage[-1]  # listed after ", and"
    for obj, expected in ((last, True), ("apple 9", False)):
        q = env.query("in", obj, "garbagecan 1")
        assert q.value is expected and q.actions == ("examine garbagecan 1",)
        _check(env, q)
    q = env.query("in", "lettuce 1", "fridge 1")  # goes, opens the fridge, reads the listing
    assert q.actions == ("go to fridge 1", "open fridge 1") and q.value is not None
    assert (F("in", "lettuce 1", "fridge 1") in env.true_facts()) is q.value
    assert F("open", "fridge 1", value=False) not in q.facts  # later steps win
    _check(env, q)
    for pred, args in (("at", ("fridge 1",)), ("at", (A, "sinkbasin 1")), ("handempty", ()),
                       ("holds", (A, last)), ("openable", ("fridge 1",))):
        q = env.query(pred, *args)
        assert q.value is not None, (pred, args)
        _check(env, q)
    q = env.query("hot", "bread 9")  # never seen: nowhere to look
    assert q.value is None and q.steps == 0
    assert env.query("slice", "bread 1").value is None  # not queryable: no steps
    assert env.contradicted(env.grounded) == []


def _agrees(env, q, asked):
    """A type-level answer agrees with the simulator (whose state is complete:
    a fact it lacks is false), and so does everything grounded on the way."""
    _check(env, q)
    if q.value is not None:
        assert (asked in env.true_facts()) is q.value, (asked, q)


def test_household_type_level_queries_read_the_games_admissible_commands(household):
    env = household
    env.reset("eval/look_at_obj_in_light/0")  # a statue on diningtable 1, a floorlamp on sofa 1
    # kind: from the name once the game has shown the thing (no steps); a receptacle name
    # the room's listing lacks names nothing; an object never seen is unknown
    for args, expected in ((("sofa 1", "sofa"), True), (("sofa 1", "armchair"), False),
                           (("fridge 9", "fridge"), False), (("statue 1", "statue"), None)):
        q = env.query("kind", *args)
        assert q.value is expected and q.steps == 0, args
        _agrees(env, q, F("kind", *args))
    # nothing known about where the statue is: nowhere to look, no steps
    for pred in ("pickupable", "toggleable", "heatable"):
        q = env.query(pred, "statue 1")
        assert q.value is None and q.steps == 0, pred
    env.step("go to sofa 1")
    q = env.query("pickupable", "floorlamp 1")  # the hand is checked first: inventory
    assert q.value is False and q.actions == ("inventory", "examine sofa 1")
    _agrees(env, q, F("pickupable", "floorlamp 1"))
    q = env.query("toggleable", "floorlamp 1")
    assert q.value is True
    _agrees(env, q, F("toggleable", "floorlamp 1"))
    env.step("go to diningtable 1")
    assert env.query("kind", "statue 1", "statue").value is True  # seen now
    for pred, expected in (("pickupable", True), ("toggleable", False)):
        q = env.query(pred, "statue 1")
        assert q.value is expected and q.actions == ("examine diningtable 1",), pred
        _agrees(env, q, F(pred, "statue 1"))
    env.step("take statue 1 from diningtable 1")
    assert env.query("pickupable", "statue 1").steps == 0  # held: it was taken
    q = env.query("heatable", "statue 1")  # no microwave in this room: unknown
    assert q.value is None and q.steps == 0
    for r in ("sofa 1", "diningtable 2"):  # goes there with the statue, reads the commands
        q = env.query("cancontain", r, "statue 1")
        assert q.value is not None and q.actions == (f"go to {r}",)
        _agrees(env, q, F("cancontain", r, "statue 1"))
    assert env.contradicted(env.grounded) == []


def test_household_abilities_are_queried_at_a_station_with_the_object_at_hand(household):
    env = household
    env.reset("eval/pick_heat_then_place/0")  # bread 1 on countertop 3, a microwave 1
    assert env.query("heatable", "bread 1").value is None  # not at hand
    for cmd in ("go to countertop 3", "take bread 1 from countertop 3"):
        env.step(cmd)
    q = env.query("heatable", "bread 1")
    assert q.value is True and q.actions == ("go to microwave 1",)
    _agrees(env, q, F("heatable", "bread 1"))
    for pred in ("coolable", "cleanable"):
        q = env.query(pred, "bread 1")
        _agrees(env, q, F(pred, "bread 1"))
    q = env.query("cancontain", "microwave 1", "bread 1")  # closed: opened to read
    assert q.actions[-1] == "open microwave 1"
    _agrees(env, q, F("cancontain", "microwave 1", "bread 1"))
    env.step("heat bread 1 with microwave 1")
    assert env.query("heatable", "bread 1").steps == 0  # hot: only heating does that
    assert env.contradicted(env.grounded) == []


def test_scienceworld_queries(sciworld):
    env = sciworld
    env.reset("find-non-living-thing:225")  # the art studio
    q = env.query("at", "art studio")
    assert q.value is True and q.steps == 1
    q = env.query("open", "large cupboard")
    assert q.value is False and F("open", "large cupboard", "art studio", value=False) in q.facts
    assert env.query("open", "fridge", "kitchen").value is None  # not here: no steps
    q = env.query("in", "picture of a farm", "art studio")  # a referent the listing does not use
    assert q.value is None
    assert env.query("in", "air", "art studio").value is True
    for q in (env.query("in", "nothing such", "inventory"),):
        assert q.value is None
    assert env.contradicted(env.grounded) == []


def test_the_query_check_finds_nothing_contradicted_along_a_walkthrough(household):
    from veriplan.envs.query_check import QueryCheck, check_game

    out = QueryCheck()
    check_game(household, "eval/pick_clean_then_place/0", out, per_step=2)
    assert out.contradicted == [] and sum(out.answered.values()) > 0
    assert sum(out.answered.values()) + sum(out.unknown.values()) >= 2 * 2
