"""SQ-BCP's SCORE orders and prunes the forward frontier (Sections
3.3-3.4), the model's own SAT/VIOL labels are ignored, T_max stops the
search, HARDCHECK's temporal conjunct, and D and SCORE for a known state."""

from __future__ import annotations

import json
import math

import pytest

from tests.methods.sqbcp.test_sqbcp import FRY, MIX, Model, hyp, run, task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.records import quiet
from veriplan.methods.result import Run
from veriplan.methods.sqbcp import Config
from veriplan.methods.sqbcp.method import _Node, _Search, make_distance
from veriplan.methods.sqbcp.request import request_for
from veriplan.methods.sqbcp.world import GOAL, Distance, Goal, World, hard_check

LEX = dict(k=0, embeddings="lexical", bidirectional=False)

# Two ways to the same batter: one needs "the bowl is clean", which a bridge makes hold.
PLAIN = hyp("Mix flour and eggs into a batter", [("you have flour", "flour")],
            made={"batter": 1, "flour": -1}, facts=["batter is ready"],
            structure="batter mixed")
NEEDS_BOWL = hyp("Mix flour and eggs into a batter in the bowl",
                 [("you have flour", "flour"), ("the bowl is clean", "bowl")],
                 made={"batter": 1, "flour": -1}, facts=["batter is ready"],
                 structure="batter mixed")
WASH = hyp("Wash the bowl", [], facts=["the bowl is clean"], structure="batter mixed")


def _search(model, **cfg):
    config = Config(**{**LEX, **cfg})
    req = request_for(task(known=("you have flour",)), config)
    run_ = Run("sqbcp", LLM(ScriptedBackend(fn=model)))
    distance, _ = make_distance(config)
    return _Search(req, run_, config, quiet, distance)


def test_a_bridged_hypothesis_ranks_below_an_unbridged_one_with_the_same_end_state():
    """SCORE(h' (+) h) = min(SCORE(h'), SCORE(h))(1 - eps) orders the frontier:
    the composition is below the plain step although both reach one state
    (before issue 33 both were ranked by the child state's own score, tied)."""
    s = _search(Model([[NEEDS_BOWL, PLAIN]], bridge=lambda prompt: WASH))
    root = _Node(-1.0, 0, s.ground(s.g.w0))
    kids = s.forward(root)
    assert len(kids) == 2
    bridged, plain = kids
    assert [h.action for h in bridged.chain] == ["Wash the bowl",
                                                 "Mix flour and eggs into a batter in the bowl"]
    assert -bridged.priority < -plain.priority  # lower score: expanded later
    eps = s.config.epsilon
    h_score = s.score(s.ground(s.g.w0).apply(s.g.hypothesis(
        __import__("veriplan.methods.sqbcp.hypothesis", fromlist=["read"]).read(PLAIN)).eff))
    assert -plain.priority == pytest.approx(h_score)
    assert -bridged.priority <= h_score * (1 - eps) + 1e-12
    # The departure kept as a named setting: the child state's own score ties them.
    old = _search(Model([[NEEDS_BOWL, PLAIN]], bridge=lambda prompt: WASH),
                  score_order="state")
    a, b = old.forward(_Node(-1.0, 0, old.ground(old.g.w0)))
    assert a.priority == pytest.approx(b.priority)


def test_the_pruning_threshold_applies_to_the_composed_score():
    """A threshold between the composition's score and its end state's prunes
    the bridged step and keeps the plain one."""
    probe = _search(Model([[NEEDS_BOWL, PLAIN]], bridge=lambda prompt: WASH))
    bridged, plain = probe.forward(_Node(-1.0, 0, probe.ground(probe.g.w0)))
    cut = (-bridged.priority + -plain.priority) / 2
    s = _search(Model([[NEEDS_BOWL, PLAIN]], bridge=lambda prompt: WASH), prune_score=cut)
    kids = s.forward(_Node(-1.0, 0, s.ground(s.g.w0)))
    assert [k.chain[-1].action for k in kids] == ["Mix flour and eggs into a batter"]
    assert s.tally.dropped.get("pruned") == 1


