"""`veriplan aec run|calibrate|select-tau` on the kitchen, with the scripted
backend built from a spec (as the harness builds it)."""

from __future__ import annotations

import argparse
import json

import pytest

from tests.methods.aec import kitchen
from veriplan.bench.datasets import DATASETS, register_dataset
from veriplan.cli.core import EXIT_OK
from veriplan.methods.aec import commands as aec_commands
from veriplan.methods.aec.config import Config
from veriplan.methods.aec.predictor import load_calibration, store_path
from veriplan.methods.aec.tau import load_tau

SCRIPT = ["--backend", "scripted", "--script", "tests.methods.aec.kitchen:answer", "--no-cache"]


def main(argv):
    """The lead hooks aec_commands into veriplan.cli; until then, its own parser."""
    ap = argparse.ArgumentParser(prog="veriplan")
    sub = ap.add_subparsers(dest="command", required=True)
    aec_commands.add_parsers(sub)
    args = ap.parse_args(argv)
    return aec_commands.COMMANDS[args.command](args)


@pytest.fixture
def kitchen_valid(tmp_path):
    register_dataset("kitchen_valid", kitchen.dataset)
    yield str(tmp_path)
    DATASETS.unregister("kitchen_valid")


def test_run_prints_the_decisions_and_the_outcome(capsys):
    code = main(["aec", "run", "--env", "fakekitchen", "--task", "hot_apple/fridge", *SCRIPT])
    out = capsys.readouterr().out
    assert code == EXIT_OK and "simulate" in out
    assert "won (the task done, verified by the environment's simulator); 1 commit(s): 1 " \
        "verified on grounded facts, 0 checked by nothing grounded; 7 steps, 1 queries" in out


def test_run_json_and_a_baseline(capsys):
    code = main(["aec", "run", "--env", "fakekitchen", "--task", "hot_apple/cabinet",
                 "--method", "query-only", "--json", *SCRIPT])
    result = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK and result["method"] == "query-only" and result["verified"]


def test_run_rejects_a_setting_the_method_does_not_have():
    from veriplan.errors import ConfigError

    with pytest.raises(ConfigError, match="has no setting 'nope'"):
        main(["aec", "run", "--env", "fakekitchen", "--task", "hot_apple/fridge",
              "--config", "nope=1", *SCRIPT])


def test_calibrate_fits_and_saves_by_name_and_resumes(kitchen_valid, capsys):
    argv = ["aec", "calibrate", "--dataset", "kitchen_valid", "--data-dir", kitchen_valid,
            "--name", "kitchen", "--workers", "2", *SCRIPT]
    assert main(argv) == EXIT_OK
    out = capsys.readouterr().out
    cal = load_calibration("kitchen")
    assert cal.samples >= 3 and cal.meta["fitted_on"] == "kitchen_valid"
    assert "saved" in out and "calibration=kitchen" in out
    assert main(argv) == EXIT_OK  # every episode is in the samples file: nothing re-run
    assert "labelled prediction" not in capsys.readouterr().out
    assert load_calibration("kitchen").n == cal.n


def test_select_tau_runs_each_candidate_and_records_the_choice(kitchen_valid, tmp_path,
                                                               capsys):
    out_dir = tmp_path / "runs"
    argv = ["aec", "select-tau", "--dataset", "kitchen_valid", "--data-dir", kitchen_valid,
            "--name", "kitchen", "--taus", "0.1", "0.9", "--out", str(out_dir), *SCRIPT]
    assert main(argv) == EXIT_OK
    text = capsys.readouterr().out
    tau, source = load_tau("kitchen")
    data = json.loads(store_path("tau", "kitchen").read_text())
    assert tau in (0.1, 0.9) and data["epsilon"] == 0.2 and len(data["candidates"]) == 2
    assert all(c["episodes"] == 3 for c in data["candidates"]) and "<- chosen" in text
    # both candidates give the same numbers on these three episodes (same success,
    # replanning rounds and queries): nothing but the smaller tau decides, and the file
    # and the output say so
    assert [c["replanning_rounds"] for c in data["candidates"]] == [
        data["candidates"][0]["replanning_rounds"]] * 2
    assert tau == 0.1 and data["selected"] is True and data["decided_by"] == "tie"
    assert "tau 0.1 selected; decided by tie" in text
    assert source.endswith("(selected by tie)")
    assert main(argv) == EXIT_OK and "0 unit(s) run, 6 already" in capsys.readouterr().out


def test_select_tau_refuses_a_fixed_tau(kitchen_valid):
    from veriplan.errors import ConfigError

    with pytest.raises(ConfigError, match="--taus"):
        main(["aec", "select-tau", "--dataset", "kitchen_valid", "--data-dir", kitchen_valid,
              "--name", "x", "--config", "tau=0.3", *SCRIPT])


def test_select_tau_without_a_won_episode_selects_nothing_and_says_so(kitchen_valid, tmp_path,
                                                                      capsys):
    # one environment step per episode: no candidate can win
    argv = ["aec", "select-tau", "--dataset", "kitchen_valid", "--data-dir", kitchen_valid,
            "--name", "lost", "--taus", "0.1", "0.9", "--out", str(tmp_path / "runs"),
            "--config", "max_steps=1", *SCRIPT]
    assert main(argv) == EXIT_OK
    text = capsys.readouterr().out
    data = json.loads(store_path("tau", "lost").read_text())
    assert all(c["success"] == 0 for c in data["candidates"])
    assert data["selected"] is False and data["decided_by"] == "tie"
    assert data["tau"] == Config().tau and "<- chosen" not in text
    assert "no tau selected: no candidate won a validation episode" in text
    tau, source = load_tau("lost")
    assert tau == Config().tau and "not selected" in source
