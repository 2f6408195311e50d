"""RC, repair controller: reads the failing stage's report (CC's diagnostics
for a plan the static screen rejected, SIM's for a step that cannot run,
VAL's for a plan that runs but misses the goal) and picks one of the paper's
strategies, each producing directives added to C for the next attempt.
Budget-Adaptive Retry (in ``method.py``) decides whether another attempt is
worth it, from :func:`progress` and :func:`signature_of`.

- First-Step Constraint: the first step cannot run in the initial state.
- Precondition Probing: a later step misses predicates: name them and the
  actions that add them.
- Parameter Swap & Landmarks: the failing action and a missing predicate are
  a high-coupling pair (NPMI, see ``couplings.py``): swap the step's
  arguments when another order runs, else insert the landmarks that lead to
  the missing fact; and for a plan that runs but misses the goal, inject the
  landmarks not yet reached, in order.

With ``binary`` (the final_validation_only ablation) RC sees only whether the
plan was valid. Lists of applicable ground actions appear only with
``oracle`` (the applicable_actions setting).
"""

from __future__ import annotations

from itertools import permutations

from veriplan.core.atom import Literal
from veriplan.core.plan import Step
from veriplan.methods.closed_loop.contracts import (
    ConstraintSet,
    Outcome,
    RepairDecision,
    SymbolPlan,
)
from veriplan.methods.closed_loop.couplings import Couplings
from veriplan.methods.closed_loop.sc import (
    applicable_in,
    landmarks_of,
    ordered_parts,
    possible_first,
)
from veriplan.pddl.task import Task

BINARY = RepairDecision("binary_feedback", ("The previous plan was not valid.",),
                        "only the final verdict (ablation)")


def progress(outcome: Outcome, task: Task, *, binary: bool = False) -> float:
    """The marginal-gain measure: steps that ran, plus the share of goal atoms
    true at the end of a plan that ran to its end (0 for a plan CC rejected);
    with ``binary``, 1 for a valid plan and 0 otherwise."""
    if binary or outcome.sim is None:
        return float(outcome.verified)
    if not outcome.sim.executed:
        return float(outcome.sim.steps_executed)
    goals = len(getattr(task.problem.goal, "parts", ())) or 1
    unmet = len(outcome.val.unmet_goals) if outcome.val is not None else goals
    return float(len(outcome.plan.steps)) + max(0, goals - unmet) / goals


def signature_of(outcome: Outcome, *, binary: bool = False) -> tuple:
    """What identifies a failure for the stop rule ("the same failure again"):
    the plan and where and why it failed; with ``binary``, the plan and the
    verdict only."""
    steps = tuple(map(str, outcome.plan.steps))
    if binary:
        return (steps, outcome.verified)
    sim, val = outcome.sim, outcome.val
    return (steps, outcome.cc.messages,
            None if sim is None else (sim.failed_step, tuple(u.pddl() for u in sim.unsatisfied)),
            None if val is None else tuple(g.pddl() for g in val.unmet_goals))


def failure_event(outcome: Outcome) -> tuple[str, tuple[str, ...]] | None:
    """(failing action, missing predicates) of the stage that rejected the plan
    on a precondition (CC's first step or SIM), if it did."""
    cc, sim = outcome.cc, outcome.sim
    if cc.first_step_applicable is False and outcome.plan.steps:
        return outcome.plan.steps[0].name, _preds(cc.first_step_missing)
    if sim is not None and sim.step is not None:
        return sim.step.name, _preds(sim.unsatisfied)
    return None


def _preds(parts) -> tuple[str, ...]:
    return tuple(u.atom.pred for u in parts if isinstance(u, Literal))


def _applicable(task: Task, state: int, limit: int = 10) -> tuple[str, ...]:
    return applicable_in(task, state, limit)


def _unreached(c: ConstraintSet, task: Task, state: int) -> list[str]:
    true = {str(a) for a in task.atoms(state)}
    return [lm for lm in c.landmarks if lm not in true]


