"""The reasoning tree: the goal at the root, decompositions as children."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypedDict

from veriplan.core.atom import Atom
from veriplan.core.plan import Step


class Kind(StrEnum):
    GOAL = "goal"  # the task's goal (the root)
    ACTION = "action"
    FACT = "fact"  # a sub-goal stated as a fact


class Status(StrEnum):
    PENDING = "pending"  # not yet executable, not yet decomposed
    EXPANDED = "expanded"  # decomposed; waiting for its children
    DONE = "done"  # executed, or found to hold already
    SKIPPED = "skipped"  # no longer needed: an ancestor became executable first
    ABANDONED = "abandoned"  # executing it would undo an achieved goal fact
    FAILED = "failed"  # no usable decomposition within the budget

    @property
    def finished(self) -> bool:
        return self not in (Status.PENDING, Status.EXPANDED)


class NodeDict(TypedDict):
    """:meth:`Node.to_dict`: a node as DRIP's final tree entry stores it."""

    id: int
    kind: str
    text: str
    parent: int | None
    depth: int
    status: str
    how: str
    children: list[int]
    decompositions: int
    unread: list[str]


@dataclass
class Node:
    id: int
    kind: Kind
    text: str
    parent: int | None
    depth: int
    step: Step | None = None
    fact: Atom | None = None
    status: Status = Status.PENDING
    children: list[int] = field(default_factory=list)
    decompositions: int = 0
    how: str = ""  # executed / held / achieved / ...
    unread: list[str] = field(default_factory=list)  # decomposition lines not understood
    with_condition: bool = False  # next decomposition shows the current condition
    cycles: int = 0  # children dropped because they repeated an ancestor

    def to_dict(self) -> NodeDict:
        return {"id": self.id, "kind": self.kind.value, "text": self.text,
                "parent": self.parent, "depth": self.depth, "status": self.status.value,
                "how": self.how, "children": self.children,
                "decompositions": self.decompositions, "unread": self.unread}


class Tree:
    def __init__(self, goal_text: str) -> None:
        self.nodes: list[Node] = [Node(0, Kind.GOAL, goal_text, None, 0)]

    @property
    def root(self) -> Node:
        return self.nodes[0]

    def add(self, parent: Node, kind: Kind, text: str, *, step: Step | None = None,
            fact: Atom | None = None) -> Node:
        node = Node(len(self.nodes), kind, text, parent.id, parent.depth + 1, step, fact)
        self.nodes.append(node)
        parent.children.append(node.id)
        return node

    def active_children(self, node: Node) -> list[Node]:
        return [self.nodes[c] for c in node.children
                if self.nodes[c].status is not Status.SKIPPED]

    def ancestors(self, node: Node) -> frozenset[str]:
        """The texts of ``node`` and of every node above it."""
        out = {node.text}
        while node.parent is not None:
            node = self.nodes[node.parent]
            out.add(node.text)
        return frozenset(out)

    def in_order(self) -> list[Node]:
        """Level order (breadth first), children left to right."""
        out, queue = [], [self.root]
        while queue:
            n = queue.pop(0)
            out.append(n)
            queue += [self.nodes[c] for c in n.children]
        return out

    def skip_below(self, node: Node) -> None:
        """Unfinished descendants of ``node`` are no longer needed."""
        for c in node.children:
            child = self.nodes[c]
            if not child.status.finished:
                child.status = Status.SKIPPED
            self.skip_below(child)

    @property
    def depth(self) -> int:
        return max(n.depth for n in self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def render(self) -> str:
        lines = []

        def walk(n: Node, indent: int) -> None:
            how = f", {n.how}" if n.how else ""
            lines.append(f"{'  ' * indent}{n.text}  [{n.status.value}{how}]")
            for c in n.children:
                walk(self.nodes[c], indent + 1)

        walk(self.root, 0)
        return "\n".join(lines)
