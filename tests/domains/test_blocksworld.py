"""The Blocksworld action spaces: the tower-move PDDL domain, the translation
into it, and the words both spaces read and write."""

from __future__ import annotations

import pytest

from tests.helpers import BLOCKS_DOMAIN
from veriplan.core.plan import Step
from veriplan.domains.blocksworld import SPACES, action_space, relaxed_task
from veriplan.errors import DataError
from veriplan.pddl.ast import Atom
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

# red on the table, blue on red, yellow on blue; orange alone (the DRIP paper's Figure 2)
PROBLEM = """(define (problem fig2) (:domain bw)
 (:objects red blue yellow orange)
 (:init (handempty) (ontable red) (on blue red) (on yellow blue) (clear yellow)
        (ontable orange) (clear orange))
 (:goal (and (on red orange) (on yellow red))))"""


def standard_task(problem: str = PROBLEM) -> Task:
    domain = parse_domain(BLOCKS_DOMAIN)
    return Task(domain, parse_problem(problem, domain))


def test_translation_fills_in_above_and_keeps_the_goal():
    r = relaxed_task(standard_task())
    atoms = set(r.atoms(r.init))
    assert Atom("above", ("yellow", "red")) in atoms and Atom("above", ("blue", "red")) in atoms
    assert Atom("above", ("red", "yellow")) not in atoms
    assert not any(a.pred == "handempty" for a in atoms)
    assert SPACES["relaxed"].describe_goal(r) == (
        "block red is on top of block orange, block yellow is on top of block red.")


def test_towers_move_as_one():
    r = relaxed_task(standard_task())
    sp = SPACES["relaxed"]
    state = r.init
    state = r.operator("stack", ("red", "orange")).apply(state)  # red, blue, yellow move
    described = sp.describe_state(r, state)
    assert "block red is on top of block orange" in described
    assert "block yellow is on top of block blue" in described
    # same tower: yellow is above red, so red cannot go onto yellow
    assert not r.operator("stack", ("red", "yellow")).applicable(state)
    state = r.operator("unstack-blocks", ("red",)).apply(state)  # blue+yellow to the table
    assert "block blue is on the table" in sp.describe_state(r, state)
    assert r.operator("stack", ("yellow", "red")).applicable(state)


def test_validator_checks_relaxed_plans():
    r = relaxed_task(standard_task())
    good = ["(stack red orange)", "(put-down yellow)", "(unstack-blocks red)",
            "(stack yellow red)"]
    assert validate_plan(r, good).valid
    bad = validate_plan(r, ["(stack yellow red)"])  # red is not clear
    assert not bad.valid and bad.failed_step == 1 and "(clear red)" in map(str, bad.unsatisfied)


def test_hand_goal_is_refused_in_the_relaxed_space():
    problem = PROBLEM.replace("(on yellow red))", "(on yellow red) (holding blue))")
    with pytest.raises(DataError, match="no meaning in the relaxed space"):
        relaxed_task(standard_task(problem))


@pytest.mark.parametrize("line, expected", [
    ("1. unstack blocks [red]", Step("unstack-blocks", ("red",))),
    ("- stack red on top of orange.", Step("stack", ("red", "orange"))),
    ("Put down block yellow", Step("put-down", ("yellow",))),
    ("(stack yellow red)", Step("stack", ("yellow", "red"))),
    ("unstack yellow red", Step("unstack-blocks", ("red",))),  # clear red
    ("stack red purple", None),  # no such block
    ("pick-up red", None),  # not an action of this space
    ("I think we should start", None),
])
def test_reading_relaxed_actions(line, expected):
    r = relaxed_task(standard_task())
    assert SPACES["relaxed"].read_action(line, r) == expected


def test_reading_standard_actions_and_facts():
    t = standard_task()
    sp = action_space("standard")
    assert sp.read_action("pick up red", t) == Step("pick-up", ("red",))
    assert sp.read_action("unstack yellow from blue", t) == Step("unstack", ("yellow", "blue"))
    assert sp.read_action("unstack blocks red", t) is None
    assert sp.read_fact("block red is on top of block orange", t) == Atom("on", ("red", "orange"))
    assert sp.read_fact("(clear red)", t) == Atom("clear", ("red",))
    assert sp.read_fact("the hand is empty", t) == Atom("handempty", ())
    assert sp.read_fact("block red is on the table", t) == Atom("ontable", ("red",))
    assert sp.read_fact("block zed is clear", t) is None


def test_unknown_space_is_a_clear_error():
    with pytest.raises(DataError, match="relaxed, standard"):
        action_space("towers")
