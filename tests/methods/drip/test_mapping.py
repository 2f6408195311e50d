"""Tower moves back to the user's own four-action domain (issue 30): which domains
are recognised as Blocksworld (by their shape, whatever their names), the mapping
of every tower move, and what a method says when it cannot map back."""

from __future__ import annotations

import json
import random

import pytest

from tests.conftest import EXAMPLES
from tests.domains.test_blocksworld import standard_task
from tests.helpers import BLOCKS_DOMAIN
from tests.methods.drip.scripts import table_decomposer
from tests.methods.drip.test_drip import FIGURE, llm_for
from tests.methods.test_verified_on_task import CRATES_DOMAIN
from veriplan.cli import main
from veriplan.core.plan import Step
from veriplan.core.verdict import Scope
from veriplan.domains.blocksworld import (
    SPACES,
    Roles,
    map_back,
    recognise,
    relaxed_task,
)
from veriplan.methods.drip import solve
from veriplan.methods.drip.ontask import NOT_ON_TASK
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task, load_task
from veriplan.verify import validate_plan

RELAXED = SPACES["relaxed"]
# Blocksworld with one more precondition: picking up needs a dry block. Not Blocksworld,
# so a tower plan cannot be trusted to map onto it.
WET_DOMAIN = BLOCKS_DOMAIN.replace(
    "(:predicates (clear ?x)", "(:predicates (dry ?x) (clear ?x)").replace(
    ":precondition (and (clear ?x) (ontable ?x) (handempty))",
    ":precondition (and (clear ?x) (ontable ?x) (handempty) (dry ?x))")


def test_blocksworld_is_recognised_by_its_shape_whatever_its_names(data_dir):
    roles = recognise(load_task(EXAMPLES / "blocks-domain.pddl",
                                EXAMPLES / "blocks6-problem.pddl").domain)
    assert isinstance(roles, Roles) and roles.canonical
    crates = recognise(parse_domain(CRATES_DOMAIN))
    assert isinstance(crates, Roles) and not crates.canonical
    assert crates.actions == {"pick-up": "lift", "put-down": "drop", "stack": "place",
                              "unstack": "take"}
    assert crates.predicates["on"] == "under" and crates.order["on"] == (1, 0)
    assert crates.step(Step("stack", ("a", "b"))) == Step("place", ("b", "a"))
    assert crates.step(Step("unstack", ("a", "b"))) == Step("take", ("a", "b"))
    mystery = data_dir / "planbench" / "instances" / "blocksworld" / "mystery"
    roles = recognise(parse_domain((mystery / "generated_domain.pddl").read_text()))
    assert isinstance(roles, Roles)
    assert roles.actions["stack"] == "overcome" and roles.predicates["on"] == "craves"


@pytest.mark.parametrize("domain, reason", [
    (WET_DOMAIN, "is not Blocksworld's pick-up"),
    (WET_DOMAIN.replace("(:action pick-up", "(:action dry :parameters (?x) "
                        ":precondition (clear ?x) :effect (dry ?x))\n(:action pick-up"),
     "5 actions"),
])
def test_other_domains_are_not_recognised_and_say_why(domain, reason):
    got = recognise(parse_domain(domain))
    assert isinstance(got, str) and reason in got


def _random_walk(task: Task, rng: random.Random, length: int) -> list[Step]:
    state, plan = task.init, []
    for _ in range(length):
        moves = [op for op, _ in task.successors(state)]
        op = rng.choice(moves)
        state = op.apply(state)
        plan.append(Step(op.name, op.args))
    return plan


