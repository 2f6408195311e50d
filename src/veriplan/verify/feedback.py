"""Plain-text feedback from a validation result, for prompts and people."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veriplan.verify.validator import ValidationResult

_SHOWN = 3  # unread lines named in the feedback; the rest are counted


def feedback_text(result: ValidationResult, *, unread: bool = True) -> str:
    text = _feedback_text(result, unread=unread)
    prefs = result.preferences
    if prefs is not None and result.steps_reach_goal:
        shown = prefs.violated()
        if shown:
            names = [f"{n} ({c})" if c > 1 else n for n, c in shown.items()]
            more = f" and {len(names) - 8} more" if len(names) > 8 else ""
            text += (f"; {sum(shown.values())} preference violation"
                     f"{'s' if sum(shown.values()) != 1 else ''}: {', '.join(names[:8])}{more}")
    return text


def _feedback_text(result: ValidationResult, *, unread: bool = True) -> str:
    """One sentence (or a few) saying what is wrong with the plan, e.g.
    ``step 3 (stack a b): precondition (clear b) is false``.

    Unread lines come first (``line 7 ('and then celebrate') could not be read
    as an action; the 6 steps read reach the goal``); ``unread=False`` leaves
    them out and says what the steps read did."""
    if unread and result.unread:
        return f"{_unread_text(result)}; {_steps_text(result, read=True)}"
    return _steps_text(result, read=False)


def _steps_text(result: ValidationResult, *, read: bool) -> str:
    n = len(result.plan)
    steps = f"{n} step{'s' if n != 1 else ''}"
    if read and not n:
        return "no step was read"
    if result.failed_step is not None:
        prefix = "of the steps read, " if read else ""
        return f"{prefix}step {result.failed_step} {result.action}: {result.detail}"
    goals = [g.pddl() for g in result.unmet_goals]
    broken = [c for c in result.constraints if c.step is None or c.at_end]
    if not goals and broken:
        head = f"the {steps} read" if read else f"the plan ({steps})"
        return f"{head}: {broken[0].text()}"
    if not goals:
        if read:
            return f"the {steps} read reach{'es' if n == 1 else ''} the goal"
        return f"the plan is valid: its {steps} reach the goal"
    verb = "is" if len(goals) == 1 else "are"
    noun = "goal" if len(goals) == 1 else "goals"
    listed = ", ".join(goals[:-1]) + " and " + goals[-1] if len(goals) > 1 else goals[0]
    if read:
        head = f"the {steps} read execute{'s' if n == 1 else ''}"
        one = n == 1
    else:
        head, one = f"the plan executes ({steps})", True
    return (f"{head} but do{'es' if one else ''} not reach the goal: "
            f"{noun} {listed} {verb} false at the end")


def _unread_text(result: ValidationResult) -> str:
    lines = result.unread
    shown = [f"{u.line} ({_clip(u.text)!r})" for u in lines[:_SHOWN]]
    if len(lines) > _SHOWN:
        shown.append(f"{len(lines) - _SHOWN} more")
    if len(lines) == 1:
        return f"line {shown[0]} could not be read as an action"
    listed = ", ".join(shown[:-1]) + " and " + shown[-1]
    return f"lines {listed} could not be read as actions"


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
