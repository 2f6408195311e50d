"""Scripted models for DRIP tests: decomposers from a table, and an actuator
that judges by simulating the tower-move PDDL model (a perfect LLM actuator)."""

from __future__ import annotations

from veriplan.domains.blocksworld import SPACES
from veriplan.llm.types import LLMRequest
from veriplan.methods.drip.actuators import achieved
from veriplan.pddl.task import Task


def field(prompt: str, name: str) -> str | None:
    """The text after the last line starting with ``name:``."""
    found = None
    for line in prompt.splitlines():
        if line.startswith(name + ":"):
            found = line[len(name) + 1:].strip()
    return found


def table_decomposer(table: dict[str, str], default: str = "") -> callable:
    def answer(request: LLMRequest) -> str:
        return table.get(field(request.messages[-1].content, "Goal") or "", default)
    return answer


class PerfectActuator:
    """Answers the LLM actuator's prompts from the true model; decompositions
    come from ``table``."""

    def __init__(self, task: Task, table: dict[str, str]) -> None:
        self.task, self.table = task, table
        self.space = SPACES["relaxed"]
        self.states = {self.space.describe_state(task, task.init): task.init}

    def __call__(self, request: LLMRequest) -> str:
        prompt = request.messages[-1].content
        condition = field(prompt, "Condition")
        if condition is None:
            return self.table.get(field(prompt, "Goal") or "", "")
        state = self.states[condition]
        if prompt.startswith("Condition:"):  # holds.j2
            return "Answer: yes" if self.task.goal.holds(state) else "Answer: no"
        step = self.space.read_action(field(prompt, "Action") or "", self.task)
        op = self.task.operator(step.name, step.args)
        if "Final condition" in prompt:  # update.j2
            new = op.apply(state)
            text = self.space.describe_state(self.task, new)
            self.states[text] = new
            return f"Thinking it over.\nFinal condition: {text}"
        if achieved(op, state):
            return "1. ...\nDecision: unnecessary"
        return "Decision: executable" if op.applicable(state) else "Decision: not executable"


EXAMPLE = {"block a is on top of block b, block b is on top of block c.": "stack a b\nstack b c",
           "stack b c": "unstack blocks c\nput-down c"}


def example_decomposer(request: LLMRequest) -> str:
    """Decompositions for the bundled example task (src/veriplan/examples)."""
    return table_decomposer(EXAMPLE)(request)
