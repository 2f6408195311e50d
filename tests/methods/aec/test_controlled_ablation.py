"""Issue 33: the controlled AEC study's "without V" ablation can show a
difference. The controlled planner's place errors are preconditions of its
own steps, which AEC's gate settles before V is reached; its goal errors
(``g``: the object put in a wrong kind of receptacle) are settled by no query,
so only V's goal check stops them. In the kitchen, with every plan carrying a
goal error, AEC with V never executes a wrong placement and AEC without V
does."""

from __future__ import annotations

import re

import pytest

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import task
from veriplan.envs.household.generator import Game
from veriplan.llm import LLM
from veriplan.methods.aec.config import Config
from veriplan.methods.aec.controlled import ControlledAECBackend
from veriplan.methods.aec.method import solve


def _pddl(name: str) -> str:
    return name.replace(" ", "_")


def kitchen_game() -> Game:
    """The kitchen's "hot_apple/counter" scenario as a household game: its
    receptacles, the apple on the countertop, and the gold path."""
    rs = [_pddl(r) for r in kitchen.RECEPTACLES]
    problem = "\n".join([f"  {r} - receptacle" for r in rs] + ["  apple_1 - object"]
                        + [f"(openable {r})" for r in rs
                           if kitchen.kind(r.replace("_", " ")) in kitchen.OPENABLE]
                        + ["(inReceptacle apple_1 countertop_1)"])
    plan = ["(gotolocation agent1 loc_0 loc_1 countertop_1)",
            "(pickupobject agent1 loc_1 apple_1 countertop_1)",
            "(gotolocation agent1 loc_1 loc_2 microwave_1)",
            "(heatobject agent1 loc_2 microwave_1 apple_1)",
            "(gotolocation agent1 loc_2 loc_3 table_1)",
            "(putobject agent1 loc_3 apple_1 table_1 appletype tabletype)"]
    return Game("test/kitchen/counter", "pick_heat_then_place", "kitchen", 0,
                "put a hot apple in table.", problem, [], plan)


def run(model: str, verification: bool):
    llm = LLM(ControlledAECBackend(model, games=[kitchen_game()]))
    return solve(task("hot_apple/counter"), llm,
                 Config(verification=verification, max_replans=2, hypotheses=3))


def wrong_moves(plan: list[str]) -> list[str]:
    return [a for a in plan if re.fullmatch(r"move apple 1 to (?!table 1).+", a)]


@pytest.mark.parametrize("verification", [True, False])
def test_without_goal_errors_both_arms_win(verification):
    r = run("aec:p=0,g=0,acc=0.9,seed=0", verification)
    assert r.verified and not wrong_moves(r.plan)


def test_v_stops_the_goal_errors_the_gate_cannot_see():
    with_v = run("aec:p=0,g=1,acc=0.9,seed=0", True)
    without_v = run("aec:p=0,g=1,acc=0.9,seed=0", False)
    assert not wrong_moves(with_v.plan) and with_v.metrics["commits"] == 0
    assert wrong_moves(without_v.plan) and without_v.metrics["commits"] >= 1
    assert not with_v.verified and not without_v.verified
