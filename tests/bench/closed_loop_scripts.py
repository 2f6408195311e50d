"""A scripted model for closed-loop harness tests (importable by workers): it
reads the task from the closed-loop prompt and answers from its structure.
First prompts get a broken plan whose kind depends on the problem (a first
step that cannot run, a later step that cannot run, a plan that stops short of
the goal, or prose); a prompt with repair instructions gets the right plan,
except for every fourth problem, which it never solves."""

from __future__ import annotations

import hashlib

from tests.methods.structural_model import task_of
from veriplan.search import bfs


def structural(req) -> str:
    prompt = req.messages[-1].content
    task = task_of(prompt)
    plan = [str(op) for op in bfs(task).plan]
    kind = int(hashlib.sha256(str(task.problem.init).encode()).hexdigest(), 16) % 4
    repair = "Repair instructions" in prompt
    if repair and kind != 3:
        return "\n".join(plan) + "\n[PLAN END]"
    if kind == 0 or (repair and len(plan) < 2):
        bad = next(op for op in task.ground() if not op.applicable(task.init))
        return f"{bad}\n" + "\n".join(plan) + "\n[PLAN END]"
    if kind == 1:
        return "\n".join([plan[0], *plan]) + "\n[PLAN END]"
    if kind == 2:
        return "\n".join(plan[:-1]) + "\n[PLAN END]"
    return "I cannot tell which block is which.\n[PLAN END]" if not repair else \
        "\n".join(plan[:-1]) + "\n[PLAN END]"