def _joined(parts) -> str:
    return ", ".join(u.pddl() for u in parts)


def decide(outcome: Outcome, task: Task, c: ConstraintSet, *, couplings: Couplings | None = None,
           binary: bool = False, oracle: bool = False) -> RepairDecision:
    if binary:
        return BINARY
    plan, cc, sim, val = outcome.plan, outcome.cc, outcome.sim, outcome.val
    if not plan.steps:
        return _translation(plan, c)
    if not cc.passed:
        return _from_cc(outcome, task, c, oracle)
    if sim is not None and not sim.executed:
        return _from_sim(outcome, task, c, couplings or Couplings(), oracle)
    if val is not None and not val.validation.steps_reach_goal:
        return _goal(outcome, task, c, oracle)
    return _translation(plan, c)  # everything that translated is valid: lines were lost


def _translation(plan: SymbolPlan, c: ConstraintSet) -> RepairDecision:
    names = ", ".join(f"({s.name} {' '.join(n for n, _ in s.params)})".replace(" )", ")")
                      for s in c.actions)
    why = " ".join(f"Line {u.line} {u.text!r}: {u.reason}." for u in plan.unmapped[:3])
    return RepairDecision("translation_repair", (
        (why + " " if why else "No line of the answer was an action. ") +
        f"Write every step as one action in parentheses, one per line, using only these "
        f"forms: {names}; name objects exactly as in the problem.",),
        f"{len(plan.unmapped)} line(s) did not map to an action")


def _from_cc(outcome: Outcome, task: Task, c: ConstraintSet, oracle: bool) -> RepairDecision:
    """The static screen's diagnostics: the first step that cannot run, or a
    static defect (unknown name, arity, type, a precondition never true)."""
    plan, cc = outcome.plan, outcome.cc
    k = cc.first_flagged or 1
    static_first = any(i == 1 for i, _ in cc.never_applicable)
    if k == 1 and cc.first_step_applicable is False and not static_first:
        step = plan.steps[0]
        missing = [u for u in cc.first_step_missing if isinstance(u, Literal)]
        made = [f"{u.pddl()} is made true only by "
                f"{', '.join(c.producers.get(u.atom.pred, ())) or 'no action'}"
                for u in missing]
        if oracle:
            options = ", ".join(c.first_actions or _applicable(task, task.init)) or "(none)"
            choice = f"The first step must be one of: {options}."
        else:
            lifted = ", ".join(possible_first(task, c))
            choice = ("The first step must be an action whose required predicates all hold "
                      "in the initial state" + (f" (of the actions, only {lifted} can qualify)"
                                                if lifted else "") + ".")
        return RepairDecision("first_step_constraint", (
            f"{step} cannot be the first step: "
            f"{_joined(cc.first_step_missing) or 'its precondition'} is false in the initial "
            f"state{'; ' + '; '.join(made) if made else ''}. {choice}",),
            "failure at step 1 (static screen)")
    notes = [str(e) for e in cc.errors if e.index == k]
    notes += [f"step {i} {plan.steps[i - 1]}: {atom} is never true (no action adds it and the "
              "initial state lacks it): choose other objects" for i, atom in cc.never_applicable
              if i == k]
    if 1 in [e.index for e in cc.errors] or k == 1:
        strategy, reason = "first_step_constraint", "static defect at step 1"
    else:
        strategy, reason = "precondition_probing", f"static defect at step {k}"
    sig = next((s for s in c.actions if s.name == plan.steps[k - 1].name), None)
    form = (f" {sig.name} takes " + " ".join(f"{n} - {t}" for n, t in sig.params) + "."
            if sig else "")
    return RepairDecision(strategy, (f"{'; '.join(notes) or cc.messages[0]}.{form}",), reason)


