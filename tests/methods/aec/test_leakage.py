"""The separation principle: predictions are conditioned on w alone (changing
w_hat arbitrarily changes no prediction and no commit decision), and a
hypothesis supported only by beliefs is never committed."""

from __future__ import annotations

import random

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import FRIDGE, Stub, controller, task, three_plans
from veriplan.core.verdict import Scope
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec import Config, solve
from veriplan.methods.aec import episode as episode_module
from veriplan.methods.aec.controller import Controller, Policy
from veriplan.methods.aec.verifier import verify

P = kitchen.plan
BELIEFS = {"apple 1 is in or on fridge 1": "yes", "apple 1 is in or on cabinet 1": "no"}


def scramble(ctl: Controller, rng: random.Random) -> None:
    """Rewrite w_hat arbitrarily: every entry's value and sigma, plus beliefs
    about predicates no hypothesis names."""
    for k in list(ctl.beliefs.entries):
        ctl.beliefs.record(k, rng.random() < 0.5, rng.random())
    for i in range(5):
        ctl.beliefs.record(("in", (f"ghost {i}", "fridge 1")), rng.random() < 0.5, rng.random())
        ctl.beliefs.record(("open", (f"drawer {i}",)), True, 0.0)


def trace(monkeypatch, tamper: bool):
    """Run AEC (the real ensemble over a scripted model) and return every
    prediction prompt, every commit decision and the result."""
    rng = random.Random(7)
    decisions = []

    class Tampered(Controller):
        def decide(self, key):
            if tamper:
                scramble(self, rng)
            d = super().decide(key)
            if tamper:
                scramble(self, rng)
            return d

        def commit(self):
            if tamper:
                scramble(self, rng)
            h, verdict = super().commit()
            decisions.append((h.actions if h else None, verdict.ok, verdict.reason))
            return h, verdict

    monkeypatch.setattr(episode_module, "Controller", Tampered)
    model = kitchen.Model([three_plans(), three_plans()], beliefs=BELIEFS)
    r = solve(task("hot_apple/cabinet"), LLM(ScriptedBackend(fn=model)), Config())
    return [e.prompt for e in r.transcript if e.role == "predict"], decisions, r


def test_changing_w_hat_changes_no_prediction_and_no_commit_decision(monkeypatch):
    prompts, decisions, r = trace(monkeypatch, tamper=False)
    prompts2, decisions2, r2 = trace(monkeypatch, tamper=True)
    assert prompts and prompts2 == prompts
    assert decisions2 == decisions and len(decisions) >= 2
    assert (r2.verified, r2.plan, r2.metrics["decisions"]) == (r.verified, r.plan,
                                                              r.metrics["decisions"])


def test_the_predictor_sees_the_grounded_store_only():
    stub = Stub({FRIDGE: (0.97, 0.01)})
    ctl = controller(three_plans(), predictor=stub)
    ctl.w.ground([kitchen.Fact("open", ("fridge 1",), False)], "observation", 0)
    scramble(ctl, random.Random(1))
    ctl.decide(FRIDGE)
    (key, seen), = stub.calls
    assert seen == ("open(fridge 1) = false",)  # w, and nothing of w_hat


def test_the_ensemble_prompt_is_a_function_of_w_and_p_only():
    from veriplan.methods.aec.envmodels import household_describe
    from veriplan.methods.aec.predictor import EnsemblePredictor

    ctl = controller(three_plans())
    ens = EnsemblePredictor(LLM(ScriptedBackend()), task="put a hot apple in table.",
                            describe=household_describe)
    before = ens.prompts(ctl.w, FRIDGE)
    scramble(ctl, random.Random(3))
    ctl.beliefs.record(FRIDGE, True, 0.0)
    assert ens.prompts(ctl.w, FRIDGE) == before


def test_a_hypothesis_supported_only_by_beliefs_is_never_committed():
    # the predictor is sure the apple is in the fridge; nothing grounds it
    ctl = controller([P("fridge 1")], table={FRIDGE: (0.99, 0.0)},
                     policy=Policy(ground_commit=False))
    assert ctl.run() == "U is empty" and ctl.beliefs.entries[FRIDGE][0] is True
    h, verdict = ctl.commit()
    assert not verdict.ok and verdict.missing == (FRIDGE,) and not ctl.round.committed
    # V reads w only: the same hypothesis on w plus the beliefs would pass
    merged = ctl.w.state.copy()
    merged.set(FRIDGE, True)
    assert verify(h, merged, ctl.w.rules, ctl.actions, ctl.goal).ok
    # ... which is what WKM does, by design
    wkm = controller([P("fridge 1")], table={FRIDGE: (0.99, 0.0)},
                     policy=Policy(gating="simulate", beliefs_as_facts=True))
    wkm.run()
    verdict = wkm.commit()[1]
    # committed, but recorded as decided by nothing grounded (Scope.UNCHECKED)
    assert wkm.round.committed and not verdict.ok and verdict.scope is Scope.UNCHECKED


def test_in_an_episode_beliefs_alone_never_lead_to_a_commitment():
    # wrong and confident: the apple is in the cabinet
    model = kitchen.Model([[P("fridge 1")]] * 4, beliefs=BELIEFS)
    r = solve(task("hot_apple/cabinet"), LLM(ScriptedBackend(fn=model)),
              Config(ground_commit=False, max_replans=3))
    assert not r.verified and r.metrics["commits"] == 0 and r.metrics["rejections"] == 4
    assert r.metrics["env_steps"] == 0  # nothing executed, nothing queried
    # with commit-time grounding the belief is checked, refuted, and never acted on
    fridge_only = {"apple 1 is in or on fridge 1": "yes"}
    model = kitchen.Model([[P("fridge 1")], [P("cabinet 1")]], beliefs=fridge_only)
    r = solve(task("hot_apple/cabinet"), LLM(ScriptedBackend(fn=model)), Config())
    assert r.verified and "take apple 1 from fridge 1" not in r.plan
    assert r.metrics["commits"] == 1
