"""Temporal PDDL (durative actions, timed plans, timed initial literals) judged as
VAL judges it: a small domain's plans beside VAL's verdicts and makespans
(temporal_features.yaml), VAL's happening rule (a tenth of the tolerance), and bad
timed input (no duration, a negative one, NaN times, out-of-order lines): each a
finding, never a traceback or a valid verdict."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from veriplan.pddl.ast import DURATION, DurativeAction, TimedLiteral
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import parse_plan
from veriplan.verify.consistency import StepErrorKind
from veriplan.verify.happening import groups
from veriplan.verify.validator import validate_plan

SPEC = yaml.safe_load((Path(__file__).parent / "temporal_features.yaml").read_text())


@pytest.fixture(scope="module")
def task() -> Task:
    domain = parse_domain(SPEC["domain"])
    return Task(domain, parse_problem(SPEC["problem"], domain))


def _judge(task: Task, lines: list[str], **kw):
    return validate_plan(task, parse_plan("\n".join(lines) + "\n", task), **kw)


def test_the_reader_gives_durative_actions_their_parts(task):
    move = task.domain.action("move")
    assert isinstance(move, DurativeAction)
    assert [c.pddl() for c in move.duration] == ["(= ?duration (dist ?a ?b))"]
    assert str(move.over_all) == str(parse_domain(SPEC["domain"]).action("move").over_all)
    assert any(getattr(e, "value", None) == DURATION for e in move.end_effects)
    assert task.problem.timed_literals[0].time == 20.0
    assert isinstance(task.problem.timed_literals[0], TimedLiteral)
    assert not task.problem.timed_literals[0].literal.positive


def test_feature_plans_judged_as_val_judges_them(task, val, tmp_path):
    dom, prob = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
    dom.write_text(SPEC["domain"])
    prob.write_text(SPEC["problem"])
    plans = SPEC["plans"]
    theirs = val.judge_many(dom, prob, ["\n".join(p["plan"]) + "\n" for p in plans])
    for p, v in zip(plans, theirs):
        ours = _judge(task, p["plan"])
        expect = p["expect"]
        if expect == "valid":
            assert ours.valid and v.valid, (p, ours.feedback(), v)
        elif expect == "goal":
            assert not ours.valid and ours.failed_step is None and ours.unmet_goals
            assert not v.valid, v
        else:
            assert not ours.valid and ours.failed_step == expect["step"], ours.feedback()
            assert not v.valid, (p, v)
            step = ours.plan[ours.failed_step - 1]
            if v.action:  # VAL names the action (and its end) that failed
                named = v.action.removeprefix("Invariant for ").split(" - ")[0]
                assert named == str(step) or ours.error is \
                    StepErrorKind.MUTEX, (v.action, ours.detail)
        if "metric" in p:
            assert ours.metric is not None and ours.metric.value == pytest.approx(p["metric"])
            assert v.value == pytest.approx(p["metric"])
        if p.get("mutex"):
            assert ours.error is StepErrorKind.MUTEX and "interfere" in ours.detail


def test_findings_say_which_end_when_and_the_values(task):
    r = _judge(task, ["0.000: (move c1 x y) [3.000]"])
    assert "the duration 3 of (move c1 x y)" in r.detail and "(dist x y) = 4" in r.detail
    r = _judge(task, ["0.000: (move c1 x y) [4.000]", "1.000: (close y)"])
    assert r.failed_step == 1 and "over all of (move c1 x y) (from 0 to 4)" in r.detail
    assert "(open y)" in r.detail and "at time 1" in r.detail and "(close y)" in r.detail
    r = _judge(task, ["0.000: (move c1 x y) [4.000]", "4.000: (load c1 y) [2.000]"])
    assert r.error is StepErrorKind.MUTEX
    assert "(move c1 x y) at end" in r.detail and "(load c1 y) at start" in r.detail
    assert "feedback" in r.to_dict() and "interfere" in r.feedback()


def test_happenings_are_a_tenth_of_the_tolerance_wide():
    # VAL 4 (-t 0.01): 0 and 0.001 are one happening; 0 and 0.005 are two
    assert groups([0.0, 0.001], 2) == [(0, 2)]
    assert groups([0.0, 0.005], 2) is None
    assert groups([0.0, 0.005], 2, tolerance=0.1) == [(0, 2)]


def test_the_tolerance_is_a_setting(task):
    plan = ["0.000: (move c1 x y) [4.05]", "4.5: (load c1 y) [2.000]"]
    assert not _judge(task, plan).valid
    assert _judge(task, plan, tolerance=0.1).valid


@pytest.mark.parametrize("durations,says", [
    ([None, 2.0], "has no duration"),
    ([-1.0, 2.0], "is negative"),
    ([math.nan, 2.0], "not a finite number"),
    ([math.inf, 2.0], "not a finite number"),
])
def test_bad_durations_are_findings(task, durations, says):
    r = validate_plan(task, ["(move c1 x y)", "(load c1 y)"], times=[0.0, 4.5],
                      durations=durations)
    assert not r.valid and r.failed_step == 1 and says in r.detail


@pytest.mark.parametrize("t", [math.nan, math.inf, -1.0])
def test_bad_times_are_findings(task, t):
    r = validate_plan(task, ["(move c1 x y)", "(load c1 y)"], times=[t, 4.5],
                      durations=[4.0, 2.0])
    assert not r.valid and r.failed_step == 1


@pytest.mark.parametrize("text,says", [
    ("0.000: (move c1 x y) [-4.000]", "its duration -4 is negative"),
    ("0.000: (move c1 x y) [+4.000]", None),
    ("-1.0: (move c1 x y) [4]", "its time -1 is negative"),
    ("nan: (move c1 x y) [4]", "its time nan is not a finite number"),
    ("NaN: (move c1 x y) [4]", "its time nan is not a finite number"),
    ("inf: (move c1 x y) [4]", "its time inf is not a finite number"),
    ("1e400: (move c1 x y) [4]", "its time inf is not a finite number"),
    ("0.000: (move c1 x y) [nan]", "its duration nan is not a finite number"),
    ("0.000: (move c1 x y) [-inf]", "its duration -inf is not a finite number"),
    ("0.0e0: (move c1 x y) [4e0]", None),
])
def test_bad_timed_lines_are_read_and_are_findings(task, text, says):
    """Signed, exponent, nan and inf times and durations are read (they had been left
    unread: "could not be read as an action") and judged: a finding naming the step."""
    r = validate_plan(task, parse_plan(text + "\n4.5: (load c1 y) [2.000]\n", task))
    assert not r.unread, r.unread
    if says is None:
        assert r.valid, r.feedback()
    else:
        assert not r.valid and r.failed_step is not None and says in r.detail, r.detail
        assert r.plan[r.failed_step - 1].name == "move"


@pytest.mark.parametrize("text", ["nan: (unstack c a)", "inf: (unstack c a)",
                                  "-1.0: (unstack c a)"])
def test_a_bad_time_is_a_finding_on_a_classical_task_too(text):
    """A timed plan of instantaneous actions: a time that is not a number from 0 on
    fails its step (once read, it must never pass as if it had no time)."""
    from veriplan.pddl.task import load_task

    root = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
    task = load_task(root / "blocks-domain.pddl", root / "blocks-problem.pddl")
    plan = "\n".join([text] + [f"{i}.0: {s}" for i, s in enumerate(
        (root / "blocks-plan.txt").read_text().split("\n")[1:], 1) if s.strip()]) + "\n"
    r = validate_plan(task, parse_plan(plan, task))
    assert not r.unread and not r.valid and "its time" in r.detail, r.feedback()


def test_lines_out_of_order_are_taken_in_order_of_time(task):
    r = _judge(task, ["4.5: (load c1 y) [2.000]", "0.000: (move c1 x y) [4.000]"])
    assert r.valid, r.feedback()


def test_overlapping_self_mutex_is_a_finding(task):
    r = _judge(task, ["0.000: (load c1 x) [2.000]", "1.000: (load c1 x) [2.000]"])
    assert not r.valid and r.failed_step == 2 and "(free)" in r.detail
    r = _judge(task, ["0.000: (load c1 x) [2.000]", "0.000: (load c1 x) [2.000]"])
    assert not r.valid and r.error is StepErrorKind.MUTEX


def test_a_durative_action_is_never_an_instantaneous_step(task):
    # code that knows only instantaneous actions cannot execute it
    move = task.domain.action("move")
    assert move.effects == () and str(move.precondition) == "Or(parts=())"


def test_timed_literals_need_a_temporal_domain():
    from veriplan.errors import UnsupportedRequirementError

    d = parse_domain("(define (domain d) (:predicates (p)) (:action a :parameters () "
                     ":precondition (p) :effect (not (p))))")
    with pytest.raises(UnsupportedRequirementError, match="timed initial literals"):
        parse_problem("(define (problem q) (:domain d) (:init (at 3 (p))) (:goal (p)))", d)


CORPUS = Path(__file__).resolve().parents[1] / "data" / "temporal_plans"


def test_planner_plans_and_mutants_judged_as_val_judged_them(data_dir):
    """TAMER's plans on ipc-dev's temporal variants and their mutants in time, beside
    VAL's recorded verdicts and makespans (benchmarks/temporal_plans.py made them)."""
    import json
    import warnings

    from veriplan.pddl.task import load_task

    rows = [json.loads(x) for x in (CORPUS / "plans.jsonl").read_text().splitlines()]
    vals = {v["id"]: v for v in map(json.loads,
                                    (CORPUS / "val_verdicts.jsonl").read_text().splitlines())}
    assert len(rows) >= 150 and {r["kind"] for r in rows} >= {"planner", "same-time",
                                                              "shrink-duration"}
    tasks: dict = {}
    for r in rows:
        key = (r["domain"], r["problem"])
        if key not in tasks:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tasks[key] = load_task(data_dir / key[0], data_dir / key[1])
        ours = validate_plan(tasks[key], parse_plan(r["plan"], tasks[key]))
        v = vals[r["id"]]
        assert ours.valid == v["val"], (r["id"], ours.feedback(), v)
        if ours.valid and v["value"] is not None:
            assert ours.metric is not None and ours.metric.value == pytest.approx(v["value"],
                                                                                 rel=1e-4)


def test_a_trace_has_one_state_a_step(task):
    # (MCP's simulate reads the trace as the state after each step)
    r = _judge(task, ["0.000: (move c1 x y) [4.000]", "4.5: (load c1 y) [2.000]"], trace=True)
    assert r.valid and len(r.trace) == 3 and "(at c1 y)" in r.trace[1]
    assert "(done c1)" in r.trace[2] and "(done c1)" not in r.trace[1]
