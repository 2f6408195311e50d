"""``veriplan bench drip`` end to end: runs, resumes, and reports by size,
failure category and plan length (the perfect decomposer needs no model)."""

from __future__ import annotations

import json

from veriplan.cli import main


def bench(tmp_path, data_dir, *extra: str) -> int:
    return main(["bench", "drip", "--dataset", "blocksworld_hard", "--data-dir",
                 str(data_dir), "--backend", "scripted", "--actuator", "symbolic", "--limit",
                 "6", "--out", str(tmp_path), "--config", "decomposer=regression", *extra])


def test_bench_drip_runs_resumes_and_reports(tmp_path, data_dir, capsys):
    assert bench(tmp_path, data_dir) == 0
    assert bench(tmp_path, data_dir) == 0
    assert "0 unit(s) run, 6 already in the store" in capsys.readouterr().out
    assert bench(tmp_path, data_dir, "--config", "condition=on_conflict") == 0
    arm = "drip:actuator=symbolic,decomposer=regression"
    assert main(["report", str(tmp_path), "--compare", arm, arm + ",condition=on_conflict"]) == 0
    out = capsys.readouterr().out
    assert "## Accuracy by problem size (objects in the task)" in out
    assert "| 6 | 9 | 10 | 12 | all |" in out  # the first six instances' sizes
    assert "goal_conflict: 1" in out  # instance-4, undone by the goal-only decomposition
    assert "Plan length on the 5 units both verified (fallback plans left out)" in out
    assert (tmp_path / "accuracy_by_size.png").is_file()
    report = json.loads((tmp_path / "report.json").read_text())
    lengths = report["comparisons"][0]["plan_lengths"]
    assert lengths["both_verified"] == 5 and len(lengths["per_instance"]) == 5


def test_solve_drip_from_the_command_line(capsys):
    from tests.conftest import REPO

    ex = REPO / "src" / "veriplan" / "examples"
    args = ["solve", "--method", "drip", "--domain", str(ex / "blocks-domain.pddl"),
            "--problem", str(ex / "blocks-problem.pddl"), "--backend", "scripted",
            "--script", "tests.methods.drip.scripts:example_decomposer", "--no-cache"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "decompose stack b c -> unstack blocks c, put-down c" in out
    assert "execute 3: stack b c" in out and "2 LLM call(s)" in out
    assert main([*args, "--json", "--config", "action_space=standard"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["method"] == "drip" and result["failure"] is not None
    assert main([*args, "--config", "colour=red"]) == 2
