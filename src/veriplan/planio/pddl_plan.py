"""Read plans written as PDDL actions, one per line: ``(stack a b)``,
``stack a b``, ``1. (stack a b)``, ``Step 1: stack a b``, in code fences,
with ``;`` comments, up to ``[PLAN END]``."""

from __future__ import annotations

import re

from veriplan.core.plan import Step
from veriplan.planio.parsed import ParsedPlan, UnreadLine, plan_lines

_NAME = r"[a-z_][a-z0-9_\-]*"
_ONE = re.compile(rf"\(\s*({_NAME}(?:\s+[a-z0-9_][a-z0-9_\-]*)*)\s*\)")
_GROUP = re.compile(r"\(\s*([^()]*?)\s*\)")
_WORDS = re.compile(rf"^{_NAME}(?:[\s,]+[a-z0-9_][a-z0-9_\-]*)*$")


def read_pddl_plan(text: str, action_names: set[str] | None = None) -> ParsedPlan:
    """Read a PDDL-style plan.

    With ``action_names``, a line whose first word is not an action is
    reported as unread (prose); without it, every well-formed line is a step.
    """
    steps: list[Step] = []
    unread: list[UnreadLine] = []
    lines, after_end = plan_lines(text)
    for n, line in lines:
        low = line.lower().rstrip(".,")
        one = _ONE.fullmatch(low)
        if one is not None:
            words = one.group(1).split()
            if action_names is not None and words[0] not in action_names:
                unread.append(UnreadLine(n, line, f"{words[0]} is not an action of the domain"))
            else:
                steps.append(Step(words[0], tuple(words[1:]), n))
            continue
        if low.startswith("("):
            groups = _GROUP.findall(low)
            rest = _GROUP.sub("", low).strip(" ,.")
            if not groups or rest or any(not _WORDS.match(g) for g in groups):
                unread.append(UnreadLine(n, line, "not of the form (action arg ...)"))
                continue
            words_list = [g.replace(",", " ").split() for g in groups]
        elif _WORDS.match(low):
            words_list = [low.replace(",", " ").split()]
        else:
            unread.append(UnreadLine(n, line, "not of the form (action arg ...)"))
            continue
        for words in words_list:
            if action_names is not None and words[0] not in action_names:
                unread.append(UnreadLine(n, line, f"{words[0]} is not an action of the domain"))
                break
            steps.append(Step(words[0], tuple(words[1:]), n))
    return ParsedPlan(tuple(steps), tuple(unread), after_end)
