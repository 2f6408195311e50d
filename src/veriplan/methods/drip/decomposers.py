"""Decomposers: the paper's dec(n), a node's sub-goals and actions.

- :class:`LLMDecomposer` asks the model, with the goal only (the paper) or with
  the current condition too;
- :class:`RegressionDecomposer` is the perfect decomposer used to measure the
  framework itself: exact regression over the PDDL actions. Without the
  condition it answers from the node alone, like the paper's decomposer: every
  precondition of an action (every fact of the goal) gets the first achiever,
  in domain order, whose arguments the literal fixes. With the condition it
  regresses only the literals that are false now, over achievers whose effect in
  the current state makes the literal true, preferring achievers that undo no
  achieved goal fact, then fewer unmet preconditions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from veriplan.core import condition as C
from veriplan.core.atom import Atom
from veriplan.core.condition import bits
from veriplan.core.facts import State
from veriplan.core.operator import Operator
from veriplan.core.plan import Step
from veriplan.domains.blocksworld import ActionSpace, sentence
from veriplan.methods.asking import Ask
from veriplan.methods.drip.tree import Kind, Node
from veriplan.pddl.task import Task
from veriplan.search.heuristics import INF, fact_costs


@dataclass
class Child:
    kind: Kind
    text: str
    step: Step | None = None
    fact: Atom | None = None


@dataclass
class Decomposition:
    children: list[Child] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # lines that were no action or fact


class LLMDecomposer:
    def __init__(self, task: Task, space: ActionSpace, ask: Ask, render: Callable[..., str],
                 max_tokens: int) -> None:
        self.task, self.space, self.ask, self.render = task, space, ask, render
        self.max_tokens = max_tokens

    def decompose(self, node: Node, condition: str | None, state: State | None,
                  ancestors: frozenset[str] = frozenset()) -> Decomposition:
        prompt = self.render("decompose.j2", space=self.space, goal=node.text,
                             condition=condition)
        return self.read(self.ask("decompose", prompt, self.max_tokens), node)

    def read(self, answer: str, node: Node) -> Decomposition:
        out = Decomposition()
        seen: set[str] = set()
        for line in answer.splitlines():
            text = line.strip()
            low = text.lower().lstrip("#*[ ")
            if not text or low.startswith(("actions", "answer")):
                continue
            if low.startswith("goal"):
                break  # the model went on to invent the next example
            step = self.space.read_action(text, self.task)
            if step is not None:
                child = Child(Kind.ACTION, self.space.action_text(step), step=step)
            elif (fact := self.space.read_fact(text, self.task)) is not None:
                child = Child(Kind.FACT, sentence(fact) or str(fact), fact=fact)
            else:
                out.unread.append(text)
                continue
            if child.text not in seen:
                seen.add(child.text)
                out.children.append(child)
        return out


class RegressionDecomposer:
    def __init__(self, task: Task, space: ActionSpace, goal: list[Atom]) -> None:
        self.task, self.space = task, space
        self.goal_bits = [task.facts.bit(a) for a in goal]
        self.goal = goal
        self._costs: tuple[State, dict[int, float]] | None = None

    @cached_property
    def fact_costs(self) -> Callable[[State], dict[int, float]]:
        return fact_costs(self.task)

    @cached_property
    def operators(self) -> list[Operator]:
        """Every ground action in domain order (schemas, then argument tuples)."""
        objs = sorted(self.task.objects)
        out = []
        for schema in self.task.domain.actions:
            for args in itertools.product(objs, repeat=len(schema.params)):
                op = self.task.operator(schema.name, args)
                if C.FALSE not in op.pre_rest:
                    out.append(op)
        return out

    def decompose(self, node: Node, condition: str | None, state: State | None,
                  ancestors: frozenset[str] = frozenset()) -> Decomposition:
        facts = self.task.facts
        if node.kind is Kind.GOAL:
            literals = [(facts.bit(a), True) for a in self.goal]
        elif node.kind is Kind.FACT:
            assert node.fact is not None
            literals = [(facts.bit(node.fact), True)]
        else:
            assert node.step is not None
            op = self.task.operator(node.step.name, node.step.args)
            literals = [(b, True) for b in bits(op.pre_pos)] + [(b, False)
                                                               for b in bits(op.pre_neg)]
        if state is not None:
            literals = [(b, pos) for b, pos in literals if bool(state >> b & 1) != pos]
        out = Decomposition()
        for bit, positive in literals:
            step = self.achiever(bit, positive, state, ancestors)
            if step is not None:
                child = Child(Kind.ACTION, self.space.action_text(step), step=step)
            elif positive and node.kind is not Kind.FACT:
                atom = facts.atoms[bit]
                child = Child(Kind.FACT, sentence(atom) or str(atom), fact=atom)
            else:
                out.unread.append(("" if positive else "not ") + facts.name(bit))
                continue
            if child.text != node.text and all(c.text != child.text for c in out.children):
                out.children.append(child)
        return out

    def achiever(self, bit: int, positive: bool, state: State | None,
                 ancestors: frozenset[str] = frozenset()) -> Step | None:
        """The chosen achiever of a literal; never an action on the path to the
        root (that would be a cycle)."""
        atom = self.task.facts.atoms[bit]
        if state is None:  # unconditional effects first, then conditional ones
            for conditional in (False, True):
                for op in self.operators:
                    if (set(op.args) <= set(atom.args)
                            and _mentions(op, bit, positive, conditional)
                            and self.space.action_text(Step(op.name, op.args)) not in ancestors):
                        return Step(op.name, op.args)
            return None
        if self._costs is None or self._costs[0] != state:
            self._costs = (state, self.fact_costs(state))
        costs = self._costs[1]
        best: tuple | None = None
        for i, op in enumerate(self.operators):
            after = op.apply(state)
            if bool(after >> bit & 1) != positive:
                continue
            if self.space.action_text(Step(op.name, op.args)) in ancestors:
                continue
            undone = sum(1 for g in self.goal_bits if state >> g & 1 and not after >> g & 1)
            # how far its preconditions are: h_add for facts, 1 per false negative
            # literal or disjunction
            distance = (sum(costs.get(b, INF) for b in bits(op.pre_pos & ~state))
                        + (op.pre_neg & state).bit_count()
                        + sum(not d.holds(state) for d in op.pre_rest))
            key = (undone, distance, not set(op.args) <= set(atom.args), i)
            if best is None or key < best[0]:
                best = (key, op)
        return None if best is None else Step(best[1].name, best[1].args)


def _mentions(op: Operator, bit: int, positive: bool, conditional: bool) -> bool:
    """``op`` makes the literal true (unconditionally, or under some condition)
    and no effect of it can make the literal false again."""
    mask = 1 << bit
    make, undo = (op.add, op.delete) if positive else (op.delete, op.add)
    if not positive and (undo & mask or any(ce.add & mask for ce in op.cond_effects)):
        return False  # adds win over deletes
    if not conditional:
        return bool(make & mask)
    return any((ce.add if positive else ce.delete) & mask for ce in op.cond_effects)
