"""The shortcuts of the per-plan path (initial facts, conjunctive goals) decide
exactly as the general code does."""

from __future__ import annotations

import re

import pytest

from tests.helpers import BLOCKS_DOMAIN, blocks_problem
from veriplan.core import condition as C
from veriplan.errors import PDDLParseError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task


@pytest.mark.parametrize("fact, message", [
    ("((handempty))", "expected a predicate name, found a list"),
    ("(handempty b1)", "predicate handempty takes 0 argument(s), 1 given"),
    ("(clear b9)", "unknown object b9"),
    ("(clear (b1))", "expected an argument, found a list"),
    ("(glued b1)", "unknown predicate glued"),
])
def test_bad_initial_facts_are_located_errors(fact, message):
    d = parse_domain(BLOCKS_DOMAIN)
    text = blocks_problem(3).replace("(:init ", f"(:init {fact} ")
    with pytest.raises(PDDLParseError, match=re.escape(message)) as info:
        parse_problem(text, d)
    assert info.value.line == 2 and info.value.col is not None  # the :init line


@pytest.mark.parametrize("goal", [
    "(and (on b1 b2) (on b2 b3))", "(and)", "(on b1 b2)", "(and (on b1 b2) (on b1 b2))",
    "(and (on b1 b2) (not (clear b3)))", "(or (on b1 b2) (on b2 b3))",
])
def test_conjunctive_goals_ground_as_the_general_code_does(goal):
    d = parse_domain(BLOCKS_DOMAIN.replace(":strips", ":adl"))
    task = Task(d, parse_problem(blocks_problem(3).replace(
        "(:goal (and (on b1 b2) (on b2 b3)))", f"(:goal {goal})"), d))
    general = task._formula(task.problem.goal, {}, True)
    assert task.goal == general
    assert task.goal.holds(task.init) == general.holds(task.init)
    if goal == "(and)":
        assert task.goal == C.TRUE
