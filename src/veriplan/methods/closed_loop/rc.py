"""RC, repair controller: reads the failure signal and picks one of the
paper's strategies, each producing directives added to C for the next
attempt. Budget-Adaptive Retry decides whether another attempt is worth it.

- First-Step Constraint: the plan fails at step 1.
- Precondition Probing: a later step misses predicates; name them and the
  actions that add them, from the state the valid prefix reaches.
- Parameter Swap & Landmarks: a later step would run with its arguments
  swapped, or the plan runs but misses goals: swap, and inject the landmarks
  not yet reached, in order.
- Budget-Adaptive Retry: stop when an attempt gains nothing over the best so
  far and repeats the previous failure; retry once with sampling first.
"""

from __future__ import annotations

from itertools import permutations

from veriplan.core.atom import Literal
from veriplan.core.plan import Step
from veriplan.methods.closed_loop.contracts import (
    CheckReport,
    ConstraintSet,
    RepairDecision,
    SimReport,
    SymbolPlan,
)
from veriplan.pddl.task import Task


def progress(plan: SymbolPlan, sim: SimReport, task: Task) -> float:
    """Steps that ran, plus the share of goal atoms true at the end of a plan
    that ran to its end (the marginal-gain measure)."""
    v = sim.validation
    if v.failed_step is not None:
        return float(v.steps_executed)
    goals = len(task.problem.goal.parts) if hasattr(task.problem.goal, "parts") else 1
    met = max(0, goals - len(v.unmet_goals))
    return float(len(plan.steps)) + (met / goals if goals else 1.0)


def _state_before(task: Task, steps: tuple[Step, ...], k: int) -> int:
    state = task.init
    for s in steps[: k - 1]:
        state = task.operator(s.name, s.args).apply(state)
    return state


def _applicable(task: Task, state: int, limit: int = 10) -> list[str]:
    return sorted(str(op) for op, _ in task.successors(state))[:limit]


def _unreached(c: ConstraintSet, task: Task, state: int) -> list[str]:
    true = {str(a) for a in task.atoms(state)}
    return [lm for lm in c.landmarks if lm not in true]


def decide(plan: SymbolPlan, cc: CheckReport, sim: SimReport, task: Task, c: ConstraintSet
           ) -> RepairDecision:
    v = sim.validation
    if not sim.stepwise:
        return RepairDecision("binary_feedback", ("The previous plan was not valid.",),
                              "no step-wise diagnosis (ablation)")
    if not plan.steps or (plan.unmapped and v.failed_step is None and not v.unmet_goals):
        names = ", ".join(f"({s.name} {' '.join(n for n, _ in s.params)})".replace(" )", ")")
                          for s in c.actions)
        why = " ".join(f"Line {u.line} {u.text!r}: {u.reason}." for u in plan.unmapped[:3])
        return RepairDecision("translation_repair", (
            (why + " " if why else "No line of the answer was an action. ") +
            f"Write every step as one action in parentheses, one per line, using only these "
            f"forms: {names}; name objects exactly as in the problem.",),
            f"{len(plan.unmapped)} line(s) did not map to an action")
    k = v.failed_step
    if k == 1:
        step = plan.steps[0]
        first = ", ".join(c.first_actions) or "(none)"
        return RepairDecision("first_step_constraint", (
            f"{step} cannot be the first step: {', '.join(map(str, v.unsatisfied)) or v.detail} "
            f"is false in the initial state. The first step must be one of: {first}.",),
            "failure at step 1")
    if k is not None:
        step = plan.steps[k - 1]
        state = _state_before(task, plan.steps, k)
        if v.unsatisfied and step.name in task.schemas and len(step.args) > 1:
            for perm in permutations(step.args):
                if perm == step.args:
                    continue
                alt = task.operator(step.name, perm)
                if alt.applicable(state):
                    swapped = Step(step.name, perm)
                    lms = _unreached(c, task, alt.apply(state))
                    extra = [f"Then still make true, in order: {', '.join(lms)}."] if lms else []
                    return RepairDecision("parameter_swap_landmarks", (
                        f"Keep steps 1-{k - 1}. At step {k}, {step} cannot run "
                        f"({', '.join(map(str, v.unsatisfied))} false) but {swapped} can: the "
                        "argument order matters.", *extra),
                        f"mid-plan failure at step {k}; swapped arguments run")
        if v.unsatisfied:
            makers = []
            for atom in v.unsatisfied:
                if not isinstance(atom, Literal):
                    continue  # a disjunction: no one predicate to make true
                adders = c.producers.get(atom.atom.pred, ())
                if adders:
                    makers.append(f"{atom} is made true by {', '.join(adders)}")
            kept = f"Keep steps 1-{k - 1} (they run). " if k > 1 else ""
            verb = "is" if len(v.unsatisfied) == 1 else "are"
            made = "; ".join(makers) + ". " if makers else ""
            return RepairDecision("precondition_probing", (
                f"{kept}Step {k} {step} needs {', '.join(map(str, v.unsatisfied))}, which {verb} "
                f"false after step {k - 1}. {made}Actions possible after step {k - 1}: "
                f"{', '.join(_applicable(task, state))}.",),
                f"missing preconditions at step {k}")
        return RepairDecision("precondition_probing", (f"Step {k} {step}: {v.detail}.",),
                              f"static error at step {k}")
    # The plan ran to its end without reaching the goal.
    state = task.init
    for s in plan.steps:
        state = task.operator(s.name, s.args).apply(state)
    lms = _unreached(c, task, state)
    order = [f"{a} before {b}" for a, b in c.orderings if a in lms or b in lms]
    return RepairDecision("parameter_swap_landmarks", (
        f"The plan runs but leaves {', '.join(map(str, v.unmet_goals))} false at the end. "
        f"Still to reach: {', '.join(lms) or 'the goal'}" +
        (f" (orderings: {'; '.join(order[:6])})" if order else "") +
        f". Actions possible at the end of the plan: {', '.join(_applicable(task, state))}.",),
        "goal not satisfied")


def signature_of(plan: SymbolPlan, sim: SimReport) -> tuple:
    v = sim.validation
    return (tuple(map(str, plan.steps)), v.failed_step, v.unsatisfied, v.unmet_goals)
