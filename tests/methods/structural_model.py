"""A deterministic scripted model that reads the task from the closed-loop
prompt and answers from its structure only (never from names): a broken plan
first, then a plan with a failing later step, then a correct plan."""

from __future__ import annotations

import re

from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.search import bfs


def task_of(prompt: str) -> Task:
    dom = re.search(r"Domain \(PDDL\):\n(.*?)\nActions \(", prompt, re.S).group(1)
    prob = re.search(r"Problem \(PDDL\):\n(.*?\n)\n", prompt, re.S).group(1)
    d = parse_domain(dom)
    return Task(d, parse_problem(prob, d))


class StructuralModel:
    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def __call__(self, req) -> str:
        prompt = req.messages[-1].content
        task = task_of(prompt)
        key = str(task.problem.init)
        n = self.calls[key] = self.calls.get(key, 0) + 1
        plan = list(bfs(task).plan)
        if n == 1:
            # Start with an operator that is not applicable initially (first found
            # in grounding order, which renaming preserves).
            bad = next(op for op in task.ground() if not op.applicable(task.init))
            return "\n".join(str(op) for op in [bad, *plan]) + "\n[PLAN END]"
        if n == 2 and len(plan) > 1:
            return "\n".join(str(op) for op in [plan[0], plan[0], *plan[1:]]) + "\n[PLAN END]"
        return "\n".join(str(op) for op in plan) + "\n[PLAN END]"
