"""A sound grounder for the household games' text: it asserts what a sentence
states outright (or what the game's text grammar, ``alfred.twl2``, implies by
choosing that sentence) and abstains from everything else.

Vocabulary (display names, "apple 1"):

- (kind R K): the room has receptacle R, of kind K (the first text lists them:
  "Looking quickly around you, you see a cabinet 1, ...");
- (at agent R): the agent stands at receptacle R ("You arrive at R.", "You are
  facing the R."; value False for every receptacle while "You are in the middle of
  a room");
- (in O R): object O is in or on R; a receptacle's listing ("On the R, you see
  ...", "The R is open. In it, you see ...") names everything in it, so
  :func:`listings` also gives what is *not* in R (used by the query macros);
- (open R) (value False: closed) and (openable R): the grammar says "The R is
  open/closed" only of openable receptacles and "On the R, you see" only of the
  others;
- (holds agent O) and (handempty agent) (the agent holds at most one object);
- (hot O), (cool O), (clean O), (toggled O) (a lamp was switched: the game's text
  says "turn on" for every switch). "examine O" picks the first matching sentence
  of an ordered list ("This is a hot and clean X.", ..., "There's nothing special
  about X."), so each sentence also says which properties do not hold.

The other type-level predicates (openable of unvisited receptacles, pickupable,
cancontain, ...) come from the names through the entailment rules
(:mod:`veriplan.envs.rules`), for names the text has shown to exist.
"""

from __future__ import annotations

import re

from veriplan.envs.base import Fact
from veriplan.envs.household.kinds import kind

_NAME = r"[\w ]+? \d+"
# "a egg 2", "a egg 2, and a potato 1", "a apple 1, a bread 1, and a egg 2", "nothing"
_ITEMS = rf"((?:(?:, )?(?:and )?an? {_NAME})+|nothing)(?=\.)"
_ARRIVE = re.compile(rf"You arrive at (?:loc \d+|the )?({_NAME})\.")
_FACING = re.compile(rf"You are facing the ({_NAME})\. Next to it")
_MIDDLE = re.compile(r"You are in the middle of a room\.")
_AROUND = re.compile(r"Looking quickly around you, you see " + _ITEMS)
_CLOSED = re.compile(rf"The ({_NAME}) is closed\.")
_OPEN_IN = re.compile(rf"The ({_NAME}) is open\. In it, you see " + _ITEMS)
_ON = re.compile(rf"On the ({_NAME}), you see " + _ITEMS)
_OPENED = re.compile(rf"You open the ({_NAME})\.")
_CLOSE = re.compile(rf"You close the ({_NAME})\.")
_PICK = re.compile(rf"You pick up the ({_NAME}) from the ({_NAME})\.")
_PUT = re.compile(rf"You move the ({_NAME}) to the ({_NAME})\.")
_HEAT = re.compile(rf"You heat the ({_NAME}) using the ({_NAME})\.")
_COOL = re.compile(rf"You cool the ({_NAME}) using the ({_NAME})\.")
_CLEAN = re.compile(rf"You clean the ({_NAME}) using the ({_NAME})\.")
_TURN_ON = re.compile(rf"You turn on the ({_NAME})\.")
_CARRY = re.compile(r"You are carrying: " + _ITEMS)
_EMPTY_HANDED = re.compile(r"You are not carrying anything\.")

# examineObject's sentences in the grammar's order: the first whose condition holds
# is said, so a sentence also denies the conditions of the sentences before it.
# (sentence pattern, facts it asserts). "This is a normal X. In it, ..." (a
# receptacle object) says nothing about the properties and is not listed.
_EXAMINE: list[tuple[re.Pattern, dict[str, bool]]] = [
    (re.compile(rf"This is a hot and clean sliced ({_NAME})\."), {"hot": True, "clean": True}),
    (re.compile(rf"This is a cool and clean sliced ({_NAME})\."), {"cool": True, "clean": True}),
    (re.compile(rf"This is a clean sliced ({_NAME})\."),
     {"clean": True, "hot": False, "cool": False}),
    (re.compile(rf"This is a hot sliced ({_NAME})\."), {"hot": True, "clean": False}),
    (re.compile(rf"This is a cool sliced ({_NAME})\."),
     {"cool": True, "clean": False, "hot": False}),
    (re.compile(rf"This is a hot and clean ({_NAME})\."), {"hot": True, "clean": True}),
    (re.compile(rf"This is a cool and clean ({_NAME})\."),
     {"cool": True, "clean": True, "hot": False}),
    (re.compile(rf"This is a hot ({_NAME})\."), {"hot": True, "clean": False}),
    (re.compile(rf"This is a clean ({_NAME})\."), {"clean": True, "hot": False, "cool": False}),
    (re.compile(rf"This is a cold ({_NAME})\."), {"cool": True, "hot": False, "clean": False}),
    (re.compile(rf"This ({_NAME}) is on\."),
     {"toggled": True, "hot": False, "clean": False, "cool": False}),
    (re.compile(rf"This ({_NAME}) is off\."),
     {"toggled": False, "hot": False, "clean": False, "cool": False}),
    (re.compile(rf"This is a sliced ({_NAME})\."),
     {"toggled": False, "hot": False, "clean": False, "cool": False}),
    (re.compile(rf"There's nothing special about ({_NAME})\."),
     {"toggled": False, "hot": False, "clean": False, "cool": False}),
]


