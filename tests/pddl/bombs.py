"""Grounding bombs: three-line tasks whose grounding never ends (issue 46), one
for each loop of the grounder. Shared by tests/pddl, tests/planners and tests/mcp."""

from __future__ import annotations

from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task

OBJECTS = " ".join(f"o{i}" for i in range(60))

#: one action of 7 parameters over 60 objects: 60^6 bindings once (p o0) holds
BOMB_DOMAIN = """(define (domain bomb) (:requirements :strips :typing) (:types obj)
  (:predicates (p ?a - obj) (done))
  (:action a :parameters (?a ?b ?c ?d ?e ?f ?g - obj) :precondition (p ?a) :effect (done)))"""
BOMB_PROBLEM = f"""(define (problem b) (:domain bomb) (:objects {OBJECTS} - obj)
  (:init (p o0)) (:goal (done)))"""

#: a join that fails only at its last atom: 60^6 partial joins, no binding ever made
JOIN_DOMAIN = """(define (domain join) (:requirements :strips)
  (:predicates (p ?a) (never ?a) (done))
  (:action a :parameters (?a ?b ?c ?d ?e ?f ?g)
    :precondition (and (p ?a) (p ?b) (p ?c) (p ?d) (p ?e) (p ?f) (never ?g))
    :effect (done)))"""
JOIN_PROBLEM = f"""(define (problem j) (:domain join) (:objects {OBJECTS})
  (:init {' '.join(f'(p o{i})' for i in range(60))}) (:goal (done)))"""

#: ADL: every binding of 5 parameters grounds a quantifier over the 60 objects
ADL_DOMAIN = """(define (domain adl) (:requirements :adl)
  (:predicates (p ?a) (q ?a ?b) (done))
  (:action a :parameters (?a ?b ?c ?d ?e)
    :precondition (forall (?x) (or (p ?x) (q ?x ?a)))
    :effect (done)))"""
ADL_PROBLEM = f"""(define (problem d) (:domain adl) (:objects {OBJECTS})
  (:init {' '.join(f'(p o{i})' for i in range(60))}) (:goal (done)))"""

BOMBS = {"bindings": (BOMB_DOMAIN, BOMB_PROBLEM), "join": (JOIN_DOMAIN, JOIN_PROBLEM),
         "adl": (ADL_DOMAIN, ADL_PROBLEM)}


def bomb_task(kind: str = "bindings") -> Task:
    domain, problem = BOMBS[kind]
    d = parse_domain(domain)
    return Task(d, parse_problem(problem, d))
