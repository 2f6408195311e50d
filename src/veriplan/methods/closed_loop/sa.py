"""SA, signal aggregator: every check's signal, archived per attempt, in the
form the harness's reports read (the same keys for every method)."""

from __future__ import annotations

from dataclasses import dataclass, field

from veriplan.methods.closed_loop.contracts import CheckReport, SimReport, SymbolPlan
from veriplan.methods.records import Signal


def failure_kinds(plan: SymbolPlan, sim: SimReport) -> list[str]:
    """translation (lines that did not map), precondition (a step could not
    run), goal (the plan ran but missed goals); a failure may have several."""
    kinds = []
    if plan.unmapped or not plan.steps:
        kinds.append("translation")
    v = sim.validation
    if v.failed_step is not None:
        kinds.append("precondition")
    elif not v.valid and plan.steps:
        kinds.append("goal")
    return kinds


@dataclass
class SignalAggregator:
    attempts: list[Signal] = field(default_factory=list)

    def record(self, attempt: int, strategy: str | None, plan: SymbolPlan, cc: CheckReport,
               sim: SimReport, progress: float) -> Signal:
        v = sim.validation
        failed = v.failed_step
        step = plan.steps[failed - 1] if failed else None
        sig = Signal(**{
            "attempt": attempt, "verified": sim.valid,
            "steps": len(plan.steps),
            "failed_step": failed, "action": step.name if step else None,
            "missing": list(v.unsatisfied_predicates),
            "failure": failure_kinds(plan, sim) if not sim.valid else [],
            "data": {"strategy": strategy, "unmapped": len(plan.unmapped),
                     "by_structure": len(plan.by_structure), "cc_passed": cc.passed,
                     "cc_messages": list(cc.messages),
                     "unmet_goals": [str(g) for g in v.unmet_goals], "progress": progress},
        })
        self.attempts.append(sig)
        return sig
