"""Obfuscation is a bijection under which plan validity is invariant."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import adl_task, blocks_task
from veriplan.core.plan import Step
from veriplan.errors import VeriplanError
from veriplan.pddl.obfuscation import Renaming, obfuscate, random_renaming
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.verify import validate_plan

TASKS = {"blocks": blocks_task(4), "adl": adl_task()}


def _random_plan(task, rng: random.Random, length: int) -> list[Step]:
    """A random walk, then random corruption, so both valid and invalid plans occur."""
    state = task.init
    plan = []
    for _ in range(length):
        succ = list(task.successors(state))
        if not succ:
            break
        op, state = rng.choice(succ)
        plan.append(Step(op.name, op.args))
    if plan and rng.random() < 0.5:
        i = rng.randrange(len(plan))
        ops = task.ground()
        other = rng.choice(ops)
        plan[i] = Step(other.name, other.args)
    return plan


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(TASKS)), seed=st.integers(0, 10**6),
       plan_seed=st.integers(0, 10**6), length=st.integers(0, 8))
def test_validity_is_invariant_under_renaming(name, seed, plan_seed, length):
    task = TASKS[name]
    plan = _random_plan(task, random.Random(plan_seed), length)
    renamed, r = obfuscate(task, seed=seed)
    before = validate_plan(task, plan)
    after = validate_plan(renamed, r.plan(plan))
    assert before.valid == after.valid
    assert before.failed_step == after.failed_step
    assert len(before.unsatisfied) == len(after.unsatisfied)
    assert before.cost == after.cost
    assert r.inverse().plan(r.plan(plan)) == tuple(plan)


def test_renaming_changes_every_name_and_inverts():
    task = TASKS["blocks"]
    renamed, r = obfuscate(task, seed=7)
    text = domain_to_pddl(renamed.domain) + problem_to_pddl(renamed.problem)
    for old in ["pick-up", "unstack", "clear", "holding", "handempty", " b1", " b2"]:
        assert old not in text
    back = r.inverse().task(renamed)
    assert back.domain == task.domain and back.problem == task.problem


def test_seeds_are_reproducible_and_differ():
    task = TASKS["blocks"]
    assert random_renaming(task, seed=1) == random_renaming(task, seed=1)
    assert random_renaming(task, seed=1) != random_renaming(task, seed=2)


def test_given_map_and_its_errors():
    task = TASKS["blocks"]
    r = Renaming.from_dict({"actions": {"stack": "overcome"}, "objects": {"b1": "b2", "b2": "b1"}})
    renamed, _ = obfuscate(task, renaming=r)
    assert "overcome" in renamed.schemas and renamed.objects["b1"] == "object"
    with pytest.raises(VeriplanError, match="one-to-one"):
        Renaming(actions={"stack": "x", "unstack": "x"})
    with pytest.raises(VeriplanError, match="merges two names"):
        obfuscate(task, renaming=Renaming(objects={"b1": "b2"}))
