"""CC, consistency checker: static screening, a gate before simulation. A plan
with a static defect (unknown action or object, wrong arity or type), a step
whose static preconditions are false (a predicate no action changes), or a
first step that cannot run in the initial state is rejected with its
diagnostics and goes straight to RC; only a plan that passes is simulated."""

from __future__ import annotations

from veriplan.core.atom import Atom
from veriplan.methods.closed_loop.contracts import CheckReport, SymbolPlan
from veriplan.methods.closed_loop.sc import ordered_bits, ordered_parts
from veriplan.pddl.ast import Literal
from veriplan.pddl.grounding import required_atoms
from veriplan.pddl.task import Task
from veriplan.verify import check_plan, validate_plan
from veriplan.verify.validator import false_parts


def static_predicates(task: Task) -> set[str]:
    """Predicates no action adds or deletes (their truth is fixed by the
    initial state)."""
    changed = {e.atom.pred for a in task.domain.actions for e in a.effects
               if isinstance(e, Literal)}
    return set(task.domain.predicates) - changed


def _required(task: Task, step) -> int:
    """The atoms the step's precondition requires at its top level (positive
    conjuncts), as a bitset: the ground operator's, or on a numeric task (which
    has no bitset operators) the schema's atoms with the step's arguments."""
    if not task.numeric:
        return task.operator(step.name, step.args).pre_pos
    schema = task.schemas[step.name]
    sub = {p.name: a for p, a in zip(schema.params, step.args)}
    out = 0
    for a in required_atoms(schema.precondition):
        out |= 1 << task.facts.bit(Atom(a.pred, tuple(sub.get(x, x) for x in a.args)))
    return out


def check(plan: SymbolPlan, task: Task) -> CheckReport:
    if not plan.steps:
        return CheckReport(False, messages=("no step to check: nothing translated to an action",))
    errors = check_plan(task, plan.steps)
    bad = {e.index for e in errors}
    statics = static_predicates(task)
    never: list[tuple[int, str]] = []
    msgs = [str(e) for e in errors]
    for i, step in enumerate(plan.steps, 1):
        if i in bad:
            continue
        for b in ordered_bits(task, _required(task, step) & ~task.init):
            if task.facts.atoms[b].pred in statics:
                never.append((i, task.facts.name(b)))
                msgs.append(f"step {i} {step}: {task.facts.name(b)} is never true")
                break
    first, missing = None, ()
    if 1 not in bad and task.numeric:  # numbers: the validator judges the first step
        r = validate_plan(task, plan.steps[:1])
        first = r.failed_step != 1
        if not first:
            missing = ordered_parts(task, r.unsatisfied)
            what = ", ".join(m.pddl() for m in missing) or r.detail
            msgs.append(f"step 1 {plan.steps[0]} cannot run in the initial state: {what} false")
    elif 1 not in bad:
        op = task.operator(plan.steps[0].name, plan.steps[0].args)
        first = op.applicable(task.init)
        if not first:
            missing = ordered_parts(task, false_parts(op.precondition, task.init, task.facts))
            what = ", ".join(m.pddl() for m in missing) or "its precondition"
            msgs.append(f"step 1 {plan.steps[0]} cannot run in the initial state: {what} false")
    passed = not errors and not never and first is not False
    return CheckReport(passed, errors, first, missing, tuple(never), tuple(msgs))
