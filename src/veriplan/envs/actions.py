"""Symbolic action models for AEC's Apply(h, w) (Definition 3.3) and CHECKPRE:
what each admissible action form certainly changes, and which facts it needs.

- :func:`effects` ``(env, action, facts) -> (add, delete)``: assuming the action
  succeeds from a state where ``facts`` hold, ``add`` holds afterwards (facts of
  either value) and ``delete`` are the facts of ``facts`` that may no longer hold.
  Unknown forms give no effects (``known`` says whether a form is modelled).
- :func:`preconditions` ``(env, action, facts) -> list[Fact] | None``: the facts the
  action needs. Household: exactly the domain's preconditions (``alfred.pddl``)
  in the vocabulary, so a plan whose preconditions all hold is executable.
  ScienceWorld: only what is certain ("go to R" needs the door to R open); most
  of its preconditions (visibility, ...) are outside the vocabulary. None: needs
  that cannot be stated as facts (an unknown form, "go to" something that is not
  a receptacle, "examine O" with O's place unknown): such a step cannot be
  verified.
- :func:`apply` runs a plan symbolically from grounded facts (Apply(h, w)),
  keeping only what the frame rules (:mod:`veriplan.envs.rules`) let persist.
- :func:`advance` keeps a grounded store current after a real step: the
  action's certain effects when the observation confirms it succeeded, the facts
  it cannot have changed, and what the observation grounded.

Actions are written as the environments take them; household actions may also
use ALFWorld's "put X in/on R" for "move X to R".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from veriplan.envs.base import Env, Fact, Observation
from veriplan.envs.household import kinds
from veriplan.envs.rules import rules_for
from veriplan.errors import ConfigError

Key = tuple[str, tuple[str, ...]]


def key(f: Fact) -> Key:
    return f.pred, f.args


@dataclass(frozen=True)
class Parsed:
    form: str  # "go", "take", "move", ... or "" (unknown)
    args: tuple[str, ...] = ()


def _here(facts: Iterable[Fact]) -> str | None:
    places = {f.args[1] for f in facts if f.pred == "at" and f.value and len(f.args) == 2}
    return next(iter(places)) if len(places) == 1 else None


# ----- household -------------------------------------------------------------------------

_HH_FORMS = [
    ("go", re.compile(r"^go to (.+)$")),
    ("take", re.compile(r"^take (.+?) from (.+)$")),
    ("move", re.compile(r"^move (.+?) to (.+)$")),
    ("move", re.compile(r"^put (.+?) (?:in/on|in|on|into|onto) (.+)$")),
    ("open", re.compile(r"^open (.+)$")),
    ("close", re.compile(r"^close (.+)$")),
    ("heat", re.compile(r"^heat (.+?) with (.+)$")),
    ("cool", re.compile(r"^cool (.+?) with (.+)$")),
    ("clean", re.compile(r"^clean (.+?) with (.+)$")),
    ("slice", re.compile(r"^slice (.+?) with (.+)$")),
    ("use", re.compile(r"^use (.+)$")),
    ("examine", re.compile(r"^examine (.+)$")),
    ("look", re.compile(r"^look$")),
    ("inventory", re.compile(r"^inventory$")),
    ("help", re.compile(r"^help$")),
]


class HouseholdActions:
    """The household games' action forms (TextWorld commands of ``alfred.twl2``)."""

    env = "household"
    # every command the games take is one of the forms above (alfred.twl2's grammar): a
    # command of no known form is one the game refuses
    grammar_complete = True
    # predicates no action changes
    static = frozenset({"openable", "kind", "pickupable", "heatable", "coolable",
                        "cleanable", "toggleable", "cancontain"})

    def parse(self, action: str) -> Parsed:
        text = " ".join(action.strip().lower().split())
        for form, pattern in _HH_FORMS:
            m = pattern.match(text)
            if m:
                return Parsed(form, tuple(g.strip() for g in m.groups()))
        return Parsed("")

    def command(self, action: str) -> str:
        """The TextWorld command for ``action`` ("put X in/on R" -> "move X to R")."""
        p = self.parse(action)
        if p.form == "move":
            return f"move {p.args[0]} to {p.args[1]}"
        return " ".join(action.strip().split())

    def effects(self, action: str, facts: Iterable[Fact]) -> tuple[set[Fact], set[Fact]]:
        facts = frozenset(facts)
        p = self.parse(action)
        a = p.args
        add: set[Fact] = set()
        if p.form == "go":
            add = {Fact("at", ("agent", a[0]))}
            add |= {Fact("at", ("agent", f.args[1]), False) for f in facts
                    if f.pred == "at" and f.value and f.args[1] != a[0]}
        elif p.form == "take":
            add = {Fact("holds", ("agent", a[0])), Fact("in", (a[0], a[1]), False),
                   Fact("handempty", ("agent",), False)}
        elif p.form == "move":
            add = {Fact("in", (a[0], a[1])), Fact("holds", ("agent", a[0]), False),
                   Fact("handempty", ("agent",))}
        elif p.form in ("open", "close"):
            add = {Fact("open", (a[0],), p.form == "open"), Fact("openable", (a[0],))}
        elif p.form == "heat":
            add = {Fact("hot", (a[0],)), Fact("cool", (a[0],), False)}
        elif p.form == "cool":
            add = {Fact("cool", (a[0],)), Fact("hot", (a[0],), False)}
        elif p.form == "clean":
            add = {Fact("clean", (a[0],))}
        elif p.form == "use":
            add = {Fact("toggled", (a[0],))}
        keys = {key(f) for f in add}
        delete = {f for f in facts if key(f) in keys and f not in add}
        return add, delete

    def touched(self, action: str, facts: Iterable[Fact]) -> set[Key] | None:
        """Keys the action may change when it is not known to have succeeded
        (None: anything but the static facts)."""
        p = self.parse(action)
        if not p.form:
            return None
        add, delete = self.effects(action, facts)
        return {key(f) for f in add | delete}

    def confirmed(self, action: str, add: set[Fact], observed: frozenset[Fact]) -> bool:
        """Whether the observation shows the action succeeded: the grounder
        reads these facts from the action's success sentence only."""
        p = self.parse(action)
        a = p.args
        sign = {"go": Fact("at", ("agent", a[0])) if a else None,
                "open": Fact("open", a[:1]), "close": Fact("open", a[:1], False),
                "heat": Fact("hot", a[:1]), "cool": Fact("cool", a[:1]),
                "clean": Fact("clean", a[:1]), "use": Fact("toggled", a[:1]),
                "take": Fact("holds", ("agent", *a[:1])),
                "move": Fact("in", a[:2])}.get(p.form)
        return sign is not None and sign in observed

    def preconditions(self, action: str, facts: Iterable[Fact]) -> list[Fact] | None:
        facts = frozenset(facts)
        p = self.parse(action)
        a = p.args

        def openness(r: str) -> list[Fact]:
            """(open R) unless R is known not to be openable (by its kind or a
            grounded fact)."""
            if Fact("openable", (r,), False) in facts or kinds.openable(r) is False:
                return []
            return [Fact("open", (r,))]

        if p.form in ("look", "inventory", "help"):
            return []
        if p.form == "go":
            # GotoLocation: a receptacle that exists (a kind fact names it) and a
            # location other than the agent's; to anything else, "go to" never works
            if kinds.receptacle_kind(a[0]) is None:
                return None
            return [Fact("kind", (a[0], kinds.kind(a[0]))), Fact("at", ("agent", a[0]), False)]
        if p.form == "take":
            return [Fact("at", ("agent", a[1])), Fact("in", (a[0], a[1])),
                    Fact("handempty", ("agent",)), Fact("pickupable", (a[0],)), *openness(a[1])]
        if p.form == "move":
            return [Fact("holds", ("agent", a[0])), Fact("at", ("agent", a[1])),
                    Fact("cancontain", (a[1], a[0])), *openness(a[1])]
        if p.form == "open":
            return [Fact("at", ("agent", a[0])), Fact("openable", (a[0],)),
                    Fact("open", (a[0],), False)]
        if p.form == "close":
            return [Fact("at", ("agent", a[0])), Fact("openable", (a[0],)), Fact("open", (a[0],))]
        if p.form in ("heat", "cool", "clean"):
            ability = {"heat": "heatable", "cool": "coolable", "clean": "cleanable"}[p.form]
            station = {"heat": "microwave", "cool": "fridge", "clean": "sinkbasin"}[p.form]
            return [Fact("holds", ("agent", a[0])), Fact("at", ("agent", a[1])),
                    Fact(ability, (a[0],)), Fact("kind", (a[1], station))]
        if p.form == "use":
            # ToggleObject: the lamp is in a receptacle at the agent's location
            where = next((f.args[1] for f in facts if f.pred == "in" and f.value
                          and f.args[0] == a[0]), None) or _here(facts) or "?"
            return [Fact("toggleable", (a[0],)), Fact("at", ("agent", where)),
                    Fact("in", (a[0], where))]
        if p.form == "examine":
            # examineReceptacle: at R; examineObject: held, or in a receptacle R the
            # agent is at (open if openable)
            if kinds.receptacle_kind(a[0]) is not None:
                return [Fact("at", ("agent", a[0]))]
            if Fact("holds", ("agent", a[0])) in facts:
                return [Fact("holds", ("agent", a[0]))]
            where = next((f.args[1] for f in facts if f.pred == "in" and f.value
                          and f.args[0] == a[0]), None)
            if where is None:
                return None  # not one list of facts: held, or in some receptacle here
            return [Fact("at", ("agent", where)), Fact("in", (a[0], where)), *openness(where)]
        return None  # slice (outside the vocabulary) and unknown forms

    def failed(self, text: str) -> bool:
        """TextWorld answers a command it cannot run with "Nothing happens."
        and changes nothing."""
        return text.strip() == "Nothing happens."


