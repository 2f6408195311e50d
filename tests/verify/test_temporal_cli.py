"""VAL's ``-t`` in every face: ``veriplan validate -t/--tolerance`` (text, --json,
--batch, with workers too), ``validate_plan(tolerance=)``, ``validate_many`` and
``batch_lines``; a tolerance that is not a positive finite number is a usage error
(exit 2) or a :class:`ToleranceError`, never a verdict. And a temporal task's
untimed plan in --batch gets the API's finding (the one-pass judge leaves it)."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest
import yaml

from veriplan import cli
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import parse_plan
from veriplan.verify.batch import batch_lines, validate_many
from veriplan.verify.happening import ToleranceError, check_tolerance
from veriplan.verify.val import parse_report
from veriplan.verify.validator import validate_plan

SPEC = yaml.safe_load((Path(__file__).parent / "temporal_features.yaml").read_text())
# (dist x y) is 4: a duration 0.005 over passes at VAL's default -t 0.01, fails at 0.001
PLAN = "0.000: (move c1 x y) [4.005]\n4.5: (load c1 y) [2.000]\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("tolerance")
    out = {"domain": d / "domain.pddl", "problem": d / "problem.pddl", "plan": d / "p.plan"}
    out["domain"].write_text(SPEC["domain"])
    out["problem"].write_text(SPEC["problem"])
    out["plan"].write_text(PLAN)
    out["batch"] = d / "b.jsonl"
    out["batch"].write_text(json.dumps({"id": "p", "domain": str(out["domain"]),
                                        "problem": str(out["problem"]),
                                        "plan_file": str(out["plan"])}) + "\n")
    return out


@pytest.fixture(scope="module")
def task() -> Task:
    domain = parse_domain(SPEC["domain"])
    return Task(domain, parse_problem(SPEC["problem"], domain))


def _single(files, *extra: str) -> list[str]:
    return ["validate", "--domain", str(files["domain"]), "--problem", str(files["problem"]),
            "--plan", str(files["plan"]), *extra]


@pytest.mark.parametrize("flag", ["-t", "--tolerance"])
def test_the_cli_flag_is_val_s_t(files, capsys, flag):
    assert cli.main(_single(files)) == 0
    assert "valid: the plan is valid" in capsys.readouterr().out
    assert cli.main(_single(files, flag, "0.001")) == 1
    out = capsys.readouterr().out
    assert "the duration 4.005" in out and "tolerance 0.001" in out
    assert cli.main(_single(files, flag, "0.1", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True
    assert cli.main(_single(files, f"{flag}=0.001" if flag[1] == "-" else "-t0.001",
                            "--json")) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False


def test_val_agrees_at_both_tolerances(files, val):
    for t, valid in (("0.01", True), ("0.001", False)):
        proc = subprocess.run([str(val.validate), "-t", t, str(files["domain"]),
                               str(files["problem"]), str(files["plan"])], env=val.env,
                              capture_output=True, text=True, timeout=60, check=False)
        verdict = parse_report(proc.stdout + proc.stderr, [files["plan"].name],
                               proc.returncode)[0]
        assert verdict is not None and verdict.valid is valid, (t, proc.stdout[-400:])


def test_batch_takes_the_tolerance_for_every_line(files, capsys):
    for argv, valid in ((["--batch", str(files["batch"])], True),
                        (["--batch", str(files["batch"]), "--tolerance", "0.001"], False),
                        (["--batch", str(files["batch"]), "-t", "0.001"], False),
                        (["--tolerance", "0.001", "--batch", str(files["batch"]),
                          "--window", "5"], False)):
        assert cli.main(["validate", *argv]) == (0 if valid else 1)
        assert json.loads(capsys.readouterr().out)["valid"] is valid, argv
    line = files["batch"].read_text()
    assert [json.loads(t)["valid"] for _v, t in batch_lines([line], tolerance=0.001)] == [False]
    items = [json.loads(line)]
    assert [v.valid for v in validate_many(items, tolerance=0.001)] == [False]
    assert [v.valid for v in validate_many(items)] == [True]


def test_a_worker_judges_with_the_tolerance_it_is_given(files):
    from veriplan.verify.workers import _work

    item = json.loads(files["batch"].read_text())
    for t, valid in ((0.01, True), (0.001, False)):
        out, _warnings = _work(None, True, False, None, t, [(1, item)])
        assert out[0][1][0] is valid


@pytest.mark.parametrize("bad", ["0", "-0.01", "nan", "inf", "-inf", "x", ""])
def test_a_bad_tolerance_is_a_usage_error(files, capsys, bad):
    with pytest.raises(SystemExit) as exc:
        cli.main(_single(files, "--tolerance", bad))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument -t/--tolerance" in err  # ("-inf": argparse wants a value)
    assert "positive finite number" in err or bad.startswith("-")
    assert cli.main(_single(files, f"--tolerance={bad}", "--json")) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"]["kind"] == "usage" and "positive finite" in doc["error"]["message"]
    with pytest.raises(SystemExit) as exc:
        cli.main(["validate", "--batch", str(files["batch"]), f"--tolerance={bad}"])
    assert exc.value.code == 2
    assert "positive finite number" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["validate", "--batch", "b.jsonl", "--tolerance", "0.5"],
    ["validate", "--tolerance", "1e-3", "--batch", "-", "--workers", "2"],
], ids=" ".join)
def test_the_quick_batch_reading_of_tolerance_is_argparse_s(argv):
    fast = cli._batch_args(argv)
    assert fast is not None
    slow = cli._parser(only_validate=True).parse_args(argv)
    assert {**vars(fast), "usage_error": None} == {**vars(slow), "usage_error": None}
    assert cli._batch_args(["validate", "--batch", "b.jsonl", "--tolerance", "nan"]) is None


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "0.01", None, True])
def test_the_api_refuses_a_bad_tolerance_on_every_task(task, bad):
    from tests.helpers import blocks_task

    for t, plan in ((task, parse_plan(PLAN, task)), (blocks_task(3), [])):
        with pytest.raises(ToleranceError, match="positive finite number"):
            validate_plan(t, plan, tolerance=bad)
    with pytest.raises(ToleranceError):
        list(validate_many([], tolerance=bad))
    with pytest.raises(ToleranceError):
        list(batch_lines([], tolerance=bad))
    assert check_tolerance(0.5) == 0.5


def test_an_untimed_plan_of_a_temporal_task_gets_the_api_s_finding_in_batch(files, task):
    text = "(move c1 x y)\n(load c1 y)\n"
    ours = validate_plan(task, parse_plan(text, task))
    line = json.dumps({"domain": str(files["domain"]), "problem": str(files["problem"]),
                       "plan": text})
    (_v, record), = batch_lines([line])
    rec = json.loads(record)
    assert rec["valid"] is False and rec["failed_step"] == ours.failed_step == 1
    assert rec["detail"] == ours.detail and "has no duration" in rec["detail"]
