"""The plain-problem reader (``parser._plain_problem``, the common layout read with a
few regular expressions) makes exactly the Problem the parser's tree walk makes, and
leaves every other text, and every text the parser refuses or warns about, to it."""

from __future__ import annotations

import random
import warnings

import pytest

from tests.helpers import BLOCKS_DOMAIN, blocks_problem
from tests.pddl.pddl_files import domain_problem_sets
from veriplan.errors import PDDLParseError
from veriplan.pddl import parser as P
from veriplan.pddl.ast import Problem
from veriplan.pddl.sexpr import Source

TYPED_DOMAIN = """
(define (domain typed)
  (:requirements :strips :typing :negative-preconditions :equality :adl)
  (:types block - thing table - thing)
  (:constants t0 - table)
  (:predicates (on ?x - block ?y - thing) (clear ?x - thing) (free) (big ?b - block))
  (:action put :parameters (?x - block ?y - thing)
    :precondition (and (clear ?x) (clear ?y) (not (= ?x ?y)))
    :effect (and (on ?x ?y) (not (clear ?y)))))
"""

TYPED_PROBLEM = """(define (problem p1) (:domain typed)
  (:objects a b - block c)
  (:init (clear a) (clear b) (on a t0) (free))
  (:goal (and (on a b) (on b t0))))"""


def tree_walk(text: str, domain) -> Problem | str:
    """What the parser's tree walk makes of a problem text (unlocated pass, then the
    located one where that needs it), or the name of the error it raises."""
    src = Source(P._no_bom(text), "p.pddl")
    try:
        try:
            return P._Parser(src, True, domain, located=False).problem()
        except P._NeedLocation:
            return P._Parser(src, True, domain, located=True).problem()
    except PDDLParseError as exc:
        return type(exc).__name__


def same(a: Problem, b: Problem) -> bool:
    return (a == b and vars(a) == vars(b) and list(vars(a)) == list(vars(b))
            and a.file == b.file and a.warnings == b.warnings
            and list(a.objects.items()) == list(b.objects.items())
            and type(a.goal) is type(b.goal) and a.init == b.init)


def check(text: str, domain) -> Problem | None:
    """The plain reader's Problem, checked against the tree walk's (None: left to it)."""
    plain = P._plain_problem(P._no_bom(text), domain, "p.pddl")
    if plain is not None:
        general = tree_walk(text, domain)
        assert isinstance(general, Problem), (text, general)
        assert same(plain, general), (text, plain, general)
    return plain


@pytest.fixture(scope="module")
def blocks():
    return P.parse_domain(BLOCKS_DOMAIN)


@pytest.fixture(scope="module")
def typed():
    return P.parse_domain(TYPED_DOMAIN)


def test_every_data_problem_is_read_plainly_and_the_same(data_dir):
    warnings.simplefilter("ignore")
    n = 0
    for dom_path, problems in domain_problem_sets(data_dir):
        d = P.read_domain(dom_path, strict=False)
        for p in problems[:150]:
            assert check(p.read_text(), d) is not None, p
            n += 1
    assert n > 500


def test_mutated_problems_are_read_the_same_or_left_to_the_parser(blocks, typed):
    rng = random.Random(36)
    texts = [(blocks_problem(4), blocks), (TYPED_PROBLEM, typed)]
    inserts = ["(not (on a b))", "(= (f) 1)", "(:metric minimize (total-cost))", "- block",
               "(and)", "(or (on b1 b2) (on b2 b1))", "(clear ?x)", " c ", ":typing",
               "(:requirements :strips)", "(free)", "; note\n", ",", "\xa0", "\u2003", "\x85",
               "- object", "t0", "(:objects z)", "(on a c)", "(big t0)", "-",
               "(exists (?v - block) (clear ?v))", "\x01", "\x0b", "\x0c", "\x1c", "\x1f",
               "\x7f", "; \x01 in a comment\n"]
    plain = 0
    for _ in range(1500):
        text, d = rng.choice(texts)
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(len(text))
            op = rng.randrange(4)
            if op == 0:
                text = text[:k] + text[k + 1:]
            elif op == 1:
                text = text[:k] + rng.choice("()- \n;,?xAé\t") + text[k:]
            elif op == 2:
                text = text[:k] + rng.choice(inserts) + text[k:]
            else:
                text = text.upper() if rng.random() < 0.2 else text.replace("(and", "", 1)
        plain += check(text, d) is not None
    assert plain > 100  # the mutants the plain reader takes were compared


