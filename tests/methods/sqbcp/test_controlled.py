"""The controlled SQ-BCP model (issue 33): its measured error rates lie within
the binomial interval of its settings, it is reachable through the backend
registry, and it answers every method's request form."""

from __future__ import annotations

import json
import math

import pytest

from veriplan.bench.datasets import load_dataset
from veriplan.errors import ConfigError
from veriplan.llm import LLM
from veriplan.llm.registry import create_backend, model_name
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.sqbcp.controlled import ControlledBackend, Planner, Settings


@pytest.fixture(scope="module")
def tasks():
    return [i.problem() for i in load_dataset("sqbcp_recipes").instances][:120]


def within(hits: int, n: int, p: float, z: float = 3.29) -> bool:
    """``hits`` of ``n`` is consistent with rate ``p`` (normal interval, 99.9%)."""
    half = z * math.sqrt(p * (1 - p) / n) + 1 / n
    return abs(hits / n - p) <= half


def _prompt(t, i: int) -> str:
    done = "\n".join(f"{n}. {s}" for n, s in enumerate(t.reference[:i], 1)) or "(none yet)"
    facts = "\n".join(f"- {f}" for f in t.known)
    return (f"Goal: {t.goal}\nKnown facts (anything not listed is unknown, not false):\n"
            f"{facts}\nSteps already planned:\n{done}\n\nPropose up to 1 candidate next steps.")


@pytest.mark.parametrize("p,acc", [(0.3, 0.5), (0.1, 0.9)])
def test_measured_rates_match_the_settings(tasks, p, acc):
    s = Settings(p_hidden=p, acc=acc, seed=3)
    involved = listed = right = 0
    for t in tasks:
        planner = Planner(t, s)
        for i in range(len(t.reference)):
            out = json.loads(planner.hypotheses(_prompt(t, i), 1))["hypotheses"][0]
            pre = {q["subject"]: q["label"] for q in out["preconditions"]}
            for q in planner.involved(i):
                involved += 1
                if q.subject in pre:
                    listed += 1
                    right += pre[q.subject] == ("SAT" if q.holds else "VIOL")
    assert involved > 300
    assert within(involved - listed, involved, p), (involved - listed, involved)
    assert within(right, listed, acc), (right, listed)


def test_guesses_without_asking_are_right_at_rate_acc(tasks):
    s = Settings(p_hidden=0.0, acc=0.7, seed=1)
    n = right = 0
    for t in tasks:
        planner = Planner(t, s)
        for i in range(len(t.reference)):
            text, _, wrong = planner.step(i, {}, may_ask=False)
            for q in planner.involved(i):
                n += 1
                right += q not in wrong
    assert n > 300 and within(right, n, 0.7), (right, n)


def test_a_perfect_model_asks_about_every_hidden_precondition_and_plans_validly(tasks):
    from veriplan.methods.baselines.hidden import Config, self_ask

    be = ControlledBackend("sqbcp:p_hidden=0,acc=1,seed=0", tasks=tasks[:15])
    results = [self_ask(t, LLM(be), Config(k=0)) for t in tasks[:15]]
    assert sum(r.verified for r in results) >= 13
    assert all(not r.metrics["violated"] for r in results)


def test_the_registry_builds_it_and_rejects_bad_settings():
    b = create_backend("controlled", model="sqbcp:p_hidden=0.2,acc=0.8,seed=4")
    assert b.settings == Settings("sqbcp", 0.2, 0.8, 4)
    assert model_name("controlled", {"model": "sqbcp:p_hidden=0.2"}) == "sqbcp:p_hidden=0.2"
    for bad in ("sqbcp:p=0.2", "aec:p_hidden=0.1", "sqbcp:p_hidden=2"):
        with pytest.raises(ConfigError):
            Settings.parse(bad)


def test_the_same_draws_whichever_method_asks(tasks):
    """Paired: two backends with one seed write the same plan for one prompt."""
    t = tasks[0]
    req = LLMRequest((Message("user", _prompt(t, 0).replace("Propose up to 1", "")
                              + '\nAnswer with "Plan:" followed by numbered steps.'),))
    a = ControlledBackend("sqbcp:p_hidden=0.5,seed=9", tasks=[t]).complete(req).text
    b = ControlledBackend("sqbcp:p_hidden=0.5,seed=9", tasks=[t]).complete(req).text
    assert a == b and a.startswith("Plan:")


def test_omit_pre_keeps_the_item_as_a_resource_used_up(tasks):
    """With omit=pre an omitted hidden resource is still listed as used up (at
    its first use); with omit=all it is not."""
    seen = {"pre": 0, "all": 0}
    for omit in seen:
        s = Settings(p_hidden=1.0, acc=0.5, seed=0, omit=omit)
        for t in tasks[:40]:
            planner = Planner(t, s)
            for i in range(len(t.reference)):
                out = json.loads(planner.hypotheses(_prompt(t, i), 1))["hypotheses"][0]
                assert out["preconditions"] == [] or all(
                    q["subject"] not in {p.subject for p in planner.involved(i)}
                    or q["label"] == "SAT" for q in out["preconditions"])
                seen[omit] += sum(p.subject in out["effects"]["resources"]
                                  for p in planner.involved(i) if p.kind == "resource")
    assert seen["pre"] > 20 and seen["all"] == 0
    with pytest.raises(ConfigError):
        Settings.parse("sqbcp:omit=some")
