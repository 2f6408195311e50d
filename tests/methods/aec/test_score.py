"""SCORE(h) for h* = argmax SCORE(h) (Algorithm 1, line 26) is computed by the
method from w and w_hat, not taken from the score the model reported (issue 33);
the self-report stays a named setting (``score="model"``)."""

from __future__ import annotations

import pytest

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import CABINET, FRIDGE, controller
from veriplan.envs.base import Fact
from veriplan.errors import ConfigError
from veriplan.methods.aec.config import Config
from veriplan.methods.aec.controller import Policy
from veriplan.methods.aec.method import policy_for
from veriplan.methods.aec.state import support

# the model rates the fridge plan high and the cabinet plan low
PLANS = [kitchen.plan("fridge 1", score=0.9), kitchen.plan("cabinet 1", score=0.1)]


def _grounded_cabinet(policy: Policy):
    ctl = controller(PLANS, policy=policy)
    ctl.w.ground([Fact(CABINET[0], CABINET[1], True)], "observation", 0)
    return ctl


def test_h_star_is_the_plan_the_grounded_facts_support_not_the_self_reported_best():
    ctl = _grounded_cabinet(Policy(ground_commit=False))
    h, verdict = ctl.commit()
    assert h is not None and h.actions[0] == "go to cabinet 1"
    assert verdict.ok and ctl.round.committed


def test_the_model_setting_keeps_the_self_report():
    ctl = _grounded_cabinet(Policy(ground_commit=False, score="model"))
    h, verdict = ctl.commit()
    assert h is not None and h.actions[0] == "go to fridge 1"
    assert not verdict.ok and not ctl.round.committed


def test_support_reads_grounded_believed_and_unknown_preconditions():
    ctl = controller(PLANS)
    fridge, cabinet = ctl.H
    assert support(fridge, ctl.w, ctl.beliefs) == 0.5  # unknown
    ctl.beliefs.record(FRIDGE, True, 0.1)
    assert support(fridge, ctl.w, ctl.beliefs) == pytest.approx(0.9)
    ctl.beliefs.record(FRIDGE, False, 0.1)
    assert support(fridge, ctl.w, ctl.beliefs) == pytest.approx(0.1)
    ctl.w.ground([Fact(FRIDGE[0], FRIDGE[1], False)], "observation", 0)
    assert support(fridge, ctl.w, ctl.beliefs) == 0.0  # grounded beats believed
    ctl.w.ground([Fact(CABINET[0], CABINET[1], True)], "observation", 0)
    assert support(cabinet, ctl.w, ctl.beliefs) == 1.0


def test_config_names_the_score_and_passes_it_to_the_policy():
    assert Config().score == "grounded" and policy_for(Config()).score == "grounded"
    assert policy_for(Config(score="model")).score == "model"
    with pytest.raises(ConfigError):
        Config(score="self")