@pytest.mark.parametrize("seed", range(12))
def test_every_tower_move_maps_to_the_same_states_in_the_users_actions(seed):
    """Random tower-move walks on the demo problem: the mapped plan runs on the
    four-action task step by step and ends where the tower moves end."""
    user = load_task(EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks6-problem.pddl")
    towers = relaxed_task(user)
    walk = _random_walk(towers, random.Random(seed), 8)
    mapped = map_back(user, RELAXED, walk)
    assert mapped.complete
    verdict = validate_plan(user, list(mapped.steps), trace=True)
    assert verdict.failed_step is None, verdict.feedback()
    end_towers = towers.init
    for s in walk:
        end_towers = towers.operator(s.name, s.args).apply(end_towers)
    end_user = user.init
    for s in mapped.steps:
        end_user = user.operator(s.name, s.args).apply(end_user)
    keep = {"on", "ontable", "clear"}
    assert ({a for a in towers.atoms(end_towers) if a.pred in keep}
            == {a for a in user.atoms(end_user) if a.pred in keep})
    assert any(a.pred == "handempty" for a in user.atoms(end_user))


def test_a_block_in_the_hand_at_the_start_is_put_down_first():
    problem = """(define (problem held) (:domain bw) (:objects a b c)
     (:init (holding a) (ontable b) (clear b) (ontable c) (clear c))
     (:goal (and (on a b) (on b c))))"""
    user = standard_task(problem)
    mapped = map_back(user, RELAXED, [Step("stack", ("b", "c")), Step("stack", ("a", "b"))])
    assert [str(s) for s in mapped.steps] == [
        "(put-down a)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
    assert validate_plan(user, list(mapped.steps)).valid


def test_a_step_the_tower_space_refuses_stops_the_mapping():
    mapped = map_back(standard_task(), RELAXED, [Step("stack", ("yellow", "red"))])
    assert mapped.stopped_at == 1 and mapped.steps == () and not mapped.complete


def _wet_task() -> Task:
    domain = parse_domain(WET_DOMAIN)
    problem = parse_problem(FIG2_WET, domain)
    return Task(domain, problem)


FIG2_WET = """(define (problem fig2) (:domain bw)
 (:objects red blue yellow orange)
 (:init (handempty) (ontable red) (on blue red) (on yellow blue) (clear yellow)
        (ontable orange) (clear orange))
 (:goal (and (on red orange) (on yellow red))))"""


def test_a_domain_that_is_not_blocksworld_is_not_verified_on_the_task():
    llm, _ = llm_for(table_decomposer(FIGURE))
    r = solve(_wet_task(), llm)
    assert not r.verified and r.scope is Scope.PLAN_IN_METHOD_SPACE
    assert r.failure == NOT_ON_TASK and r.plan == []
    assert r.verified_on == "not verified"
    assert "not verified on your task" in r.last_diagnosis
    assert "nothing checked it on your task" in r.credit
    # the tower plan stays for auditing, in the metrics and the transcript
    assert r.metrics["method_plan"] == ["(stack red orange)", "(put-down yellow)",
                                        "(unstack-blocks red)", "(stack yellow red)"]
    record = next(e for e in r.transcript if e.role == "tree")
    assert record.ok is False and record.data["method_plan"] == r.metrics["method_plan"]


def test_solve_prints_not_verified_on_your_task(tmp_path, capsys):
    (tmp_path / "wet.pddl").write_text(WET_DOMAIN)
    (tmp_path / "fig2.pddl").write_text(FIG2_WET)
    args = ["solve", "--method", "drip", "--domain", str(tmp_path / "wet.pddl"), "--problem",
            str(tmp_path / "fig2.pddl"), "--backend", "scripted", "--no-cache",
            "--script", "tests.methods.drip.test_mapping:figure_decomposer"]
    assert main(args) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"not verified on your task ({NOT_ON_TASK})" in out
    assert "plan verified" not in out
    assert main([*args, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["scope"] == "plan_in_method_space" and not result["verified"]


def figure_decomposer(request):
    return table_decomposer(FIGURE)(request)


def test_solve_names_the_scope_of_an_unverified_plan(capsys):
    args = ["solve", "--method", "drip", "--domain", str(EXAMPLES / "blocks-domain.pddl"),
            "--problem", str(EXAMPLES / "blocks6-problem.pddl"), "--backend", "scripted",
            "--no-cache", "--script", "tests.methods.drip.test_mapping:figure_decomposer"]
    assert main(args) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "no plan verified on your PDDL domain and problem within budget" in out
