"""The order of the grounded facts in AEC's prompts (issue 36 part 3): a fact keeps
the place it was first listed at, the facts listed for the first time come after
the others (the static ones, kinds and abilities, first among them), so that a move
of the agent does not change the beginning of the list."""

from __future__ import annotations

import random

from veriplan.envs.base import Fact
from veriplan.methods.aec.domain import env_model, key_of
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import GroundedStore, Listing

PLACES = ["armchair 1", "cabinet 1", "drawer 1", "drawer 2", "shelf 1", "sofa 1"]


def household_store() -> GroundedStore:
    model = env_model("household")
    assert model.actions is not None
    static = frozenset(getattr(model.actions, "static", ()))
    assert {"kind", "openable"} <= static
    return GroundedStore(RuleBook(model.rules, persistent=model.persistent), static)


def first_observation() -> list[Fact]:
    """What the household grounder asserts in the middle of a room: the agent is
    at none of the receptacles, and their kinds."""
    return ([Fact("at", ("agent", r), False) for r in PLACES]
            + [Fact("kind", (r, r.split()[0])) for r in PLACES])


def move_to_drawer(w: GroundedStore) -> None:
    """A query "go to drawer 1, open drawer 1": the agent is there, the drawer is
    openable and open, and the lamp is not in it."""
    w.ground([Fact("at", ("agent", "drawer 1")), Fact("openable", ("drawer 1",)),
              Fact("open", ("drawer 1",)), Fact("in", ("lamp", "drawer 1"), False)],
             "query", 1, touched=[("at", ("agent", "drawer 1"))], ticked=True)


def test_a_move_changes_the_list_from_the_first_changed_fact_on():
    w = household_store()
    w.ground(first_observation(), "observation", 0)
    before = w.describe()
    move_to_drawer(w)
    after = w.describe()
    changed = before.index("at(agent, drawer 1) = false")
    # every fact of the first list keeps its place, the changed one with its new value
    assert after[:len(before)] == before[:changed] + ["at(agent, drawer 1) = true"] \
        + before[changed + 1:]
    # what was listed for the first time comes after everything listed before, the
    # static facts (openable) first
    assert after[len(before):] == ["openable(drawer 1) = true", "in(lamp, drawer 1) = false",
                                   "open(drawer 1) = true"]
    # the kinds never change and come before the agent's place: a move leaves them
    # at the beginning, which consecutive prompts share
    assert all(x.startswith("kind(") for x in before[:len(PLACES)])
    assert changed >= len(PLACES)


def test_a_forgotten_fact_grounded_again_comes_back_to_its_place():
    w = household_store()
    w.ground(first_observation(), "observation", 0)
    move_to_drawer(w)
    listed = w.describe()
    w.ground([Fact("at", ("agent", "shelf 1"))], "query", 2,
             touched=[("at", ("agent", "drawer 1")), ("at", ("agent", "shelf 1"))], ticked=True)
    assert "at(agent, drawer 1) = true" not in w.describe()  # forgotten by the move
    w.ground([Fact("at", ("agent", "drawer 1"), False)], "observation", 3)
    again = w.describe()
    assert again.index("at(agent, drawer 1) = false") == listed.index("at(agent, drawer 1) = true")
    assert again == [x.replace("at(agent, drawer 1) = true", "at(agent, drawer 1) = false")
                     .replace("at(agent, shelf 1) = false", "at(agent, shelf 1) = true")
                     for x in listed]


def test_the_order_does_not_depend_on_the_order_facts_come_in():
    lists = set()
    for seed in range(5):
        facts = first_observation()
        random.Random(seed).shuffle(facts)
        w = household_store()
        for f in facts:  # one at a time, in a shuffled order, between two listings
            w.ground([f], "observation", 0)
        first = tuple(w.describe())
        move_to_drawer(w)
        lists.add((first, tuple(w.describe())))
    assert len(lists) == 1


def test_listing_places_new_facts_by_kind_then_sorted_and_keeps_them():
    order = Listing(frozenset({"kind"}))
    a, b, k = ("in", ("apple 1", "table 1")), ("at", ("agent", "table 1")), ("kind", ("x", "y"))
    assert order.arrange([(a, True), (k, True), (b, False)]) == [(k, True), (b, False), (a, True)]
    c = ("at", ("agent", "cabinet 1"))
    # a value change keeps the place; a new fact goes last whatever it sorts as
    assert order.arrange([(c, True), (a, True), (b, True)]) == [(b, True), (a, True), (c, True)]
    assert [key_of(Fact(*x, True)) for x in (k, b, a, c)] == sorted(
        order.places, key=order.places.__getitem__)


def test_the_prefix_count_lists_recorded_facts_as_the_store_does(monkeypatch):
    """``benchmarks/llamacpp_prefix_cache.py --count`` re-renders recorded prompts
    (their facts sorted, as the store listed them before) in today's order: given a
    unit's prompts in turn, it must give each the list today's store gives."""
    import importlib
    from pathlib import Path

    from veriplan.methods.aec.prompting import render

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "benchmarks"))
    count = importlib.import_module("llamacpp_prefix_cache")
    w = household_store()
    values = dict(task="find a lamp and turn it on.", actions_help="go to RECEPTACLE",
                  admissible=["look"], feedback=[], k=5, max_preconditions=8,
                  predicates=["at(agent, R)", "in(O, R)"])
    order = count.FactOrder("household")
    listed, reordered = [], 0
    steps = [lambda: w.ground(first_observation(), "observation", 0), lambda: None,
             lambda: move_to_drawer(w),
             lambda: w.ground([Fact("at", ("agent", "shelf 1")), Fact("openable", ("shelf 1",),
                                                                       False)],
                              "query", 2, touched=[("at", ("agent", "drawer 1"))], ticked=True)]
    for step in steps:
        step()
        old_facts = sorted(w.state.facts(), key=lambda f: (f.pred, f.args))
        lines = [f"{f.pred}({', '.join(f.args)}) = {str(f.value).lower()}" for f in old_facts]
        recorded = count.OLD.get_template("generate.j2").render(facts=lines, **values)
        today = render("generate.j2", facts=w.describe(), **values)
        listed.append(today)
        reordered += today != render("generate.j2", facts=lines, **values)
        assert count.relayout("aec", recorded, order) == (today, True)
    assert len(set(listed)) == 3  # the repeated listing is the same prompt
    assert reordered == 4  # the kinds before the agent's place: not sorted