def _from_sim(outcome: Outcome, task: Task, c: ConstraintSet, couplings: Couplings,
              oracle: bool) -> RepairDecision:
    sim = outcome.sim
    assert sim is not None and sim.step is not None and sim.failed_step is not None
    k, step, state = sim.failed_step, sim.step, sim.state
    missing = _preds(sim.unsatisfied)
    coupled = couplings.strongest(step.name, missing)
    kept = f"Keep steps 1-{k - 1} (they run). " if k > 1 else ""
    if sim.detail.startswith("the state after it breaks constraint"):  # PDDL 3
        return RepairDecision("precondition_probing", (
            f"{kept}Step {k} {step} runs, but {sim.detail}. The plan must respect the "
            f"constraint in every state: replace step {k} or reach the goal another way.",),
            f"trajectory constraint broken at step {k}")
    if coupled is not None:
        pred, value, count, source = coupled
        note = (f"({step.name}, {pred}) is a high-coupling pair (NPMI {value:.2f} over {count} "
                f"failures in {source}): {step.name} keeps failing on ({pred} ...).")
        data = {"coupling": [step.name, pred, value, count, source]}
        if len(step.args) > 1 and not task.numeric:
            for perm in permutations(step.args):
                if perm == step.args:
                    continue
                if task.operator(step.name, perm).applicable(state):
                    swapped = Step(step.name, perm)
                    return RepairDecision("parameter_swap_landmarks", (
                        f"{note} {kept}At step {k}, {step} cannot run "
                        f"({_joined(sim.unsatisfied)} false) but {swapped} can: the "
                        "argument order matters.",), f"coupled failure at step {k}; swap runs",
                        data)
        targets = 0
        for u in sim.unsatisfied:
            b = task.facts.find(u.atom) if isinstance(u, Literal) and u.positive else None
            if b is not None:
                targets |= 1 << b
        lms, order = landmarks_of(task, targets, state) if targets else ((), ())
        chain = "; ".join(f"{a} before {b}" for a, b in order[:6])
        return RepairDecision("parameter_swap_landmarks", (
            f"{note} {kept}Before step {k} {step}, make true: "
            f"{', '.join(lms) or _joined(sim.unsatisfied)}"
            + (f" (in order: {chain})" if chain else "") + ".",),
            f"coupled failure at step {k}; landmarks", data)
    makers = [f"{u.pddl()} is made true by {', '.join(c.producers[u.atom.pred])}"
              for u in sim.unsatisfied
              if isinstance(u, Literal) and c.producers.get(u.atom.pred)]
    verb = "is" if len(sim.unsatisfied) == 1 else "are"
    made = "; ".join(makers) + ". " if makers else ""
    options = (f"Actions possible after step {k - 1}: "
               f"{', '.join(_applicable(task, state))}." if oracle else
               f"Insert steps that make {'it' if verb == 'is' else 'them'} true before step {k}, "
               f"or replace step {k}.")
    return RepairDecision("precondition_probing", (
        f"{kept}Step {k} {step} needs {_joined(sim.unsatisfied) or sim.detail}, which {verb} "
        f"false after step {k - 1}. {made}{options}",),
        f"missing preconditions at step {k}")


def _goal(outcome: Outcome, task: Task, c: ConstraintSet, oracle: bool) -> RepairDecision:
    """The plan runs but VAL finds goals unmet: inject the landmarks not yet
    reached, in order."""
    assert outcome.sim is not None and outcome.val is not None
    state = outcome.sim.state
    lms = _unreached(c, task, state)
    order = [f"{a} before {b}" for a, b in c.orderings if a in lms or b in lms]
    end = (f" Actions possible at the end of the plan: {', '.join(_applicable(task, state))}."
           if oracle else "")
    return RepairDecision("parameter_swap_landmarks", (
        f"The plan runs but leaves {_joined(ordered_parts(task, outcome.val.unmet_goals))} false "
        "at the end. "
        f"Still to reach: {', '.join(lms) or 'the goal'}" +
        (f" (orderings: {'; '.join(order[:6])})" if order else "") + f".{end}",),
        "goal not satisfied")
