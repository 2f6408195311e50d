"""Sound but incomplete entailment for AEC's CHECKPRE (``w |= p``), per
environment: a fixed set of named rules, each deriving a fact from grounded
facts only when the facts certainly imply it. A rule never guesses; a fact no
rule derives stays unknown (a query or a rejection, never a wrong commit).
Each rule has a name so that a controller can disable one that keeps producing
counterexamples (AEC, appendix B.4): pass the disabled names to
:func:`rules_for`.

Two kinds of rule live here:

- ``entail`` rules derive facts from a set of facts (the same moment);
- ``frame`` rules say which grounded facts persist from one step to the next
  when no action changes them ("an object seen in receptacle R and not moved
  since is still in R"). They are used by :func:`veriplan.envs.actions.advance`
  and :func:`~veriplan.envs.actions.apply`: a disabled frame rule makes its facts
  last only until the next step.

Household vocabulary (see :mod:`veriplan.envs.household.grounder`): (at agent R),
(in O R), (open R), (openable R), (holds agent O), (handempty agent), (hot O),
(cool O), (clean O), (toggled O), and the type-level (kind X K), (pickupable O),
(heatable O), (coolable O), (cleanable O), (toggleable O), (cancontain R O).

ScienceWorld vocabulary (see :mod:`veriplan.envs.scienceworld`): (at agent ROOM),
(in X ROOM) (an object called X lies directly in ROOM, or in the agent's
``inventory``), (open X ROOM) (the container or door called X in ROOM is open;
doors are named from the room they are seen from: "door to kitchen").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from veriplan.envs.base import Fact
from veriplan.envs.household import kinds
from veriplan.errors import ConfigError

Derive = Callable[["View", "Fact | None"], set[Fact]]


class View:
    """A fact set indexed for the rules: facts by predicate, and the names
    seen in receptacle/room and object positions."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self.facts = facts if isinstance(facts, frozenset) else frozenset(facts)
        self.by_pred: dict[str, list[Fact]] = {}
        for f in self.facts:
            self.by_pred.setdefault(f.pred, []).append(f)
        self._places: set[str] | None = None
        self._things: set[str] | None = None

    def true(self, pred: str) -> list[Fact]:
        return [f for f in self.by_pred.get(pred, ()) if f.value]

    def all(self, pred: str) -> list[Fact]:
        return self.by_pred.get(pred, [])

    def _index(self) -> None:
        places, things = set(), set()
        for f in self.facts:
            p, a = f.pred, f.args
            if p == "at" and len(a) == 2:
                places.add(a[1])
            elif p == "in" and len(a) == 2:
                things.add(a[0])
                places.add(a[1])
            elif p == "cancontain" and len(a) == 2:
                places.add(a[0])
                things.add(a[1])
            elif p in ("open", "openable") and a:
                places.add(a[0] if len(a) == 1 else a[1])
            elif p == "holds" and len(a) == 2:
                things.add(a[1])
            elif p in _OBJECT_PREDS and len(a) == 1:
                things.add(a[0])
            elif p == "kind" and len(a) == 2:
                (places if a[1] in _receptacle_kinds() else things).add(a[0])
        self._places, self._things = places, things

    @property
    def places(self) -> set[str]:
        """Receptacles (household) or rooms (ScienceWorld) the facts name."""
        if self._places is None:
            self._index()
        return self._places  # type: ignore[return-value]

    @property
    def things(self) -> set[str]:
        """Objects the facts name."""
        if self._things is None:
            self._index()
        return self._things  # type: ignore[return-value]

    @cached_property
    def names(self) -> set[str]:
        return self.places | self.things

    @cached_property
    def here(self) -> set[str]:
        """Where the facts say the agent is."""
        return {f.args[1] for f in self.true("at") if f.args[0] == "agent"}

    @cached_property
    def held(self) -> set[str]:
        return {f.args[1] for f in self.true("holds")}

    @cached_property
    def where(self) -> dict[str, set[str]]:
        """Object -> the places the facts say it is in."""
        out: dict[str, set[str]] = {}
        for f in self.true("in"):
            out.setdefault(f.args[0], set()).add(f.args[1])
        return out


