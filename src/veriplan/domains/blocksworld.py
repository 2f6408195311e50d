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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from veriplan.core.atom import Atom, ConditionPart, Literal
from veriplan.core.facts import State
from veriplan.core.plan import Step
from veriplan.errors import DataError
from veriplan.pddl.ast import ActionSchema, And, Domain
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


def relaxed_task(task: Task, roles: Roles | None = None) -> Task:
    """The four-action Blocksworld problem ``task`` in the tower-move space:
    same blocks, same towers, same goal (``handempty`` dropped; a goal about
    the hand has no meaning without one and is an error). The task's facts are
    read through ``roles`` (by default :func:`recognise`'s, else the usual
    names ``on``, ``ontable``, ``clear``, ``holding``, ``handempty``)."""
    roles = roles or _roles_or_names(task)
    init = [roles.canonical_atom(a) for a in task.atoms(task.init)]
    below = {a.args[0]: a.args[1] for a in init if a is not None and a.pred == "on"}
    facts = [a for a in init if a is not None and a.pred in ("on", "ontable", "clear")]
    held = [a for a in init if a is not None and a.pred == "holding"]
    for h in held:  # a held block is put on the table: nothing is above it
        facts += [Atom("ontable", h.args), Atom("clear", h.args)]
    for block in below:
        b = block
        while b in below:
            b = below[b]
            facts.append(Atom("above", (block, b)))
    goal = []
    for a in goal_atoms(task):
        c = roles.canonical_atom(a)
        if c is not None and c.pred == "handempty":
            continue
        if c is None or c.pred not in ("on", "ontable", "clear"):
            raise DataError(f"{task.name}: goal fact {a} has no meaning in the relaxed space")
        goal.append(c)
    text = (f"(define (problem {task.problem.name}-towers) (:domain blocksworld-towers)\n"
            f"(:objects {' '.join(blocks_of(task))})\n"
            f"(:init {' '.join(_pddl(a) for a in facts)})\n"
            f"(:goal (and {' '.join(_pddl(a) for a in goal)})))\n")
    domain = towers_domain()
    return Task(domain, parse_problem(text, domain, file=f"{task.problem.name}-towers"))


def standard_task(task: Task, roles: Roles | None = None) -> Task:
    """``task`` with the usual four action names (pick-up, put-down, stack,
    unstack) and predicate names: ``task`` itself when its domain already uses
    them, else the same problem written in :data:`FOUR_ACTIONS` through
    ``roles``."""
    roles = roles or _roles_or_names(task)
    if roles.canonical:
        return task
    init = [c for a in task.atoms(task.init) if (c := roles.canonical_atom(a)) is not None]
    goal = []
    for a in goal_atoms(task):
        c = roles.canonical_atom(a)
        if c is None:
            raise DataError(f"{task.name}: goal fact {a} is no Blocksworld fact")
        goal.append(c)
    text = (f"(define (problem {task.problem.name}-4ops) (:domain blocksworld-4ops)\n"
            f"(:objects {' '.join(blocks_of(task))})\n"
            f"(:init {' '.join(_pddl(a) for a in init)})\n"
            f"(:goal (and {' '.join(_pddl(a) for a in goal)})))\n")
    domain = four_action_domain()
    return Task(domain, parse_problem(text, domain, file=f"{task.problem.name}-4ops"))


# ----- the user's names: what each part of a four-action Blocksworld is called ----------
# The four actions' shape, in the usual names, with ?x the block that moves and ?y the
# block below it: (precondition, add, delete), each a set of atoms.
_SHAPE: dict[str, tuple[frozenset[Atom], frozenset[Atom], frozenset[Atom]]] = {
    "pick-up": (frozenset({Atom("ontable", ("?x",)), Atom("clear", ("?x",)),
                           Atom("handempty", ())}),
                frozenset({Atom("holding", ("?x",))}),
                frozenset({Atom("ontable", ("?x",)), Atom("clear", ("?x",)),
                           Atom("handempty", ())})),
    "put-down": (frozenset({Atom("holding", ("?x",))}),
                 frozenset({Atom("ontable", ("?x",)), Atom("clear", ("?x",)),
                            Atom("handempty", ())}),
                 frozenset({Atom("holding", ("?x",))})),
    "stack": (frozenset({Atom("holding", ("?x",)), Atom("clear", ("?y",))}),
              frozenset({Atom("on", ("?x", "?y")), Atom("clear", ("?x",)),
                         Atom("handempty", ())}),
              frozenset({Atom("holding", ("?x",)), Atom("clear", ("?y",))})),
    "unstack": (frozenset({Atom("on", ("?x", "?y")), Atom("clear", ("?x",)),
                           Atom("handempty", ())}),
                frozenset({Atom("holding", ("?x",)), Atom("clear", ("?y",))}),
                frozenset({Atom("on", ("?x", "?y")), Atom("clear", ("?x",)),
                           Atom("handempty", ())})),
}
PREDICATES = {"on": 2, "ontable": 1, "clear": 1, "holding": 1, "handempty": 0}

