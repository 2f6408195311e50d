"""Numeric fluents, metrics and derived predicates: VAL's semantics where the
feature files (tests/verify/features) do not reach, and bad input that must be a
clear error naming the thing, never a traceback or a verdict."""

from __future__ import annotations

import json

import pytest

from veriplan.errors import NumericTaskError, PDDLParseError, UnsupportedRequirementError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import StepErrorKind, validate_plan

DOMAIN = """(define (domain meter)
  (:requirements :strips :numeric-fluents)
  (:predicates (done ?x) (on))
  (:functions (c) (k ?x) (w))
  (:action set :parameters (?x) :precondition (and)
    :effect (and (done ?x) (increase (c) 1)))
  (:action need :parameters (?x) :precondition (and (>= (k ?x) 0))
    :effect (and (done ?x)))
  (:action copy :parameters (?x) :precondition (and)
    :effect (and (assign (c) (k ?x))))
  (:action swap :parameters () :precondition (and)
    :effect (and (assign (c) (w)) (assign (w) (c))))
  (:action half :parameters () :precondition (and)
    :effect (and (assign (c) (/ (w) (c)))))
  (:action when-big :parameters () :precondition (and)
    :effect (and (when (> (c) 1) (on)) (forall (?x) (increase (k ?x) (c))))))
"""
PROBLEM = """(define (problem p) (:domain meter) (:objects a b)
  (:init (= (c) 0) (= (w) 7) (= (k b) 1.5))
  (:goal (and (done a) (done b)))
  (:metric maximize (- (* 2 (c)) (w))))
"""


def task(domain: str = DOMAIN, problem: str = PROBLEM) -> Task:
    d = parse_domain(domain)
    return Task(d, parse_problem(problem, d))


def test_all_reads_before_all_writes_within_an_action():
    r = validate_plan(task(), ["(swap)", "(set a)", "(set b)"], trace=True)
    assert r.valid and r.metric is not None
    assert r.metric.value == 2 * 9 - 0  # c: 7 then +2; w: 0 (c before the swap)
    assert r.metric.text == "18" and r.metric.direction.value == "maximize"
    assert "(= (c) 7)" in r.trace[1] and "(= (w) 0)" in r.trace[1]


def test_a_fluent_without_a_value_names_the_fluent_and_the_step():
    r = validate_plan(task(), ["(set b)", "(need a)", "(set a)"])
    assert not r.valid and r.failed_step == 2 and r.error is StepErrorKind.UNDEFINED
    assert "(k a) has no value" in r.detail
    assert r.judgement().findings[0].kind.value == "numeric"
    r = validate_plan(task(), ["(copy a)"])
    assert r.failed_step == 1 and "(k a)" in r.detail
    assert validate_plan(task(), ["(need b)", "(set a)", "(set b)"]).valid


def test_division_by_zero_is_no_value():
    r = validate_plan(task(), ["(half)", "(set a)", "(set b)"])
    assert not r.valid and r.failed_step == 1 and "division by zero" in r.detail


def test_conditional_and_quantified_numeric_effects():
    t = task(problem=PROBLEM.replace("(= (k b) 1.5)", "(= (k b) 1.5) (= (k a) 0)"))
    r = validate_plan(t, ["(set a)", "(set b)", "(when-big)"], trace=True)
    assert r.valid and "(on)" in r.trace[-1] and "(= (k b) 3.5)" in r.trace[-1]
    assert "(on)" not in validate_plan(t, ["(when-big)"], trace=True).trace[-1]
    # (k a) without a value: the forall's increase of it is refused
    assert validate_plan(task(), ["(when-big)"]).error is StepErrorKind.UNDEFINED


def test_false_comparisons_show_their_values():
    d = DOMAIN.replace("(>= (k ?x) 0)", "(>= (k ?x) 10)")
    r = validate_plan(task(d), ["(need b)"])
    assert r.failed_step == 1 and "(>= (k b) 10): (k b) = 1.5" in r.detail
    p = PROBLEM.replace("(:goal (and (done a) (done b)))", "(:goal (> (c) (+ (w) 1)))")
    r = validate_plan(task(problem=p), ["(set a)"])
    assert not r.valid and [g.pddl() for g in r.unmet_goals] == [
        "(> (c) (+ (w) 1)): (c) = 1, (w) = 7"]


def test_json_and_feedback_carry_the_metric():
    r = validate_plan(task(), ["(set a)", "(set b)"])
    d = json.loads(json.dumps(r.to_dict()))
    assert d["metric"] == {"direction": "maximize", "expression": "(- (* 2 (c)) (w))",
                           "value": -3.0}


def test_search_on_a_numeric_task_is_a_clear_error():
    t = task()
    with pytest.raises(NumericTaskError, match="numeric fluents"):
        t.ground()
    with pytest.raises(NumericTaskError, match="ENHSP"):
        t.goal  # noqa: B018


