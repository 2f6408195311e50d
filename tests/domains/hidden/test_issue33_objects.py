"""Issue 33: every hidden-fact PDDL prompt names the problem's objects (in 8
of the 50 committed Blocksworld tasks an object was named nowhere)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.domains.hidden.test_pddl_hidden import PROBLEM, small  # noqa: F401
from veriplan.domains.hidden.pddl_hidden import hidden_task, pddl_hidden_tasks
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.baselines.hidden import Config, direct
from veriplan.methods.sqbcp import Config as SQ
from veriplan.methods.sqbcp.method import solve


def _named(obj: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(obj)}(?![\w-])", text) is not None


def test_every_prompt_lists_the_objects(small):  # noqa: F811
    t = hidden_task(*small)
    assert t.goal.endswith("The objects of the task: a, b, c")
    base, sq = ScriptedBackend(["Plan:\n1. (unstack c a)"]), ScriptedBackend(fn=lambda r: "{}")
    direct(t, LLM(base), Config(k=0))
    solve(t, LLM(sq), SQ(k=0, t_max=1))
    for prompt in (base.requests[0].messages[-1].content, sq.requests[0].messages[-1].content):
        assert "The objects of the task: a, b, c" in prompt


def test_no_planbench_object_is_left_unnamed(planbench: Path):
    """On the first 50 Blocksworld tasks (the committed run's), at k = 0 (the
    fewest facts shown), every object is named in what the prompt shows."""
    tasks = list(pddl_hidden_tasks(planbench, domains=("blocksworld",)))[:50]
    unnamed = []
    for t in tasks:
        shown = " ".join([t.goal, *t.variant(0).prompt_facts()])
        objs = t.payload["closed_world"][2]
        unnamed += [(t.id, o) for o in objs if not _named(o, shown)]
    assert unnamed == []
