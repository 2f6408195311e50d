"""The WALL-E stand-in: WKM's predict-as-fact loop plus rules learned from
wrong predictions, which replace the model's answer from then on (across the
task's iterations too)."""

from __future__ import annotations

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import task, three_plans
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import get_method

BELIEFS = {"apple 1 is in or on fridge 1": "yes"}  # wrong on hot_apple/counter


def run(name, model, **options):
    spec = get_method(name)
    return spec.solve(task("hot_apple/counter"), LLM(ScriptedBackend(fn=model)),
                      spec.make_config(options))


def _fridge_asked(model):
    return [p.count("fridge 1") > 0 for p in model.prompts.get("prediction", [])]


def test_a_wrong_prediction_becomes_a_rule_that_overrides_the_model_next_iteration():
    model = kitchen.Model([three_plans()] * 2, beliefs=BELIEFS)
    r = run("walle-standin", model, iterations="2", max_replans="0")
    m = r.metrics
    assert m["per_iteration"][0]["env_steps"] == 2 and m["queries"] == 0
    # iteration 2 predicted the fridge from the learned rule, without asking the model
    fridge = [d for d in m["decisions"] if d["p"] == "in(apple 1, fridge 1)"]
    assert fridge and fridge[0]["mu"] == 0.0 and fridge[0]["value"] is False
    asked = _fridge_asked(model)
    assert any(asked) and asked[-1] is False
    assert any(e.role == "rule" for e in r.transcript)


def test_wkm_without_rules_repeats_the_wrong_prediction():
    model = kitchen.Model([three_plans()] * 2, beliefs=BELIEFS)
    r = run("wkm", model, iterations="2", max_replans="0")
    fridge = [d for d in r.metrics["decisions"] if d["p"] == "in(apple 1, fridge 1)"]
    assert fridge and fridge[0]["value"] is True


def test_registered_as_a_named_stand_in():
    spec = get_method("walle-standin")
    assert spec.problem == "env" and "iterations" in spec.settings()
