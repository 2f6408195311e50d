"""A plan shown as verified is valid on the files the user gave (issue 30).

For every PDDL method registered (and the plugin of tests/methods/greedy_plugin.py),
``veriplan solve --json`` with a scripted model that makes the method succeed, then
the plan it calls verified through ``veriplan validate`` on the same domain and
problem files: exit 0. DRIP and its baselines plan in the paper's tower moves, so
this also runs them on a Blocksworld domain whose names and argument orders are not
the usual ones (the plan must come back in that domain's own actions).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from veriplan.cli import main
from veriplan.core.problems import ProblemKind
from veriplan.llm.types import LLMRequest
from veriplan.methods import METHODS, available_methods, get_method, register_method

DOMAIN = EXAMPLES / "blocks-domain.pddl"
PROBLEM = EXAMPLES / "blocks6-problem.pddl"  # the README's demo problem

# The demo problem's goal tower, in the paper's tower moves (valid in that space only:
# `(stack d f)` is not an action of the four-action domain with d on the table... or
# anywhere: it needs d in the hand).
TOWER_MOVES = ["stack d f", "stack b d", "stack a e", "stack e c"]

# The demo domain under other names, with the arguments of `on` and of stacking in the
# other order: recognisably Blocksworld by its shape, in none of the usual words.
CRATES_DOMAIN = """(define (domain crates)
  (:requirements :strips)
  (:predicates (under ?below ?top) (floor ?c) (free ?c) (grip ?c) (idle))
  (:action lift :parameters (?c)
    :precondition (and (floor ?c) (free ?c) (idle))
    :effect (and (grip ?c) (not (floor ?c)) (not (free ?c)) (not (idle))))
  (:action drop :parameters (?c)
    :precondition (grip ?c)
    :effect (and (floor ?c) (free ?c) (idle) (not (grip ?c))))
  (:action place :parameters (?below ?c)
    :precondition (and (grip ?c) (free ?below))
    :effect (and (under ?below ?c) (free ?c) (idle) (not (grip ?c)) (not (free ?below))))
  (:action take :parameters (?c ?below)
    :precondition (and (under ?below ?c) (free ?c) (idle))
    :effect (and (grip ?c) (free ?below) (not (under ?below ?c)) (not (free ?c))
                 (not (idle)))))
"""
CRATES_PROBLEM = """(define (problem crates6) (:domain crates)
  (:objects a b c d e f)
  (:init (idle) (floor c) (under c a) (under a f) (free f)
         (floor e) (under e b) (under b d) (free d))
  (:goal (and (under d b) (under f d) (under a f) (under e a) (under c e))))
"""


# ----- scripted models: each makes its method succeed on the demo problem ---------------
@cache
def _bfs_plan() -> str:
    from veriplan.pddl.task import load_task
    from veriplan.search import bfs

    plan = bfs(load_task(DOMAIN, PROBLEM)).plan
    assert plan
    return "\n".join(str(op) for op in plan) + "\n[PLAN END]"


def pddl_plan(request: LLMRequest) -> str:
    """A valid plan of the demo problem in the domain's own actions."""
    return _bfs_plan()


def drip_decomposer(request: LLMRequest) -> str:
    """The goal into the four tower moves (what the embedded model answered)."""
    prompt = request.messages[-1].content
    return "\n".join(TOWER_MOVES) if "\nGoal:" in "\n" + prompt else ""


def cot_answer(request: LLMRequest) -> str:
    return "Build the tower from the top down.\nPlan:\n" + "\n".join(TOWER_MOVES) + "\n"


def react_turn(request: LLMRequest) -> str:
    done = request.messages[-1].content.count("\nObservation: ")
    action = TOWER_MOVES[done] if done < len(TOWER_MOVES) else "done"
    return f"Thought: the next block.\nAction: {action}"


SCRIPTS = {"closed-loop": "pddl_plan", "direct": "pddl_plan", "backprompt": "pddl_plan",
           "drip": "drip_decomposer", "cot": "cot_answer", "react": "react_turn",
           "greedy": "pddl_plan"}
BLOCKSWORLD_METHODS = ["drip", "cot", "react"]  # plan in the paper's tower moves


@pytest.fixture
def greedy():
    from tests.methods import greedy_plugin

    register_method("greedy", greedy_plugin.solve, greedy_plugin.Config)
    try:
        yield
    finally:
        METHODS.unregister("greedy")


def solve_json(method: str, domain: Path, problem: Path, capsys) -> dict:
    args = ["solve", "--method", method, "--domain", str(domain), "--problem", str(problem),
            "--backend", "scripted", "--no-cache", "--json",
            "--script", f"tests.methods.test_verified_on_task:{SCRIPTS[method]}"]
    code = main(args)
    result = json.loads(capsys.readouterr().out)
    assert (code == 0) == result["verified"]
    return result


def validate(domain: Path, problem: Path, plan: list[str], tmp_path: Path, capsys) -> int:
    plan_file = tmp_path / "plan.txt"
    plan_file.write_text("\n".join(plan) + "\n")
    code = main(["validate", "--domain", str(domain), "--problem", str(problem),
                 "--plan", str(plan_file)])
    capsys.readouterr()
    return code


def test_every_pddl_method_has_a_script_here(greedy):
    pddl = {m for m in available_methods() if get_method(m).problem is ProblemKind.PDDL}
    assert pddl == set(SCRIPTS), "add a scripted model for the new PDDL method"


@pytest.mark.parametrize("method", sorted(SCRIPTS))
def test_a_plan_solve_calls_verified_passes_veriplan_validate(method, greedy, tmp_path,
                                                              capsys):
    result = solve_json(method, DOMAIN, PROBLEM, capsys)
    assert result["verified"], result["last_diagnosis"]
    assert result["scope"] == "plan_on_task" and result["plan"]
    assert validate(DOMAIN, PROBLEM, result["plan"], tmp_path, capsys) == 0


@pytest.mark.parametrize("method", BLOCKSWORLD_METHODS)
def test_tower_moves_come_back_in_the_users_own_names(method, tmp_path, capsys):
    domain, problem = tmp_path / "crates.pddl", tmp_path / "crates6.pddl"
    domain.write_text(CRATES_DOMAIN)
    problem.write_text(CRATES_PROBLEM)
    result = solve_json(method, domain, problem, capsys)
    assert result["verified"] and result["scope"] == "plan_on_task"
    assert {s.strip("()").split()[0] for s in result["plan"]} <= {"lift", "drop", "place",
                                                                  "take"}
    assert result["metrics"]["method_plan"] == [f"({m})" for m in TOWER_MOVES]
    assert validate(domain, problem, result["plan"], tmp_path, capsys) == 0


@pytest.mark.parametrize("method", sorted(SCRIPTS))
def test_every_verified_that_solve_prints_names_its_scope(method, greedy, capsys):
    args = ["solve", "--method", method, "--domain", str(DOMAIN), "--problem", str(PROBLEM),
            "--backend", "scripted", "--no-cache",
            "--script", f"tests.methods.test_verified_on_task:{SCRIPTS[method]}"]
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    said = re.findall(r"verified(.{0,40})", out)
    assert said and all(s.startswith(" on your PDDL domain and problem") for s in said), said
