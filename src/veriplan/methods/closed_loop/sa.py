"""SA, signal aggregator: every stage's signal (ST, CC, SIM, VAL), archived per
attempt in the form the harness's reports read (the same keys for every
method; closed-loop extras in ``data``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from veriplan.core.atom import Literal
from veriplan.core.condition import bits
from veriplan.methods.closed_loop.contracts import Outcome
from veriplan.methods.records import Signal
from veriplan.pddl.task import Task


def failure_kinds(outcome: Outcome) -> list[str]:
    """Why an attempt failed (one or more): ``translation`` (lines that did
    not map), ``static`` (CC found an unknown name, a wrong arity or type, or
    a precondition that is never true), ``precondition`` (a step could not run:
    found by CC for the first step, by SIM, or by VAL when SIM is ablated),
    ``goal`` (the plan ran but missed goals)."""
    plan, cc, sim, val = outcome.plan, outcome.cc, outcome.sim, outcome.val
    kinds = []
    if plan.unmapped or not plan.steps:
        kinds.append("translation")
    if plan.steps and (cc.errors or cc.never_applicable):
        kinds.append("static")
    elif (cc.first_step_applicable is False or (sim is not None and not sim.executed)
          or (val is not None and val.validation.failed_step is not None)):
        kinds.append("precondition")
    elif val is not None and val.validation.unmet_goals:
        kinds.append("goal")
    return kinds


def _simulated(outcome: Outcome, task: Task) -> tuple[list[str], list[str]]:
    """The actions of the steps a stage executed (up to and including a failing
    step) and the predicates of their preconditions (Figures 10 and 11)."""
    plan = outcome.plan
    if outcome.sim is not None:
        upto = outcome.sim.failed_step or len(plan.steps)
    elif outcome.val is not None:
        upto = outcome.val.validation.failed_step or len(plan.steps)
    else:
        return [], []
    actions, preds = [], []
    for s in plan.steps[:upto]:
        actions.append(s.name)
        if task.numeric:
            from veriplan.pddl.grounding import required_atoms

            preds += [a.pred for a in required_atoms(task.schemas[s.name].precondition)]
        else:
            op = task.operator(s.name, s.args)
            preds += [task.facts.atoms[b].pred for b in bits(op.pre_pos)]
    return actions, sorted(preds)


def _failure(outcome: Outcome) -> tuple[int | None, str | None, list[str]]:
    """The first failing step, its action and missing predicates, as far as a
    stage established them (CC only for the first step; VAL when SIM is
    ablated: archived for analysis, never shown to RC)."""
    cc, sim, val, steps = outcome.cc, outcome.sim, outcome.val, outcome.plan.steps
    if cc.first_step_applicable is False:
        parts, k = cc.first_step_missing, 1
    elif sim is not None and sim.failed_step is not None:
        parts, k = sim.unsatisfied, sim.failed_step
    elif val is not None and val.validation.failed_step is not None:
        parts, k = val.validation.unsatisfied, val.validation.failed_step
    else:
        return None, None, []
    return k, steps[k - 1].name, [u.atom.pred for u in parts if isinstance(u, Literal)]


@dataclass
class SignalAggregator:
    attempts: list[Signal] = field(default_factory=list)

    def record(self, attempt: int, strategy: str | None, outcome: Outcome, progress: float,
               task: Task) -> Signal:
        plan, cc, val = outcome.plan, outcome.cc, outcome.val
        failed, action, missing = _failure(outcome)
        actions, preds = _simulated(outcome, task)
        sig = Signal(**{
            "attempt": attempt, "verified": outcome.verified,
            "steps": len(plan.steps),
            "failed_step": failed, "action": action, "missing": missing,
            "failure": failure_kinds(outcome) if not outcome.verified else [],
            "data": {"strategy": strategy, "unmapped": len(plan.unmapped),
                     "by_structure": len(plan.by_structure), "stages": outcome.stages(),
                     "simulated": outcome.sim is not None or val is not None,
                     "cc_passed": cc.passed, "cc_messages": list(cc.messages),
                     "unmet_goals": [g.pddl() for g in val.unmet_goals] if val else [],
                     "progress": progress, "actions": actions, "predicates": preds},
        })
        self.attempts.append(sig)
        return sig

    def events(self) -> list[tuple[str, tuple[str, ...]]]:
        """(failing action, missing predicates) of every attempt so far."""
        return [(s.action, tuple(s.missing)) for s in self.attempts
                if s.action and s.missing]
