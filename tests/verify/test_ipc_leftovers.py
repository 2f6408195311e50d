"""The IPC's classical files that break the standard in small ways, each in a
small domain written here in its image: read as VAL reads them, with a warning
naming the place (in lenient mode where the file is wrong, in both where the
meaning is plain), and judged alike with VAL where VAL reads them."""

from __future__ import annotations

import warnings

import pytest

from veriplan.errors import PDDLLenientWarning, PDDLParseError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan
from veriplan.verify.val import disagreement

REPEATED = """(define (domain rep) (:requirements :strips)
 (:predicates (at ?x ?l) (truck ?t))
 (:action drive :parameters (?t ?a ?b ?a)
   :precondition (and (truck ?t) (at ?t ?a))
   :effect (and (not (at ?t ?a)) (at ?t ?b))))
"""
REPEATED_P = "(define (problem p) (:domain rep) (:objects t x y) (:init (truck t) (at t x))" \
             " (:goal (at t y)))"
TWICE = """(define (domain ty) (:requirements :strips :typing)
 (:types area - object crate area - surface surface - object)
 (:predicates (on ?c - crate ?s - surface) (in ?a - area))
 (:action lift :parameters (?c - crate ?s - surface)
   :precondition (and (on ?c ?s))
   :effect (and (not (on ?c ?s)))))
"""
TWICE_P = "(define (problem p) (:domain ty) (:objects c - crate s - surface)" \
          " (:init (on c s)) (:goal (not (on c s))))"
VARS = """(in-package "PDDL")
(define (domain feasts)
  (:requirements :strips :typing)
  (:types food pleasure province)
  (:predicates (eats ?n1 ?n2 - food) (craves ?v - pleasure ?n - food)
               (locale ?n - food ?l - province) (attacks ?i ?j - province))
  (:action feast
    :parameters (?v - pleasure ?n1 ?n2 - food)
    :vars (?l1 ?l2 - province)
    :precondition (and (craves ?v ?n1) (eats ?n1 ?n2) (locale ?n1 ?l2) (attacks ?l1 ?l2))
    :effect (and (not (craves ?v ?n1)) (craves ?v ?n2) (not (locale ?n1 ?l2))
                 (locale ?n1 ?l1))))
(a stray list)
"""
VARS_P = """(define (problem p) (:domain feasts)
  (:objects a b - food v - pleasure x y - province)
  (:init (craves v a) (eats a b) (locale a y) (attacks x y)) (:goal (craves v b)))"""


def _lenient(domain: str, problem: str) -> tuple[Task, list[str]]:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        d = parse_domain(domain, file="d.pddl", strict=False)
        task = Task(d, parse_problem(problem, d, file="p.pddl", strict=False))
    return task, [str(w.message) for w in got if issubclass(w.category, PDDLLenientWarning)]


def test_a_repeated_parameter_binds_its_last_position_as_val_does(val, tmp_path):
    with pytest.raises(PDDLParseError, match=r"d.pddl:3:\d+: parameter \?a appears twice"):
        parse_domain(REPEATED, file="d.pddl")
    task, said = _lenient(REPEATED, REPEATED_P)
    assert any("parameter ?a appears twice" in w for w in said)
    (tmp_path / "d.pddl").write_text(REPEATED)
    (tmp_path / "p.pddl").write_text(REPEATED_P)
    plans = ["(drive t x y x)\n", "(drive t x y y)\n"]
    theirs = val.judge_many(tmp_path / "d.pddl", tmp_path / "p.pddl", plans)
    ours = [validate_plan(task, [p.strip()]) for p in plans]
    assert [r.valid for r in ours] == [True, False]
    assert all(disagreement(o, t) is None for o, t in zip(ours, theirs))


def test_a_type_declared_twice_with_one_meaning_is_read_with_a_warning(val, tmp_path):
    with pytest.warns(PDDLLenientWarning, match=r"d.pddl:2:\d+: type area is declared twice"):
        d = parse_domain(TWICE, file="d.pddl")  # strict too: the meaning is plain
    assert d.types["area"] == "surface"
    task = Task(d, parse_problem(TWICE_P, d))
    (tmp_path / "d.pddl").write_text(TWICE)
    (tmp_path / "p.pddl").write_text(TWICE_P)
    r = validate_plan(task, ["(lift c s)"])
    assert r.valid and disagreement(r, val.judge(tmp_path / "d.pddl", tmp_path / "p.pddl",
                                                 "(lift c s)\n")) is None
    with pytest.raises(PDDLParseError, match="declared twice, under surface and under crate"):
        parse_domain(TWICE.replace("surface - object)", "surface - object area - crate)"))


def test_pddl_1_2_vars_and_text_around_the_definition():
    with pytest.raises(PDDLParseError, match=r"d.pddl:1:1: \(in-package \.\.\.\) is Lisp"):
        parse_domain(VARS, file="d.pddl")
    alone = VARS.split("\n", 1)[1].replace("(a stray list)", "")
    with pytest.raises(PDDLParseError, match=r"d.pddl:8:\d+: ':vars' of action feast"):
        parse_domain(alone, file="d.pddl")
    task, said = _lenient(VARS, VARS_P)
    assert [w.split(": ", 1)[1][:30] for w in said] == [
        "(in-package ...) is Lisp, not ", "text after the end of the defi",
        "':vars' of action feast is PDD"]
    assert [p.name for p in task.schemas["feast"].params] == ["?v", "?n1", "?n2", "?l1", "?l2"]
    assert validate_plan(task, ["(feast v a b x y)"]).valid
    assert validate_plan(task, ["(feast v a b)"]).error.value == "wrong-arity"


def test_an_object_that_repeats_a_constant_is_the_constant():
    d = parse_domain("(define (domain k) (:requirements :typing) (:types t)"
                     " (:constants c - t) (:predicates (p ?x - t))"
                     " (:action a :parameters (?x - t) :precondition (p ?x) :effect (not (p ?x))))")
    with pytest.warns(PDDLLenientWarning, match="object c repeats the domain constant c"):
        p = parse_problem("(define (problem q) (:domain k) (:objects c d - t) (:init (p c))"
                          " (:goal (not (p c))))", d, file="p.pddl")
    assert set(p.objects) == {"d"}
    assert validate_plan(Task(d, p), ["(a c)"]).valid
