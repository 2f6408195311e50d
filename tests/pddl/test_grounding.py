"""Reachability grounding: it keeps every operator a real plan uses and
drops operators whose static preconditions can never hold."""

from __future__ import annotations

from itertools import product

from tests.helpers import adl_task, blocks_task
from veriplan.pddl.task import load_task
from veriplan.search import bfs


def test_blocks_grounding_is_complete_for_strips():
    task = blocks_task(4)
    ops = {(o.name, o.args) for o in task.ground()}
    # Under the delete relaxation (holding b1) and (clear b1) can both hold, so
    # (stack b1 b1) is relaxed-reachable, as in Fast Downward's grounding.
    assert len(ops) == 4 + 4 + 16 + 16
    assert ("stack", ("b1", "b1")) in ops


def test_grounding_equals_brute_force_relaxed_reachability():
    """Compare with a brute-force fixpoint over all bindings."""
    for task in (blocks_task(3), adl_task()):
        reached = task.init
        found = set()
        changed = True
        while changed:
            changed = False
            for schema in task.domain.actions:
                domains = [task.objects_of_type(p.type) for p in schema.params]
                for args in product(*domains):
                    op = task.operator(schema.name, args)
                    if (schema.name, args) in found or not op.precondition.relaxed_holds(
                            reached):
                        continue
                    found.add((schema.name, args))
                    adds = op.add
                    for ce in op.cond_effects:
                        adds |= ce.add
                    if adds & ~reached:
                        reached |= adds
                    changed = True
        assert {(o.name, o.args) for o in task.ground()} == found


def test_logistics_static_preconditions_prune(bw, planbench):
    lg = planbench / "instances" / "logistics"
    task = load_task(lg / "generated_domain.pddl",
                     sorted((lg / "generated_basic").glob("*.pddl"))[0])
    names = {o.name for o in task.ground()}
    assert names <= {"load-truck", "load-airplane", "unload-truck", "unload-airplane",
                     "drive-truck", "fly-airplane"}
    for op in task.ground():
        if op.name == "drive-truck":
            truck, src, dst, city = op.args
            atoms = {str(a) for a in task.atoms(task.init)}
            assert f"(in-city {src} {city})" in atoms and f"(in-city {dst} {city})" in atoms


def test_plans_use_only_ground_operators(bw):
    task = load_task(bw / "generated_domain.pddl", bw / "generated_basic" / "instance-10.pddl")
    r = bfs(task)
    ground = set(task.ground())
    assert r.solved and all(op in ground for op in r.plan)


def test_fifteen_blocks_ground(planbench):
    hard = planbench / "instances" / "blocksworld_hard"
    for p in sorted((hard / "generated").glob("*.pddl")):
        task = load_task(hard / "generated_domain.pddl", p)
        if len(task.objects) == 15:
            # 15 pick-up, 15 put-down, 15 x 15 stack and 15 x 15 unstack.
            assert len(task.ground()) == 15 + 15 + 225 + 225
            return
    raise AssertionError("no 15-block problem in blocksworld_hard")