FOUR_ACTIONS = """; Blocksworld with one hand, in the usual names (veriplan's own wording).
(define (domain blocksworld-4ops)
  (:requirements :strips)
  (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (holding ?x) (handempty))
  (:action pick-up :parameters (?x)
    :precondition (and (ontable ?x) (clear ?x) (handempty))
    :effect (and (holding ?x) (not (ontable ?x)) (not (clear ?x)) (not (handempty))))
  (:action put-down :parameters (?x)
    :precondition (holding ?x)
    :effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))
  (:action stack :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))
  (:action unstack :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))))
"""


@cache
def four_action_domain() -> Domain:
    return parse_domain(FOUR_ACTIONS, file="blocksworld-4ops")


@dataclass(frozen=True)
class Roles:
    """What the user's domain calls each part of Blocksworld: ``actions`` and
    ``predicates`` map the usual names (pick-up, ..., on, ...) to the domain's;
    ``order[name]`` gives, for each of the domain's parameters of that action
    (and of ``on``), the position of the usual argument (0: the block that
    moves, or the top block of ``on``; 1: the block below)."""

    actions: dict[str, str]
    predicates: dict[str, str]
    order: dict[str, tuple[int, ...]]
    recognised: bool = True  # False: the names were taken on trust, not from the shape

    @property
    def canonical(self) -> bool:
        """The domain uses the usual names and argument orders."""
        return (all(k == v for k, v in self.actions.items())
                and all(k == v for k, v in self.predicates.items())
                and all(o == tuple(range(len(o))) for o in self.order.values()))

    def step(self, step: Step) -> Step:
        """A step in the usual names as the user's domain writes it."""
        order = self.order.get(step.name, tuple(range(len(step.args))))
        return Step(self.actions[step.name], tuple(step.args[i] for i in order))

    def canonical_atom(self, atom: Atom) -> Atom | None:
        """A fact of the user's task in the usual names (None: not a Blocksworld fact)."""
        for usual, name in self.predicates.items():
            if name == atom.pred and len(atom.args) == PREDICATES[usual]:
                order = self.order.get(usual, tuple(range(len(atom.args))))
                args = [""] * len(atom.args)
                for k, i in enumerate(order):
                    args[i] = atom.args[k]
                return Atom(usual, tuple(args))
        return None

    def words(self) -> str:
        """The correspondence, for the record: ``stack=overcome, on=craves, ...``."""
        return ", ".join(f"{k}={v}" for k, v in (*self.actions.items(),
                                                   *self.predicates.items()) if k != v) \
            or "the usual names"


def _shape(schema: ActionSchema) -> tuple[frozenset[Atom], frozenset[Atom],
                                           frozenset[Atom]] | None:
    """An action's positive STRIPS precondition, add and delete sets (None: it
    has anything else: negative or quantified conditions, conditional effects)."""
    pre = schema.precondition
    parts = pre.parts if isinstance(pre, And) else (pre,)
    if not all(isinstance(p, Atom) for p in parts):
        return None
    add, delete = set(), set()
    for e in schema.effects:
        if not isinstance(e, Literal):
            return None
        (add if e.positive else delete).add(e.atom)
    return frozenset(parts), frozenset(add), frozenset(delete)  # type: ignore[arg-type]


