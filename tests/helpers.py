"""Small PDDL texts shared by several tests, and the benchmark scripts they run."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@functools.cache
def benchmark_script(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as a module (the folder is no package), loaded once a
    session: the tests call its functions as its command line does."""
    path = BENCHMARKS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(Path(name).name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"no benchmark script {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

BLOCKS_DOMAIN = """
(define (domain bw)
  (:requirements :strips)
  (:predicates (clear ?x) (ontable ?x) (handempty) (holding ?x) (on ?x ?y))
  (:action pick-up :parameters (?x)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (holding ?x) (not (clear ?x)) (not (ontable ?x)) (not (handempty))))
  (:action put-down :parameters (?x)
    :precondition (holding ?x)
    :effect (and (clear ?x) (ontable ?x) (handempty) (not (holding ?x))))
  (:action stack :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))
  (:action unstack :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x))
                 (not (handempty)))))
"""


def blocks_problem(n: int, goal_tower: bool = True) -> str:
    """n blocks on the table; goal: a tower b1 on b2 on ... bn."""
    names = [f"b{i}" for i in range(1, n + 1)]
    init = " ".join(f"(ontable {b}) (clear {b})" for b in names) + " (handempty)"
    goal = " ".join(f"(on {a} {b})" for a, b in zip(names, names[1:]))
    return f"""(define (problem tower{n}) (:domain bw) (:objects {' '.join(names)})
      (:init {init}) (:goal (and {goal})))"""


def blocks_task(n: int = 3) -> Task:
    d = parse_domain(BLOCKS_DOMAIN)
    return Task(d, parse_problem(blocks_problem(n), d))


ADL_DOMAIN = """
(define (domain adl)
  (:requirements :adl :typing :action-costs)
  (:types room - place box ball - item item place)
  (:constants hall - room)
  (:predicates (at ?i - item ?p - place) (open ?r - room) (lit ?r - room) (robot ?p - place)
               (carrying ?i - item) (visited ?r - room))
  (:functions (total-cost) - number (dist ?a ?b - place) - number)
  (:action move :parameters (?from ?to - room)
    :precondition (and (robot ?from) (not (= ?from ?to))
                       (or (open ?to) (lit ?to)) (imply (lit ?from) (open ?from)))
    :effect (and (not (robot ?from)) (robot ?to) (visited ?to)
                 (increase (total-cost) (dist ?from ?to))))
  (:action grab :parameters (?i - item ?r - room)
    :precondition (and (robot ?r) (at ?i ?r)
                       (forall (?j - item) (not (carrying ?j))))
    :effect (and (carrying ?i) (not (at ?i ?r)) (increase (total-cost) 1)))
  (:action drop-all :parameters (?r - room)
    :precondition (and (robot ?r) (exists (?i - item) (carrying ?i)))
    :effect (and (forall (?i - item) (when (carrying ?i) (and (at ?i ?r) (not (carrying ?i)))))
                 (increase (total-cost) 1)))
  (:action switch :parameters (?r - room)
    :precondition (robot ?r)
    :effect (and (when (lit ?r) (not (lit ?r))) (when (not (lit ?r)) (lit ?r))
                 (increase (total-cost) 2))))
"""

ADL_PROBLEM = """
(define (problem adl1) (:domain adl)
  (:objects kitchen cellar - room b1 - box ball1 - ball)
  (:init (robot hall) (open hall) (open kitchen) (lit cellar) (at b1 kitchen) (at ball1 hall)
         (= (dist hall kitchen) 3) (= (dist kitchen hall) 3) (= (dist hall cellar) 5)
         (= (dist cellar hall) 5) (= (dist kitchen cellar) 4) (= (dist cellar kitchen) 4)
         (= (total-cost) 0))
  (:goal (and (at b1 cellar) (visited kitchen)))
  (:metric minimize (total-cost)))
"""


def adl_task() -> Task:
    d = parse_domain(ADL_DOMAIN)
    return Task(d, parse_problem(ADL_PROBLEM, d))


# PlanBench's Mystery Blocksworld (attack, succumb, overcome, feast), for the plan readers' tests.
MYSTERY_DOMAIN = """
(define (domain mystery)
  (:requirements :strips)
  (:predicates (province ?x) (planet ?x) (harmony) (pain ?x) (craves ?x ?y))
  (:action attack :parameters (?ob)
    :precondition (and (province ?ob) (planet ?ob) (harmony))
    :effect (and (pain ?ob) (not (province ?ob)) (not (planet ?ob)) (not (harmony))))
  (:action succumb :parameters (?ob)
    :precondition (pain ?ob)
    :effect (and (province ?ob) (harmony) (planet ?ob) (not (pain ?ob))))
  (:action overcome :parameters (?ob ?underob)
    :precondition (and (province ?underob) (pain ?ob))
    :effect (and (harmony) (province ?ob) (craves ?ob ?underob)
                 (not (province ?underob)) (not (pain ?ob))))
  (:action feast :parameters (?ob ?underob)
    :precondition (and (craves ?ob ?underob) (province ?ob) (harmony))
    :effect (and (pain ?ob) (province ?underob) (not (craves ?ob ?underob))
                 (not (province ?ob)) (not (harmony)))))
"""
