"""Steps of a timed plan at one time are one happening, in every face that reads
plans: the API, the CLI (one plan and --batch), the MCP tools and a method's
feedback. Each plan here was valid for veriplan before this was built (the steps
were run in file order) and is invalid for VAL (tests/verify/features/
happenings.yaml judges the same plans with VAL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriplan.cli import main
from veriplan.pddl.task import load_task
from veriplan.planio import parse_plan
from veriplan.verify import StepErrorKind, validate_plan
from veriplan.verify.batch import batch_lines
from veriplan.verify.happening import groups

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
DOMAIN, PROBLEM = EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks-problem.pddl"
STEPS = [line for line in (EXAMPLES / "blocks-plan.txt").read_text().splitlines() if line]


def timed(times: list[float]) -> str:
    return "".join(f"{t:.3f}: {s} [1.000]\n" for t, s in zip(times, STEPS))


ALL_AT_ZERO = timed([0.0] * 6)
LAST_TWO_TIED = timed([1, 2, 3, 4, 5, 5])
APART = timed([1, 2, 3, 4, 5, 6])


@pytest.fixture(scope="module")
def task():
    return load_task(DOMAIN, PROBLEM)


def test_the_example_plan_is_valid_timed_and_not_when_tied(task):
    assert validate_plan(task, parse_plan(APART, task)).valid
    r = validate_plan(task, parse_plan(ALL_AT_ZERO, task))
    assert not r.valid and r.failed_step == 2 and r.error is StepErrorKind.PRECONDITION
    assert "before the happening at time 0.000" in r.detail
    r = validate_plan(task, parse_plan(LAST_TWO_TIED, task))
    assert not r.valid and r.failed_step == 6 and "(holding a)" in r.detail


def test_interfering_steps_at_one_time_are_mutex(task):
    text = "0.000: (unstack c a) [1]\n0.000: (pick-up b) [1]\n"
    r = validate_plan(task, parse_plan(text, task))
    assert not r.valid and r.error is StepErrorKind.MUTEX and r.failed_step == 2
    assert "(handempty)" in r.detail and "(unstack c a)" in r.detail
    assert r.judgement().findings[0].kind.value == "mutex"


def test_times_closer_than_vals_tolerance_are_one_happening(task):
    assert groups([0.0, 0.001], 2) == [(0, 2)]
    assert groups([0.0, 0.01], 2) is None
    assert groups([0.0, 0.005], 2, tolerance=0.001) is None
    near = "0.000: (unstack c a)\n0.001: (put-down c)\n"
    assert validate_plan(task, parse_plan(near, task)).failed_step == 2
    # times given to the API beside plain steps
    r = validate_plan(task, STEPS, times=[0, 0, 0, 0, 0, 0])
    assert not r.valid and r.failed_step == 2
    with pytest.raises(ValueError, match="times"):
        validate_plan(task, STEPS, times=[0, 1])


def test_steps_out_of_order_are_taken_in_order_of_time(task):
    shuffled = "".join(f"{t}.000: {STEPS[t - 1]} [1]\n" for t in (3, 1, 2, 6, 4, 5))
    assert validate_plan(task, parse_plan(shuffled, task)).valid


def test_the_cli_and_the_batch(tmp_path, capsys):
    plan = tmp_path / "tied.txt"
    plan.write_text(LAST_TWO_TIED)
    args = ["validate", "--domain", str(DOMAIN), "--problem", str(PROBLEM), "--plan", str(plan)]
    assert main(args) == 1
    assert "not valid: step 6 (stack a b)" in capsys.readouterr().out
    assert main([*args, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["failed_step"] == 6
    items = [json.dumps({"domain": str(DOMAIN), "problem": str(PROBLEM), "plan": text})
             for text in (APART, ALL_AT_ZERO, LAST_TWO_TIED)]
    records = [json.loads(text) for _ok, text in batch_lines(items)]
    assert [r["valid"] for r in records] == [True, False, False]
    assert [r["failed_step"] for r in records] == [None, 2, 6]


def test_the_mcp_tools(tmp_path):
    from veriplan.mcp import tools as T
    from veriplan.mcp.config import Roots, ServerConfig

    for name in ("blocks-domain.pddl", "blocks-problem.pddl"):
        (tmp_path / name).write_text((EXAMPLES / name).read_text())
    cfg = ServerConfig(roots=Roots.of([tmp_path]))
    kw = {"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl"}
    doc = T.validate_plan(cfg, T.Deadline(30), plan=LAST_TWO_TIED, **kw)
    assert not doc.valid and doc.failed_step is not None and doc.failed_step.index == 6
    sim = T.simulate(cfg, T.Deadline(30), plan=ALL_AT_ZERO, **kw)
    assert sim.verdict == "invalid" and sim.failed_step is not None
    batch = T.validate_batch(cfg, T.Deadline(30), [{"plan": ALL_AT_ZERO}, {"plan": APART}], **kw)
    assert [r.verdict for r in batch.records] == ["invalid", "valid"]


def test_a_methods_feedback(task):
    """The closed loop's and backprompting's feedback comes from validate_plan on
    the parsed answer: a model answering in the timed form gets the happening's
    verdict."""
    from veriplan.verify import feedback_text

    r = validate_plan(task, parse_plan("Here is my plan:\n" + ALL_AT_ZERO, task))
    assert not r.valid
    assert "step 2 (put-down c)" in feedback_text(r) and "happening" in feedback_text(r)