def test_no_frontier_above_the_threshold_stops_the_search():
    r = run(Model([[MIX], [FRY]]), Config(**LEX, prune_score=0.999))
    assert not r.metrics["accepted"] and r.metrics["stop"].startswith("frontier empty")
    assert r.metrics["dropped"].get("pruned") == 1


def test_the_models_own_labels_are_ignored():
    """The model claims SAT for butter (the user lacks it) and VIOL for eggs
    (the user has them): both are asked of the oracle all the same, and the
    plan adapts to the oracle's answers."""
    mix = json.loads(json.dumps(MIX))
    fry = json.loads(json.dumps(FRY))
    for p in mix["preconditions"]:
        if p["subject"] == "eggs":
            p["label"] = "VIOL"
    for p in fry["preconditions"]:
        p["label"] = "SAT"
    r = run(Model([[mix], [fry]]))
    assert r.verified, r.last_diagnosis
    assert r.plan[1] == "Fry the batter in margarine in a frying pan"
    asked = [a["subject"] for a in r.metrics["answers"]]
    assert "eggs" in asked and "butter" in asked
    claimed = [h for e in r.transcript for h in (e.data or {}).get("hypotheses", [])]
    assert claimed  # the transcript keeps what the model claimed


def test_t_max_stops_the_search():
    """A model that never reaches the goal: the search stops after T_max
    expansions, with no plan."""
    stir = hyp("Stir the flour", [("you have flour", "flour")], facts=["flour stirred"])
    model = Model([[stir]] * 10)
    r = run(model, Config(**LEX, t_max=3))
    assert r.metrics["stop"] == "T_max expansions" and r.metrics["expansions"] == 3
    assert not r.metrics["accepted"] and model.asked.count("forward") == 3


def test_the_temporal_conjunct_of_hardcheck():
    """A task with a time budget: a plan over it fails HARDCHECK's temporal
    conjunct (inserting the step that goes over it fails the insertion
    check); the same plan within the budget is accepted."""
    slow_fry = json.loads(json.dumps(FRY))
    slow_fry["effects"]["seconds"] = 600
    over = run(Model([[MIX], [slow_fry]]), Config(**LEX, t_max=4),
               task(time_budget=300.0))
    assert not over.metrics["accepted"]
    assert over.metrics["dropped"].get("hard check") == 1
    within = run(Model([[MIX], [FRY]]), Config(**LEX, delta_t=1e9), task(time_budget=300.0))
    assert within.metrics["accepted"] and within.verified, within.last_diagnosis
    g = Goal({}, "", {GOAL: True}, 100.0)
    assert hard_check(World({}, "", {GOAL: True}, 150.0), g) == [
        "takes 150s, over the 100s budget"]
    assert hard_check(World({}, "", {GOAL: True}, 100.0), g) == []


def test_d_and_score_for_a_known_state():
    """D (Eq. 1) with the paper's weights and SCORE = exp(-D / tau) (Eq. 3),
    computed by hand for one state."""
    d_s = {("half done", "a toy car"): 0.5}
    d = Distance(lambda a, b: d_s[(a, b)], 1.0, 2.0, 1.5, 0.001)
    goal = Goal({"toy car": 1}, "a toy car", {"functional": True, "safe": True}, 7200.0)
    w = World({"wheels": 4}, "half done", {"functional": True}, 6900.0)
    # r: |0 - 1| = 1; s: 0.5; l: "safe" unknown = 1; t: |6900 - 7200| = 300
    assert d.parts(w, goal) == {"r": 1.0, "s": 0.5, "l": 1.0, "t": 300.0}
    expected = 1.0 * 1 + 2.0 * 0.5 + 1.5 * 1 + 0.001 * 300
    assert d(w, goal) == pytest.approx(expected)
    assert d.score(w, goal, 3.0) == pytest.approx(math.exp(-expected / 3.0))
    assert d.screen(w, goal, {"r": 1.5, "s": 0.7, "l": 2.0, "t": 3600}) == []
