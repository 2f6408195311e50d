"""B.2's calibration samples: each prediction is labelled with the predicate's
value at w0, where it was predicted, never with a value the agent's own query
actions may have changed on the way."""

from __future__ import annotations

import json

from tests.methods.aec.helpers import task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec.calibrate import collect

# Takes the apple from the closed fridge without opening it: U holds
# in(apple 1, fridge 1) and open(fridge 1); querying `in` opens the fridge.
PLAN = {"actions": ["go to fridge 1", "take apple 1 from fridge 1", "go to microwave 1",
                    "heat apple 1 with microwave 1", "go to table 1",
                    "move apple 1 to table 1"], "preconditions": [], "score": 0.5}


def model(req):
    if req.schema_name == "plans":
        return json.dumps({"plans": [PLAN]})
    # right at w0 on both: the apple is in the fridge, the fridge is closed
    return json.dumps({"answer": "no" if "fridge 1 is open" in req.messages[-1].content
                       else "yes"})


def test_a_predicate_changed_by_an_earlier_query_gets_no_label():
    backend = ScriptedBackend(fn=model)
    samples = collect(task("hot_apple/fridge"), LLM(backend))
    by = {s["p"]: s for s in samples}
    assert by["in(apple 1, fridge 1)"]["truth"] is True
    assert by["in(apple 1, fridge 1)"]["right"] is True
    # the `in` query opened the fridge: "closed" was right at w0, so no wrong label
    assert "open(fridge 1)" not in by
    assert all(s["right"] for s in samples)
    # only what got a label was predicted (open(fridge 1) was not: it could not be
    # scored), and from w0's facts (nothing observed yet), not from what the query
    # revealed on the way; the plan used round 1's seed
    predicted = [r.messages[-1].content for r in backend.requests if r.schema_name != "plans"]
    assert len(predicted) == 5  # the ensemble's members, for in(apple 1, fridge 1) alone
    assert all("apple 1 is in or on fridge 1" in p for p in predicted)
    assert not any("in(apple 1, fridge 1) = true" in p for p in predicted)  # the answer
    assert next(r for r in backend.requests if r.schema_name == "plans").seed == 0


def test_a_pending_prediction_is_labelled_only_if_nothing_may_have_changed_it():
    """Failure-driven refinement labels predictions made during an episode by
    later groundings; one the agent's actions may have changed meanwhile has none."""
    from veriplan.envs.base import Fact
    from veriplan.methods.aec.config import Config
    from veriplan.methods.aec.controller import Policy
    from veriplan.methods.aec.episode import Agent
    from veriplan.methods.aec.predictor import Prediction

    agent = Agent("aec", task("hot_apple/fridge"), LLM(ScriptedBackend(fn=model)), Config(),
                  Policy())
    env = agent.task.make()
    try:
        agent.env = env
        agent.start(env)
        opened = ("open", ("fridge 1",))
        closed_guess = Prediction(mu=0.0, sigma=0.1, raw=0.1)
        agent.predicted(opened, closed_guess)
        agent.ground([Fact("open", ("fridge 1",), True)], "execution", {opened})
        assert agent.samples == []  # "open fridge 1" ran in between: no label
        agent.predicted(opened, closed_guess)
        agent.ground([Fact("open", ("fridge 1",), True)], "query", ())
        assert agent.samples == [(0.1, False)]  # unchanged since: a wrong prediction
        agent.predicted(opened, Prediction(mu=0.5, sigma=0.9, raw=1.0))
        agent.ground([Fact("open", ("fridge 1",), True)], "query", ())
        assert agent.samples == [(0.1, False)]  # no majority: no label
    finally:
        env.close()


def test_a_prediction_without_a_majority_is_neither_right_nor_wrong():
    """All-"unknown" votes (mu = 0.5) predicted no value: such samples are kept
    in the file but left out of the fit (and of refinement), never counted as a
    "yes" that happened to be right."""
    from veriplan.methods.aec.calibrate import fit
    from veriplan.methods.aec.predictor import scored

    assert scored(0.5, True) is None and scored(0.5, False) is None
    assert scored(0.8, True) is True and scored(0.2, True) is False
    # stored with the old rule (right: mu >= 0.5 == truth): judged again from mu
    ambiguous = [{"p": "handempty(agent)", "mu": 0.5, "raw": 1.0, "truth": True, "right": True}]
    sure = [{"p": "open(drawer 1)", "mu": 1.0, "raw": 0.0, "truth": False, "right": False}]
    cal = fit(ambiguous * 3 + sure, "t")
    assert cal.samples == 1 and cal.wrong == [1] + [0] * 9
    assert cal.meta["no_majority"] == 3 and cal.meta["predictions"] == 4
    assert fit(ambiguous, "t")(0.9) == 0.9  # nothing to fit: sigma = u, and the file says so
    assert fit(ambiguous, "t").to_dict()["sigma"] == "u"
