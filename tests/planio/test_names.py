"""One rule for names in both readers (issue 32): a name the PDDL reader accepts for an
object is read as that object in a plan step ``(action name)``, and a text the PDDL
reader refuses as a name is not read as one."""

from __future__ import annotations

import random

import pytest

from veriplan.errors import PDDLParseError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import parse_plan
from veriplan.verify import validate_plan

DOMAIN = parse_domain("""(define (domain n) (:requirements :strips)
  (:predicates (at ?x) (seen ?x))
  (:action visit :parameters (?x) :precondition (at ?x) :effect (seen ?x)))""")

NAMES = ["a", "α", "Ωmega", "a.b", "loc:1", "1", "42x", "名前", "x#1", "a'b", "é-1", "a/b",
         "a_b-c", "#", "*", "$x", "a@b", "ǅ", "ß", "x\u0301", "a,b", "?x", "-", "a b", "a(b",
         "a;b", "a)b", ";", ","]


def pddl_accepts(name: str) -> bool:
    text = (f"(define (problem p) (:domain n) (:objects {name}) (:init (at {name})) "
            f"(:goal (seen {name})))")
    try:
        problem = parse_problem(text, DOMAIN)
    except PDDLParseError:
        return False
    return list(problem.objects) == [name.lower()]


def task_of(name: str) -> Task:
    return Task(DOMAIN, parse_problem(
        f"(define (problem p) (:domain n) (:objects {name}) (:init (at {name})) "
        f"(:goal (seen {name})))", DOMAIN))


@pytest.mark.parametrize("name", NAMES)
def test_the_pddl_reader_and_the_plan_reader_agree_on_names(name):
    from veriplan.pddl.names import is_name

    accepted = pddl_accepts(name)
    assert accepted == is_name(name), "the PDDL reader keeps the rule of veriplan.pddl.names"
    parsed = parse_plan(f"(visit {name})\n")
    read = (not parsed.unread and len(parsed.steps) == 1
            and parsed.steps[0].args == (name.lower(),))
    assert read == accepted, "the plan reader reads exactly the names the PDDL reader does"
    if accepted:  # and such a task can be solved
        task = task_of(name)
        upper = name.upper() if name.upper().lower() == name.lower() else name  # ß: SS
        for text in (f"(visit {name})", f"(VISIT {upper})", f"1. (visit {name})",
                     f"0.000: (visit {name}) [1]"):
            result = validate_plan(task, parse_plan(text + "\n", task))
            assert result.valid, (text, result.feedback())


def test_random_names_follow_the_rule():
    from veriplan.pddl.names import is_name

    rng = random.Random(32)
    alphabet = "ab1.:-_?#'/é名Ω,;() \t"
    for _ in range(300):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
        if not name.strip() or name != name.strip():
            continue
        assert pddl_accepts(name) == is_name(name) or "(" in name or ")" in name, name