# ----- ScienceWorld ----------------------------------------------------------------------

# Container names ScienceWorld's houses give to several containers of one room
# (the kitchen's two drawers): "open drawer" names no single container.
SHARED_NAMES = frozenset({"drawer"})
ROOMS = ("art studio", "bathroom", "bedroom", "foundry", "greenhouse", "hallway", "kitchen",
         "living room", "outside", "workshop")

_SW_FORMS = [
    ("go", re.compile(r"^go to (.+)$", re.I)),
    ("teleport", re.compile(r"^teleport to (.+)$", re.I)),
    ("open", re.compile(r"^open (.+)$", re.I)),
    ("close", re.compile(r"^close (.+)$", re.I)),
    ("pickup", re.compile(r"^pick up (.+)$", re.I)),
    ("putdown", re.compile(r"^put down (.+)$", re.I)),
    ("move", re.compile(r"^move (.+?) to (.+)$", re.I)),
    ("focus", re.compile(r"^focus on (.+)$", re.I)),
    ("look", re.compile(r"^(?:look around|look at .+|look in .+|examine .+|inventory|task|"
                        r"read .+)$", re.I)),
    ("wait", re.compile(r"^(?:wait|wait1)$", re.I)),
    ("other", re.compile(r"^(?:activate|deactivate|connect|disconnect|use|pour|dunk|mix|eat|"
                         r"flush) .+$", re.I)),
]
# forms that can move an object (and a container with its open state) elsewhere
_MOVING = ("pickup", "putdown", "move", "other")


