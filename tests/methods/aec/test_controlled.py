"""The controlled AEC model (``--backend controlled-aec``): its measured
perturbation rate, prediction accuracy and confidence match its settings
within the binomial interval; it reads the truth only from the game."""

from __future__ import annotations

import json
import math
import re

import pytest

from veriplan.envs.household.generator import Game
from veriplan.errors import ConfigError
from veriplan.llm import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.aec.controlled import (
    ControlledAECBackend,
    GameTruth,
    Model,
    command,
    locate,
    read_question,
)
from veriplan.methods.aec.controlled_model import Settings
from veriplan.methods.aec.envmodels import household_describe
from veriplan.methods.aec.predictor import EnsemblePredictor
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import GroundedStore

RECEPTACLES = [f"cabinet_{i}" for i in range(1, 7)] + ["fridge_1", "microwave_1",
                                                       "countertop_1", "diningtable_1"]
OBJECTS = [f"{k}_{i}" for k in ("apple", "mug", "plate", "egg", "fork") for i in (1, 2, 3, 4)]


def game(n: int = 0) -> Game:
    locs = {o: RECEPTACLES[(i * 7 + n) % len(RECEPTACLES)] for i, o in enumerate(OBJECTS)}
    problem = "\n".join([f"  {r} - receptacle" for r in RECEPTACLES]
                        + [f"  {o} - object" for o in OBJECTS]
                        + [f"(openable {r})" for r in RECEPTACLES[:7]]
                        + [f"(inReceptacle {o} {r})" for o, r in locs.items()])
    src = locs["apple_1"]
    plan = [f"(gotolocation agent1 loc_0 loc_1 {src})", f"(openobject agent1 loc_1 {src})",
            f"(pickupobject agent1 loc_1 apple_1 {src})",
            "(gotolocation agent1 loc_1 loc_2 microwave_1)",
            "(heatobject agent1 loc_2 microwave_1 apple_1)",
            "(gotolocation agent1 loc_2 loc_3 diningtable_1)",
            "(putobject agent1 loc_3 apple_1 diningtable_1 appletype diningtabletype)"]
    return Game(f"test/g/{n}", "pick_heat_then_place", "kitchen", n,
                f"put a hot apple in diningtable {n}.", problem, [], plan)


GAMES = [game(n) for n in range(6)]


def interval_ok(k: int, n: int, p: float, z: float = 3.3) -> bool:
    return abs(k - n * p) <= z * math.sqrt(n * p * (1 - p)) + 1


def test_settings_are_checked():
    assert Settings.parse("aec:p=0.3,acc=0.9,conf=over,seed=2") == Settings(0.3, 0.9, "over", 2)
    assert Settings.parse("aec:g=0.25").g == 0.25 and Settings.parse("aec").g == 0.0
    for bad in ("aec:q=1", "aec:conf=meh", "aec:acc=0.3", "sqbcp:p=0.1", "aec:p=x", "aec:g=2"):
        with pytest.raises(ConfigError):
            Settings.parse(bad)


def test_commands_from_pddl_steps():
    assert command("(pickupobject agent1 loc_1 apple_1 fridge_1)") == "take apple 1 from fridge 1"
    assert command("(heatobject agent1 loc_2 microwave_1 apple_1)") == \
        "heat apple 1 with microwave 1"
    assert command("(putobject agent1 loc_3 apple_1 diningtable_1 a b)") == \
        "move apple 1 to diningtable 1"


@pytest.mark.parametrize("p", [0.0, 0.2, 0.5])
def test_the_perturbation_rate_is_p(p):
    s = Settings(p=p, seed=1)
    n = wrong = 0
    for g in GAMES:
        m = Model(GameTruth([g]).games()[0], s)
        for r in range(60):
            plans = json.loads(m.plans(5, r))["plans"]
            for plan in plans:
                n += 1
                gold = plan["actions"] == m.g.gold
                wrong += not gold
                place = plan["preconditions"][0]["args"][1]
                assert gold == (place == m.g.source)
                assert f"take apple 1 from {place}" in plan["actions"]
    assert n == 1800 and interval_ok(wrong, n, p)


def _votes(s: Settings):
    """(votes for the predicted value, whether it is the truth) per in() predicate."""
    facts = GameTruth(GAMES).games()
    out = []
    for g in facts:
        m = Model(g, s)
        for o in OBJECTS:
            for r in RECEPTACLES:
                key = ("in", (o.replace("_", " "), r.replace("_", " ")))
                yes = sum(json.loads(m.vote(key, k))["answer"] == "yes" for k in range(5))
                truth = g.value(*key)
                said = yes >= 3
                out.append((max(yes, 5 - yes), said == truth))
    return out


