"""Plain-text feedback from a validation result, for prompts and people."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veriplan.verify.validator import ValidationResult


def feedback_text(result: ValidationResult) -> str:
    """One sentence (or a few) saying what is wrong with the plan, e.g.
    ``step 3 (stack a b): precondition (clear b) is false``."""
    if result.valid:
        n = len(result.plan)
        return f"the plan is valid: its {n} step{'s' if n != 1 else ''} reach the goal"
    if result.failed_step is not None:
        return f"step {result.failed_step} {result.action}: {result.detail}"
    goals = result.unmet_goals
    verb = "is" if len(goals) == 1 else "are"
    noun = "goal" if len(goals) == 1 else "goals"
    listed = ", ".join(goals[:-1]) + " and " + goals[-1] if len(goals) > 1 else goals[0]
    n = len(result.plan)
    return (f"the plan executes ({n} step{'s' if n != 1 else ''}) but does not reach the goal: "
            f"{noun} {listed} {verb} false at the end")