# What ScienceWorld (1.2.3) answers when it does not carry an action out: its parser's
# answers, and the messages of its actions' validity checks, which return before the
# world changes (read from the engine's action classes and checked through the jar,
# tests/envs/test_scienceworld.py). One alternative per message kind; "The X is not
# open." and "The X is now open." differ in one word, so each names its verb in full.
# "already open/closed/activated/..." are refusals too: nothing happened (the plan's
# step was redundant, or the model thought the world was otherwise).
_SW_REFUSALS = re.compile("|".join(f"(?:{p})" for p in [
    r"No known action matches that input\.",
    r"Unknown action\.",
    r"Ambiguous request:",  # the environment cancels the choice it asks for
    r"<unknown catch>|<ERROR>",
    r"I'm not sure (?:what that means|how to )",
    r"It'?s not clear how to ",
    r"The .+ is not (?:openable|closeable|moveable|open|edible|a container|"
    r"something that can be activated|currently passable)\.$",
    r"The .+ is already (?:open|closed|activated|deactivated)\.$",
    r"The .+ is locked\.$",
    r"The .+ appears broken, and can't be activated or deactivated\.$",
    r"The .+ isn't open, so you can't see inside\.$",
    r"The .+ can't be poured out\b",
    r"The .+ is empty, so there's nothing to pour\.$",
    r"The .+ the .+ is in is not movable\.$",
    r"The .+ does not contain any liquids to dunk into\.$",
    r"The liquids in .+ aren't able to move\.$",
    r"The door doesn't appear to go anywhere\.$",
    r"That can't be moved there\b",
    r"That object (?:already appears|does not appear) to be in the inventory\.$",
    r"That is already flushing\.$",
    r"That container is empty, so there are no items to mix\.$",
    r"There is only one thing \(",
    r"Mixing the contents of the .+ does not appear to produce anything new\.$",
    r"You can't (?:move|dunk) something into itself\.$",
    r"You can't (?:pick up a (?:liquid|gas)|pour a gas) directly\.",
    r"You must disconnect entire objects ",
    r"Something can't be connected to itself\.$",
    r".+ is already connected, and must be disconnected before ",
    r"Connections must specify specific points of contact ",
]))


