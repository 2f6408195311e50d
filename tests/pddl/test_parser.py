"""The PDDL reader: the supported subset, and typed errors with locations for
everything else."""

from __future__ import annotations

import pytest

from tests.helpers import ADL_DOMAIN, ADL_PROBLEM, BLOCKS_DOMAIN, blocks_problem
from veriplan.errors import PDDLLenientWarning, PDDLParseError, UnsupportedRequirementError
from veriplan.pddl.ast import And, Atom, Exists, ForallEffect, Imply, Increase, Or, When
from veriplan.pddl.parser import parse_domain, parse_problem, read_domain


def test_strips_domain_and_problem():
    d = parse_domain(BLOCKS_DOMAIN)
    assert d.name == "bw"
    assert [a.name for a in d.actions] == ["pick-up", "put-down", "stack", "unstack"]
    assert d.predicates["on"][1].name == "?y"
    p = parse_problem(blocks_problem(3), d)
    assert list(p.objects) == ["b1", "b2", "b3"]
    assert Atom("handempty", ()) in p.init
    assert p.goal == And((Atom("on", ("b1", "b2")), Atom("on", ("b2", "b3"))))


def test_adl_constructs_are_read():
    d = parse_domain(ADL_DOMAIN)
    move = d.action("move")
    assert isinstance(move.precondition.parts[2], Or)
    assert isinstance(move.precondition.parts[3], Imply)
    assert isinstance(d.action("drop-all").precondition.parts[1], Exists)
    eff = d.action("drop-all").effects[0]
    assert isinstance(eff, ForallEffect) and isinstance(eff.effects[0], When)
    assert isinstance(move.effects[-1], Increase)
    assert d.types["room"] == "place" and d.is_subtype("room", "place")
    p = parse_problem(ADL_PROBLEM, d)
    assert str(p.metric) == "minimize (total-cost)"
    assert len(p.numeric_init) == 7


def test_case_insensitive_names():
    d = parse_domain(BLOCKS_DOMAIN.replace("pick-up", "PICK-UP").replace("(clear", "(CLEAR"))
    assert d.action("pick-up") is not None and "clear" in d.predicates


def _error(text: str, problem: str | None = None) -> PDDLParseError:
    with pytest.raises(PDDLParseError) as info:
        d = parse_domain(text, file="d.pddl")
        if problem is not None:
            parse_problem(problem, d, file="p.pddl")
    return info.value


@pytest.mark.parametrize(
    ("requirement", "text"),
    [
        (":continuous-effects", "(define (domain x) (:requirements :strips "
                                ":continuous-effects))"),
        (":object-fluents", "(define (domain x) (:types t) (:predicates (p)) "
                            "(:functions (f) - t))"),
    ],
)
def test_outside_the_subset_names_the_requirement(requirement, text):
    err = _error(text)
    assert isinstance(err, UnsupportedRequirementError)
    assert err.requirement == requirement
    assert err.file == "d.pddl" and err.line == 1 and err.col is not None


def test_error_locations_point_at_the_offender():
    text = BLOCKS_DOMAIN.replace("(holding ?x) (clear ?y))", "(holding ?x) (clear ?z))")
    err = _error(text)
    assert "variable ?z is not bound" in str(err)
    line = text.splitlines()[err.line - 1]
    assert line[err.col - 1:].startswith("?z")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty PDDL text"),
        ("(define (domain x)", "not closed"),
        ("(define (domain x)))", "unbalanced ')'"),
        ("(define (domain x) (:predicates (p)) (:action a :parameters (?x) :effect (q ?x)))",
         "unknown predicate q"),
        ("(define (domain x) (:predicates (p ?x)) (:action a :parameters (?x) :effect (p)))",
         "takes 1 argument(s), 0 given"),
        ("(define (domain x) (:types a - b b - a))", "its own ancestor"),
        ("(define (domain x) (:types t) (:predicates (p ?x - u)))", "unknown type u"),
        ("(define (problem x))", "expected (domain NAME)"),
        ("(define (domain x) (:predicates (p) (p)))", "declared twice"),
        ("(define (domain x) (:bogus))", "unknown domain section :bogus"),
    ],
)
def test_malformed_domains(text, fragment):
    assert fragment in str(_error(text))


def test_problem_checks_against_domain():
    err = _error(BLOCKS_DOMAIN, blocks_problem(2).replace("(on b1 b2)", "(on b1 b9)"))
    assert "unknown object b9" in str(err) and err.file == "p.pddl"
    err = _error(BLOCKS_DOMAIN, blocks_problem(2).replace("(:domain bw)", "(:domain other)"))
    assert "problem is for domain other" in str(err)
    err = _error(BLOCKS_DOMAIN, blocks_problem(2).replace("(:goal", "(:nogoal"))
    assert "unknown problem section" in str(err)


TYPED = """(define (domain t) (:requirements :typing)
  (:types room agent)
  (:predicates (seen ?r - room) (at ?a - agent ?r - room))
  (:action look :parameters (?a - agent ?r - room)
    :precondition (at ?a ?r) :effect (seen ?a)))"""


def test_type_misuse_strict_and_lenient():
    err = _error(TYPED)
    assert "argument ?a of type agent does not fit parameter ?r - room" in str(err)
    assert err.line == 5 and "strict=False" in str(err)
    with pytest.warns(PDDLLenientWarning, match=r"<text>:5:\d+: argument \?a"):
        d = parse_domain(TYPED, strict=False)
    assert len(d.warnings) == 1


def test_declared_object_type_and_stray_comma_are_lenient_only():
    text = TYPED.replace("(:types room agent)", "(:types room agent object)").replace(
        ":precondition (at ?a ?r)",
        ":precondition (exists (?b - agent, ?q - room) (at ?b ?q))").replace(
        "(seen ?a)", "(seen ?r)")
    with pytest.raises(PDDLParseError, match="type 'object' is built in"):
        parse_domain(text)
    with pytest.warns(PDDLLenientWarning):
        d = parse_domain(text, strict=False)
    assert any("stray comma" in w for w in d.warnings)
    assert d.action("look").precondition.params[0].type == "agent"


def test_read_domain_missing_and_binary_files(tmp_path):
    with pytest.raises(PDDLParseError, match="cannot read PDDL file"):
        read_domain(tmp_path / "nope.pddl")
    f = tmp_path / "bin.pddl"
    f.write_bytes(b"(define \xff\xfe\x00\x01")
    with pytest.raises(PDDLParseError) as info:
        read_domain(f)
    assert info.value.line == 1


def test_fast_and_located_passes_agree(data_dir):
    """Well-formed files take the fast pass; the located pass (used for
    errors) must read them identically."""
    from tests.pddl.pddl_files import domain_problem_sets
    from veriplan.pddl.parser import Source, _Parser

    for dom_path, problems in domain_problem_sets(data_dir):
        text = dom_path.read_text()
        d = _Parser(Source(text), True, located=False).domain()
        assert _Parser(Source(text), True, located=True).domain() == d
        for p in problems[:25]:
            ptext = p.read_text()
            fast = _Parser(Source(ptext), True, d, located=False).problem()
            assert _Parser(Source(ptext), True, d, located=True).problem() == fast