@pytest.mark.parametrize("acc", [0.7, 0.8, 0.95])
def test_calibrated_predictions_are_right_at_acc_and_as_often_as_their_votes_say(acc):
    out = _votes(Settings(acc=acc, conf="calibrated", seed=3))
    n = len(out)
    assert interval_ok(sum(r for _, r in out), n, acc)
    for agree, c in ((5, 1.0), (4, 0.8), (3, 0.6)):
        group = [r for a, r in out if a == agree]
        if len(group) > 30:
            assert interval_ok(sum(group), len(group), c) if c < 1 else all(group)


@pytest.mark.parametrize("acc", [0.7, 0.9])
def test_overconfident_predictions_are_unanimous_and_right_at_acc(acc):
    out = _votes(Settings(acc=acc, conf="over", seed=3))
    assert all(a == 5 for a, _ in out)
    assert interval_ok(sum(r for _, r in out), len(out), acc)


def test_questions_are_read_back_from_aecs_wording():
    for key in [("in", ("apple 1", "fridge 1")), ("open", ("cabinet 2",)),
                ("at", ("agent", "countertop 1")), ("holds", ("agent", "mug 2")),
                ("hot", ("apple 1",)), ("toggled", ("desklamp 1",))]:
        q = household_describe(key)
        for text in (f"Question: does {q} hold right now?",
                     f"predict whether {q} is true at this moment.", f"Statement: {q}.\n"):
            assert read_question(text) == key


def test_through_the_ensemble_predictor_and_without_leaking_the_game():
    backend = ControlledAECBackend("aec:acc=0.8,seed=0", games=GAMES[:1])
    g = backend.truth.games()[0]
    pred = EnsemblePredictor(LLM(backend), task=g.task, describe=household_describe,
                             members=5, temperature=0.7)
    p = pred.predict(GroundedStore(RuleBook([])), ("in", ("apple 1", g.source)))
    assert len(p.votes) == 5 and p.mu != 0.5
    plans = backend.complete(LLMRequest((Message("user", f"Your task: {g.task}\nPropose up to "
                                                  "3 different candidate plans"),),
                                         schema={"type": "object"}, schema_name="plans"))
    assert g.id not in plans.text and len(json.loads(plans.text)["plans"]) == 3


@pytest.mark.parametrize("g", [0.2, 0.5])
def test_the_goal_error_rate_is_g_and_independent_of_p(g):
    """A goal error puts the object in a receptacle of another kind than the
    gold target (the goal form is then unmet); the place error is drawn on
    its own, so the plans' takes are as without goal errors."""
    n = wrong = 0
    for gm in GAMES:
        m = Model(GameTruth([gm]).games()[0], Settings(p=0.3, g=g, seed=1))
        base = Model(m.g, Settings(p=0.3, g=0.0, seed=1))
        for r in range(60):
            plans = json.loads(m.plans(5, r))["plans"]
            for plan, same in zip(plans, json.loads(base.plans(5, r))["plans"]):
                n += 1
                *_, last = plan["actions"]
                target = re.fullmatch(r"move apple 1 to (.+)", last).group(1)
                bad = target != "diningtable 1"
                wrong += bad
                assert bad or plan["actions"] == same["actions"]
                assert plan["preconditions"] == same["preconditions"]
                if bad:
                    assert target.rpartition(" ")[0] != "diningtable"
                    assert plan["actions"][-2] in (f"go to {target}", f"open {target}")
    assert n == 1800 and interval_ok(wrong, n, g)


def test_a_goal_error_without_a_final_move_leaves_out_the_lamp():
    g = GameTruth(GAMES[:1]).games()[0]
    gold = ["go to sidetable 1", "take vase 1 from sidetable 1", "go to desk 1",
            "use desklamp 1"]
    assert g.misplaced(gold, "") == gold[:-1]


def test_the_planner_starts_from_where_its_prompt_says_the_object_is():
    g = GameTruth(GAMES[:1]).games()[0]
    s = Settings(p=0.0, seed=0)
    other = next(r for r in g.receptacles if r not in (g.source, "diningtable 1"))
    moved = Model(g, s, f"Your task: x\n- in(apple 1, {other}) = true\n")
    plan = json.loads(moved.plans(1, 0))["plans"][0]
    assert plan["actions"][:1] == [f"go to {other}"]
    assert f"take apple 1 from {other}" in plan["actions"]
    held = Model(g, s, "- holds(agent, apple 1) = true\n")
    plan = json.loads(held.plans(1, 0))["plans"][0]
    assert plan["actions"][0] == "go to microwave 1" and plan["preconditions"] == []
    # the object seen where the gold path takes it from changes nothing
    same = Model(g, s, f"- in(apple 1, {g.source}) = true\n")
    assert json.loads(same.plans(1, 0))["plans"][0]["actions"] == g.gold


