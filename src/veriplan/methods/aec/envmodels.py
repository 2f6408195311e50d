"""AEC's models of the built-in environments, by registry name.

The symbolic action effects and preconditions, and the named entailment rules,
belong to the environment side (``veriplan.envs.actions`` and
``veriplan.envs.rules``). The two ADAPTERS below, :func:`env_action_model` and
:func:`env_rules`, are the only places that read them; without them an
environment gets AEC's generic rules and no action model (AEC's verifier then
cannot apply a plan, and an AEC run ends at once with ``failure =
"no_action_model"``).

What the adapters read of the environment side:

- ``veriplan.envs.actions.ACTIONS[env_name]``: an object with
  ``preconditions(action, facts)`` (the facts the action needs, or None for a
  form it does not know), ``effects(action, facts) -> (add, delete)``,
  ``touched(action, facts)`` (keys the action may change; None: all but the
  ``static`` predicates), ``command(action)`` (the command the environment
  takes), ``failed(text)`` (the observation says the environment refused the
  action) and, optionally, ``complete(action, facts)`` (False: the stated
  preconditions are only part of what the action needs, so V cannot call a plan
  with it valid), ``facts`` being a ``frozenset`` of the known facts;
- ``veriplan.envs.rules.rules_for(env_name)``: named rules, each with ``name``,
  ``kind`` ("entail" or "frame") and ``proves(view, fact) -> bool`` over a
  ``veriplan.envs.rules.View`` of the known facts; a frame rule's ``preds`` are
  the predicates whose facts persist between steps (:func:`env_persistent`:
  AEC's grounded store and Apply(h, w) keep no other fact past a step).

The household goal reader is here: it reads the task texts of
``veriplan.envs.household.generator`` (the six ALFWorld task types).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from veriplan.envs.base import Fact
from veriplan.methods.aec.domain import (
    AT_FUNCTIONAL,
    GENERIC_RULES,
    ActionModel,
    EnvModel,
    FactState,
    Key,
    Rule,
)

if TYPE_CHECKING:
    from types import ModuleType

    from veriplan.envs.rules import Rule as EnvRule


class EnvActions(Protocol):
    """An environment-side action model (``veriplan.envs.actions.ACTIONS[env]``) as
    :class:`_Actions` needs it; ``touched``, ``command``, ``failed``, ``complete``,
    ``static`` and ``grammar_complete`` are optional (read with ``getattr``)."""

    def preconditions(self, action: str, facts: Iterable[Fact], /) -> Iterable[Fact] | None: ...

    def effects(self, action: str, facts: Iterable[Fact], /
                ) -> tuple[Iterable[Fact], Iterable[Fact]]: ...


def _module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def _frozen(facts: FactState) -> frozenset[Fact]:
    return facts.memo("frozenset", lambda: frozenset(facts.facts()))


class _Actions:
    """An environment-side action model (``veriplan.envs.actions.ACTIONS[env]``:
    ``preconditions``, ``effects -> (add, delete)``, ``touched``, ``command``,
    ``failed``, ``static``) behind AEC's :class:`ActionModel`."""

    def __init__(self, impl: EnvActions) -> None:
        self.impl = impl
        self.static: frozenset[str] = frozenset(getattr(impl, "static", ()))
        # False: the environment takes commands the model has no form for (V: unknown)
        self.grammar_complete = bool(getattr(impl, "grammar_complete", True))

    def preconditions(self, action: str, facts: FactState) -> Sequence[Fact] | None:
        out = self.impl.preconditions(action, _frozen(facts))
        return None if out is None else list(out)

    def effects(self, action: str, facts: FactState) -> Sequence[Fact]:
        add, _ = self.impl.effects(action, _frozen(facts))
        return sorted(add, key=str)

    def touched(self, action: str, facts: FactState) -> set[Key] | None:
        fn = getattr(self.impl, "touched", None)
        return fn(action, _frozen(facts)) if fn is not None else None

    def command(self, action: str) -> str:
        fn = getattr(self.impl, "command", None)
        return fn(action) if fn is not None else action

    def failed(self, text: str) -> bool:
        fn = getattr(self.impl, "failed", None)
        return bool(fn(text)) if fn is not None else False

    def complete(self, action: str, facts: FactState) -> bool:
        """Whether the preconditions stated are all the action needs (an
        environment-side model without ``complete`` states them in full)."""
        fn = getattr(self.impl, "complete", None)
        return True if fn is None else bool(fn(action, _frozen(facts)))