_OBJECT_PREDS = frozenset({"hot", "cool", "clean", "toggled", "pickupable", "heatable",
                           "coolable", "cleanable", "toggleable"})


def _receptacle_kinds() -> frozenset[str]:
    t = kinds.tables()
    return t.receptacles if t else frozenset()


@dataclass(frozen=True)
class Rule:
    """A named rule. ``derive(facts)`` is every fact the rule derives from
    ``facts`` in one step; ``proves(facts, fact)`` asks for one fact (faster:
    the rule looks only at that fact's names). Frame rules (``kind="frame"``)
    name the predicates whose facts persist while no action changes them."""

    name: str
    doc: str
    fn: Derive | None = field(default=None, repr=False, compare=False)
    kind: str = "entail"
    # entail rules: the predicates they derive; frame rules: the predicates that persist
    preds: frozenset[str] = frozenset()

    def derive(self, facts: Iterable[Fact] | View) -> set[Fact]:
        if self.fn is None:
            return set()
        return self.fn(facts if isinstance(facts, View) else View(facts), None)

    def proves(self, facts: Iterable[Fact] | View, fact: Fact) -> bool:
        if self.fn is None or fact.pred not in self.preds:
            return False
        return fact in self.fn(facts if isinstance(facts, View) else View(facts), fact)


def _targets(view: View, want: Fact | None, pred: str, pos: int, pool: Iterable[str]
             ) -> Iterable[str]:
    """The names a rule derives ``pred`` facts for: every name in ``pool`` (names
    the facts mention, so names that exist), or just the asked-for fact's name
    when it is one of them."""
    if want is not None:
        ok = want.pred == pred and len(want.args) > pos and want.args[pos] in pool
        return [want.args[pos]] if ok else []
    return pool


# ----- household -------------------------------------------------------------------------

def _one_place(v: View, want: Fact | None) -> set[Fact]:
    if len(v.here) != 1:
        return set()
    (r,) = v.here
    return {Fact("at", ("agent", x), False)
            for x in _targets(v, want, "at", 1, v.places) if x != r}


