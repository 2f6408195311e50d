"""What a household name says by itself: "fridge 1" is a fridge, and every
game gives a kind the same type-level facts (the generator writes them from
ALFWorld's tables, ``alfworld.gen.constants``): a receptacle is openable when
its kind is in ``OPENABLE_CLASS_SET``; an object is pickupable unless it is a
lamp, heatable (coolable, cleanable, toggleable) when its kind is in that
ability's list, and R can contain O when O's kind is in R's list
(``VAL_RECEPTACLE_OBJECTS``). Kinds outside these tables get no facts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

ABILITIES = {"heatable": "Heatable", "coolable": "Coolable", "cleanable": "Cleanable",
             "toggleable": "Toggleable"}


@dataclass(frozen=True)
class Tables:
    receptacles: frozenset[str]  # kind words ("sinkbasin")
    objects: frozenset[str]
    openable: frozenset[str]
    not_pickupable: frozenset[str]
    abilities: dict[str, frozenset[str]]  # "heatable" -> kinds
    contains: dict[str, frozenset[str]]  # receptacle kind -> object kinds


@cache
def tables() -> Tables | None:
    """The type tables, or None when the alfworld package is missing (then
    the kind rules derive nothing)."""
    try:
        import alfworld.gen.constants as C
    except ImportError:
        return None
    from veriplan.envs.household.generator import LAMPS

    def w(t: str) -> str:
        return t.lower()

    receptacles = frozenset(w(t) for t in C.RECEPTACLES)
    objects = frozenset(w(t) for t in C.OBJECTS if t not in C.RECEPTACLES)
    return Tables(
        receptacles=receptacles, objects=objects,
        openable=frozenset(w(t) for t in C.OPENABLE_CLASS_SET),
        not_pickupable=frozenset(w(t) for t in LAMPS),
        abilities={p: frozenset(w(t) for t in C.VAL_ACTION_OBJECTS[a])
                   for p, a in ABILITIES.items()},
        contains={w(r): frozenset(w(t) for t in ts)
                  for r, ts in C.VAL_RECEPTACLE_OBJECTS.items()})


def kind(name: str) -> str:
    """"sinkbasin 1" -> "sinkbasin" (the name without its number)."""
    base, _, n = name.rpartition(" ")
    return base if base and n.isdigit() else name


def receptacle_kind(name: str) -> str | None:
    t = tables()
    k = kind(name)
    return k if t is not None and k in t.receptacles else None


def object_kind(name: str) -> str | None:
    t = tables()
    k = kind(name)
    return k if t is not None and k in t.objects else None


def openable(receptacle: str) -> bool | None:
    k = receptacle_kind(receptacle)
    return None if k is None else k in tables().openable  # type: ignore[union-attr]


def ability(pred: str, obj: str) -> bool | None:
    """pickupable, heatable, coolable, cleanable or toggleable from the kind."""
    k = object_kind(obj)
    if k is None:
        return None
    t = tables()
    if pred == "pickupable":
        return k not in t.not_pickupable  # type: ignore[union-attr]
    return k in t.abilities[pred] if pred in ABILITIES else None  # type: ignore[union-attr]


def can_contain(receptacle: str, obj: str) -> bool | None:
    r, o = receptacle_kind(receptacle), object_kind(obj)
    if r is None or o is None:
        return None
    return o in tables().contains.get(r, frozenset())  # type: ignore[union-attr]
