"""AEC's ScienceWorld model speaks the grounder's vocabulary: the grounder's
facts about containers and doors are ``(open X ROOM)`` (two arguments), so a
plan's precondition on them is read, Pre(h) names them, and V checks them.
The grounder runs on text alone here (no Java)."""

from __future__ import annotations

import pytest

from veriplan.envs.base import Env, Fact
from veriplan.envs.scienceworld import ScienceWorld
from veriplan.methods.aec.domain import env_model
from veriplan.methods.aec.envmodels import scienceworld_describe
from veriplan.methods.aec.hypotheses import build, read_plan
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import GroundedStore
from veriplan.methods.aec.verifier import verify

HALLWAY = ("This room is called the hallway. In it, you see: \n\tthe agent\n"
           "\ta substance called air\n\ta picture\nYou also see:\n"
           "\tA door to the art studio (that is open)\n"
           "\tA door to the bedroom (that is closed)\n")
BEDROOM_DOOR = ("open", ("door to bedroom", "hallway"))


def text_grounder() -> ScienceWorld:
    """ScienceWorld's grounder without its engine: the names the parser would
    accept are given, read at step 0."""
    sw = ScienceWorld.__new__(ScienceWorld)
    Env.__init__(sw, 100)
    sw._room, sw._shared, sw._names, sw._names_at = None, set(), {"air", "picture"}, 0
    return sw


@pytest.fixture(scope="module")
def hallway() -> set[Fact]:
    facts = text_grounder().ground(HALLWAY)
    assert Fact("open", BEDROOM_DOOR[1], False) in facts  # the fact shape this file is about
    return facts


def test_every_grounded_fact_is_in_the_models_vocabulary(hallway):
    model = env_model("scienceworld")
    assert {f.pred for f in hallway} == {"at", "in", "open"}
    for f in hallway:
        assert model.predicates.get(f.pred) == len(f.args), f


def test_a_stated_two_argument_open_precondition_is_read_and_a_one_argument_one_dropped():
    model = env_model("scienceworld")
    item = {"actions": ["open door to bedroom", "go to bedroom"], "preconditions": [
        {"predicate": "open", "args": list(BEDROOM_DOOR[1]), "value": False},
        {"predicate": "open", "args": ["door to bedroom"], "value": False}]}
    p = read_plan(item, model.predicates)
    assert p.stated == {BEDROOM_DOOR: False} and p.dropped == 1


def test_v_checks_the_door_between_rooms_from_grounded_facts(hallway):
    model = env_model("scienceworld")
    book = RuleBook(model.rules)
    w = GroundedStore(book)
    w.ground(hallway, "observation", 0)
    direct, opened = build([read_plan({"actions": ["go to bedroom"]}, model.predicates),
                            read_plan({"actions": ["open door to bedroom", "go to bedroom"]},
                                      model.predicates)], w, book, model)
    assert direct.pre[BEDROOM_DOOR] is True  # what "go to bedroom" needs, from the hallway
    v = verify(direct, w.state, book, model.actions, None)
    assert not v.ok and BEDROOM_DOOR in v.contradicted
    # nothing grounded contradicts it, but without a goal form V cannot say valid
    v = verify(opened, w.state, book, model.actions, None)
    assert v.uncheckable and not v.ok and not v.contradicted


def test_prompts_show_the_two_argument_shape():
    model = env_model("scienceworld")
    assert "open(THING, ROOM)" in model.vocabulary()
    assert scienceworld_describe(BEDROOM_DOOR) == "the door to bedroom in the hallway is open"
    assert scienceworld_describe(("in", ("picture", "inventory"))) == \
        "the picture is in the agent's inventory"