@dataclass(frozen=True)
class _Rule:
    """An environment-side rule (``veriplan.envs.rules.Rule``: ``proves(facts,
    fact)``) behind AEC's :class:`Rule`; the rules' index of the facts is built
    once per state."""

    impl: EnvRule

    @property
    def name(self) -> str:
        return str(self.impl.name)

    def entails(self, facts: FactState, pred: str, args: tuple[str, ...]) -> bool | None:
        from veriplan.envs.rules import View

        view = facts.memo("envs.rules.View", lambda: View(frozenset(facts.facts())))
        if self.impl.proves(view, Fact(pred, args, True)):
            return True
        if self.impl.proves(view, Fact(pred, args, False)):
            return False
        return None


def env_persistent(env: str) -> frozenset[str] | None:
    """ADAPTER: the predicates the frame rules of
    ``veriplan.envs.rules.rules_for(env)`` keep from one step to the next
    (None: the environment side has no rules for ``env``)."""
    mod = _module("veriplan.envs.rules")
    factory = getattr(mod, "rules_for", None) if mod is not None else None
    rules = factory(env) if factory is not None else None
    if not rules:
        return None
    return frozenset(p for r in rules if getattr(r, "kind", "entail") == "frame"
                     for p in getattr(r, "preds", ()))


def env_action_model(env: str) -> ActionModel | None:
    """ADAPTER: ``veriplan.envs.actions.ACTIONS[env]``, when there is one."""
    mod = _module("veriplan.envs.actions")
    table = getattr(mod, "ACTIONS", None) if mod is not None else None
    impl = table.get(env) if isinstance(table, dict) else None
    return None if impl is None else _Actions(impl)


def env_rules(env: str) -> tuple[Rule, ...] | None:
    """ADAPTER: the entailment rules of ``veriplan.envs.rules.rules_for(env)``
    (its frame rules entail nothing: :func:`env_persistent` reads them)."""
    mod = _module("veriplan.envs.rules")
    factory = getattr(mod, "rules_for", None) if mod is not None else None
    rules = factory(env) if factory is not None else None
    if not rules:
        return None
    return tuple(_Rule(r) for r in rules if getattr(r, "kind", "entail") == "entail")


# ----- the household games -------------------------------------------------------------------
HOUSEHOLD_PREDICATES = {"at": 2, "in": 2, "open": 1, "openable": 1, "holds": 2, "handempty": 1,
                        "hot": 1, "cool": 1, "clean": 1, "toggled": 1, "kind": 2,
                        "pickupable": 1, "heatable": 1, "coolable": 1, "cleanable": 1,
                        "toggleable": 1, "cancontain": 2}
HOUSEHOLD_HELP = """go to RECEPTACLE          (e.g. go to fridge 1)
open RECEPTACLE / close RECEPTACLE
take OBJECT from RECEPTACLE   (e.g. take apple 1 from countertop 2)
move OBJECT to RECEPTACLE     (put what you hold in or on it)
heat OBJECT with microwave N / cool OBJECT with fridge N / clean OBJECT with sinkbasin N
use LAMP                  (switch a desklamp or floorlamp on)
examine THING / look / inventory"""
_WORDS = {"at": "the agent is at {1}", "in": "{0} is in or on {1}", "open": "{0} is open",
          "openable": "{0} can be opened", "holds": "the agent is holding {1}",
          "handempty": "the agent's hand is empty", "hot": "{0} is hot", "cool": "{0} is cool",
          "clean": "{0} is clean", "toggled": "{0} has been switched on",
          "kind": "{0} is a {1}", "cancontain": "{0} can hold {1}"}


