"""Choosing tau (Section 4.4): what decided the choice is recorded, nothing is
selected when no candidate won a validation episode (the default tau is kept
and the run's provenance says so), and tau files from before these keys load."""

from __future__ import annotations

import json

import pytest

from veriplan.errors import ConfigError
from veriplan.methods.aec.config import Config
from veriplan.methods.aec.tau import choose, load_tau, read_source, save_tau


def cand(tau, success, replanning=10.0, queries=5.0):
    return {"tau": tau, "episodes": 6, "success": success, "replanning_rounds": replanning,
            "queries": queries, "env_steps": 40.0}


# every candidate lost every game: replanning ties at the cap, the largest tau queries least
ALL_LOST = [cand(0.1, 0.0, queries=6.0), cand(0.2, 0.0, queries=4.5), cand(0.4, 0.0, queries=3.0)]


def test_no_winning_candidate_selects_nothing_and_keeps_the_default_tau():
    got = choose(ALL_LOST)
    assert got["selected"] is False and got["decided_by"] == "tie"
    assert got["tau"] == Config().tau  # the method's default, not the fewest queries' 0.4
    assert "no candidate won a validation episode" in got["reason"]
    assert choose(ALL_LOST, default=0.15)["tau"] == 0.15  # the caller's default when given


def test_the_default_is_read_from_the_config(monkeypatch):
    from veriplan.methods.aec import config

    monkeypatch.setattr(config.Config, "__init__", _with_tau(config.Config.__init__, 0.33))
    assert choose(ALL_LOST)["tau"] == 0.33


def _with_tau(init, tau):
    def wrapped(self, *args, **kw):
        kw.setdefault("tau", tau)
        init(self, *args, **kw)
    return wrapped


def test_one_winning_candidate_is_decided_by_success():
    # the winner queries most and replans no less: success alone decides
    got = choose([*ALL_LOST, cand(0.05, 1 / 6, replanning=9.5, queries=8.0)])
    assert got["selected"] is True and got["tau"] == 0.05 and got["decided_by"] == "success"


@pytest.mark.parametrize(("rows", "tau", "decided_by"), [
    ([cand(0.1, 0.5, 6.0), cand(0.3, 0.5, 7.0)], 0.1, "replanning_rounds"),
    ([cand(0.1, 0.5, 6.0, 4.0), cand(0.3, 0.5, 6.0, 2.0)], 0.3, "queries"),
    ([cand(0.3, 0.5, 6.0, 2.0), cand(0.1, 0.5, 6.0, 2.0)], 0.1, "tie"),
    ([cand(0.3, 0.5)], 0.3, "only_candidate"),
])
def test_decided_by_names_the_first_criterion_that_left_one_candidate(rows, tau, decided_by):
    got = choose(rows)
    assert got["selected"] and (got["tau"], got["decided_by"]) == (tau, decided_by)


def test_nothing_to_choose_from_is_a_config_error():
    with pytest.raises(ConfigError, match="no finished validation episodes"):
        choose([])


def test_the_file_and_the_provenance_say_whether_tau_was_selected(tmp_path):
    path = save_tau(str(tmp_path / "none.json"), choose(ALL_LOST), ALL_LOST)
    data = json.loads(path.read_text())
    assert data["selected"] is False and data["decided_by"] == "tie"
    assert data["tau"] == Config().tau and len(data["candidates"]) == 3
    tau, source = load_tau(str(path))
    assert tau == Config().tau and "not selected" in source and str(path) in source
    assert read_source(source) == {"file": str(path), "selected": False, "decided_by": None,
                                   "reason": "no candidate won a validation episode"}

    rows = [*ALL_LOST, cand(0.05, 0.5)]
    path = save_tau(str(tmp_path / "won.json"), choose(rows), rows)
    tau, source = load_tau(str(path))
    assert tau == 0.05 and source == f"{path} (selected by success)"
    assert read_source(source) == {"file": str(path), "selected": True, "decided_by": "success"}
    assert read_source("config")["file"] is None


def test_an_old_tau_file_without_the_new_keys_still_loads(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"format": "aec-tau/1", "tau": 0.4, "chosen": ALL_LOST[-1],
                               "candidates": ALL_LOST, "created": "2025-01-01T00:00:00",
                               "epsilon": 0.2}))
    tau, source = load_tau(str(old))
    assert (tau, source) == (0.4, str(old))
    assert read_source(source) == {"file": str(old), "selected": None, "decided_by": None}


def _ep(verified, failure=None, queries=2):
    return {"verified": verified, "failure": failure,
            "metrics": {"replanning_rounds": 0 if verified else 10, "queries": queries,
                        "env_steps": 5}}


def test_an_episode_whose_environment_failed_is_left_out_of_every_candidate():
    from veriplan.methods.aec.tau import summarize

    # tau 0.1 won both episodes; tau 0.4's run of episode b crashed the simulator. Counted
    # as a loss, the crash would tie the candidates; left out of both, the comparison is on
    # episode a alone, where both won.
    rows = [(0.1, "a", _ep(True)), (0.1, "b", _ep(True)),
            (0.4, "a", _ep(True, queries=1)), (0.4, "b", _ep(False, "env_error"))]
    got = {s["tau"]: s for s in summarize(rows)}
    assert got[0.1]["episodes"] == got[0.4]["episodes"] == 1
    assert got[0.1]["success"] == got[0.4]["success"] == 1.0
    assert got[0.1]["left_out"] == 1
    assert choose(list(got.values()))["tau"] == 0.4  # decided by queries on episode a
    # every episode broken: nothing to choose from, said so
    with pytest.raises(ConfigError, match="left out"):
        choose(summarize([(0.1, "a", _ep(False, "env_error"))]))