# The commands that write the agent's focus in 1.2.3's engine (ActionFocus, ActionResetTask).
_FOCUS_WRITERS = re.compile(r"^(?:focus on .+|reset task)$", re.I)

# Commands whose preconditions :meth:`ScienceWorldActions.preconditions` states in full:
# the engine never refuses them ("look around", "inventory", "task", "wait"), or what
# it refuses is in the vocabulary ("go to R": no door to R from here, or a closed one).
_SW_COMPLETE = re.compile(r"^(?:look around|inventory|task|wait1?|go to .+)$", re.I)


class ScienceWorldActions:
    """ScienceWorld's common action forms, with only the certain effects. Its
    physics runs on every step, so "in" facts do not persist (no frame rule).
    "focus on X" writes ``(focus X)``: the engine says so in words the grounder
    does not assert (and its object tree does not hold), so it is a symbolic
    effect only, for the goal forms the task texts state (AEC's V)."""

    env = "scienceworld"
    static: frozenset[str] = frozenset()
    # The engine takes commands no form here reads (its full grammar, the number that
    # answers "Ambiguous request: ..."): an unknown form says nothing about a plan.
    grammar_complete = False

    def parse(self, action: str) -> Parsed:
        text = " ".join(action.strip().split())  # names keep their case ("substance B")
        for form, pattern in _SW_FORMS:
            m = pattern.match(text)
            if m:
                return Parsed(form, tuple(g.strip() for g in m.groups()))
        return Parsed("")

    def command(self, action: str) -> str:
        return " ".join(action.strip().split())

    def effects(self, action: str, facts: Iterable[Fact]) -> tuple[set[Fact], set[Fact]]:
        facts = frozenset(facts)
        p = self.parse(action)
        a = p.args
        room = _here(facts)
        add: set[Fact] = set()
        extra: set[Fact] = set()
        if p.form in ("go", "teleport") and a[0] in ROOMS:
            add = {Fact("at", ("agent", a[0]))}
            if room and room != a[0]:
                add.add(Fact("at", ("agent", room), False))
        elif p.form in ("open", "close") and room and not _alias_door(a[0]):
            # only a door, or a container the facts know to have an open state here
            # (not every name opens: a drain closes without one); "drawer in
            # counter" is the parser's way to pick one of several drawers, not a name
            door = a[0].startswith("door to ")
            stateful = any(f.pred == "open" and f.args == (a[0], room) for f in facts)
            if (door or stateful) and a[0] not in SHARED_NAMES and not _phrase(a[0]):
                add = {Fact("open", (a[0], room), p.form == "open")}
            if door:  # the other side changes too (rule door-both-sides)
                other = ("open", (f"door to {room}", a[0][len("door to "):]))
                extra = {f for f in facts if key(f) == other}
        elif p.form == "focus":
            add = {Fact("focus", (a[0],))}
        elif p.form in ("pickup", "putdown", "move") and _phrase(a[0]):
            pass  # "cup in art studio": the parser's phrase, not a name
        elif p.form == "pickup" or (p.form == "move" and a[1] == "inventory"):
            add = {Fact("in", (a[0], "inventory"))}
        elif room and (p.form == "putdown" or (p.form == "move" and a[1] == room)):
            add = {Fact("in", (a[0], room))}
        if p.form in ("open", "close") and not a[0].startswith("door to "):
            # the parser takes a name for any thing whose name has all its words ("open
            # cupboard" opens the large cupboard); a phrase may name any thing
            words = set(a[0].split())
            extra = {f for f in facts if f.pred == "open" and f.args[0] != a[0] and
                     (words <= set(f.args[0].split()) or _phrase(a[0]))}
        if p.form in ("pickup", "putdown", "move"):
            # the moved thing leaves where it was; a moved container takes its
            # open state to another place
            name = a[0]
            extra = {f for f in facts if f.args and f.args[0] == name and f.pred in ("in", "open")}
        keys = {key(f) for f in add}
        delete = {f for f in facts if key(f) in keys and f not in add} | (extra - add)
        return add, delete

    def touched(self, action: str, facts: Iterable[Fact]) -> set[Key] | None:
        """Keys the action may change (None: any fact). A command of no form
        here may change anything but the agent's focus: in 1.2.3's engine only
        "focus on X" and "reset task" write it (the only callers of its focus
        monitor, ``ObjMonitor``, are ``ActionFocus`` and ``ActionResetTask``),
        so a plan's focus outlives its other unknown commands."""
        p = self.parse(action)
        if not p.form:
            if _FOCUS_WRITERS.match(" ".join(action.strip().split())):
                return None
            return {key(f) for f in facts if f.pred != "focus"}
        add, delete = self.effects(action, facts)
        out = {key(f) for f in add | delete}
        if p.form in _MOVING:
            # the action may name its objects by other referents: any open state of a
            # container may have left the room with it
            out |= {key(f) for f in facts
                    if f.pred == "open" and not f.args[0].startswith("door to ")}
        if p.form in ("open", "close"):
            name = p.args[0]
            room = _here(facts)
            if name.startswith("door to ") and room:
                # this room's door to R and the same door seen from R; another room's
                # "door to R" is another door (a room has one door to a room, and the
                # parser reaches only the agent's room's portals), which no step here
                # changes (issue 33: it was forgotten too, which lost its state)
                out |= {("open", (name, room)),
                        ("open", (f"door to {room}", name[len("door to "):]))}
            else:
                out |= {key(f) for f in facts if f.pred == "open" and f.args[0] == name}
            if _alias_door(name) or (name.startswith("door to ") and not room):
                out |= {key(f) for f in facts if f.pred == "open"}
        return out

    def confirmed(self, action: str, add: set[Fact], observed: frozenset[Fact]) -> bool:
        return bool(add) and add <= observed

    def preconditions(self, action: str, facts: Iterable[Fact]) -> list[Fact] | None:
        """What the engine's refusals show a command needs, in the vocabulary:
        "go to R" the door to R open ("The door is not open"); "move X to C"
        with C a container whose open state is known here, C open ("That can't
        be moved there, because the C isn't open."); "put down X" X in the
        inventory ("That object does not appear to be in the inventory."). Most
        commands need more than the vocabulary says (the thing in view, movable,
        ...): :meth:`complete` is False for them."""
        facts = frozenset(facts)
        p = self.parse(action)
        if not p.form:
            return None
        a = p.args
        if p.form == "go":
            room = _here(facts)
            if room is None:
                return None
            return [Fact("at", ("agent", room)), Fact("open", (f"door to {a[0]}", room))]
        if p.form == "teleport":
            return None  # only with the teleport simplification
        if p.form == "move" and not _phrase(a[0]) and not _phrase(a[1]):
            room = _here(facts)
            if room and a[1] not in SHARED_NAMES and not a[1].startswith("door to ") and \
                    any(f.pred == "open" and f.args == (a[1], room) for f in facts):
                return [Fact("open", (a[1], room))]
        if p.form == "putdown" and not _phrase(a[0]):
            return [Fact("in", (a[0], "inventory"))]
        return []

    def complete(self, action: str, facts: Iterable[Fact] = ()) -> bool:
        """Whether :meth:`preconditions` are all the command needs (the engine
        cannot refuse it for anything else)."""
        return _SW_COMPLETE.match(" ".join(action.strip().split())) is not None

    def failed(self, text: str) -> bool:
        """The engine refused the action (:data:`_SW_REFUSALS`): nothing changed."""
        return _SW_REFUSALS.match(text.strip()) is not None


