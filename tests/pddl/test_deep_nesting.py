"""Deep nesting is handled to one depth everywhere, or refused at the reader with that
limit: every pass over a formula (reader, grounding, instantiation, validation,
rendering, search grounding) works at the reader's limit with a bounded stack, and
one list deeper is a located PDDLParseError (issue 32)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager

import pytest

from tests.conftest import EXAMPLES
from veriplan.core import condition
from veriplan.errors import PDDLParseError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.sexpr import MAX_DEPTH
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.verify import validate_plan

DOMAIN = """(define (domain deep)
  (:requirements :adl)
  (:predicates (p ?x) (q ?x) (done))
  (:action go :parameters (?x)
    :precondition PRE
    :effect (and (done) (p ?x))))"""
PROBLEM = """(define (problem deep-1) (:domain deep)
  (:objects a b)
  (:init (p a) (q a))
  (:goal GOAL))"""
# A formula sits this many lists deep in its file: (define (:action ... :precondition F
# and (define (:goal F; the formula's own lists add to that.
OUTER = 2

#: The stack a pass may use, in frames, above its caller's.
BUDGET = 500


@contextmanager
def bounded_stack(frames: int = BUDGET):
    """Run with only ``frames`` Python frames to spare."""
    depth = 0
    f = sys._getframe()
    while f is not None:
        depth += 1
        f = f.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def nested(kind: str, levels: int, var: str = "a") -> str:
    """A formula ``levels`` lists deep (the innermost atom counts as one)."""
    text = f"(p {var})"
    for i in range(levels - 1):
        if kind == "mixed":
            text = f"({'and' if i % 2 else 'or'} {text} (q {var}))"
        else:
            text = f"({kind} {text} (q {var}))"
    return text


def _not(levels: int) -> str:
    """An even number of negations (so the goal stays true where (p a) holds)."""
    text = "(p a)"
    for _ in range((levels - 1) // 2 * 2):
        text = f"(not {text})"
    return text


FORMULAS = {
    "and": lambda d: nested("and", d),
    "or": lambda d: nested("or", d),
    "mixed": lambda d: nested("mixed", d),
    "not": _not,
    "imply": lambda d: nested("imply", d),
}


@pytest.mark.parametrize("kind", list(FORMULAS))
def test_every_pass_works_at_the_readers_limit(kind):
    levels = MAX_DEPTH - OUTER
    goal = FORMULAS[kind](levels)
    pre = FORMULAS[kind](levels).replace("(p a)", "(p ?x)").replace("(q a)", "(q ?x)")
    with bounded_stack():
        domain = parse_domain(DOMAIN.replace("PRE", pre))
        task = Task(domain, parse_problem(PROBLEM.replace("GOAL", goal), domain))
        good = validate_plan(task, ["(go a)"])
        bad = validate_plan(task, ["(go b)"]) if kind != "imply" else None
        condition.render(task.goal, task.facts.name)
        task.goal.holds(task.init)
        task.ground()
        json.dumps(good.to_dict())
        if bad is not None:
            json.dumps(bad.to_dict())
            bad.judgement()
        domain_to_pddl(domain)
        problem_to_pddl(task.problem)
    assert good.valid, good.feedback()
    assert bad is None or not bad.valid


@pytest.mark.parametrize("where", ["goal", "precondition"])
@pytest.mark.parametrize("kind", ["and", "or"])
def test_one_list_deeper_is_refused_at_the_reader_with_a_location(kind, where):
    deep = nested(kind, MAX_DEPTH - OUTER + 1)
    ok = nested(kind, 1)
    if where == "goal":
        domain = parse_domain(DOMAIN.replace("PRE", ok.replace("a)", "?x)")))
        with pytest.raises(PDDLParseError, match=f"nested more than {MAX_DEPTH} deep") as info:
            parse_problem(PROBLEM.replace("GOAL", deep), domain, file="p.pddl")
    else:
        with pytest.raises(PDDLParseError, match=f"nested more than {MAX_DEPTH} deep") as info:
            parse_domain(DOMAIN.replace("PRE", deep.replace("a)", "?x)")), file="d.pddl")
    assert info.value.line is not None and info.value.col is not None


def test_the_issues_depths_are_refused_not_crashed(tmp_path):
    """A goal (and (and ...)) or precondition (or (or ...)) 330-399 deep: a RecursionError
    traceback before; now the reader's located error, exit 2."""
    from veriplan.cli import main

    for depth in (330, 399):
        problem = tmp_path / "p.pddl"
        problem.write_text(EXAMPLES.joinpath("blocks-problem.pddl").read_text().replace(
            "(:goal (and (on a b) (on b c)))", "(:goal " + "(and " * depth + "(on a b)"
            + ")" * depth + ")"))
        plan = tmp_path / "plan.txt"
        plan.write_text("(unstack c a)\n")
        with bounded_stack(900):
            code = main(["validate", "--domain", str(EXAMPLES / "blocks-domain.pddl"),
                         "--problem", str(problem), "--plan", str(plan)])
        assert code == 2


def test_nested_quantifiers_are_refused_past_the_grounding_budget(monkeypatch, tmp_path):
    """Quantifiers multiply: 40 nested over two objects would never end; past the
    budget grounding stops with a PDDLSemanticError (exit 2, a 'pddl' record)."""
    import veriplan.pddl.task as task_module
    from veriplan.errors import PDDLSemanticError
    from veriplan.verify.batch import batch_lines

    monkeypatch.setattr(task_module, "GROUND_LIMIT", 10_000)
    goal = "(p a)"
    for i in range(40):
        goal = f"(exists (?v{i}) (and (q ?v{i}) {goal}))"
    pre = goal.replace("(p a)", "(p ?x)")
    domain = parse_domain(DOMAIN.replace("PRE", "(p ?x)"))
    with pytest.raises(PDDLSemanticError, match="more than 10,000 instances"):
        Task(domain, parse_problem(PROBLEM.replace("GOAL", goal), domain))
    domain = parse_domain(DOMAIN.replace("PRE", pre))
    task = Task(domain, parse_problem(PROBLEM.replace("GOAL", "(p a)"), domain))
    with pytest.raises(PDDLSemanticError, match="action go"):
        validate_plan(task, ["(go a)"])
    (tmp_path / "d.pddl").write_text(DOMAIN.replace("PRE", pre))
    (tmp_path / "p.pddl").write_text(PROBLEM.replace("GOAL", "(p a)"))
    item = {"domain": str(tmp_path / "d.pddl"), "problem": str(tmp_path / "p.pddl"),
            "plan": "(go a)"}
    first, second = batch_lines([json.dumps({"id": i, **item}) for i in (1, 2)])
    for _valid, text in (first, second):
        record = json.loads(text)
        assert record["error"]["kind"] == "pddl" and "instances" in record["error"]["message"]
    shallow = "(exists (?v) (and (q ?v) (p a)))"
    ok = Task(domain, parse_problem(PROBLEM.replace("GOAL", shallow), domain))
    assert ok.goal.holds(ok.init)
