"""The epistemic state s = (w, w_hat, H) of Definition 3.1.

- :class:`GroundedStore` (w): written only by :meth:`GroundedStore.ground`,
  which the agent calls with the grounder's facts of an observation, a query
  macro-action's answer and every side fact it revealed (Eq. 2), and execution
  feedback. Unobserved predicates are unknown, never false. w obeys the
  environment's frame rules (``rules.persistent``): when the environment has
  taken a step, a fact no frame rule keeps (ScienceWorld's ``in``) is gone, as
  it is from the environment's own store.
- :class:`BeliefStore` (w_hat): (p, v_hat, sigma) from simulation; read only by
  the controller's pruning. Nothing that predicts or verifies is given it.
- :class:`Hypothesis`: a candidate plan with Pre(h) and h.expected(p).
- :class:`Listing`: where the prompts list each grounded fact (a fact keeps the
  place it was first listed at, so consecutive prompts share a long beginning).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from veriplan.envs.base import Fact
from veriplan.methods.aec.domain import FactState, Key, key_of, show
from veriplan.methods.aec.repair import Counterexample, RuleBook, retract_conflicts


class Listing:
    """The order in which the prompts list the grounded facts (issue 36 part 3).

    A fact keeps the place it was first listed at, whatever its value is later
    and even while it is out of w (forgotten, then grounded again); the facts
    listed for the first time come after all those listed before, the
    ``static`` ones (of predicates no action changes: kinds and abilities)
    first, then the others, each group sorted. So the order depends only on
    the episode's history (which facts each earlier listing had), never on
    the order a set or a grounder gave them in; and a prompt shares its list
    with the one before up to the first fact that changed, not up to the
    first fact that sorts after a new one (a move changes the agent's
    ``at`` facts, which sorted first of all)."""

    def __init__(self, static: frozenset[str] = frozenset()) -> None:
        self.static = static
        self.places: dict[Key, int] = {}

    def arrange(self, facts: Iterable[tuple[Key, bool]]) -> list[tuple[Key, bool]]:
        """``facts`` (key, value) in listing order; the keys listed for the first
        time are given their places."""
        facts = list(facts)
        new = sorted({k for k, _ in facts if k not in self.places},
                     key=lambda k: (k[0] not in self.static, k))
        for k in new:
            self.places[k] = len(self.places)
        return sorted(facts, key=lambda kv: self.places[kv[0]])


class GroundedStore:
    """w: grounded predicate assignments with where each came from.
    ``static``: the predicates no action changes (the action model's), listed
    first among new facts in the prompts (:class:`Listing`)."""

    def __init__(self, rules: RuleBook, static: frozenset[str] = frozenset()) -> None:
        self.state = FactState()
        self.rules = rules
        self.listing = Listing(static)
        self.version = 0
        self.provenance: dict[Key, tuple[str, int]] = {}  # key -> (source, env step)
        self._cache: dict[Key, tuple[bool | None, str | None]] = {}
        self._stamp = (-1, -1)

    def value(self, key: Key) -> bool | None:
        """The grounded value of ``key`` (None: not in dom(w))."""
        return self.state.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self.state

    def __len__(self) -> int:
        return len(self.state)

    def known(self, key: Key) -> tuple[bool | None, str | None]:
        """(value, rule): grounded (rule None), else entailed by an enabled
        rule from w (w |= p), else (None, None)."""
        v = self.state.get(key)
        if v is not None:
            return v, None
        stamp = (self.version, self.rules.version)
        if stamp != self._stamp:
            self._cache.clear()
            self._stamp = stamp
        hit = self._cache.get(key)
        if hit is None:
            e = self.rules.entails(self.state, key)
            hit = (e[0], e[1]) if e is not None else (None, None)
            self._cache[key] = hit
        return hit

    def ground(self, facts: Iterable[Fact], source: str, step: int,
               touched: Iterable[Key] = (), *, ticked: bool = False) -> list[Counterexample]:
        """Add grounded facts (newer evidence replaces older; facts it
        contradicts under the rules are removed). ``touched``: keys an executed
        action may have changed, forgotten first. ``ticked``: the environment
        took a step (that it did not refuse) since w was last written, so the
        facts no frame rule keeps are forgotten first (:meth:`expire`).
        Returns the counterexamples to the rules that this evidence is (a
        rule's entailment from facts grounded at this same step that the new
        facts contradict)."""
        facts = list(dict.fromkeys(facts))
        if ticked:
            self.expire()
        for k in touched:
            self.state.forget(k)
            self.provenance.pop(k, None)
        fresh = [f for f in facts if self.state.get(key_of(f)) is None]
        for f in facts:
            self.state.set(key_of(f), f.value)
            self.provenance[key_of(f)] = (source, step)
        for k in retract_conflicts(self.state, facts, self.rules):
            self.provenance.pop(k, None)
        self.version += 1
        return self._counterexamples(fresh, source, step)

    def expire(self) -> list[Key]:
        """Forget every fact whose predicate no frame rule keeps past a step
        (``rules.persistent``); returns their keys."""
        gone = [(f.pred, f.args) for f in self.state.facts()
                if not self.rules.persists(f.pred)]
        for k in gone:
            self.state.forget(k)
            self.provenance.pop(k, None)
        if gone:
            self.version += 1
        return gone

    def _counterexamples(self, fresh: list[Fact], source: str, step: int
                         ) -> list[Counterexample]:
        """Rules applied to the facts grounded at this same step (so no premise
        is stale) that contradict a newly grounded fact."""
        if not fresh:
            return []
        now = FactState(Fact(k[0], k[1], v) for k, v in
                        ((k, self.state.get(k)) for k, (_, s) in self.provenance.items()
                         if s == step) if v is not None)
        out = []
        for f in fresh:
            e = self.rules.entails(now, key_of(f))
            if e is not None and e[0] != f.value:
                out.append(Counterexample(e[1], key_of(f), e[0], f.value, source, step))
        return out

    def facts(self) -> list[Fact]:
        return sorted(self.state.facts(), key=lambda f: (f.pred, f.args))

    def describe(self) -> list[str]:
        """The grounded facts as prompt lines, in the order of :attr:`listing`
        (which this call extends with the facts listed for the first time)."""
        return [show(k, v) for k, v in self.listing.arrange(
            (key_of(f), f.value) for f in self.state.facts())]


class BeliefRecord(TypedDict):
    value: bool
    sigma: float


class BeliefStore:
    """w_hat: (p, v_hat, sigma) for simulated predicates."""

    def __init__(self) -> None:
        self.entries: dict[Key, tuple[bool, float]] = {}

    def record(self, key: Key, value: bool, sigma: float) -> None:
        self.entries[key] = (value, sigma)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def to_dict(self) -> dict[str, BeliefRecord]:
        """The beliefs by predicate, shown."""
        return {show(k): {"value": v, "sigma": round(s, 4)} for k, (v, s) in self.entries.items()}


class PreconditionRecord(TypedDict):
    p: str
    expected: bool
    stated: bool
    step: NotRequired[int]  # 1-based: the step that needs a derived precondition


class HypothesisRecord(TypedDict):
    """A :class:`Hypothesis` as the transcript keeps it."""

    index: int
    actions: list[str]
    score: float
    pre: list[PreconditionRecord]
    notes: list[str]


@dataclass
class Hypothesis:
    """A candidate plan: its actions, Pre(h) with h.expected(p), and SCORE(h).
    ``stated``: the preconditions the model annotated; the others were derived
    from the action model (what a step needs that no earlier step brings about).
    ``steps``: for a derived precondition, the (0-based) step that needs it."""

    actions: tuple[str, ...]
    pre: dict[Key, bool]
    score: float = 0.5
    index: int = 0
    stated: frozenset[Key] = frozenset()
    notes: list[str] = field(default_factory=list)
    steps: dict[Key, int] = field(default_factory=dict)

    def expected(self, key: Key) -> bool | None:
        return self.pre.get(key)

    def to_dict(self) -> HypothesisRecord:
        return {"index": self.index, "actions": list(self.actions), "score": self.score,
                "pre": [{"p": show(k), "expected": v, "stated": k in self.stated,
                         **({"step": self.steps[k] + 1} if k in self.steps else {})}
                        for k, v in self.pre.items()], "notes": list(self.notes)}

    def need(self, key: Key) -> str:
        """Who in the plan needs ``key``: "step 2 (take apple 1 from countertop 1)"
        for a derived precondition, else "the plan"."""
        i = self.steps.get(key)
        return "the plan" if i is None else f"step {i + 1} ({self.actions[i]})"



def support(h: Hypothesis, w: GroundedStore, beliefs: BeliefStore | None = None) -> float:
    """SCORE(h) as the method computes it (``score="grounded"``, the default):
    the estimated chance that every p in Pre(h) holds as h expects, read from
    the two stores, each p taken apart: grounded or entailed by w, 1 when it
    agrees and 0 when it does not; believed in w_hat with (v_hat, sigma),
    1 - sigma when v_hat agrees and sigma when not (sigma clipped to [0, 1]);
    in neither, 1/2. The model's own score plays no part."""
    value = 1.0
    for k, e in h.pre.items():
        v, _ = w.known(k)
        if v is not None:
            value *= 1.0 if v == e else 0.0
        elif beliefs is not None and k in beliefs.entries:
            b, sigma = beliefs.entries[k]
            sigma = min(1.0, max(0.0, sigma))
            value *= 1.0 - sigma if b == e else sigma
        else:
            value *= 0.5
    return value


SCORES = ("grounded", "model")


def best(hypotheses: list[Hypothesis], w: GroundedStore | None = None,
         beliefs: BeliefStore | None = None) -> Hypothesis | None:
    """argmax SCORE(h), the earliest on ties. With ``w``: SCORE is
    :func:`support` (computed by the method from w and w_hat); without it: the
    score the model reported for h (``score="model"``, before issue 33 the only
    one)."""
    if not hypotheses:
        return None
    if w is None:
        return max(hypotheses, key=lambda h: (h.score, -h.index))
    return max(hypotheses, key=lambda h: (support(h, w, beliefs), -h.index))


def conflict(h: Hypothesis, w: GroundedStore) -> tuple[Key, bool, str | None] | None:
    """The first precondition of ``h`` that w contradicts (grounded, or entailed
    by a rule): (p, h.expected(p), the rule or None); None when there is none."""
    for k, e in h.pre.items():
        v, rule = w.known(k)
        if v is not None and v != e:
            return k, e, rule
    return None


def consistent(h: Hypothesis, w: GroundedStore) -> bool:
    """No precondition of ``h`` is contradicted by w (grounded or entailed)."""
    return conflict(h, w) is None


def as_facts(values: Mapping[Key, bool]) -> list[Fact]:
    return [Fact(k[0], k[1], v) for k, v in values.items()]


__all__ = ["BeliefStore", "GroundedStore", "Hypothesis", "Listing", "SCORES", "as_facts", "best",
           "conflict", "consistent", "support"]
