"""SIM and VAL, two stages with their own verdicts, both on veriplan's
validator over the true model.

- SIM executes a plan that passed CC step by step from the initial state and
  reports the first step that cannot run and its false preconditions; it
  does not look at the goal.
- VAL judges a plan that executes (or, in the final_validation_only ablation,
  any plan that passed CC): valid when every step runs, the goal holds at the
  end and every line of the answer translated.
"""

from __future__ import annotations

from veriplan.methods.closed_loop.contracts import SimReport, SymbolPlan, ValReport
from veriplan.methods.closed_loop.sc import ordered_parts
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan


def simulate(plan: SymbolPlan, task: Task) -> SimReport:
    r = validate_plan(task, plan.steps)
    ran = r.steps_executed if r.failed_step is not None else len(plan.steps)
    if task.numeric:  # (the atoms of the numeric state: what RC reads)
        from veriplan.verify.numeric import replay

        state = replay(task, plan.steps[:ran])[0]
    else:
        state = task.init
        for s in plan.steps[:ran]:
            state = task.apply(task.operator(s.name, s.args), state)
    if r.failed_step is None:
        return SimReport(True, steps_executed=ran, state=state)
    return SimReport(False, r.failed_step, plan.steps[r.failed_step - 1],
                     ordered_parts(task, r.unsatisfied),
                     r.detail, ran, state)


def validate(plan: SymbolPlan, task: Task) -> ValReport:
    r = validate_plan(task, plan.steps)
    return ValReport(r.valid and not plan.unmapped, r, len(plan.unmapped))
