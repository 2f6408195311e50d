"""M(w, p): the ensemble's vote share and dispersion, and B.2's calibration
(fitted, monotone, saved, loaded by name or path)."""

from __future__ import annotations

import json

import pytest

from tests.methods.aec.helpers import FRIDGE, controller, three_plans
from veriplan.errors import ConfigError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec.envmodels import household_describe
from veriplan.methods.aec.predictor import (
    VARIANTS,
    Calibration,
    EnsemblePredictor,
    load_calibration,
    raw_uncertainty,
)


def test_raw_uncertainty_is_zero_for_unanimous_votes_and_one_for_a_split():
    assert raw_uncertainty([1, 1, 1]) == (1.0, 0.0)
    assert raw_uncertainty([0, 0]) == (0.0, 0.0)
    mu, u = raw_uncertainty([1, 0])
    assert mu == 0.5 and u == 1.0
    mu, u = raw_uncertainty([0.5, 0.5, 0.5])  # all "unknown": ambiguous, not dispersed
    assert mu == 0.5 and u == 1.0
    mu, u = raw_uncertainty([1, 1, 1, 1, 0])
    assert mu == 0.8 and 0.8 < u < 1.0
    assert raw_uncertainty([]) == (0.5, 1.0)


def test_the_ensemble_asks_each_variant_and_counts_unreadable_votes_as_unknown():
    answers = iter(['{"answer": "yes"}', '{"answer": "yes"}', "maybe?", '{"answer": "no"}',
                    '{"answer": "yes"}'])
    backend = ScriptedBackend(fn=lambda req: next(answers))
    ctl = controller(three_plans())
    ens = EnsemblePredictor(LLM(backend), task="put a hot apple in table.",
                            describe=household_describe, members=5, temperature=0.7)
    pred = ens.predict(ctl.w, FRIDGE)
    assert sorted(pred.votes) == [0.0, 0.5, 1.0, 1.0, 1.0] and pred.unread == 1
    assert pred.mu == pytest.approx(0.7) and pred.sigma == pred.raw
    reqs = backend.requests
    assert len(reqs) == 5 and all(r.schema_name == "prediction" for r in reqs)
    assert [r.sample_index for r in reqs].count(1) == 2  # members 4 and 5 resample
    assert len({r.messages[0].content.splitlines()[0] for r in reqs}) == len(VARIANTS)
    assert all("apple 1 is in or on fridge 1" in r.messages[0].content for r in reqs)
    assert sum(e.role == "predict" for e in ens.log) == 5


def test_the_ensemble_sends_a_variants_samples_one_after_the_other():
    """Member k is variant k mod 3, sample k div 3; the requests come grouped by
    variant (for llama.cpp's prefix reuse) and the prompts are those of before."""
    ens = EnsemblePredictor(LLM(ScriptedBackend(fn=lambda req: '{"answer": "yes"}')),
                            task="put a hot apple in table.", describe=household_describe,
                            members=5)
    assert ens.members_order() == [0, 3, 1, 4, 2]
    ctl = controller(three_plans())
    pred = ens.predict(ctl.w, FRIDGE)
    asked = [e.prompt for e in ens.log]
    prompts = ens.prompts(ctl.w, FRIDGE)
    assert asked == [prompts[k] for k in (0, 3, 1, 4, 2)] and asked[0] == asked[1]
    assert pred.mu == 1.0 and len(set(asked)) == len(VARIANTS)


def test_at_temperature_0_a_variant_is_asked_once_and_its_vote_counts_for_each_member():
    answers = iter(['{"answer": "yes"}', '{"answer": "no"}', '{"answer": "unknown"}'])
    backend = ScriptedBackend(fn=lambda req: next(answers))
    backend.serial = True  # as llama.cpp: the answers in turn go to the requests in order
    ens = EnsemblePredictor(LLM(backend), task="put a hot apple in table.",
                            describe=household_describe, members=5, temperature=0.0)
    ctl = controller(three_plans())
    pred = ens.predict(ctl.w, FRIDGE)
    assert len(backend.requests) == 3 and ens.calls == 3  # not 5: greedy answers repeat
    assert pred.votes == (1.0, 1.0, 0.0, 0.0, 0.5)  # members 0, 3, 1, 4, 2
    assert [e.call is None for e in ens.log] == [False, True, False, True, False]
    assert ens.log[1].prompt == ens.log[0].prompt and ens.log[1].cached
    assert "no call" in ens.log[1].verdict


def test_calibration_maps_raw_uncertainty_to_a_monotone_error_rate():
    samples = [(0.05, True)] * 40 + [(0.05, False)] * 2 + [(0.55, True)] * 10 + \
        [(0.55, False)] * 10 + [(0.95, False)] * 3 + [(0.95, True)] * 1 + [(0.35, False)] * 9
    cal = Calibration.fit(samples, name="t")
    table = cal.table()
    assert all(a <= b for a, b in zip(table, table[1:]))  # made monotone
    assert cal(0.05) < 0.1 < cal(0.55)
    assert Calibration()(0.42) == 0.42  # no samples: sigma = u


def test_calibration_is_saved_and_loaded_by_name_or_path(tmp_path):
    cal = Calibration.fit([(0.1, True), (0.9, False)], name="train-games", fitted_on="x")
    from veriplan.methods.aec.predictor import store_path

    path = cal.save(store_path("calibration", "train-games"))
    assert path.is_file() and json.loads(path.read_text())["format"] == "aec-calibration/1"
    by_name = load_calibration("train-games")
    assert by_name.n == cal.n and by_name(0.9) == cal(0.9)
    assert load_calibration(str(path)).wrong == cal.wrong
    assert load_calibration("none").samples == 0
    with pytest.raises(ConfigError, match="aec calibrate"):
        load_calibration("no-such-calibration")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(ConfigError, match="not an AEC calibration"):
        load_calibration(str(bad))


def test_refinement_adds_samples_to_a_calibration():
    cal = Calibration.fit([(0.1, True)] * 4, name="base")
    more = cal.updated([(0.1, False)] * 4, name="base+refined")
    assert more.samples == 8 and more(0.1) > cal(0.1) and cal.samples == 4


def test_a_calibration_is_used_through_the_config(tmp_path):
    from tests.methods.aec import kitchen
    from tests.methods.aec.helpers import task
    from veriplan.methods.aec import Config, solve
    from veriplan.methods.aec.predictor import store_path

    # fitted so that even unanimous votes are wrong half the time: always query
    Calibration.fit([(0.0, False), (0.0, True)] * 20, name="doubt").save(
        store_path("calibration", "doubt"))
    model = kitchen.Model([three_plans()], beliefs={"apple 1 is in or on fridge 1": "yes"})
    r = solve(task(), LLM(ScriptedBackend(fn=model)), Config(calibration="doubt"))
    d = r.metrics["decisions"][0]
    assert r.verified and d["kind"] == "query:uncertain" and d["sigma"] > 0.2
    assert r.metrics["calibration"] == "doubt"


@pytest.mark.parametrize("kind", ["calibration", "tau"])
def test_a_missing_or_unreadable_stored_file_is_a_config_error_naming_it_and_the_fix(
        kind, tmp_path):
    from veriplan.methods.aec.tau import load_tau

    load = load_calibration if kind == "calibration" else load_tau
    missing = tmp_path / "absent.json"
    command = "calibrate" if kind == "calibration" else "select-tau"
    with pytest.raises(ConfigError, match=f"absent.json.*veriplan aec {command}"):
        load(str(missing))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot read .*broken.json"):
        load(str(broken))