def recognise(domain: Domain) -> Roles | str:
    """The domain's names for Blocksworld's parts, read from the actions'
    shapes (whatever the names: PlanBench's Mystery Blocksworld is recognised
    too), or the reason the domain is not recognisably four-action
    Blocksworld. Recognised means: exactly four actions, each with the
    precondition and effects of pick-up, put-down, stack or unstack under one
    consistent renaming of actions, predicates and argument orders."""
    if len(domain.actions) != 4:
        return f"domain {domain.name} has {len(domain.actions)} actions, not Blocksworld's 4"
    shapes = {}
    for a in domain.actions:
        shape = _shape(a)
        if shape is None:
            return f"action {a.name} is not a plain STRIPS action"
        shapes[a.name] = shape
    used = {x for s in shapes.values() for part in s for x in part}
    nullary = {x.pred for x in used if not x.args}
    binary = {x.pred for x in used if len(x.args) == 2}
    if len(nullary) != 1 or len(binary) != 1:
        return (f"domain {domain.name} does not have one 0-ary fact (the empty hand) and one "
                "2-ary fact (one block on another)")
    hand, on = nullary.pop(), binary.pop()
    unary = [a.name for a in domain.actions if len(a.params) == 1]
    pairs = [a.name for a in domain.actions if len(a.params) == 2]
    if len(unary) != 2 or len(pairs) != 2:
        return f"domain {domain.name} does not have two 1-parameter and two 2-parameter actions"
    try:
        pick = next(n for n in unary if Atom(hand, ()) in shapes[n][0])
        put = next(n for n in unary if n != pick)
        stack = next(n for n in pairs if any(x.pred == on for x in shapes[n][1]))
        unstack = next(n for n in pairs if n != stack)
        holding = next(iter(shapes[pick][1])).pred
        ontable = next(x.pred for x in shapes[put][1] if x.args and x.pred not in
                       {y.pred for y in shapes[stack][0]})
        clear = next(x.pred for x in shapes[stack][0] if x.pred != holding)
    except StopIteration:
        return f"domain {domain.name}: its actions do not have Blocksworld's shapes"
    names = {"on": on, "ontable": ontable, "clear": clear, "holding": holding,
             "handempty": hand}
    if len(set(names.values())) != 5:
        return f"domain {domain.name}: its facts do not have Blocksworld's roles"
    acts = {"pick-up": pick, "put-down": put, "stack": stack, "unstack": unstack}
    # which parameter is the block that moves, and which argument of `on` is the top
    sched = domain.action(stack)
    assert sched is not None
    moved = next((x.args[0] for x in shapes[stack][0] if x.pred == holding), None)
    on_add = next((x for x in shapes[stack][1] if x.pred == on), None)
    if moved is None or on_add is None or moved not in on_add.args:
        return f"domain {domain.name}: its stacking action does not stack the held block"
    on_order = (0, 1) if on_add.args[0] == moved else (1, 0)
    order: dict[str, tuple[int, ...]] = {"on": on_order}
    rename = {v: k for k, v in names.items()}
    for usual, name in acts.items():
        schema = domain.action(name)
        assert schema is not None
        params = [p.name for p in schema.params]
        if usual in ("stack", "unstack"):
            if usual == "stack":
                x = moved
            else:  # the top block of the `on` fact the action needs
                on_pre = next((y for y in shapes[name][0] if y.pred == on), None)
                if on_pre is None:
                    return f"domain {domain.name}: action {name} needs no block on another"
                x = on_pre.args[on_order[0]]
            if x not in params:
                return f"domain {domain.name}: action {name} has no parameter {x}"
            order[usual] = (0, 1) if params[0] == x else (1, 0)
            var = {params[0]: "?x", params[1]: "?y"} if params[0] == x else \
                {params[0]: "?y", params[1]: "?x"}
        else:
            var = {params[0]: "?x"}

        def usual_atom(a: Atom, var: dict[str, str] = var) -> Atom:
            pred = rename.get(a.pred, a.pred)
            args = tuple(var.get(t, t) for t in a.args)
            if pred == "on" and on_order != (0, 1):
                args = (args[1], args[0])
            return Atom(pred, args)

        got = tuple(frozenset(usual_atom(a) for a in part) for part in shapes[name])
        if got != _SHAPE[usual]:
            return (f"domain {domain.name}: action {name} is not Blocksworld's {usual} "
                    "(its precondition or effects differ)")
    return Roles(acts, names, order)


def _roles_or_names(task: Task) -> Roles:
    """:func:`recognise`'s roles for the task's domain, else the usual names taken
    on trust (``recognised=False``) when the domain has the usual facts; a domain
    with neither is a :class:`DataError`."""
    roles = recognise(task.domain)
    if isinstance(roles, Roles):
        return roles
    preds = task.domain.predicates
    missing = [p for p, n in PREDICATES.items() if p != "holding" and
               (p not in preds or len(preds[p]) != n)]
    if missing:
        raise DataError(f"{task.name} is not a four-action Blocksworld problem ({roles}; no "
                        f"fact {', '.join(missing)} either); the Blocksworld spaces need one")
    return Roles({a: a for a in STANDARD_ACTIONS}, {p: p for p in PREDICATES},
                 {"on": (0, 1), "stack": (0, 1), "unstack": (0, 1)}, recognised=False)


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
        return relaxed_task(task) if self.name == "relaxed" else standard_task(task)

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


