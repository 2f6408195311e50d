"""The shared vocabulary: scopes (and the migration of free-text scopes from
stored records), three-valued verdicts, and the PDDL validator's judgement."""

from __future__ import annotations

import pytest

from veriplan.core.verdict import Finding, FindingKind, Judgement, Scope, Verdict
from veriplan.errors import RecordError
from veriplan.methods.result import SolveResult
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

DOMAIN = """(define (domain bw) (:requirements :strips)
 (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
 (:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) (handempty))
  :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
 (:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y))
  :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y))))"""
PROBLEM = """(define (problem p) (:domain bw) (:objects a b)
 (:init (ontable a) (ontable b) (clear a) (clear b) (handempty)) (:goal (on a b)))"""


@pytest.fixture(scope="module")
def task() -> Task:
    d = parse_domain(DOMAIN)
    return Task(d, parse_problem(PROBLEM, d))


@pytest.mark.parametrize("text, scope", [
    ("plan", Scope.PLAN_ON_TASK), ("domain", Scope.SEARCH_COMPONENTS),
    ("hidden-precondition task: no violation", Scope.HIDDEN_TASK),
    ("hidden-precondition task: accepted and no violation", Scope.HIDDEN_TASK),
    ("episode: the environment reported the task done", Scope.ENV_EPISODE),
    ("plan_on_task", Scope.PLAN_ON_TASK), ("unchecked", Scope.UNCHECKED)])
def test_stored_scopes_migrate(text: str, scope: Scope) -> None:
    assert Scope.read(text) is scope


@pytest.mark.parametrize("value", ["verified", "", None, 3, "plan on some other task"])
def test_an_unknown_stored_scope_is_an_error_naming_record_and_field(value: object) -> None:
    with pytest.raises(RecordError, match=r"unit 7f3a.*verified_scope"):
        Scope.read(value, record="unit 7f3a")


def test_solve_result_scope_is_typed_and_named_in_words() -> None:
    r = SolveResult("m", True, ["(a)"], 1, 0, 0, 0.0, scope="domain")  # type: ignore[arg-type]
    assert r.scope is Scope.SEARCH_COMPONENTS
    assert r.to_dict()["scope"] == "search_components"
    assert "search components" in r.verified_on
    assert SolveResult("m", False, [], 1, 0, 0, 0.0).verified_on == "not verified"
    with pytest.raises(RecordError):
        SolveResult("m", True, [], 1, 0, 0, 0.0, scope="whatever")  # type: ignore[arg-type]


def test_judgement_is_three_valued() -> None:
    ungrounded = Finding(FindingKind.UNGROUNDED, 1, "oven", "nothing says the oven is hot")
    missing = Finding(FindingKind.MISSING_ITEM, 2, "butter", "uses butter, which is missing")
    assert Judgement.of(Scope.HIDDEN_TASK, []).verdict is Verdict.VALID
    assert Judgement.of(Scope.HIDDEN_TASK, [ungrounded]).verdict is Verdict.UNKNOWN
    assert not Judgement.of(Scope.HIDDEN_TASK, [ungrounded]).valid
    assert Judgement.of(Scope.HIDDEN_TASK, [], unknown=True).verdict is Verdict.UNKNOWN
    both = Judgement.of(Scope.HIDDEN_TASK, [ungrounded, missing])
    assert both.verdict is Verdict.INVALID
    assert Judgement.from_dict(both.to_dict()) == both


def test_validator_judgement_names_step_kind_and_subject(task: Task) -> None:
    ok = validate_plan(task, ["(pick-up a)", "(stack a b)"]).judgement()
    assert (ok.verdict, ok.scope, ok.findings) == (Verdict.VALID, Scope.PLAN_ON_TASK, ())
    bad = validate_plan(task, ["(stack a b)"]).judgement()
    assert bad.verdict is Verdict.INVALID
    assert (bad.findings[0].kind, bad.findings[0].step, bad.findings[0].subject) == (
        FindingKind.PRECONDITION, 1, "(holding a)")
    short = validate_plan(task, ["(pick-up a)"]).judgement()
    assert [(f.kind, f.subject) for f in short.findings] == [(FindingKind.GOAL, "(on a b)")]
    unknown = validate_plan(task, ["(fly a)"]).judgement()
    assert unknown.findings[0].kind is FindingKind.UNKNOWN_ACTION
    assert validate_plan(task, ["(stack a b)"]).to_dict()["judgement"]["verdict"] == "invalid"


def test_uncheckable_findings_leave_the_verdict_unknown() -> None:
    """A finding that says nothing could decide is not a refutation."""
    uncheckable = Finding(FindingKind.UNCHECKABLE, 1, "focus on x", "no goal form")
    assert Judgement.of(Scope.PLAN_ON_GROUNDED_FACTS, [uncheckable]).verdict is Verdict.UNKNOWN
