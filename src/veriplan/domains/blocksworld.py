"""Blocksworld action spaces for methods that talk about blocks in words.

Two spaces share one interface (:class:`ActionSpace`):

- ``standard``: PlanBench's four actions (pick-up, put-down, stack, unstack) with
  one hand, on the instance's own PDDL task;
- ``relaxed``: the DRIP paper's action space (section 4.1.1): stack X Y,
  put-down X and unstack-blocks X, no hand, towers move as one; written as the
  PDDL domain ``blocksworld_towers.pddl`` so the core validates its plans.
  :func:`relaxed_task` translates a four-action problem into it.

Each space renders conditions and goals in plain sentences ("block a is on top
of block b") and reads action and fact lines back, so every method and
baseline on Blocksworld speaks the same words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from veriplan.core.atom import Atom, ConditionPart, Literal
from veriplan.core.facts import State
from veriplan.core.plan import Step
from veriplan.errors import DataError
from veriplan.pddl.ast import Domain
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task

STANDARD_ACTIONS = {"pick-up": 1, "put-down": 1, "stack": 2, "unstack": 2}
RELAXED_ACTIONS = {"stack": 2, "put-down": 1, "unstack-blocks": 1}


@cache
def towers_domain() -> Domain:
    text = resources.files("veriplan.domains").joinpath("blocksworld_towers.pddl").read_text()
    return parse_domain(text, file="blocksworld_towers.pddl")


def goal_atoms(task: Task) -> list[Atom]:
    goal = task.goal
    if getattr(goal, "neg", 0) or getattr(goal, "parts", ()) or not hasattr(goal, "pos"):
        raise DataError(f"{task.name}: only a conjunction of facts can be a Blocksworld goal "
                        "here")
    return task.facts.decode(goal.pos)


def blocks_of(task: Task) -> list[str]:
    return sorted(task.objects)


def relaxed_task(task: Task) -> Task:
    """The four-action Blocksworld problem ``task`` in the tower-move space:
    same blocks, same towers, same goal (``handempty`` dropped; a goal about
    the hand has no meaning without one and is an error)."""
    missing = set(STANDARD_ACTIONS) - {a.name for a in task.domain.actions}
    if missing:
        raise DataError(f"{task.name} is not a four-action Blocksworld problem (no "
                        f"{', '.join(sorted(missing))}); the relaxed space needs one")
    init = task.atoms(task.init)
    below = {a.args[0]: a.args[1] for a in init if a.pred == "on"}
    facts = [a for a in init if a.pred in ("on", "ontable", "clear")]
    held = [a for a in init if a.pred == "holding"]
    for h in held:  # a held block is put on the table: nothing is above it
        facts += [Atom("ontable", h.args), Atom("clear", h.args)]
    for block in below:
        b = block
        while b in below:
            b = below[b]
            facts.append(Atom("above", (block, b)))
    goal = []
    for a in goal_atoms(task):
        if a.pred == "handempty":
            continue
        if a.pred not in ("on", "ontable", "clear"):
            raise DataError(f"{task.name}: goal fact {a} has no meaning in the relaxed space")
        goal.append(a)
    text = (f"(define (problem {task.problem.name}-towers) (:domain blocksworld-towers)\n"
            f"(:objects {' '.join(blocks_of(task))})\n"
            f"(:init {' '.join(_pddl(a) for a in facts)})\n"
            f"(:goal (and {' '.join(_pddl(a) for a in goal)})))\n")
    domain = towers_domain()
    return Task(domain, parse_problem(text, domain, file=f"{task.problem.name}-towers"))


def _pddl(a: Atom) -> str:
    return "(" + " ".join((a.pred, *a.args)) + ")"


# ----- words -----------------------------------------------------------------------------
def sentence(a: Atom) -> str | None:
    """A fact in words, or None for facts the prompts leave out (``above``)."""
    if a.pred == "on":
        return f"block {a.args[0]} is on top of block {a.args[1]}"
    if a.pred == "ontable":
        return f"block {a.args[0]} is on the table"
    if a.pred == "clear":
        return f"block {a.args[0]} is clear"
    if a.pred == "handempty":
        return "the hand is empty"
    if a.pred == "holding":
        return f"the hand is holding block {a.args[0]}"
    return None


def literal_sentence(part: ConditionPart) -> str:
    """A false condition part of a verdict, ``(clear b)`` or ``(not (ontable a))``,
    in words (PDDL text for a part with no sentence, such as a disjunction)."""
    said = sentence(part.atom) if isinstance(part, Literal) else None
    if said is None:
        return part.pddl()
    return said if part.positive else f"it is not the case that {said}"


_ORDER = {"handempty": 0, "holding": 1, "clear": 2, "on": 3, "ontable": 4}


def describe(atoms: list[Atom]) -> str:
    """Facts as one sentence list, hand first, then clear, on, on the table."""
    keep = sorted((a for a in atoms if sentence(a)),
                  key=lambda a: (_ORDER.get(a.pred, 9), a.args))
    return ", ".join(sentence(a) for a in keep) + "." if keep else "nothing."  # type: ignore


_FILLER = {"the", "an", "block", "blocks", "on", "onto", "top", "of", "from", "to", "table",
           "and", "then", "with", "it", "is"}
_NUMBERING = re.compile(r"^\s*(?:step\s*)?(?:\d+\s*[.):]|[-*•>])\s*", re.I)
_FACT_ON = re.compile(r"^(?:block\s+)?(\w+)\s+(?:is\s+)?on(?:\s+top\s+of)?\s+(?:block\s+)?(\w+)$")
_FACT_TABLE = re.compile(r"^(?:block\s+)?(\w+)\s+(?:is\s+)?on\s+the\s+table$")
_FACT_CLEAR = re.compile(r"^(?:block\s+)?(\w+)\s+is\s+clear$")


def _clean(line: str) -> str:
    line = _NUMBERING.sub("", line.strip())
    line = line.replace("[", " ").replace("]", " ").replace("`", " ").replace("*", " ")
    line = re.sub(r"[(),.;:\"']", " ", line.lower())
    return " ".join(line.split())


@dataclass(frozen=True)
class ActionSpace:
    """How a Blocksworld method acts and speaks. ``help`` lists the actions for
    prompts; ``task`` maps an instance's four-action task into this space."""

    name: str
    actions: dict[str, int]
    help: str

    def task(self, task: Task) -> Task:
        return relaxed_task(task) if self.name == "relaxed" else task

    def action_text(self, step: Step) -> str:
        if self.name == "relaxed" and step.name == "unstack-blocks":
            return f"unstack blocks {step.args[0]}"
        return " ".join((step.name, *step.args))

    def read_action(self, line: str, task: Task) -> Step | None:
        """One action line in words or PDDL, or None when it is not one action of
        this space over the task's blocks."""
        text = _clean(line)
        text = (text.replace("put down", "put-down").replace("pick up", "pick-up")
                .replace("unstack blocks", "unstack-blocks"))
        words = text.split()
        if not words:
            return None
        name = words[0]
        args = [w for w in words[1:] if w in task.objects or w not in _FILLER]
        if name == "unstack-blocks" and self.name == "standard":
            return None
        if self.name == "relaxed" and name == "unstack":
            # "unstack X Y" read as the paper's own wording: clear Y by removing X
            name, args = "unstack-blocks", args[-1:]
        if name not in self.actions or len(args) != self.actions[name]:
            return None
        if any(a not in task.objects for a in args):
            return None
        return Step(name, tuple(args))

    def read_fact(self, line: str, task: Task) -> Atom | None:
        """One fact line, in words ("block a is on top of block b") or PDDL."""
        raw = line.strip()
        if raw.startswith("(") and raw.endswith(")"):
            words = raw.strip("()").lower().split()
            atom = Atom(words[0], tuple(words[1:])) if words else None
        else:
            text = _clean(raw)
            atom = None
            if text in ("the hand is empty", "hand is empty"):
                atom = Atom("handempty", ())
            elif m := _FACT_TABLE.match(text):
                atom = Atom("ontable", (m.group(1),))
            elif m := _FACT_CLEAR.match(text):
                atom = Atom("clear", (m.group(1),))
            elif m := _FACT_ON.match(text):
                atom = Atom("on", (m.group(1), m.group(2)))
        if atom is None or atom.pred not in ("on", "ontable", "clear", "handempty", "holding"):
            return None
        if atom.pred == "handempty" and self.name == "relaxed":
            return None
        if any(a not in task.objects for a in atom.args):
            return None
        return atom

    def describe_state(self, task: Task, state: State) -> str:
        return describe(task.atoms(state))

    def describe_goal(self, task: Task) -> str:
        return describe(goal_atoms(task))


SPACES: dict[str, ActionSpace] = {
    "relaxed": ActionSpace("relaxed", RELAXED_ACTIONS, (
        "stack X Y: put block X on top of block Y. Y must be clear and X and Y must be in "
        "different towers; every block on top of X moves with it.\n"
        "unstack blocks X: clear block X by moving the blocks on top of it (as one tower) "
        "to the table.\n"
        "put-down X: put block X on the table; every block on top of X moves with it.\n"
        "You can hold any number of blocks; picking up is part of each action.")),
    "standard": ActionSpace("standard", STANDARD_ACTIONS, (
        "pick-up X: pick up block X from the table. X must be clear and on the table and "
        "the hand must be empty.\n"
        "unstack X Y: pick up block X from on top of block Y. X must be on Y and clear and "
        "the hand must be empty.\n"
        "put-down X: put the held block X on the table.\n"
        "stack X Y: put the held block X on top of block Y. Y must be clear.\n"
        "You can hold only one block at a time.")),
}


def action_space(name: str) -> ActionSpace:
    if name not in SPACES:
        raise DataError(f"unknown action space {name!r}: use one of {', '.join(SPACES)}")
    return SPACES[name]
