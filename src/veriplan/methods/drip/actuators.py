"""Actuators: who decides whether a node can be executed, and what happens
when it is (the paper's exec and apply).

- :class:`SymbolicActuator` runs the PDDL model (the paper's "Manual" setting,
  with the core's simulator in place of a person);
- :class:`LLMActuator` asks the model to judge executability and to describe
  the new condition (the paper's DRIP(LLM)); nothing it says is trusted: the
  final plan is validated on the PDDL model like every other plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Protocol

from veriplan.core.atom import Atom
from veriplan.core.facts import State
from veriplan.core.operator import Operator
from veriplan.domains.blocksworld import ActionSpace
from veriplan.methods.asking import Ask
from veriplan.methods.drip.tree import Kind, Node
from veriplan.pddl.task import Task


class Verdict(StrEnum):
    ACHIEVED = "unnecessary"  # its effect already holds
    EXECUTABLE = "executable"
    BLOCKED = "not executable"


class Actuator(Protocol):
    state: State | None  # the true state, when the actuator runs the model

    def judge(self, node: Node) -> Verdict: ...
    def holds(self, node: Node) -> bool: ...
    def execute(self, node: Node) -> None: ...
    def condition(self) -> str: ...


def achieved(op: Operator, state: State) -> bool:
    """Executing ``op`` would change none of its unconditional effects."""
    return bool(op.add) and state & op.add == op.add and not state & op.delete


class SymbolicActuator:
    def __init__(self, task: Task, space: ActionSpace) -> None:
        self.task, self.space = task, space
        self.state: State = task.init

    def op(self, node: Node) -> Operator:
        assert node.step is not None
        return self.task.operator(node.step.name, node.step.args)

    def judge(self, node: Node) -> Verdict:
        op = self.op(node)
        if achieved(op, self.state):
            return Verdict.ACHIEVED
        return Verdict.EXECUTABLE if op.applicable(self.state) else Verdict.BLOCKED

    def holds(self, node: Node) -> bool:
        if node.kind is Kind.GOAL:
            return self.task.goal.holds(self.state)
        assert node.fact is not None
        bit = self.task.facts.find(node.fact)
        return bit is not None and bool(self.state >> bit & 1)

    def undoes(self, node: Node, goal: list[Atom]) -> list[Atom]:
        """Goal facts that hold now and would not after executing ``node``."""
        after = self.op(node).apply(self.state)
        out = []
        for a in goal:
            bit = self.task.facts.find(a)
            if bit is not None and self.state >> bit & 1 and not after >> bit & 1:
                out.append(a)
        return out

    def execute(self, node: Node) -> None:
        self.state = self.op(node).apply(self.state)

    def condition(self) -> str:
        return self.space.describe_state(self.task, self.state)


_DECISION = re.compile(r"decision\s*[:：]?", re.I)
_FINAL = re.compile(r"final (?:condition|state)\s*[:：]", re.I)


def read_verdict(answer: str) -> Verdict | None:
    """The verdict after the last "Decision:" (or anywhere, without one)."""
    parts = _DECISION.split(answer)
    tail = parts[-1].lower()
    if "unnecessary" in tail:
        return Verdict.ACHIEVED
    if re.search(r"\bnot executable|unexecutable|\bcannot\b|\bnot possible", tail):
        return Verdict.BLOCKED
    if "executable" in tail:
        return Verdict.EXECUTABLE
    return None


def read_yes_no(answer: str) -> bool | None:
    """The word after the last "Answer:", else the last yes or no."""
    tail = re.split(r"answer\s*[:：]", answer, flags=re.I)[-1]
    words = re.findall(r"\b(yes|no)\b", tail.lower()) or re.findall(r"\b(yes|no)\b",
                                                                     answer.lower())
    return None if not words else words[-1] == "yes"


class LLMActuator:
    """The model as actuator; its condition is text it wrote itself."""

    state = None

    def __init__(self, task: Task, space: ActionSpace, ask: Ask, render: Callable[..., str],
                 max_tokens: int) -> None:
        self.space, self.ask, self.render, self.max_tokens = space, ask, render, max_tokens
        self.text = space.describe_state(task, task.init)
        self._judged: dict[tuple[str, str], Verdict] = {}
        self.unreadable = 0  # answers with no verdict (counted as not executable)
        self.lost_condition = 0  # updates without a "Final condition:" (condition kept)

    def judge(self, node: Node) -> Verdict:
        key = (node.text, self.text)
        if key not in self._judged:
            answer = self.ask("judge", self.render("executable.j2", space=self.space,
                                                   condition=self.text, action=node.text),
                              self.max_tokens)
            verdict = read_verdict(answer)
            if verdict is None:
                self.unreadable += 1
                verdict = Verdict.BLOCKED
            self._judged[key] = verdict
        return self._judged[key]

    def holds(self, node: Node) -> bool:
        key = ("holds:" + node.text, self.text)
        if key not in self._judged:
            answer = self.ask("holds", self.render("holds.j2", condition=self.text,
                                                   facts=node.text), self.max_tokens)
            yes = read_yes_no(answer)
            if yes is None:
                self.unreadable += 1
            self._judged[key] = Verdict.ACHIEVED if yes else Verdict.BLOCKED
        return self._judged[key] is Verdict.ACHIEVED

    def execute(self, node: Node) -> None:
        answer = self.ask("update", self.render("update.j2", space=self.space,
                                                condition=self.text, action=node.text),
                          self.max_tokens)
        parts = _FINAL.split(answer)
        new = parts[-1].strip() if len(parts) > 1 else ""
        if new:
            self.text = " ".join(new.split())
        else:  # no "Final condition:": keep the previous condition, never guess one
            self.unreadable += 1
            self.lost_condition += 1

    def condition(self) -> str:
        return self.text