def household_describe(key: Key) -> str:
    pred, args = key
    template = _WORDS.get(pred)
    if template is None or len(args) != HOUSEHOLD_PREDICATES.get(pred):
        return f"{pred}({', '.join(args)})"
    return template.format(*args)


def kind(name: str) -> str:
    """The type of a display name: "apple 1" -> "apple"."""
    base, _, n = name.rpartition(" ")
    return base if base and n.isdigit() else name


@dataclass(frozen=True)
class HouseholdGoal:
    """The goal of one of the six task types, over the grounder's vocabulary."""

    text: str
    task_type: str
    obj: str
    place: str  # receptacle type, or the lamp type for look_at_obj_in_light
    prop: str = ""  # hot / cool / clean

    def check(self, facts: FactState) -> bool:
        if self.task_type == "look_at_obj_in_light":
            held = any(v and kind(a[1]) == self.obj for a, v in facts.by_pred("holds").items())
            lit = any(v and kind(a[0]) == self.place for a, v in facts.by_pred("toggled").items())
            return held and lit
        placed: dict[str, set[str]] = {}
        for (o, r), v in facts.by_pred("in").items():
            if v and kind(o) == self.obj and kind(r) == self.place and \
                    (not self.prop or facts.get((self.prop, (o,))) is True):
                placed.setdefault(r, set()).add(o)
        need = 2 if self.task_type == "pick_two_obj_and_place" else 1
        return any(len(objs) >= need for objs in placed.values())


_TWO = re.compile(r"^put two ([\w ]+?) in ([\w ]+?)\.?$")
_PROP = re.compile(r"^put a (clean|hot|cool) ([\w ]+?) in ([\w ]+?)\.?$")
_PUT = re.compile(r"^put an? ([\w ]+?) in ([\w ]+?)\.?$")
_LOOK = re.compile(r"^look at ([\w ]+?) under the ([\w ]+?)\.?$")
_TYPES = {"clean": "pick_clean_then_place", "hot": "pick_heat_then_place",
          "cool": "pick_cool_then_place"}


def household_goal(text: str) -> HouseholdGoal | None:
    t = " ".join(text.strip().lower().split())
    t = t.split("your task is to:")[-1].strip()
    if m := _TWO.match(t):
        return HouseholdGoal(t, "pick_two_obj_and_place", m.group(1), m.group(2))
    if m := _PROP.match(t):
        return HouseholdGoal(t, _TYPES[m.group(1)], m.group(2), m.group(3), m.group(1))
    if m := _LOOK.match(t):
        return HouseholdGoal(t, "look_at_obj_in_light", m.group(1), m.group(2))
    if m := _PUT.match(t):
        return HouseholdGoal(t, "pick_and_place", m.group(1), m.group(2))
    return None


HOUSEHOLD_SIGNATURES = {"at": "at(agent, R)", "in": "in(O, R)", "open": "open(R)",
                        "openable": "openable(R)", "holds": "holds(agent, O)",
                        "handempty": "handempty(agent)", "hot": "hot(O)", "cool": "cool(O)",
                        "clean": "clean(O)", "toggled": "toggled(O)", "kind": "kind(X, KIND)",
                        "pickupable": "pickupable(O)", "heatable": "heatable(O)",
                        "coolable": "coolable(O)", "cleanable": "cleanable(O)",
                        "toggleable": "toggleable(O)", "cancontain": "cancontain(R, O)"}


# where each household predicate takes the agent ("agent") and where a receptacle
_AGENT_AT = {"at": 0, "holds": 0, "handempty": 0}
_RECEPTACLE_AT = {"at": 1, "in": 1, "open": 0, "openable": 0, "cancontain": 0}


