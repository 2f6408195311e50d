"""Answers of the scripted backend ``veriplan mcp --backend scripted`` runs with in
tests/mcp: the right plan for the bundled three-block example, or (for the
cancelled run) a slow wrong one; each call is counted in $VERIPLAN_MCP_CALLS."""

from __future__ import annotations

import os
import time

from veriplan.llm.types import LLMRequest

PLAN = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)"


def _count() -> None:
    path = os.environ.get("VERIPLAN_MCP_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write("call\n")


def answer(request: LLMRequest) -> str:
    """The valid plan, unless the task is the slow one (its problem is named 'slow')."""
    _count()
    text = " ".join(str(m) for m in request.messages)
    if "slow" in text:
        time.sleep(0.4)
        return "(stack a a)"
    return PLAN
