"""CC, the static screen: each defect it finds, the gate it is in the
pipeline, and the diagnostics RC builds its directive from."""

from __future__ import annotations

import pytest

from veriplan.core.plan import Step
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.closed_loop import Config, solve
from veriplan.methods.closed_loop import cc as CC
from veriplan.methods.closed_loop import rc as RC
from veriplan.methods.closed_loop import sim as SIM
from veriplan.methods.closed_loop.contracts import Outcome, SymbolPlan
from veriplan.methods.closed_loop.sc import comprehend
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import StepErrorKind

DOMAIN = """(define (domain roads)
  (:requirements :strips :typing)
  (:types truck place city)
  (:predicates (at ?t - truck ?p - place) (in-city ?p - place ?c - city))
  (:action drive
    :parameters (?t - truck ?from - place ?to - place ?c - city)
    :precondition (and (at ?t ?from) (in-city ?from ?c) (in-city ?to ?c))
    :effect (and (not (at ?t ?from)) (at ?t ?to))))"""
PROBLEM = """(define (problem two-cities) (:domain roads)
  (:objects t - truck p1 p2 p3 - place c1 c2 - city)
  (:init (at t p1) (in-city p1 c1) (in-city p2 c1) (in-city p3 c2))
  (:goal (at t p2)))"""
_D = parse_domain(DOMAIN)
TASK = Task(_D, parse_problem(PROBLEM, _D))


def check(*steps: str):
    return CC.check(SymbolPlan(tuple(Step.parse(s) for s in steps), ()), TASK)


def test_static_predicates_are_the_ones_no_action_changes():
    assert CC.static_predicates(TASK) == {"in-city"}


def test_a_plan_that_can_run_passes():
    r = check("(drive t p1 p2 c1)")
    assert r.passed and r.first_step_applicable and not r.errors and not r.messages
    assert r.first_flagged is None


def test_nothing_to_check_is_rejected():
    r = CC.check(SymbolPlan((), ()), TASK)
    assert not r.passed and "nothing translated" in r.messages[0]


@pytest.mark.parametrize(("step", "kind", "words"), [
    ("(fly t p1 p2)", StepErrorKind.UNKNOWN_ACTION, "unknown action fly"),
    ("(drive t p1 p2)", StepErrorKind.WRONG_ARITY, "takes 4 argument(s), 3 given"),
    ("(drive t p1 p9 c1)", StepErrorKind.UNKNOWN_OBJECT, "unknown object p9"),
    ("(drive t c1 p2 c1)", StepErrorKind.WRONG_TYPE, "object c1 of type city does not fit"),
])
def test_static_defects(step, kind, words):
    r = check("(drive t p1 p2 c1)", step)
    assert not r.passed and [(e.index, e.kind) for e in r.errors] == [(2, kind)]
    assert words in r.messages[0] and r.first_flagged == 2
    assert r.first_step_applicable is True  # the first step itself is fine


def test_a_precondition_that_can_never_hold():
    # (in-city p3 c1) is false initially and no action changes in-city.
    r = check("(drive t p1 p2 c1)", "(drive t p2 p3 c1)")
    assert not r.passed and not r.errors
    assert r.never_applicable == ((2, "(in-city p3 c1)"),)
    assert r.messages == ("step 2 (drive t p2 p3 c1): (in-city p3 c1) is never true",)


def test_a_first_step_that_cannot_run():
    r = check("(drive t p2 p1 c1)")
    assert not r.passed and r.first_step_applicable is False and r.first_flagged == 1
    assert [m.pddl() for m in r.first_step_missing] == ["(at t p2)"]
    assert "cannot run in the initial state: (at t p2) false" in r.messages[0]


def test_rc_builds_its_directive_from_the_cc_report():
    c = comprehend(TASK)
    plan = SymbolPlan((Step.parse("(drive t p1 p2 c1)"), Step.parse("(drive t p2 p3 c1)")), ())
    d = RC.decide(Outcome(plan, CC.check(plan, TASK)), TASK, c)
    assert d.strategy == "precondition_probing" and d.reason == "static defect at step 2"
    assert "(in-city p3 c1) is never true" in d.directives[0]
    assert "drive takes ?t - truck ?from - place ?to - place ?c - city" in d.directives[0]
    plan = SymbolPlan((Step.parse("(drive t c1 p2 c1)"),), ())
    d = RC.decide(Outcome(plan, CC.check(plan, TASK)), TASK, c)
    assert d.strategy == "first_step_constraint" and "does not fit parameter" in d.directives[0]


def test_the_pipeline_never_simulates_what_cc_rejects(monkeypatch):
    simulated = []
    real = SIM.simulate
    monkeypatch.setattr(SIM, "simulate", lambda plan, task: simulated.append(plan) or
                        real(plan, task))
    answers = ["(drive t c1 p2 c1)", "(drive t p1 p3 c1)", "(drive t p1 p2 c1)"]
    result = solve(TASK, LLM(ScriptedBackend(answers)), Config(max_attempts=3))
    assert result.verified and result.attempts == 3
    assert [str(p.steps[0]) for p in simulated] == ["(drive t p1 p2 c1)"]
    assert [s.failure for s in result.signals] == [["static"], ["static"], []]
    assert [s.data["stages"]["cc"] for s in result.signals] == [False, False, True]
    assert "is never true" in result.transcript[1].verdict
