"""The controlled AEC model learns its household game through the task
channel (issue 33): bound, it answers about exactly that game, where the
prompt alone fits two games (same task sentence, no receptacle named) and the
matching picks one by its tie-break."""

from __future__ import annotations

import json

import pytest

from veriplan.envs.household.generator import Game
from veriplan.errors import BackendError
from veriplan.llm import LLM
from veriplan.llm.binding import TaskRef
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.aec.controlled import ControlledAECBackend
from veriplan.methods.aec.controlled_scienceworld import Worlds

RECEPTACLES = ["cabinet_1", "cabinet_2", "fridge_1", "microwave_1", "diningtable_1"]


def game(gid: str, task: str, apple_in: str) -> Game:
    """A game whose gold path takes apple_1 from ``apple_in``, heats it and
    puts it on the dining table."""
    problem = "\n".join([f"  {r} - receptacle" for r in RECEPTACLES]
                        + ["  apple_1 - object", f"(inReceptacle apple_1 {apple_in})"])
    plan = [f"(gotolocation agent1 loc_0 loc_1 {apple_in})",
            f"(pickupobject agent1 loc_1 apple_1 {apple_in})",
            "(gotolocation agent1 loc_1 loc_2 microwave_1)",
            "(heatobject agent1 loc_2 microwave_1 apple_1)",
            "(gotolocation agent1 loc_2 loc_3 diningtable_1)",
            "(putobject agent1 loc_3 apple_1 diningtable_1 appletype diningtabletype)"]
    return Game(gid, "pick_heat_then_place", "kitchen", 0, task, problem, [], plan)


TASK = "put a hot apple in diningtable."
BASE = game("test/g/base", TASK, "cabinet_2")
TWIN = game("test/g/twin", TASK, "cabinet_1")  # the same task, the apple elsewhere
PROMPT = f"Your task: {BASE.task}\nPropose up to 1 plan.\n"
PLANS = {"type": "object", "properties": {"plans": {"type": "array"}}}


def _first_action(llm: LLM) -> str:
    req = LLMRequest([Message("user", PROMPT)], schema=PLANS, schema_name="plans")
    return json.loads(llm.complete(req).text)["plans"][0]["actions"][0]


def test_bound_the_model_plans_for_the_bound_game_where_matching_picks_the_other():
    backend = ControlledAECBackend("aec:p=0,seed=0", games=[BASE, TWIN], worlds=Worlds())
    llm = LLM(backend)
    unbound = _first_action(llm)
    with backend.bind_task(TaskRef("household_eval", TWIN.id)):
        bound_twin = _first_action(llm)
    with backend.bind_task(TaskRef("household_eval", BASE.id)):
        bound_base = _first_action(llm)
    assert bound_twin != bound_base
    assert unbound == bound_base  # the matching's tie-break: the first game listed
    assert bound_twin == "go to cabinet 1"  # the twin's apple is in cabinet 1
    assert _first_action(llm) == unbound  # the binding is gone after the block


def test_a_binding_that_the_prompt_contradicts_is_refused():
    third = game("test/g/3", "put a clean mug in cabinet.", "fridge_1")
    backend = ControlledAECBackend("aec:p=0,seed=0", games=[BASE, TWIN, third],
                                   worlds=Worlds())
    with backend.bind_task(TaskRef("household_eval", third.id)), \
            pytest.raises(BackendError, match="does not carry that game's task"):
        _first_action(LLM(backend))
    with backend.bind_task(TaskRef("household_eval", "test/g/none")), \
            pytest.raises(BackendError, match="not among the games"):
        _first_action(LLM(backend))
