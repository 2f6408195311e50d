"""Scripted model answers for the inspect tests (run stores made with
``veriplan bench --backend scripted --script tests.inspect.scripts:...``)."""

from __future__ import annotations

import re

from veriplan.errors import BackendError

WRONG = "(stack a a)\n[PLAN END]"  # fails at step 1: the hand does not hold a


def bfs_plan(prompt: str) -> list[str]:
    """An optimal plan for the PDDL task in a PDDL prompt (our BFS)."""
    from veriplan.pddl.parser import parse_domain, parse_problem
    from veriplan.pddl.task import Task
    from veriplan.search import bfs

    dom = re.search(r"Domain:\n(.*?)\nProblem:", prompt, re.S)
    prob = re.search(r"Problem:\n(.*?)\nWrite a plan", prompt, re.S)
    assert dom and prob, "expected veriplan's PDDL prompt"
    d = parse_domain(dom.group(1))
    return [str(op) for op in bfs(Task(d, parse_problem(prob.group(1), d))).plan]


def second_try(req) -> str:
    """A wrong plan first, a correct one once the verifier's feedback came
    back; the model named "broken" fails every call."""
    if req.model == "broken":
        raise BackendError("scripted outage")
    if len(req.messages) == 1:
        return WRONG
    return "\n".join(bfs_plan(req.messages[0].content)) + "\n[PLAN END]"
