"""The closed loop on a real numeric benchmark (IPC 2002 zenotravel, numeric,
instance 2), the scripted backend driving its control flow: a plan that flies
without the fuel for it is stopped at the first step, the repair directive
names the comparison and the values that made it false, and the repaired plan
(ENHSP's, tests/data/ipc_plans) is verified on the task with its metric."""

from __future__ import annotations

from pathlib import Path

from veriplan.core.verdict import Scope
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.closed_loop import Config, solve
from veriplan.pddl.task import load_task
from veriplan.verify import validate_plan

PLANS = Path(__file__).resolve().parents[2] / "data" / "ipc_plans"


def test_a_fuel_failure_is_repaired_and_the_plan_verified(data_dir):
    variant = data_dir / "ipc-dev" / "ipc-2002" / "zenotravel-numeric-automatic"
    task = load_task(variant / "domain.pddl", variant / "instances" / "instance-2.pddl")
    good = (PLANS / "ipc-2002" / "zenotravel-numeric-automatic" / "instance-2.plan").read_text()
    no_refuel = "\n".join(line for line in good.splitlines() if "refuel" not in line)
    assert not validate_plan(task, no_refuel.splitlines()).valid
    backend = ScriptedBackend([no_refuel, good])
    result = solve(task, LLM(backend), Config(max_attempts=3))
    assert result.verified and result.solved_by == "llm" and result.attempts == 2
    assert result.scope is Scope.PLAN_ON_TASK
    first = result.transcript[0].verdict
    assert "(>= (fuel plane1) (* (distance city0 city2) (slow-burn plane1)))" in first
    assert "(fuel plane1) = 1773" in first
    fed = " ".join(m.content for m in backend.requests[1].messages)
    assert "(fuel plane1) = 1773" in fed  # fed back to the model
    r = validate_plan(task, result.plan)
    assert r.valid and r.metric is not None and r.metric.value > 0