@pytest.mark.parametrize(("edit", "says"), [
    (("(>= (k ?x) 0)", "(>= (k ?x ?x) 0)"), "function k takes 1 argument(s), 2 given"),
    (("(>= (k ?x) 0)", "(and (k ?x))"), "k is a function, not a predicate"),
    (("(>= (k ?x) 0)", "(>= (done ?x) 0)"), "done is a predicate, not a function"),
    (("(>= (k ?x) 0)", "(>= (speed ?x) 0)"), "unknown function speed"),
    (("(>= (k ?x) 0)", "(>= ?x 0)"), "variable ?x is an object, not a number"),
    (("(>= (k ?x) 0)", "(= (k ?x) a)"), "expected a number or a numeric expression, found 'a'"),
    (("(>= (k ?x) 0)", "(>= (k ?x) (- 1 2 3))"), "'-' takes two expressions, 3 given"),
    (("(increase (c) 1)", "(increase (c) 1e999)"), "finite number"),
    (("(increase (c) 1)", "(increase (done ?x) 1)"), "done is a predicate"),
    (("(increase (c) 1)", "(k ?x)"), "k is a function, not a predicate"),
    (("(:functions (c) (k ?x) (w))", "(:functions (c) (k ?x) (w) (done))"),
     "declared both as a predicate and as a function"),
])
def test_bad_numeric_input_is_a_located_error(edit, says):
    with pytest.raises(PDDLParseError, match=r"\d+:\d+: ") as info:
        parse_domain(DOMAIN.replace(*edit), file="d.pddl")
    assert says in str(info.value)


def test_bad_numeric_problems():
    d = parse_domain(DOMAIN)
    for edit, says in [(("(= (w) 7)", "(= (w a) 7)"), "function w takes 0"),
                       (("(= (w) 7)", "(= (done a) 7)"), "done is a predicate"),
                       (("(= (w) 7)", "(= (w) 7) (= (w) 8)"), "two initial values"),
                       (("(= (w) 7)", "(= (w) (+ 1 2))"), "must be a number"),
                       (("(= (w) 7)", "(= (w) 1e400)"), "finite number"),
                       (("(:metric maximize (- (* 2 (c)) (w)))", "(:metric maximize (q))"),
                        "unknown function q")]:
        with pytest.raises(PDDLParseError, match=says):
            parse_problem(PROBLEM.replace(*edit), d, file="p.pddl")


def test_object_fluents_are_refused_naming_them():
    with pytest.raises(UnsupportedRequirementError, match="object fluents") as info:
        parse_domain("(define (domain x) (:types t) (:functions (f) - t))")
    assert info.value.requirement == ":object-fluents"


def test_a_cycle_through_negation_is_an_error():
    text = """(define (domain loop) (:predicates (p) (q) (r))
      (:derived (p) (not (q))) (:derived (q) (p)) (:derived (r) (r)))"""
    with pytest.raises(PDDLParseError, match="cannot be stratified: .* through a negation"):
        parse_domain(text)
    ok = parse_domain("(define (domain ok) (:predicates (p) (q) (r))"
                      " (:derived (p) (not (q))) (:derived (r) (or (r) (p))))")
    assert ok.strata == (("p", "r"),)  # q has no rule: a basic predicate
    two = parse_domain("(define (domain two) (:predicates (p) (q) (r))"
                       " (:derived (q) (r)) (:derived (p) (not (q))))")
    assert two.strata == (("q",), ("p",))


def test_derived_predicates_are_no_effects_and_say_why_they_are_false():
    text = """(define (domain reach) (:requirements :derived-predicates)
      (:predicates (at ?x) (road ?a ?b) (near ?a))
      (:derived (near ?a) (exists (?b) (and (at ?b) (road ?b ?a))))
      (:action go :parameters (?a ?b) :precondition (and (at ?a) (near ?b))
        :effect (and (not (at ?a)) (at ?b))))"""
    with pytest.raises(PDDLParseError, match="near is a derived predicate"):
        parse_domain(text.replace("(at ?b))))", "(at ?b) (near ?a))))"))
    d = parse_domain(text)
    t = Task(d, parse_problem("(define (problem p) (:domain reach) (:objects x y z)"
                              " (:init (at x) (road x y) (road y z)) (:goal (at z)))", d))
    assert validate_plan(t, ["(go x y)", "(go y z)"]).valid
    r = validate_plan(t, ["(go x z)"])
    assert r.failed_step == 1 and "(near z) is derived, and its rule" in r.detail
    assert "(exists (?b) (and (at ?b) (road ?b z)))" in r.detail
    from veriplan.search.bfs import bfs

    assert bfs(t).solved  # search closes derived atoms after every step


def test_the_mcp_tools_on_a_numeric_task():
    from pathlib import Path

    from veriplan.mcp import tools as T
    from veriplan.mcp.config import Roots, ServerConfig, ToolInputError

    examples = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
    cfg = ServerConfig(roots=Roots.of([examples]))
    kw = {"domain_path": "tanks-domain.pddl", "problem_path": "tanks-problem.pddl"}
    doc = T.validate_plan(cfg, T.Deadline(30), plan="(drive t x y)\n(drive t y z)", **kw)
    assert not doc.valid and doc.failed_step is not None and doc.failed_step.index == 2
    assert "(fuel t) = 0.5" in doc.findings[0].detail and doc.metric is None
    doc = T.validate_plan(cfg, T.Deadline(30), plan_path="tanks-plan.txt", **kw)
    assert doc.valid and doc.metric == 17.75
    sim = T.simulate(cfg, T.Deadline(30), plan_path="tanks-plan.txt", **kw)
    assert "(= (fuel t) 3.75)" in sim.states[-1].atoms and "(reachable t z)" in sim.states[-1].atoms
    batch = T.validate_batch(cfg, T.Deadline(30), [{"plan_path": "tanks-plan.txt"}], **kw)
    assert batch.records[0].metric == 17.75
    with pytest.raises(ToolInputError, match="numeric fluents"):
        T.applicable_actions(cfg, T.Deadline(30), **kw)
    assert T.check_task(cfg, T.Deadline(30), **kw).supported
