"""SIM and VAL: step-wise simulation and the final verdict, both by veriplan's
validator on the true model."""

from __future__ import annotations

from veriplan.methods.closed_loop.contracts import SimReport, SymbolPlan
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan


def simulate(plan: SymbolPlan, task: Task, *, stepwise: bool = True) -> SimReport:
    result = validate_plan(task, plan.steps, trace=stepwise)
    return SimReport(result.valid and not plan.unmapped, result, stepwise)