@pytest.mark.parametrize("text", [
    TYPED_PROBLEM,
    TYPED_PROBLEM.replace("(:goal (and (on a b) (on b t0)))", "(:goal (on a b))"),
    TYPED_PROBLEM.replace("(:goal (and (on a b) (on b t0)))",
                          "(:goal (and (not (clear a)) (or (on a b) (big b))))"),
    TYPED_PROBLEM.replace("(:goal (and (on a b) (on b t0)))",
                          "(:goal (exists (?v - block) (on ?v t0)))"),
    TYPED_PROBLEM.replace("(:objects a b - block c)", "(:objects)"
                          ).replace("(clear a) (clear b) (on a t0) ", ""
                                    ).replace("(and (on a b) (on b t0))", "(and)"),
    TYPED_PROBLEM.replace("c)", "c - object)"),
    TYPED_PROBLEM.replace("(:domain typed)", "(:domain typed) (:requirements :strips :typing)"),
    TYPED_PROBLEM.replace("(free)", "(free) ; a comment, with a comma\n"),
    TYPED_PROBLEM.replace(" ", "\xa0\u2003 "),
    "\ufeff" + TYPED_PROBLEM.upper(),
])
def test_plain_layouts_are_read_plainly(text, typed):
    assert check(text, typed) is not None


@pytest.mark.parametrize("text", [
    TYPED_PROBLEM.replace("(free)", "(free) (= (cost) 1)"),  # numeric fact
    TYPED_PROBLEM.replace("(free)", "(not (free))"),
    TYPED_PROBLEM.replace("(free)", "(not free)"),
    TYPED_PROBLEM.replace("))))", "))) (:metric minimize (total-cost)))"),
    TYPED_PROBLEM.replace("(free)", "(big t0)"),  # t0 is a table, big takes a block
    TYPED_PROBLEM.replace("(free)", "(clear t9)"),  # unknown object
    TYPED_PROBLEM.replace("(free)", "(clear ?x)"),
    TYPED_PROBLEM.replace("(free)", "(free a)"),  # arity
    TYPED_PROBLEM.replace("(free)", "(glued a)"),  # unknown predicate
    TYPED_PROBLEM.replace("(free)", "()"),
    TYPED_PROBLEM.replace("a b - block c", "a b - block c a"),  # declared twice
    TYPED_PROBLEM.replace("a b - block c", "a b - block t0"),  # a domain constant
    TYPED_PROBLEM.replace("a b - block c", "a b - brick c"),  # unknown type
    TYPED_PROBLEM.replace("a b - block c", "a b - block - thing"),
    TYPED_PROBLEM.replace("a b - block c", "a b c -"),
    TYPED_PROBLEM.replace("a b - block c", "a, b - block c"),
    TYPED_PROBLEM.replace("(:domain typed)", "(:domain other)"),
    TYPED_PROBLEM.replace("(:domain typed)", "(:domain typed) (:requirements :object-fluents)"),
    TYPED_PROBLEM.replace("(:domain typed)", ""),  # no :domain: the parser's layout
    TYPED_PROBLEM.replace("(:goal (and (on a b) (on b t0)))", "(:goal (and (on a b) ()))"),
    TYPED_PROBLEM.replace("(:goal (and (on a b) (on b t0)))", "(:goal (and (and) (on a b)))"),
    TYPED_PROBLEM.replace("(:goal (and (on a b) (on b t0)))", "(:goal (on a b) (free))"),
    TYPED_PROBLEM + " (extra)",
    TYPED_PROBLEM.replace("(free)", "(free)\x01"),
])
def test_other_texts_are_left_to_the_parser(text, typed):
    assert P._plain_problem(P._no_bom(text), typed, "p.pddl") is None
    general = tree_walk(text, typed)
    public = None
    try:
        public = P.parse_problem(text, typed, file="p.pddl")
    except PDDLParseError as exc:
        assert general == type(exc).__name__
    else:
        assert isinstance(general, Problem) and same(public, general)


def test_untyped_objects_and_errors(blocks):
    text = blocks_problem(3)
    assert check(text, blocks) is not None
    for bad in ("(clear b9)", "(handempty b1)", "(glued b1)", "(clear b1 b2)"):
        assert P._plain_problem(text.replace("(:init ", f"(:init {bad} "), blocks, "p") is None
        with pytest.raises(PDDLParseError):
            P.parse_problem(text.replace("(:init ", f"(:init {bad} "), blocks)
