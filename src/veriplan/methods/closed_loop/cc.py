"""CC, consistency checker: static screening before simulation (names, arity,
types, first-step applicability, steps whose static preconditions are false)."""

from __future__ import annotations

from veriplan.core.condition import bits
from veriplan.methods.closed_loop.contracts import CheckReport, SymbolPlan
from veriplan.pddl.ast import Literal
from veriplan.pddl.task import Task
from veriplan.verify import check_plan


def static_predicates(task: Task) -> set[str]:
    changed = {e.atom.pred for a in task.domain.actions for e in a.effects
               if isinstance(e, Literal)}
    return set(task.domain.predicates) - changed


def check(plan: SymbolPlan, task: Task) -> CheckReport:
    errors = check_plan(task, plan.steps)
    bad = {e.index for e in errors}
    statics = static_predicates(task)
    never = []
    msgs = [str(e) for e in errors]
    for i, step in enumerate(plan.steps, 1):
        if i in bad:
            continue
        op = task.operator(step.name, step.args)
        for b in bits(op.pre_pos & ~task.init):
            if task.facts.atoms[b].pred in statics:
                never.append(i)
                msgs.append(f"step {i} {step}: {task.facts.name(b)} is never true")
                break
    first = None
    if plan.steps and 1 not in bad:
        first = task.operator(plan.steps[0].name, plan.steps[0].args).applicable(task.init)
        if not first:
            msgs.append(f"step 1 {plan.steps[0]} cannot run in the initial state")
    passed = bool(plan.steps) and not errors and not never and first is not False
    return CheckReport(passed, errors, first, tuple(never), tuple(msgs))
