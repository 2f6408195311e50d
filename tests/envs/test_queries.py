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
    assert env.query("kind", "fridge 1", "fridge").value is None  # not queryable
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