def _one_receptacle(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        places = v.where.get(want.args[0], ()) if want.pred == "in" and not want.value else ()
        return {want} if len(places) == 1 and want.args[1] not in places else set()
    return {Fact("in", (o, x), False) for o, rs in v.where.items() if len(rs) == 1
            for x in v.places - rs}


def _held_not_in(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        ok = want.pred == "in" and not want.value and want.args[0] in v.held
        return {want} if ok else set()
    return {Fact("in", (o, r), False) for o in v.held for r in v.places}


def _in_not_held(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        ok = want.pred == "holds" and not want.value and want.args[1] in v.where
        return {want} if ok else set()
    return {Fact("holds", ("agent", o), False) for o in v.where}


def _one_hand(v: View, want: Fact | None) -> set[Fact]:
    if len(v.held) != 1:
        return set()
    (o,) = v.held
    out = {Fact("handempty", ("agent",), False)}
    out |= {Fact("holds", ("agent", x), False)
            for x in _targets(v, want, "holds", 1, v.things) if x != o}
    return out


def _empty_hand(v: View, want: Fact | None) -> set[Fact]:
    if Fact("handempty", ("agent",)) not in v.facts:
        return set()
    return {Fact("holds", ("agent", x), False) for x in _targets(v, want, "holds", 1, v.things)}


def _hot_or_cool(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        other = {"hot": "cool", "cool": "hot"}.get(want.pred)
        ok = other is not None and not want.value and Fact(other, want.args) in v.facts
        return {want} if ok else set()
    return ({Fact("cool", f.args, False) for f in v.true("hot")}
            | {Fact("hot", f.args, False) for f in v.true("cool")})


def _open_openable(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        ok = want.pred == "openable" and want.value and Fact("open", want.args) in v.facts
        return {want} if ok else set()
    return {Fact("openable", f.args) for f in v.true("open")}


def _kind_of_name(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        ok = want.pred == "kind" and len(want.args) == 2 and want.args[0] in v.names
        names = [want.args[0]] if ok else []
    else:
        names = list(v.names)
    out = set()
    for x in names:
        k = kinds.receptacle_kind(x) or kinds.object_kind(x)
        if k is not None:
            out.add(Fact("kind", (x, k)))
            if want is not None and want.args[1] != k:
                out.add(Fact("kind", want.args, False))
    return out


def _openable_by_kind(v: View, want: Fact | None) -> set[Fact]:
    out = set()
    for r in _targets(v, want, "openable", 0, v.places):
        value = kinds.openable(r)
        if value is not None:
            out.add(Fact("openable", (r,), value))
    return out


def _abilities_by_kind(v: View, want: Fact | None) -> set[Fact]:
    preds = ("pickupable", *kinds.ABILITIES)
    if want is not None:
        ok = want.pred in preds and want.args and want.args[0] in v.things
        asks = [(want.pred, want.args[0])] if ok else []
    else:
        asks = [(p, o) for o in v.things for p in preds]
    out = set()
    for pred, o in asks:
        value = kinds.ability(pred, o)
        if value is not None:
            out.add(Fact(pred, (o,), value))
    return out


def _cancontain_by_kind(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        ok = want.pred == "cancontain" and len(want.args) == 2 and \
            want.args[0] in v.places and want.args[1] in v.things
        pairs = [want.args] if ok else []
    else:
        pairs = [(r, o) for r in v.places for o in v.things]
    out = set()
    for r, o in pairs:
        value = kinds.can_contain(r, o)
        if value is not None:
            out.add(Fact("cancontain", (r, o), value))
    return out


HOUSEHOLD_RULES = [
    Rule("one-place", "the agent stands at one receptacle: at R, it is at no other "
         "(one receptacle per location in these games)", _one_place,
         preds=frozenset({"at"})),
    Rule("one-receptacle", "an object is in at most one receptacle: in R, it is in no other",
         _one_receptacle,
         preds=frozenset({"in"})),
    Rule("held-not-in", "an object the agent holds is in no receptacle", _held_not_in,
         preds=frozenset({"in"})),
    Rule("in-not-held", "an object in a receptacle is not held", _in_not_held,
         preds=frozenset({"holds"})),
    Rule("one-hand", "the agent holds at most one object: holding O, it holds nothing "
         "else and its hand is not empty", _one_hand,
         preds=frozenset({"holds", "handempty"})),
    Rule("empty-hand", "an empty hand holds nothing", _empty_hand,
         preds=frozenset({"holds"})),
    Rule("hot-or-cool", "heating makes an object not cool and cooling makes it not hot "
         "(and nothing is both at the start)", _hot_or_cool,
         preds=frozenset({"hot", "cool"})),
    Rule("open-means-openable", "a receptacle that is open is openable", _open_openable,
         preds=frozenset({"openable"})),
    Rule("kind-of-name", "a name says its kind: 'fridge 1' is a fridge", _kind_of_name,
         preds=frozenset({"kind"})),
    Rule("openable-by-kind", "a receptacle is openable exactly when its kind is "
         "(ALFWorld's OPENABLE_CLASS_SET)", _openable_by_kind,
         preds=frozenset({"openable"})),
    Rule("abilities-by-kind", "pickupable (all but lamps), heatable, coolable, cleanable, "
         "toggleable by the object's kind (ALFWorld's tables)", _abilities_by_kind,
         preds=frozenset({"pickupable", "heatable", "coolable", "cleanable", "toggleable"})),
    Rule("cancontain-by-kind", "R can contain O when O's kind is in R's kind's list "
         "(ALFWorld's VAL_RECEPTACLE_OBJECTS)", _cancontain_by_kind,
         preds=frozenset({"cancontain"})),
    # frame rules: what persists while no action changes it
    Rule("persist-at", "the agent stays where it is until it goes somewhere", kind="frame",
         preds=frozenset({"at"})),
    Rule("persist-in", "an object seen in receptacle R and not moved since (no take or "
         "move of it) is still in R; nothing else moves objects", kind="frame",
         preds=frozenset({"in"})),
    Rule("persist-open", "a receptacle stays open (closed) until the agent closes (opens) "
         "it; only 'open R' and 'close R' change it", kind="frame", preds=frozenset({"open"})),
    Rule("persist-hand", "what the agent holds changes only by take and move",
         kind="frame", preds=frozenset({"holds", "handempty"})),
    Rule("persist-state", "hot, cool, clean and toggled change only by heat, cool, clean "
         "and use of that object", kind="frame",
         preds=frozenset({"hot", "cool", "clean", "toggled"})),
    Rule("static-types", "type-level facts (openable, kind, abilities, cancontain) never "
         "change", kind="frame",
         preds=frozenset({"openable", "kind", "pickupable", "heatable", "coolable",
                          "cleanable", "toggleable", "cancontain"})),
]


# ----- ScienceWorld ----------------------------------------------------------------------

def _one_room(v: View, want: Fact | None) -> set[Fact]:
    if len(v.here) != 1:
        return set()
    (r,) = v.here
    rooms = v.places - {"inventory"}
    return {Fact("at", ("agent", x), False) for x in _targets(v, want, "at", 1, rooms) if x != r}


def _door_both_sides(v: View, want: Fact | None) -> set[Fact]:
    if want is not None:
        if want.pred != "open" or len(want.args) != 2 or not want.args[0].startswith("door to "):
            return set()
        seen = Fact("open", (f"door to {want.args[1]}", want.args[0][len("door to "):]),
                    want.value)
        return {want} if seen in v.facts else set()
    out = set()
    for f in v.all("open"):
        if len(f.args) == 2 and f.args[0].startswith("door to "):
            other, room = f.args[0][len("door to "):], f.args[1]
            out.add(Fact("open", (f"door to {room}", other), f.value))
    return out


SCIENCEWORLD_RULES = [
    Rule("one-room", "the agent is in one room: in R, it is in no other", _one_room,
         preds=frozenset({"at"})),
    Rule("door-both-sides", "the door to B seen from A is the door to A seen from B "
         "(one door joins two rooms): open from one side, open from the other",
         _door_both_sides,
         preds=frozenset({"open"})),
    Rule("persist-at", "the agent stays in its room until it goes or teleports", kind="frame",
         preds=frozenset({"at"})),
    Rule("persist-open", "a container or door stays open (closed) until the agent closes "
         "(opens) it", kind="frame", preds=frozenset({"open"})),
    # Issue 33: without it, a plan's focus was forgotten at its next step, so V's goal check
    # (the task's named focus targets) missed every wrong focus but a plan's last step.
    Rule("persist-focus", "what the agent focused on stays its focus (the engine ends the "
         "task at a wrong one)", kind="frame", preds=frozenset({"focus"})),
    # No persist-in: ScienceWorld's physics moves and renames things on every tick
    # (water boils into steam, seeds grow), so an "in" fact lasts one observation.
]

RULES: dict[str, list[Rule]] = {"household": HOUSEHOLD_RULES,
                                "scienceworld": SCIENCEWORLD_RULES}


def rules_for(env: str, disabled: Iterable[str] = ()) -> list[Rule]:
    """The environment's rules without the disabled ones (unknown env: none;
    an unknown disabled name is an error, so a typo does not go unnoticed)."""
    rules = RULES.get(env, [])
    off = set(disabled)
    unknown = off - {r.name for r in rules}
    if unknown:
        raise ConfigError(f"no {env} rule named {', '.join(sorted(unknown))}; rules: "
                          f"{', '.join(r.name for r in rules)}")
    return [r for r in rules if r.name not in off]


def entails(facts: Iterable[Fact] | View, fact: Fact, rules: Iterable[Rule]) -> Rule | None:
    """The first entailment rule that derives ``fact`` from ``facts``, or None.
    Grounded evidence wins: when ``facts`` hold the opposite value, no rule
    entails ``fact``."""
    view = facts if isinstance(facts, View) else View(facts)
    if Fact(fact.pred, fact.args, not fact.value) in view.facts:
        return None
    for rule in rules:
        if rule.kind == "entail" and rule.proves(view, fact):
            return rule
    return None


def derive(facts: Iterable[Fact] | View, rules: Iterable[Rule]) -> dict[Fact, str]:
    """Every fact the entailment rules derive from ``facts`` in one step (not
    already in ``facts``), with the name of a rule that derives it."""
    view = facts if isinstance(facts, View) else View(facts)
    out: dict[Fact, str] = {}
    for rule in rules:
        if rule.kind == "entail":
            for f in rule.derive(view):
                if f not in view.facts:
                    out.setdefault(f, rule.name)
    return out
