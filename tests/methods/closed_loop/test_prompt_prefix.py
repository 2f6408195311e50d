"""The closed loop's consecutive prompts begin with what stays the same (issue 36
part 3): a model that keeps the state of a prompt's beginning (llama.cpp's context, the
embedded backend's prefix cache) reads again only what changed. Scripted model."""

from __future__ import annotations

import os

from tests.conftest import EXAMPLES
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.closed_loop import Config, solve
from veriplan.pddl.task import load_task

TASK = load_task(EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks-problem.pddl")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
FAILS_AT_4 = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack c b)"


def shared(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def test_a_closed_loop_repair_prompt_begins_with_the_whole_first_prompt():
    """Attempt 2 adds the previous plan and RC's directives after the problem:
    everything of attempt 1 but its closing instruction is read once."""
    backend = ScriptedBackend([FAILS_AT_4, GOOD])
    result = solve(TASK, LLM(backend), Config())
    assert result.attempts == 2
    first, second = (r.messages[-1].content for r in backend.requests)
    assert "Repair instructions" in second
    body = first[:first.rindex("\nWrite a plan")]
    assert second.startswith(body)
    assert second.index("Your previous plan") > second.index("Problem (PDDL):")
    assert shared(first, second) >= 0.7 * len(second)