def household_well_formed(key: Key) -> bool:
    """False when an argument is certainly of the wrong sort: not "agent" where
    the agent belongs, or "agent" or a name of a known object kind (not a
    receptacle) where a receptacle belongs ("cancontain(creditcard 1, shelf 1)":
    the arguments swapped). Names of unknown kinds pass."""
    from veriplan.envs.household import kinds

    pred, args = key
    i = _AGENT_AT.get(pred)
    if i is not None and i < len(args) and args[i] != "agent":
        return False
    j = _RECEPTACLE_AT.get(pred)
    if j is not None and j < len(args):
        r = args[j]
        if r == "agent" or (kinds.object_kind(r) is not None and
                            kinds.receptacle_kind(r) is None):
            return False
    return True


def household() -> EnvModel:
    return EnvModel("household", rules=env_rules("household") or GENERIC_RULES,
                    actions=env_action_model("household"), goal_for=household_goal,
                    predicates=HOUSEHOLD_PREDICATES, signatures=HOUSEHOLD_SIGNATURES,
                    actions_help=HOUSEHOLD_HELP, describe=household_describe,
                    well_formed=household_well_formed, persistent=env_persistent("household"))


# ----- ScienceWorld ----------------------------------------------------------------------------
SCIENCEWORLD_HELP = """look around / look at THING / go to ROOM / open THING / close THING
pick up THING / put THING in CONTAINER / move THING to CONTAINER
activate DEVICE / deactivate DEVICE / use THING on THING / focus on THING / wait"""
# The grounder's facts (veriplan.envs.scienceworld): (at agent ROOM), (in X ROOM) with ROOM
# a room or "inventory", and (open X ROOM): the container or door called X, as seen in
# ROOM ("door to kitchen" from the hallway and from outside are two doors), is open.
SCIENCEWORLD_PREDICATES = {"at": 2, "in": 2, "open": 2}
SCIENCEWORLD_SIGNATURES = {"at": "at(agent, ROOM)", "in": "in(THING, ROOM or inventory)",
                           "open": "open(THING, ROOM)"}


def scienceworld_describe(key: Key) -> str:
    pred, args = key
    if len(args) != SCIENCEWORLD_PREDICATES.get(pred):
        return f"{pred}({', '.join(args)})"
    if pred == "at":
        return f"the agent is in the {args[1]}"
    if pred == "in":
        return f"the {args[0]} is in the agent's inventory" if args[1] == "inventory" else \
            f"the {args[0]} is in the {args[1]}"
    return f"the {args[0]} in the {args[1]} is open"


def scienceworld_well_formed(key: Key) -> bool:
    """False when no grounder or query of ScienceWorld could settle the fact: the
    agent's place written ``in(agent, R)`` (the household's habit; ScienceWorld's is
    ``at``), anything but the agent and a room for ``at``, a place that is neither a
    room nor the inventory for ``in``, and a room that is not one for ``open``."""
    from veriplan.envs.actions import ROOMS

    pred, args = key
    if len(args) != 2:
        return True  # the arity check drops it
    thing, place = args
    if pred == "at":
        return thing == "agent" and place in ROOMS
    if pred == "in":
        return thing != "agent" and (place in ROOMS or place == "inventory")
    if pred == "open":
        return place in ROOMS
    return True


# What a ScienceWorld task text asks the agent to focus on: "focus on the thermometer",
# "focus on the red box" (each of the text's alternatives), "focus on the substance" (the
# substance the first sentence names). A phrase that names no thing ("the thing", "a
# seed", "the animal with the longest life span", "the intermediate ... paint") leaves
# the set open: any focus may be the right one.
_FOCUS = re.compile(r"focus on (?:the |a |an )?([^.,;]+?)(?: you created)?(?=[.,;]|$)")
_SUBSTANCE = re.compile(r"^your task is to (?:boil|melt|freeze|change the state of matter of) "
                        r"([\w ]+?)\.")