def _phrase(name: str) -> bool:
    """"drawer in counter", "cup in inventory": the parser's way to single out
    one of several things, not a name facts use."""
    return re.search(r" (?:in|on) ", name) is not None


def _alias_door(name: str) -> bool:
    """'kitchen door' (another name of 'door to kitchen'): not modelled."""
    return name.endswith(" door") and name[: -len(" door")] in ROOMS


ACTIONS = {"household": HouseholdActions(), "scienceworld": ScienceWorldActions()}


def model(env: str):
    if env not in ACTIONS:
        raise ConfigError(f"no action model for environment {env!r}: "
                          f"{', '.join(ACTIONS)}")
    return ACTIONS[env]


def known(env: str, action: str) -> bool:
    """Whether ``action`` is of a form the environment's model knows."""
    return bool(model(env).parse(action).form)


def effects(env: str, action: str, facts: Iterable[Fact]) -> tuple[set[Fact], set[Fact]]:
    return model(env).effects(action, facts)


def preconditions(env: str, action: str, facts: Iterable[Fact]) -> list[Fact] | None:
    return model(env).preconditions(action, facts)


def _persisting(env: str, disabled: Iterable[str]) -> frozenset[str]:
    return frozenset(p for r in rules_for(env, disabled) if r.kind == "frame" for p in r.preds)