def test_a_place_is_never_the_goals_variable():
    """A problem's text lists the goal's ``?r - receptacle`` with the
    receptacles; a perturbed place or a wrong target drawn on it is drawn
    again, never proposed."""
    g = game(1)
    g = Game(g.id, g.task_type, g.floorplan, g.seed, g.task,
             g.problem + "\n (:goal (exists (?o - object ?r - receptacle) (inReceptacle ?o ?r)))",
             [], g.plan)
    facts = GameTruth([g]).games()[0]
    assert "?r" in facts.receptacles
    m = Model(facts, Settings(p=1.0, g=1.0, seed=2))
    seen = set()
    for r in range(200):
        for plan in json.loads(m.plans(5, r))["plans"]:
            assert not any("?" in a for a in plan["actions"])
            seen.add(plan["preconditions"][0]["args"][1])
    assert len(seen) == len(facts.receptacles) - 2  # every other place, not ?r nor the source


def test_react_finds_its_place_in_a_plan_that_repeats_a_command():
    plan = ["go to fridge 1", "go to countertop 5", "take egg 1 from countertop 5",
            "go to fridge 1", "cool egg 1 with fridge 1", "go to sinkbasin 1",
            "move egg 1 to sinkbasin 1"]
    assert locate(plan, ["go to fridge 1"]) == 0
    assert locate(plan, plan[:4]) == 3  # the second "go to fridge 1", not the first
    assert locate(plan, ["look", "go to fridge 1", "go to countertop 5",
                         "take egg 1 from countertop 5", "go to fridge 1"][1:]) == 3
    assert locate(plan, ["go to cabinet 2"]) is None
    assert locate(plan, ["go to countertop 5", "open cabinet 9"]) == 1  # the latest it holds


def test_a_react_turn_goes_on_from_the_last_successful_command():
    g = GameTruth(GAMES[:1]).games()[0]
    m = Model(g, Settings(p=0.0, seed=0))
    gold = g.gold
    turns = "".join(f"Action: {a}\nObservation: done.\n" for a in gold[:3])
    assert m.react(turns).endswith(f"Action: {gold[3]}")
    failed = turns + f"Action: {gold[3]}\nObservation: Nothing happens.\n"
    assert m.react(failed).endswith(f"Action: {gold[3]}")  # p = 0: the same plan again


def two_knives() -> Game:
    rs = ["sinkbasin_1", "drawer_2", "drawer_3", "countertop_1"]
    problem = "\n".join([f"  {r} - receptacle" for r in rs]
                        + ["  knife_1 - object", "  knife_2 - object"]
                        + ["(openable drawer_2)", "(openable drawer_3)",
                           "(inReceptacle knife_1 drawer_2)", "(inReceptacle knife_2 drawer_3)"])
    plan = ["(gotolocation agent1 loc_0 loc_1 drawer_3)", "(openobject agent1 loc_1 drawer_3)",
            "(pickupobject agent1 loc_1 knife_2 drawer_3)",
            "(gotolocation agent1 loc_1 loc_2 sinkbasin_1)",
            "(putobject agent1 loc_2 knife_2 sinkbasin_1 a b)",
            "(gotolocation agent1 loc_2 loc_3 drawer_2)", "(openobject agent1 loc_3 drawer_2)",
            "(pickupobject agent1 loc_3 knife_1 drawer_2)",
            "(gotolocation agent1 loc_3 loc_4 sinkbasin_1)",
            "(putobject agent1 loc_4 knife_1 sinkbasin_1 a b)"]
    return Game("test/two/0", "pick_two_obj_and_place", "kitchen", 0, "put two knife in sinkbasin.",
                problem, [], plan)


def test_pick_two_goes_on_with_the_second_object_where_the_prompt_says_it_is():
    """Once the facts put the first knife in the sink, the plan is about the
    second one, taken from where the facts say it is (after a goal error put it
    in the wrong place), not the first knife's steps again."""
    g = GameTruth([two_knives()]).games()[0]
    s = Settings(p=0.0, seed=0)
    assert json.loads(Model(g, s).plans(1, 0))["plans"][0]["actions"] == g.gold
    first_done = "- in(knife 2, sinkbasin 1) = true\n"
    plan = json.loads(Model(g, s, first_done).plans(1, 0))["plans"][0]
    assert plan["actions"] == g.gold[5:]
    assert plan["preconditions"][0]["args"] == ["knife 1", "drawer 2"]
    misplaced = first_done + "- in(knife 1, countertop 1) = true\n"
    plan = json.loads(Model(g, s, misplaced).plans(1, 0))["plans"][0]
    assert plan["actions"] == ["go to countertop 1", "take knife 1 from countertop 1",
                               "go to sinkbasin 1", "move knife 1 to sinkbasin 1"]
