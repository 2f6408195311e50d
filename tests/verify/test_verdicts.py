"""Structured verdicts (typed literals) and plans with unread lines."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES
from tests.helpers import adl_task, blocks_task
from veriplan import load_task, parse_plan, validate_plan
from veriplan.cli import main
from veriplan.core import Atom, FormulaText, Literal
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import StepErrorKind

DOM = EXAMPLES / "blocks-domain.pddl"
PROB = EXAMPLES / "blocks-problem.pddl"
GOOD_PLAN = (EXAMPLES / "blocks-plan.txt").read_text()
# The example: the bundled valid plan between two lines that are no actions.
WRAPPED = "(plant-finish)\n" + GOOD_PLAN + "(self-destruct now)\n"

VISITS = """(define (domain visits) (:requirements :negative-preconditions)
  (:predicates (visited ?x) (ready) (done))
  (:action go :parameters (?x)
    :precondition (and (ready) (not (visited ?x))) :effect (visited ?x))
  (:action finish :parameters () :precondition (ready) :effect (and (done) (not (ready)))))"""


def visits_task(goal: str) -> Task:
    d = parse_domain(VISITS)
    return Task(d, parse_problem(
        f"(define (problem p) (:domain visits) (:objects a b) (:init (ready)) (:goal {goal}))",
        d))


def test_unsatisfied_preconditions_are_literals():
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(stack b1 b2)"])
    assert set(r.unsatisfied) == {Literal(Atom("clear", ("b2",)), True),
                                  Literal(Atom("holding", ("b1",)), True)}
    u = next(u for u in r.unsatisfied if u.atom.pred == "holding")
    assert u.atom.args == ("b1",) and u.positive and u.pddl() == str(u) == "(holding b1)"
    assert set(r.unsatisfied_predicates) == {"clear", "holding"}

    r = validate_plan(visits_task("(done)"), ["(go a)", "(go a)"])
    assert r.failed_step == 2 and r.unsatisfied == (Literal(Atom("visited", ("a",)), False),)
    neg = r.unsatisfied[0]
    assert not neg.positive and neg.atom == Atom("visited", ("a",))
    assert neg.pddl() == str(neg) == "(not (visited a))"
    assert r.feedback() == "step 2 (go a): precondition (not (visited a)) is false"
    r = validate_plan(visits_task("(done)"), ["(finish)", "(go b)"])
    assert r.unsatisfied == (Literal(Atom("ready", ()), True),)
    assert r.unsatisfied[0].pddl() == "(ready)"


def test_unmet_goals_are_literals_and_other_parts_are_text():
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(stack b2 b3)"])
    assert r.unmet_goals == (Literal(Atom("on", ("b1", "b2"))),)
    assert r.unmet_goals[0].pddl() == "(on b1 b2)"
    r = validate_plan(visits_task("(and (done) (not (visited a)))"), ["(go a)"])
    assert set(r.unmet_goals) == {Literal(Atom("done", ())),
                                  Literal(Atom("visited", ("a",)), False)}
    assert {g.pddl() for g in r.unmet_goals} == {"(done)", "(not (visited a))"}
    r = validate_plan(visits_task("(or (done) (visited b))"), ["(go a)"])
    assert r.unmet_goals == (FormulaText("(or (done) (visited b))"),)
    assert r.unmet_goals[0].pddl() == "(or (done) (visited b))"
    # A false disjunctive precondition, and an equality that can never hold.
    r = validate_plan(adl_task(), ["(move hall cellar)", "(move cellar hall)"])
    assert r.unsatisfied == (FormulaText("(or (not (lit cellar)) (open cellar))"),)
    assert r.unsatisfied_predicates == ()
    r = validate_plan(adl_task(), ["(move hall hall)"])
    assert [u.pddl() for u in r.unsatisfied] == ["(not (= hall hall))"]


def test_to_dict_keeps_pddl_text():
    r = validate_plan(visits_task("(and (done) (not (visited a)))"), ["(go a)"])
    d = json.loads(json.dumps(r.to_dict()))
    assert sorted(d["unmet_goals"]) == ["(done)", "(not (visited a))"]
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(stack b1 b2)"])
    d = json.loads(json.dumps(r.to_dict()))
    assert sorted(d["unsatisfied"]) == ["(clear b2)", "(holding b1)"]
    assert d["unread_lines"] == [] and d["error"] == "precondition"


def test_a_plan_with_unread_lines_is_never_valid():
    task = load_task(DOM, PROB)
    parsed = parse_plan(WRAPPED, task)
    assert [u.line for u in parsed.unread] == [1, 8] and len(parsed.steps) == 6
    r = validate_plan(task, parsed)
    assert not r.valid and r.error == StepErrorKind.UNREAD
    assert r.unread == parsed.unread and r.steps_reach_goal and r.steps_executed == 6
    assert r.feedback() == ("lines 1 ('(plant-finish)') and 8 ('(self-destruct now)') could "
                            "not be read as actions; the 6 steps read reach the goal")
    assert r.feedback(unread=False) == "the plan is valid: its 6 steps reach the goal"
    d = r.to_dict()
    assert d["valid"] is False and d["error"] == "unread"
    assert d["unread_lines"][1] == {"line": 8, "text": "(self-destruct now)",
                                    "reason": "self-destruct is not an action of the domain"}
    # Judging the read steps alone is asked for by name.
    assert validate_plan(task, parsed, unread="ignore").valid
    assert validate_plan(task, parsed.steps).valid
    with pytest.raises(ValueError, match="unread="):
        validate_plan(task, parsed, unread="skip")
    # Without unread lines nothing changes.
    assert validate_plan(task, parse_plan(GOOD_PLAN, task)).valid


def test_unread_lines_with_a_failing_step_keep_the_step_verdict():
    task = load_task(DOM, PROB)
    parsed = parse_plan("(unstack c a)\n(pick-up b)\nand then celebrate\n", task)
    r = validate_plan(task, parsed)
    assert not r.valid and r.error == StepErrorKind.PRECONDITION and r.failed_step == 2
    assert r.unsatisfied == (Literal(Atom("handempty", ())),) and len(r.unread) == 1
    assert r.feedback() == ("line 3 ('and then celebrate') could not be read as an action; "
                            "of the steps read, step 2 (pick-up b): precondition (handempty) "
                            "is false")
    r = validate_plan(task, parse_plan("hello\n(unstack c a)\n", task))
    assert r.error == StepErrorKind.UNREAD and r.unmet_goals and r.feedback().endswith(
        "the 1 step read executes but does not reach the goal: goals (on a b) and (on b c) "
        "are false at the end")
    r = validate_plan(task, parse_plan("nothing to see\n", task))
    assert r.feedback() == "line 1 ('nothing to see') could not be read as an action; " \
                           "no step was read"


def test_cli_agrees(capsys, tmp_path):
    plan = tmp_path / "plan.txt"
    plan.write_text(WRAPPED)
    args = ["validate", "--domain", str(DOM), "--problem", str(PROB), "--plan", str(plan)]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("unread: line 1 ('(plant-finish)')")
    assert "not valid: lines 1 ('(plant-finish)') and 8" in out
    assert main([*args, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] is False and [u["line"] for u in data["unread_lines"]] == [1, 8]
    assert list(data) == ["schema_id", "valid", "plan", "failed_step", "action", "error", "detail",
                          "unsatisfied", "unmet_goals", "step_errors", "cost",
                          "steps_executed", "trace", "feedback", "unread_lines", "metric",
                          "judgement"]