def _items(text: str) -> list[str]:
    if text == "nothing":
        return []
    out = []
    for x in text.split(", "):
        x = re.sub(r"^(?:and )?an? ", "", x.strip())
        if x:
            out.append(x)
    return out


def listings(text: str) -> dict[str, list[str]]:
    """Receptacle -> everything the text says is in it (a complete listing:
    the grammar lists every object in the receptacle)."""
    out: dict[str, list[str]] = {}
    for r, items in _OPEN_IN.findall(text) + _ON.findall(text):
        out[r] = _items(items)
    return out


def carrying(text: str) -> list[str] | None:
    """What the agent carries, when the text says (inventory), else None."""
    if _EMPTY_HANDED.search(text):
        return []
    m = _CARRY.search(text)
    return _items(m.group(1)) if m else None


def facing(text: str) -> str | None:
    """The receptacle "look" says the agent faces; "" in the middle of the room
    (at no receptacle); None when the text does not say."""
    m = _FACING.search(text)
    if m:
        return m.group(1) if ", " not in m.group(1) and " and " not in m.group(1) else None
    return "" if _MIDDLE.search(text) else None


def receptacles(text: str) -> list[str] | None:
    """The room's receptacles, when the text lists them ("Looking quickly
    around you, you see ..."): the listing names every receptacle of the room."""
    m = _AROUND.search(text)
    return _items(m.group(1)) if m else None


def ground(text: str) -> set[Fact]:
    facts: set[Fact] = set()
    middle = _MIDDLE.search(text) is not None
    for items in _AROUND.findall(text):  # the room's receptacles: they exist
        for r in _items(items):
            facts.add(Fact("kind", (r, kind(r))))
            if middle:  # in the middle of the room: at none of them
                facts.add(Fact("at", ("agent", r), False))
    for r in _ARRIVE.findall(text):
        facts.add(Fact("at", ("agent", r)))
    here = facing(text)
    if here:
        facts.add(Fact("at", ("agent", here)))
    for r in _CLOSED.findall(text) + _CLOSE.findall(text):
        facts |= {Fact("open", (r,), False), Fact("openable", (r,))}
    for r in _OPENED.findall(text):
        facts |= {Fact("open", (r,), True), Fact("openable", (r,))}
    for r, items in _OPEN_IN.findall(text):
        facts |= {Fact("open", (r,), True), Fact("openable", (r,))}
        facts |= {Fact("in", (o, r)) for o in _items(items)}
    for r, items in _ON.findall(text):
        facts.add(Fact("openable", (r,), False))
        facts |= {Fact("in", (o, r)) for o in _items(items)}
    for o, r in _PICK.findall(text):
        facts |= {Fact("holds", ("agent", o)), Fact("in", (o, r), False),
                  Fact("handempty", ("agent",), False)}
    for o, r in _PUT.findall(text):
        facts |= {Fact("in", (o, r)), Fact("holds", ("agent", o), False),
                  Fact("handempty", ("agent",))}
    for pattern, pred in ((_HEAT, "hot"), (_COOL, "cool"), (_CLEAN, "clean")):
        for o, _ in pattern.findall(text):
            facts.add(Fact(pred, (o,)))
    for o in _TURN_ON.findall(text):  # the text says "turn on" whatever the lamp did
        facts.add(Fact("toggled", (o,)))
    held = carrying(text)
    if held is not None:
        facts.add(Fact("handempty", ("agent",), not held))
        facts |= {Fact("holds", ("agent", o)) for o in held}
    for pattern, says in _EXAMINE:
        m = pattern.search(text)
        if m:
            facts |= {Fact(pred, (m.group(1),), value) for pred, value in says.items()}
            break
    return facts
