"""A sound grounder for the household games' text: it asserts what a sentence
states outright and abstains from everything else.

Vocabulary (display names, "apple 1"): (at agent R) the agent stands at
receptacle R; (in O R) object O is in or on R; (open R) R is open (value False:
closed); (holds agent O); (hot O), (cool O), (clean O); (toggled O) a lamp was
switched (the game's text says "turn on" for every switch, so on/off is not
asserted).
"""

from __future__ import annotations

import re

from veriplan.envs.base import Fact

_ITEMS = r"((?:an? [\w ]+? \d+(?:, )?)+|nothing)"
_ARRIVE = re.compile(r"You arrive at (?:loc \d+|the )?([\w ]+? \d+)\.")
_CLOSED = re.compile(r"The ([\w ]+? \d+) is closed\.")
_OPEN_IN = re.compile(r"The ([\w ]+? \d+) is open\. In it, you see " + _ITEMS)
_ON = re.compile(r"On the ([\w ]+? \d+), you see " + _ITEMS)
_OPENED = re.compile(r"You open the ([\w ]+? \d+)\.")
_CLOSE = re.compile(r"You close the ([\w ]+? \d+)\.")
_PICK = re.compile(r"You pick up the ([\w ]+? \d+) from the ([\w ]+? \d+)\.")
_PUT = re.compile(r"You move the ([\w ]+? \d+) to the ([\w ]+? \d+)\.")
_HEAT = re.compile(r"You heat the ([\w ]+? \d+) using the ([\w ]+? \d+)\.")
_COOL = re.compile(r"You cool the ([\w ]+? \d+) using the ([\w ]+? \d+)\.")
_CLEAN = re.compile(r"You clean the ([\w ]+? \d+) using the ([\w ]+? \d+)\.")
_TURN_ON = re.compile(r"You turn on the ([\w ]+? \d+)\.")
_CARRY = re.compile(r"You are carrying: " + _ITEMS)


def _items(text: str) -> list[str]:
    if text == "nothing":
        return []
    return [re.sub(r"^an? ", "", x).strip() for x in text.split(", ") if x.strip()]


def ground(text: str) -> set[Fact]:
    facts: set[Fact] = set()
    for r in _ARRIVE.findall(text):
        facts.add(Fact("at", ("agent", r)))
    for r in _CLOSED.findall(text) + _CLOSE.findall(text):
        facts.add(Fact("open", (r,), False))
    for r in _OPENED.findall(text):
        facts.add(Fact("open", (r,), True))
    for r, items in _OPEN_IN.findall(text):
        facts.add(Fact("open", (r,), True))
        facts |= {Fact("in", (o, r)) for o in _items(items)}
    for r, items in _ON.findall(text):
        facts |= {Fact("in", (o, r)) for o in _items(items)}
    for o, r in _PICK.findall(text):
        facts |= {Fact("holds", ("agent", o)), Fact("in", (o, r), False)}
    for o, r in _PUT.findall(text):
        facts |= {Fact("in", (o, r)), Fact("holds", ("agent", o), False)}
    for pattern, pred in ((_HEAT, "hot"), (_COOL, "cool"), (_CLEAN, "clean")):
        for o, _ in pattern.findall(text):
            facts.add(Fact(pred, (o,)))
    for o in _TURN_ON.findall(text):  # the text says "turn on" whatever the lamp did
        facts.add(Fact("toggled", (o,)))
    for items in _CARRY.findall(text):
        facts |= {Fact("holds", ("agent", o)) for o in _items(items)}
    return facts