def _merge(kept: set[Fact], new: Iterable[Fact]) -> set[Fact]:
    """``kept`` with ``new`` added, dropping kept facts that ``new`` contradicts:
    the same key with the other value, or another place of the agent, another
    receptacle of an object or another held object (dropping a fact is always
    sound; it only loses knowledge)."""
    new = set(new)
    keys = {key(f) for f in new}
    at = {f.args[0]: f.args[1] for f in new if f.pred == "at" and f.value}
    placed = {f.args[0] for f in new if f.pred == "in" and f.value and f.args[1] != "inventory"}
    held = {f.args[1] for f in new if f.pred == "holds" and f.value}
    hand_known = held or any(f.pred == "handempty" for f in new)
    out = set()
    for f in kept:
        if key(f) in keys:
            continue
        if f.value and f.pred == "at" and f.args[0] in at and f.args[1] != at[f.args[0]]:
            continue
        if f.value and f.pred == "in" and f.args[0] in placed | held:
            continue
        if f.value and f.pred == "holds" and (f.args[1] in placed or hand_known):
            continue
        if f.pred == "handempty" and held:
            continue
        out.add(f)
    return out | new


def apply(env: str, facts: Iterable[Fact], actions: Iterable[str], *,
          disabled: Iterable[str] = ()) -> frozenset[Fact]:
    """Apply(h, w): the facts after running ``actions`` symbolically from
    ``facts``, each assumed to succeed. A fact persists while no action changes
    it and its frame rule is enabled; after an unknown form only facts no action
    changes (type-level) remain."""
    m = model(env)
    persist = _persisting(env, disabled)
    state = set(facts)
    for action in actions:
        add, delete = m.effects(action, state)
        if not m.parse(action).form:
            state = {f for f in state if f.pred in m.static and f.pred in persist}
            continue
        kept = {f for f in state - delete if f.pred in persist}
        state = _merge(kept, add)
    return frozenset(state)


def advance(env: str, facts: Iterable[Fact], action: str,
            observation: Observation | Iterable[Fact], *,
            disabled: Iterable[str] = ()) -> frozenset[Fact]:
    """The grounded store after a real step: ``facts`` held before ``action``;
    ``observation`` is what the step returned (an :class:`Observation`, or its
    facts). Facts the action may have changed are dropped unless the
    observation confirms the action succeeded (then its effects are certain);
    facts whose frame rule is disabled last one step; the observation's facts
    are added and win over older ones."""
    m = model(env)
    text = observation.text if isinstance(observation, Observation) else None
    observed = frozenset(observation.facts if isinstance(observation, Observation)
                         else observation)
    facts = set(facts)
    if text is not None and m.failed(text):
        return frozenset(_merge(facts, observed))  # nothing changed
    persist = _persisting(env, disabled)
    touched = m.touched(action, facts)
    if touched is None:
        kept = {f for f in facts if f.pred in m.static and f.pred in persist}
    else:
        kept = {f for f in facts if key(f) not in touched and f.pred in persist}
        add, _ = m.effects(action, facts)
        if add and m.confirmed(action, add, observed):
            kept = _merge(kept, add)
    return frozenset(_merge(kept, observed))


class ModelledEnv(Env):
    """An environment whose action model (``ACTIONS[name]``) keeps its grounded
    store current: after each step, :func:`advance` drops the facts the action
    may have changed unless the observation shows what it did."""

    def _remember(self, action: str, obs: Observation) -> None:
        self.grounded = advance(self.name, self.grounded, action, obs)
