"""The closed loop on a PDDL 3 task (issue 49), the scripted backend driving it: a plan
whose first step breaks a hard trajectory constraint (always (not (door))) is stopped
there, the constraint is fed back like a failed precondition (the step, the
constraint, the atom of the state that breaks it), and the second answer, which
respects it, is verified."""

from __future__ import annotations

from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.closed_loop import Config, solve
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

DOMAIN = """(define (domain doors)
  (:requirements :typing :constraints)
  (:types loc)
  (:predicates (at ?l - loc) (door))
  (:action move :parameters (?a ?b - loc) :precondition (at ?a)
    :effect (and (not (at ?a)) (at ?b)))
  (:action open :parameters () :precondition (not (door)) :effect (door)))
"""
PROBLEM = """(define (problem p) (:domain doors) (:objects a b c - loc) (:init (at a))
  (:goal (at c))
  (:constraints (and (always (not (door))) (sometime-before (at c) (at b)))))
"""


def test_a_broken_constraint_is_fed_back_and_the_repair_verified():
    dom = parse_domain(DOMAIN)
    task = Task(dom, parse_problem(PROBLEM, dom))
    first, good = "(open)\n(move a b)\n(move b c)", "(move a b)\n(move b c)"
    r = validate_plan(task, first.splitlines())
    assert not r.valid and r.failed_step == 1
    backend = ScriptedBackend([first, good])
    result = solve(task, LLM(backend), Config(max_attempts=3))
    assert result.verified and result.solved_by == "llm" and result.attempts == 2
    said = result.transcript[0].verdict
    assert "Step 1 (open) runs, but the state after it breaks constraint " \
           "(always (not (door)))" in said and "((door))" in said
    fed = " ".join(m.content for m in backend.requests[1].messages)
    assert "breaks constraint (always (not (door)))" in fed
    assert validate_plan(task, result.plan).valid
