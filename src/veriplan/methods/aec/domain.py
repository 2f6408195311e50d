"""What AEC needs to know about an environment, as small interfaces of its own:

- :class:`Rule`: a named, sound (possibly incomplete) entailment rule
  ``entails(facts, pred, args) -> bool | None`` (the ``w |= p`` of CHECKPRE);
- :class:`ActionModel`: symbolic ``preconditions(action, facts)`` and
  ``effects(action, facts)`` of the environment's text commands (Apply(h, w)
  of PULLBACKVERIFY, and the facts an executed action may change);
- :class:`Goal`: the goal constraints w* read from the task text,
  ``check(facts) -> bool | None``;
- :class:`EnvModel`: the bundle for one environment, found by environment name
  in :data:`ENV_MODELS` (``register_env_model`` adds one; the built-in entries
  are adapters in :mod:`veriplan.methods.aec.envmodels`).

Facts are :class:`veriplan.envs.base.Fact` (``pred``, ``args``, ``value``);
a predicate is a :data:`Key` ``(pred, args)``. :class:`FactState` is the
three-valued state every interface reads: a key is True, False, or absent
(unknown, never assumed false).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

from veriplan.envs.base import Fact
from veriplan.errors import ConfigError
from veriplan.registry import Registry

Key = tuple[str, tuple[str, ...]]
_EMPTY: Mapping[tuple[str, ...], bool] = {}
T = TypeVar("T")


def key_of(fact: Fact) -> Key:
    return (fact.pred, fact.args)


def fact(key: Key, value: bool = True) -> Fact:
    return Fact(key[0], key[1], value)


def show(key: Key, value: bool | None = None) -> str:
    """``in(apple 1, fridge 1)``, with ``= true`` / ``= false`` when a value is given."""
    text = f"{key[0]}({', '.join(key[1])})"
    return text if value is None else f"{text} = {'true' if value else 'false'}"


class FactState:
    """A partial, three-valued state indexed by predicate. ``copy()`` is cheap
    (predicate tables are shared until written), so a symbolic execution can
    branch off the grounded store without touching it."""

    __slots__ = ("_memo", "_owned", "_preds")

    def __init__(self, facts: Iterable[Fact] = ()) -> None:
        self._preds: dict[str, dict[tuple[str, ...], bool]] = {}
        self._owned: set[str] = set()
        self._memo: dict[str, object] | None = None  # name -> what memo made
        for f in facts:
            self.set(key_of(f), f.value)

    def get(self, key: Key) -> bool | None:
        table = self._preds.get(key[0])
        return None if table is None else table.get(key[1])

    def by_pred(self, pred: str) -> Mapping[tuple[str, ...], bool]:
        return self._preds.get(pred, _EMPTY)

    def memo(self, name: str, make: Callable[[], T]) -> T:
        """A value computed from this state (an index a rule wants), kept until
        the state is next written."""
        if self._memo is None:
            self._memo = {}
        if name not in self._memo:
            self._memo[name] = make()
        return self._memo[name]  # type: ignore[return-value]  # made by make, under name

    def _table(self, pred: str) -> dict[tuple[str, ...], bool]:
        self._memo = None
        if pred not in self._owned:
            self._preds[pred] = dict(self._preds.get(pred, {}))
            self._owned.add(pred)
        return self._preds[pred]

    def set(self, key: Key, value: bool) -> None:
        self._table(key[0])[key[1]] = value

    def forget(self, key: Key) -> None:
        if self.get(key) is not None:
            del self._table(key[0])[key[1]]

    def copy(self) -> FactState:
        new = FactState()
        new._preds = dict(self._preds)
        return new

    def facts(self) -> Iterator[Fact]:
        for pred, table in self._preds.items():
            for args, value in table.items():
                yield Fact(pred, args, value)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and self.get(key) is not None  # type: ignore[arg-type]

    def __len__(self) -> int:
        return sum(len(t) for t in self._preds.values())


# ----- the interfaces ------------------------------------------------------------------
@runtime_checkable
class Rule(Protocol):
    """A named entailment rule: the value ``pred(args)`` must have given
    ``facts``, or None when the rule says nothing. Rules must be sound (never
    entail a value the world contradicts); B.4's repair disables a rule that
    keeps producing counterexamples."""

    name: str

    def entails(self, facts: FactState, pred: str, args: tuple[str, ...]) -> bool | None: ...


@runtime_checkable
class ActionModel(Protocol):
    """Symbolic semantics of the environment's text commands. ``preconditions``
    is None for a command the model does not know (such a plan cannot be
    verified); an action whose effects already all hold is a no-op (skipped),
    so a precondition that only says "not already so" (the "R is closed" of
    *open R*) is not required of a plan. A model may also have ``failed(text)
    -> bool``: the observation says the environment refused the action (the
    execution monitor reads it besides the EnvModel's ``failure_texts``), and
    ``static``: the predicates no action changes (the prompts list their facts
    first among those listed for the first time, ``state.Listing``)."""

    def preconditions(self, action: str, facts: FactState) -> Sequence[Fact] | None: ...

    def effects(self, action: str, facts: FactState) -> Sequence[Fact]: ...


@runtime_checkable
class Goal(Protocol):
    """The goal constraints w*: True when ``facts`` satisfy them, False when
    they certainly do not, None when the facts cannot tell (a part of the goal
    is unknown in them, or outside what the facts can say): V's verdict is
    then unknown, never valid."""

    text: str

    def check(self, facts: FactState) -> bool | None: ...


@dataclass(frozen=True)
class EnvModel:
    """Everything AEC knows about one environment.

    ``predicates``: the grounder's vocabulary (name -> arity), the only
    predicates a hypothesis may name (a precondition of another arity is
    dropped); ``signatures``: how each is written, for prompts ("open(X,
    ROOM)"); ``describe``: a predicate in words for prompts;
    ``actions_help``: the command grammar for prompts; ``failure_texts``:
    observations that mean an action failed; ``well_formed``: False for a
    predicate whose arguments are of the wrong sort (the agent where a
    receptacle belongs): no grounder or query could ever settle it, so a
    stated precondition of that form is dropped like one of the wrong arity.
    ``persistent``: the environment's frame rules, as the predicates whose
    facts persist between steps while no action changes them (None: all of
    them); a fact of any other predicate lasts one observation, in AEC's
    grounded store as in the environment's own (ScienceWorld's ``in``).
    """

    name: str
    rules: tuple[Rule, ...] = ()
    actions: ActionModel | None = None
    goal_for: Callable[[str], Goal | None] = field(default=lambda text: None)
    predicates: Mapping[str, int] = field(default_factory=dict)
    actions_help: str = ""
    failure_texts: tuple[str, ...] = ("Nothing happens.", "No known action matches that input.")
    describe: Callable[[Key], str] = show
    signatures: Mapping[str, str] = field(default_factory=dict)
    well_formed: Callable[[Key], bool] = field(default=lambda key: True)
    persistent: frozenset[str] | None = None

    def vocabulary(self) -> list[str]:
        """The predicates as prompts show them: the signature, else the name
        with its number of arguments."""
        return [self.signatures.get(p) or f"{p} ({n} argument{'s' if n != 1 else ''})"
                for p, n in sorted(self.predicates.items())]


# ----- generic rules (sound wherever the relation is functional) ---------------------------
@dataclass(frozen=True)
class Functional:
    """``pred(x, y)`` is false when ``pred(x, z)`` holds for some z != y (one
    place per subject): the agent is at one place; an object is in one place."""

    name: str
    pred: str

    def entails(self, facts: FactState, pred: str, args: tuple[str, ...]) -> bool | None:
        if pred != self.pred or len(args) != 2:
            return None
        places = facts.memo(f"functional:{pred}", lambda: _true_by(facts, pred, 0, 1)).get(
            args[0], ())
        return False if any(p != args[1] for p in places) else None


def _true_by(facts: FactState, pred: str, key: int, value: int) -> dict[str, list[str]]:
    """For the true ``pred`` facts: argument ``key`` -> the arguments ``value``."""
    out: dict[str, list[str]] = {}
    for args, v in facts.by_pred(pred).items():
        if v and len(args) > max(key, value):
            out.setdefault(args[key], []).append(args[value])
    return out


@dataclass(frozen=True)
class Excludes:
    """``pred(..., x)`` is false when ``other(..., x)`` holds: what the agent
    holds is in no receptacle (``in(x, r)`` false given ``holds(agent, x)``),
    and what is in a receptacle is not held. ``pos``/``other_pos`` say where
    the shared argument sits."""

    name: str
    pred: str
    pos: int
    other: str
    other_pos: int

    def entails(self, facts: FactState, pred: str, args: tuple[str, ...]) -> bool | None:
        if pred != self.pred or len(args) <= self.pos:
            return None
        seen = facts.memo(f"excludes:{self.other}:{self.other_pos}", lambda: {
            a[self.other_pos] for a, v in facts.by_pred(self.other).items()
            if v and len(a) > self.other_pos})
        return False if args[self.pos] in seen else None


AT_FUNCTIONAL = Functional("at_one_place", "at")
IN_FUNCTIONAL = Functional("in_one_place", "in")
HELD_NOT_IN = Excludes("held_not_in", "in", 0, "holds", 1)
IN_NOT_HELD = Excludes("in_not_held", "holds", 1, "in", 0)
GENERIC_RULES = (AT_FUNCTIONAL, IN_FUNCTIONAL, HELD_NOT_IN, IN_NOT_HELD)


# ----- the registry ----------------------------------------------------------------------
ENV_MODELS: Registry[Callable[[], EnvModel]] = Registry("AEC environment model", {
    "household": "veriplan.methods.aec.envmodels:household",
    "scienceworld": "veriplan.methods.aec.envmodels:scienceworld",
}, group="veriplan.aec_env_models")


def register_env_model(name: str, factory: Callable[[], EnvModel] | EnvModel | str) -> None:
    """Plug in an environment's model (a factory, the model itself, or its
    ``module:attr`` path) under the environment's registry name."""
    ENV_MODELS.register(name, factory)


def env_model(name: str) -> EnvModel:
    try:
        entry = ENV_MODELS.get(name)
    except ConfigError:
        return EnvModel(name, rules=(AT_FUNCTIONAL,))  # nothing known: no verification
    return entry if isinstance(entry, EnvModel) else entry()


__all__ = ["AT_FUNCTIONAL", "ActionModel", "ENV_MODELS", "EnvModel", "Excludes", "FactState",
           "Functional", "GENERIC_RULES", "Goal", "HELD_NOT_IN", "IN_FUNCTIONAL", "IN_NOT_HELD",
           "Key", "Rule", "env_model", "fact", "key_of", "register_env_model", "show"]
