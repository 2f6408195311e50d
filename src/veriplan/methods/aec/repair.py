"""Counterexample-driven verifier repair (appendix B.4) and what carries over
between iterations (Figure 3).

A counterexample is grounded evidence against an entailment the verifier's
rules produced: a rule entailed ``p = v`` and ``p = not v`` was grounded at
the same moment, a precondition the verifier took from a rule was contradicted
by what execution grounded, or an action whose precondition came from a rule
failed. The :class:`RuleBook` counts them per rule and disables a rule once it
has ``threshold`` of them (0: never). Evidence override, the other half of
B.4, is in the controller (hypotheses inconsistent with new grounded facts are
discarded) and in :class:`~veriplan.methods.aec.state.GroundedStore` (newer
grounded evidence replaces older).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from veriplan.envs.base import Fact
from veriplan.methods.aec.domain import FactState, Key, Rule, key_of, show

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue


@dataclass(frozen=True)
class Counterexample:
    rule: str
    key: Key
    entailed: bool
    observed: bool
    source: str  # the evidence: "observation", "query", "execution", "monitor", "failed_action"
    step: int

    def to_dict(self) -> dict[str, JSONValue]:  # its fields, the key shown
        d = asdict(self)
        d["key"] = show(self.key)
        return d


class RuleBook:
    """The verifier's entailment rules with B.4's tightening: counts of
    counterexamples per rule, and the rules disabled because of them.
    ``version`` changes when a rule is disabled (entailment caches key on it).

    ``persistent``: the environment's frame rules, as the predicates whose
    facts persist from one step to the next while no action changes them
    (None: every predicate persists). A fact of any other predicate lasts one
    observation: the grounded store forgets it when the environment takes a
    step, and Apply(h, w) after each step of a plan."""

    def __init__(self, rules: Sequence[Rule], threshold: int = 2,
                 disabled: Iterable[str] = (), counts: dict[str, int] | None = None,
                 persistent: frozenset[str] | None = None) -> None:
        self.persistent = persistent
        self.rules = tuple(rules)
        self.threshold = threshold
        self.disabled: set[str] = set(disabled)
        self.counts: dict[str, int] = dict(counts or {})
        self.log: list[Counterexample] = []
        self.seen: set[tuple[str, Key, int]] = set()
        self.disabled_now: list[str] = []
        self.version = 0
        self._active = tuple(r for r in self.rules if r.name not in self.disabled)

    def persists(self, pred: str) -> bool:
        """Whether a fact of ``pred`` outlives a step (a frame rule keeps it)."""
        return self.persistent is None or pred in self.persistent

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.rules)

    def entails(self, facts: FactState, key: Key) -> tuple[bool, str] | None:
        """The first enabled rule's value for ``key`` and the rule's name."""
        pred, args = key
        for rule in self._active:
            v = rule.entails(facts, pred, args)
            if v is not None:
                return v, rule.name
        return None

    def counterexample(self, ce: Counterexample) -> str:
        """Record ``ce``: "duplicate" (the same rule, predicate and moment were
        counted already), "recorded", or "disabled" (its rule is now off)."""
        if (ce.rule, ce.key, ce.step) in self.seen:
            return "duplicate"
        self.seen.add((ce.rule, ce.key, ce.step))
        self.log.append(ce)
        self.counts[ce.rule] = self.counts.get(ce.rule, 0) + 1
        if (self.threshold > 0 and ce.rule not in self.disabled
                and self.counts[ce.rule] >= self.threshold):
            self.disabled.add(ce.rule)
            self.disabled_now.append(ce.rule)
            self._active = tuple(r for r in self.rules if r.name not in self.disabled)
            self.version += 1
            return "disabled"
        return "recorded"


def retract_conflicts(state: FactState, new: Sequence[Fact], rules: RuleBook) -> list[Key]:
    """Evidence override inside a state: facts that the new facts (with the
    rules) contradict are removed, so the newer evidence stands alone. Removing
    a fact never makes a store unsound; it only makes it less complete."""
    if not new:
        return []
    fresh = FactState(new)
    words = {a for f in new for a in f.args}
    keys = {key_of(f) for f in new}
    gone = []
    for old in list(state.facts()):
        k = key_of(old)
        if k in keys or not words.intersection(old.args):
            continue
        e = rules.entails(fresh, k)
        if e is not None and e[0] != old.value:
            state.forget(k)
            gone.append(k)
    return gone


@dataclass
class Refinement:
    """What failure-driven refinement carries from one iteration to the next:
    the rules disabled and the counterexample counts (so a rule that misled two
    episodes is off in the third), and the prediction samples (raw uncertainty,
    whether the discretized prediction was right) that update the calibration."""

    disabled: set[str] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    samples: list[tuple[float, bool]] = field(default_factory=list)

    def absorb(self, rules: RuleBook, samples: Iterable[tuple[float, bool]]) -> None:
        self.disabled |= rules.disabled
        self.counts = dict(rules.counts)
        self.samples.extend(samples)


__all__ = ["Counterexample", "Refinement", "RuleBook", "retract_conflicts"]
