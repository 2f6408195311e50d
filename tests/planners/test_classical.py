"""Classical planners, Fast Downward's real binary included; every plan goes
through our verifier, and Fast Downward's plans are accepted by it."""

from __future__ import annotations

import pytest

from tests.helpers import BLOCKS_DOMAIN, adl_task, blocks_task
from veriplan.errors import PlannerError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task, load_task
from veriplan.planners.classical import PLANNERS, solve_classical


@pytest.mark.parametrize("planner", sorted(PLANNERS))
def test_every_planner_on_blocks_and_adl(planner):
    r = solve_classical(blocks_task(4), planner, time_limit=60)
    assert r.solved and r.validation.valid
    if planner in ("bfs", "fd-optimal"):
        assert len(r.plan) == 6
    if planner == "fd-optimal":
        with pytest.raises(PlannerError, match="does not support"):
            solve_classical(adl_task(), planner, time_limit=60)
        return
    r = solve_classical(adl_task(), planner, time_limit=60)
    assert r.solved and r.validation.cost >= 9


def test_fast_downward_on_data_domains(data_dir):
    pb = data_dir / "planbench" / "instances"
    cases = [
        (pb / "logistics" / "generated_domain.pddl",
         sorted((pb / "logistics" / "generated_basic").glob("*.pddl"))[0]),
        (pb / "blocksworld" / "mystery" / "generated_domain.pddl",
         pb / "blocksworld" / "mystery" / "generated_basic" / "instance-2.pddl"),
        (data_dir / "autotos" / "sokoban" / "domain.pddl",
         data_dir / "autotos" / "sokoban" / "test_instances" / "p04.pddl"),
    ]
    for dom, prob in cases:
        r = solve_classical(load_task(dom, prob), "fd", time_limit=120)
        assert r.solved, (prob, r.status)


def test_sokoban_optimal_costs(data_dir):
    import json

    sok = data_dir / "autotos" / "sokoban"
    optimal = json.loads((sok / "sokoban_optimal_costs.json").read_text())
    name = "p06"  # cost 35; Fast Downward and our BFS in under a second (p05: 6 s)
    key = f"{name}.pddl"
    task = load_task(sok / "domain.pddl", sok / "test_instances" / f"{name}.pddl")
    r = solve_classical(task, "fd-optimal", time_limit=120)
    assert r.solved and len(r.plan) == int(optimal[key])
    ours = solve_classical(task, "bfs", time_limit=120)
    assert ours.solved and len(ours.plan) == int(optimal[key])


def test_unsolvable_is_reported_not_raised():
    d = parse_domain(BLOCKS_DOMAIN)
    p = parse_problem("""(define (problem no) (:domain bw) (:objects a)
        (:init (ontable a) (clear a) (handempty)) (:goal (on a a)))""", d)
    for planner in ("fd", "bfs"):
        r = solve_classical(Task(d, p), planner, time_limit=60)
        assert r.status == "unsolvable" and not r.solved and r.plan is None


def test_unknown_planner():
    with pytest.raises(ValueError, match="unknown planner"):
        solve_classical(blocks_task(2), "magic")