# ----- back to the user's domain ------------------------------------------------------
@dataclass(frozen=True)
class MappedPlan:
    """A plan of an action space written in the user's own domain.

    ``steps`` are the user's actions (their names and argument orders);
    ``roles`` is None when the user's domain is not recognisably four-action
    Blocksworld (``reason`` says why, and ``steps`` is empty); ``stopped_at``
    is the 1-based step of the method's plan that could not be executed in its
    own space (the steps before it are mapped), None when every step mapped;
    ``expanded`` counts tower moves that carried blocks on top of the moved one
    (each becomes: those blocks to the table, the move, those blocks back);
    ``cancelled`` counts the steps dropped because the next step undid them."""

    steps: tuple[Step, ...]
    roles: Roles | None
    reason: str = ""
    stopped_at: int | None = None
    expanded: int = 0
    cancelled: int = 0

    @property
    def complete(self) -> bool:
        return self.roles is not None and self.stopped_at is None


def map_back(user: Task, space: ActionSpace, plan: Sequence[Step]) -> MappedPlan:
    """``plan``, made in ``space`` for the task ``space.task(user)``, as the
    user's own actions. A tower move of block x (with whatever is on it) from
    block y or the table onto block z or the table becomes unstack-and-stack,
    pick-up-and-stack or unstack-and-put-down, in the user's names; blocks on x
    go to the table first and back onto x afterwards, in order, so every state
    between moves is the tower-move state. A block in the hand at the start is
    put down first (the tower space has no hand). A step followed at once by
    its inverse (pick-up x then put-down x, stack x y then unstack x y, and the
    reverse orders) is dropped with it: the pair returns to the state before
    it. The standard space's steps are renamed only. Nothing here decides
    validity: the caller validates the result on ``user``."""
    roles = recognise(user.domain)
    if not isinstance(roles, Roles):
        return MappedPlan((), None, reason=roles)
    if space.name != "relaxed":
        return MappedPlan(tuple(roles.step(s) for s in plan), roles)
    init = [c for a in user.atoms(user.init) if (c := roles.canonical_atom(a)) is not None]
    below: dict[str, str | None] = {a.args[0]: a.args[1] for a in init if a.pred == "on"}
    below.update({a.args[0]: None for a in init if a.pred == "ontable"})
    out: list[Step] = []
    for a in init:
        if a.pred == "holding":
            out.append(Step("put-down", a.args))
            below[a.args[0]] = None
    method = space.task(user)
    state = method.init
    expanded = 0

    def tower_on(x: str) -> list[str]:
        """The blocks on x, bottom first."""
        chain, top = [], x
        while (nxt := next((b for b, u in below.items() if u == top), None)) is not None:
            chain.append(nxt)
            top = nxt
        return chain

    def move(x: str, dest: str | None) -> None:
        nonlocal expanded
        carried = tower_on(x)
        expanded += bool(carried)
        for b in reversed(carried):  # the top block first, each to the table
            out.extend((Step("unstack", (b, below[b] or "")), Step("put-down", (b,))))
        source = below[x]
        out.append(Step("unstack", (x, source)) if source is not None else Step("pick-up", (x,)))
        out.append(Step("stack", (x, dest)) if dest is not None else Step("put-down", (x,)))
        for b in carried:  # back in order, bottom first
            out.extend((Step("pick-up", (b,)), Step("stack", (b, below[b] or ""))))
        below[x] = dest

    for i, step in enumerate(plan, 1):
        arity = space.actions.get(step.name)
        op = method.operator(step.name, step.args) if arity == len(step.args) else None
        if op is None or not op.applicable(state) or any(a not in below for a in step.args):
            kept = _cancel(out)
            return MappedPlan(tuple(roles.step(s) for s in kept), roles, stopped_at=i,
                              expanded=expanded, cancelled=len(out) - len(kept))
        state = op.apply(state)
        if step.name == "stack":
            move(step.args[0], step.args[1])
        elif step.name == "put-down":
            move(step.args[0], None)
        else:  # unstack-blocks x: what is on x goes to the table as one tower
            move(tower_on(step.args[0])[0], None)
    kept = _cancel(out)
    return MappedPlan(tuple(roles.step(s) for s in kept), roles, expanded=expanded,
                      cancelled=len(out) - len(kept))


_INVERSE = {"pick-up": "put-down", "put-down": "pick-up", "stack": "unstack",
            "unstack": "stack"}


def _cancel(steps: list[Step]) -> list[Step]:
    """``steps`` without the adjacent pairs of a step and its inverse (in the
    usual names), repeatedly: ``pick-up c, stack c a, unstack c a, put-down c``
    is nothing."""
    kept: list[Step] = []
    for s in steps:
        if kept and kept[-1].args == s.args and _INVERSE[kept[-1].name] == s.name:
            kept.pop()
        else:
            kept.append(s)
    return kept


def action_space(name: str) -> ActionSpace:
    if name not in SPACES:
        raise DataError(f"unknown action space {name!r}: use one of {', '.join(SPACES)}")
    return SPACES[name]