_UNNAMED = re.compile(r"^(?:thing|seed|substance|animal|inclined plane|intermediate|grown|"
                      r"\d+ life stages|life stages|plant|fruit)\b")


_PHRASE = re.compile(r" (?:in|on) ")


@dataclass(frozen=True)
class ScienceWorldGoal:
    """The part of a ScienceWorld task a text states in the vocabulary: what the
    agent is to focus on (``targets``; ``named``: every focus the text asks for
    names its thing). ScienceWorld ends a task as failed when the agent
    focuses on anything else, so a plan whose steps focus on a thing that
    shares no word with any target certainly fails (False); a parser phrase
    ("focus on substance in inventory") may name any thing, and refutes
    nothing. Whether a plan
    completes a task is never decided here (the state changes, measurements
    and placements the texts ask for are outside the vocabulary), so it is
    otherwise None: V's verdict stays unknown, never valid."""

    text: str
    targets: tuple[str, ...]
    named: bool

    def check(self, facts: FactState) -> bool | None:
        if self.named and self.targets:
            words = {w for t in self.targets for w in t.split()}
            for (thing,), v in ((a, v) for a, v in facts.by_pred("focus").items()
                                if len(a) == 1):
                # "substance in inventory": the parser's phrase may name any thing there
                if v and not _PHRASE.search(thing) and \
                        not words.intersection(thing.lower().split()):
                    return False
        return None


def scienceworld_goal(text: str) -> ScienceWorldGoal | None:
    """The goal form of a ScienceWorld task text, or None when it asks for no
    focus (then no part of it is in the vocabulary)."""
    t = " ".join(text.strip().lower().split())
    phrases = [m.group(1).strip() for m in _FOCUS.finditer(t)]
    if not phrases:
        return None
    substance = _SUBSTANCE.match(t)
    targets, named = [], True
    for phrase in phrases:
        if phrase == "substance" and substance:
            targets.append(substance.group(1))
        elif _UNNAMED.match(phrase):
            named = False
        else:
            targets.append(phrase)
    return ScienceWorldGoal(t, tuple(dict.fromkeys(targets)), named)


def scienceworld() -> EnvModel:
    """ScienceWorld: the grounder says where the agent is, what lies in a room
    (for one observation: no frame rule keeps it), what is open (two arguments:
    the container or door and the room it is seen in). The goal form is what
    the task text says to focus on (:func:`scienceworld_goal`); the engine
    scores the rest, so V can refute a ScienceWorld plan (a wrong focus, a
    closed door or container, a precondition grounded false) but never call it
    valid: a commit there is unchecked. Without the environment side's rules,
    only the agent-in-one-place rule (object names repeat across rooms)."""
    return EnvModel("scienceworld", rules=env_rules("scienceworld") or (AT_FUNCTIONAL,),
                    actions=env_action_model("scienceworld"), goal_for=scienceworld_goal,
                    predicates=SCIENCEWORLD_PREDICATES, signatures=SCIENCEWORLD_SIGNATURES,
                    actions_help=SCIENCEWORLD_HELP, describe=scienceworld_describe,
                    well_formed=scienceworld_well_formed,
                    persistent=env_persistent("scienceworld") or frozenset())


__all__ = ["HOUSEHOLD_PREDICATES", "HOUSEHOLD_SIGNATURES", "SCIENCEWORLD_PREDICATES",
           "SCIENCEWORLD_SIGNATURES", "EnvActions", "HouseholdGoal", "env_action_model",
           "env_rules", "household", "household_describe", "household_goal",
           "household_well_formed", "kind", "scienceworld", "ScienceWorldGoal", "env_persistent",
           "scienceworld_describe", "scienceworld_goal", "scienceworld_well_formed"]
