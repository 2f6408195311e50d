"""Algorithm 1 (uncertainty-guided epistemic control), one planning round:

    while |U| > 0 and q_budget > 0 and |H| > 0:
        p* <- SELECTPRECONDITION(U, H)
        (mu, sigma) <- M(w, p*)
        if |mu - 0.5| < epsilon or sigma > tau: QUERY(p*), ground, prune H by v
        else: record (p*, v_hat, sigma) in w_hat, prune H by v_hat
    h* <- argmax SCORE(h); commit only if V(h*, w, w*)

The predictor is given the grounded store and the predicate, nothing else; V is
given the grounded facts. The belief store is read here only, to leave
simulated predicates out of U and to prune.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from veriplan.core.verdict import Finding, FindingKind
from veriplan.methods.aec.domain import ActionModel, FactState, Goal, Key, show
from veriplan.methods.aec.predictor import Prediction, Predictor
from veriplan.methods.aec.state import BeliefStore, GroundedStore, Hypothesis, best, conflict
from veriplan.methods.aec.verifier import Verification, judge, unchecked, ungrounded, verify
from veriplan.methods.records import Event, Observer, quiet

QUERY_AMBIGUOUS, QUERY_UNCERTAIN, QUERY, SIMULATE = ("query:ambiguous", "query:uncertain",
                                                     "query", "simulate")


@dataclass(frozen=True)
class Policy:
    """How a round decides and commits. AEC: ``gating="aec"``; its ablations
    turn off ``verification`` or gating (``"simulate"``: every p* is simulated);
    Query-Only: ``"query"`` (no predictions); WKM: ``"simulate"`` with
    ``beliefs_as_facts`` (its verifier reads w and w_hat: the leak AEC forbids).
    ``unchecked_commits``: commit h* when V's verdict is unknown for reasons no
    query could remove (:attr:`Verification.uncheckable`: ScienceWorld's goals
    and most of its commands); such a commit is recorded with
    :attr:`Scope.UNCHECKED`, never as a grounded one. False: commit only on
    valid (Algorithm 1 to the letter)."""

    gating: str = "aec"
    verification: bool = True
    ground_commit: bool = True
    beliefs_as_facts: bool = False
    unchecked_commits: bool = True
    # SCORE(h) for h* = argmax: "grounded", computed by the method from w and w_hat
    # (:func:`support`); "model": the score the model reported with the plan.
    score: str = "grounded"


@dataclass(frozen=True)
class Answer:
    """QUERY(p): the value grounded (None: still unknown) and whether the
    episode's step budget is spent."""

    value: bool | None
    exhausted: bool = False


class DecisionRecord(TypedDict):
    """A :class:`Decision` as the episode's metrics keep it."""

    p: str
    kind: str
    phase: str
    mu: float | None
    sigma: float | None
    value: bool | None
    H: list[int]  # |H| before and after


@dataclass
class Decision:
    key: Key
    kind: str
    mu: float | None = None
    sigma: float | None = None
    value: bool | None = None
    before: int = 0
    after: int = 0
    phase: str = "loop"  # or "commit": grounding h*'s preconditions before V

    def to_dict(self) -> DecisionRecord:
        return {"p": show(self.key), "kind": self.kind, "phase": self.phase,
                "mu": None if self.mu is None else round(self.mu, 4),
                "sigma": None if self.sigma is None else round(self.sigma, 4),
                "value": self.value, "H": [self.before, self.after]}


_SOURCES = {"observation": "was observed", "query": "was found by a query",
            "execution": "was observed after acting"}


class DroppedRecord(TypedDict):
    """A :class:`Dropped` as the transcript keeps it."""

    index: int
    actions: list[str]
    p: str
    expected: bool
    value: bool
    by: str
    decision: int
    source: str
    rule: str | None
    stated: bool
    why: str


@dataclass(frozen=True)
class Dropped:
    """A hypothesis that left H, and why: its precondition ``key`` (expected
    ``expected``) met the value ``value`` by ``by``: "evidence" (B.4's override:
    w contradicts it, grounded from ``source`` or entailed by ``rule``),
    "query" (pruned by a grounded value, line 12/17) or "simulation" (pruned by
    a belief, line 22; not evidence). ``decision``: the decision's number in
    the round (0: before the first)."""

    hypothesis: Hypothesis
    key: Key
    expected: bool
    value: bool
    by: str
    decision: int = 0
    source: str = ""
    rule: str | None = None

    @property
    def grounded(self) -> bool:
        return self.by != "simulation"

    def why(self) -> str:
        """The counterexample in words, for the record and the next planning
        prompt: "step 1 (take apple 1 from countertop 1) needs at(agent,
        countertop 1) = true, but at(agent, countertop 1) = false was observed"."""
        h, k = self.hypothesis, self.key
        seen = show(k, self.value)
        if self.by == "simulation":
            how = f"the world model predicted {seen} (not observed)"
        elif self.rule:
            how = f"{seen} follows from what was observed (rule {self.rule})"
        else:
            how = f"{seen} {_SOURCES.get(self.source, 'was observed')}"
        return f"{h.need(k)} needs {show(k, self.expected)}, but {how}"

    def to_dict(self) -> DroppedRecord:
        return {"index": self.hypothesis.index, "actions": list(self.hypothesis.actions),
                "p": show(self.key), "expected": self.expected, "value": self.value,
                "by": self.by, "decision": self.decision, "source": self.source,
                "rule": self.rule, "stated": self.key in self.hypothesis.stated,
                "why": self.why()}


@dataclass
class Round:
    """What one run of Algorithm 1 did: its decisions, every hypothesis that
    left H with the reason (``dropped``), why the loop stopped, h* and V."""

    stop: str = ""
    decisions: list[Decision] = field(default_factory=list)
    discarded: int = 0  # by evidence override
    dropped: list[Dropped] = field(default_factory=list)
    chosen: Hypothesis | None = None
    verdict: Verification | None = None
    committed: bool = False

    def counterexamples(self) -> list[str]:
        """The grounded reasons hypotheses were dropped, each once (beliefs are
        left out: they are not evidence)."""
        return list(dict.fromkeys(d.why() for d in self.dropped if d.grounded))


class Controller:
    def __init__(self, hypotheses: list[Hypothesis], w: GroundedStore,
                 predictor: Predictor | None, query: Callable[[Key], Answer], policy: Policy,
                 *, epsilon: float, tau: float, max_queries: int,
                 actions: ActionModel | None, goal: Goal | None, emit: Observer = quiet,
                 on_prediction: Callable[[Key, Prediction], None] | None = None,
                 unsettled: Callable[[Key], bool] | None = None) -> None:
        self.H = list(hypotheses)
        self.w = w
        self.beliefs = BeliefStore()
        self.predictor = predictor
        self.query = query
        self.policy = policy
        self.epsilon, self.tau = epsilon, tau
        self.q_budget = max_queries
        self.actions, self.goal = actions, goal
        self.emit = emit
        self.on_prediction = on_prediction
        self.unanswerable: set[Key] = set()  # queried in this round, not settled
        # an earlier round's query could not settle it and nothing changed since
        self.unsettled = unsettled or (lambda key: False)
        self.unasked: set[Key] = set()  # left out for that reason
        self.exhausted = False
        self.round = Round()
        self.at = 0  # the number of the decision being made (0: none yet)

    # ----- U, SELECTPRECONDITION, gating, pruning ----------------------------------------
    def unresolved(self) -> dict[Key, list[int]]:
        """U = union over H of U(w, w_hat, h) (Eq. 1), each p with how many
        hypotheses expect it true and false. A predicate entailed by the rules
        from w counts as resolved, and one a query could not settle is left out
        (asked in this round, or asked earlier in the episode in the same state:
        ``unsettled``)."""
        counts: dict[Key, list[int]] = {}
        skip: set[Key] = set()
        known = self.w.known
        for h in self.H:
            for k, e in h.pre.items():
                c = counts.get(k)
                if c is None:
                    if k in skip:
                        continue
                    if k in self.beliefs or k in self.unanswerable or known(k)[0] is not None \
                            or self._unsettled(k):
                        skip.add(k)
                        continue
                    c = counts[k] = [0, 0]
                c[0 if e else 1] += 1
        return counts

    def _unsettled(self, key: Key) -> bool:
        if self.unsettled(key):
            self.unasked.add(key)
            return True
        return False

    @staticmethod
    def select(unresolved: dict[Key, list[int]]) -> Key:
        """The p that splits H most evenly by expected value (most hypotheses
        on the smaller side; then the most hypotheses that name it; then the
        first seen)."""
        return max(unresolved.items(), key=lambda kv: (min(kv[1]), kv[1][0] + kv[1][1]))[0]

    def gate(self, pred: Prediction) -> str:
        if self.policy.gating == "simulate":
            return SIMULATE
        # |mu - 0.5| < epsilon, with a tolerance so that mirror-image vote shares
        # (0.7 and 0.3: 0.19999999999999996 and 0.2 in floating point) gate alike
        if abs(pred.mu - 0.5) < self.epsilon - 1e-9:
            return QUERY_AMBIGUOUS
        if pred.sigma > self.tau:
            return QUERY_UNCERTAIN
        return SIMULATE

    def prune(self, key: Key, value: bool, by: str = "query") -> None:
        """H <- {h : h.expected(p) = v}; a hypothesis without p in Pre(h) stays.
        ``by``: "query" (v grounded) or "simulation" (v believed)."""
        kept = []
        for h in self.H:
            if h.pre.get(key, value) == value:
                kept.append(h)
            else:
                self.round.dropped.append(Dropped(h, key, h.pre[key], value, by, self.at,
                                                  self._source(key) if by == "query" else ""))
        self.H = kept

    def _source(self, key: Key) -> str:
        prov = self.w.provenance.get(key)
        return prov[0] if prov else ""

    def override(self) -> None:
        """B.4's evidence override: hypotheses that grounded facts contradict go."""
        kept = []
        for h in self.H:
            c = conflict(h, self.w)
            if c is None:
                kept.append(h)
                continue
            k, e, rule = c
            self.round.dropped.append(Dropped(h, k, e, not e, "evidence", self.at,
                                              self._source(k) if rule is None else "", rule))
            self.round.discarded += 1
        self.H = kept

    # ----- one decision ----------------------------------------------------------------------
    def _query(self, key: Key, kind: str, decision: Decision) -> None:
        answer = self.query(key)
        self.q_budget -= 1
        self.exhausted = answer.exhausted
        decision.value = answer.value
        if answer.value is None:
            self.unanswerable.add(key)
        else:
            self.prune(key, answer.value)
        self.override()
        decision.after = len(self.H)
        self.emit(Event("query", f"{show(key)} -> {answer.value} ({kind}); |H| "
                        f"{decision.before} -> {decision.after}"))

    def _simulate(self, key: Key, pred: Prediction, decision: Decision) -> None:
        v = pred.mu >= 0.5
        self.beliefs.record(key, v, pred.sigma)
        self.prune(key, v, "simulation")
        decision.kind, decision.value, decision.after = SIMULATE, v, len(self.H)
        self.emit(Event("simulate", f"{show(key)} believed {v} (mu {pred.mu:.2f}, sigma "
                        f"{pred.sigma:.2f}); |H| {decision.before} -> {decision.after}"))

    def predict(self, key: Key, decision: Decision) -> Prediction:
        assert self.predictor is not None
        pred = self.predictor.predict(self.w, key)  # M(w, p*): the grounded store only
        if self.on_prediction is not None:
            self.on_prediction(key, pred)
        decision.mu, decision.sigma = pred.mu, pred.sigma
        return pred

    def decide(self, key: Key) -> Decision:
        self.at = len(self.round.decisions) + 1
        decision = Decision(key, QUERY, before=len(self.H))
        if self.policy.gating == "query" or self.predictor is None:
            self._query(key, QUERY, decision)
            return decision
        pred = self.predict(key, decision)
        kind = self.gate(pred)
        if kind == SIMULATE:
            self._simulate(key, pred, decision)
        else:
            decision.kind = kind
            self._query(key, kind, decision)
        return decision

    # ----- the loop and the commitment ----------------------------------------------------------
    def run(self) -> str:
        """Lines 4-25; returns why the loop stopped."""
        self.override()
        while True:
            if self.exhausted:
                stop = "step budget spent"
                break
            if not self.H:
                stop = "H is empty"
                break
            if self.q_budget <= 0:
                stop = "query budget spent"
                break
            unresolved = self.unresolved()
            if not unresolved:
                stop = "U is empty"
                break
            self.round.decisions.append(self.decide(self.select(unresolved)))
        self.round.stop = stop
        return stop

    def ground_commit(self) -> None:
        """Query the best hypothesis's still-ungrounded requirements (those only
        believed, or unknown at a step) within the query budget; when a query
        discards it, the next best is taken. (WKM predicts them instead, and
        takes the predictions as facts.)"""
        leak = self.policy.beliefs_as_facts
        while self.H and self.q_budget > 0 and not self.exhausted:
            h = self.best()
            assert h is not None
            needs = [k for k in ungrounded(h, self.facts_for_verifier(), self.w.rules,
                                           self.actions)
                     if k not in self.unanswerable and not (leak and k in self.beliefs)
                     and not self._unsettled(k)]
            if not needs:
                return
            self.at = len(self.round.decisions) + 1
            decision = Decision(needs[0], QUERY, before=len(self.H), phase="commit")
            if leak and self.predictor is not None:
                self._simulate(needs[0], self.predict(needs[0], decision), decision)
            else:
                self._query(needs[0], QUERY, decision)
            self.round.decisions.append(decision)

    def best(self) -> Hypothesis | None:
        """h* = argmax SCORE(h) over H (see :attr:`Policy.score`)."""
        if self.policy.score == "model":
            return best(self.H)
        return best(self.H, self.w, self.beliefs)

    def facts_for_verifier(self) -> FactState:
        if not self.policy.beliefs_as_facts:
            return self.w.state
        merged = self.w.state.copy()  # WKM only: predictions used as truth
        for k, (v, _) in self.beliefs.entries.items():
            if merged.get(k) is None:
                merged.set(k, v)
        return merged

    def commit(self) -> tuple[Hypothesis | None, Verification]:
        """Lines 26-31: h* = argmax SCORE(h), committed only if V(h*, w, w*) is
        valid, or (``unchecked_commits``) unknown for reasons no query could
        remove; :attr:`Round.committed` says whether it was. The verdict's
        scope says what decided it: :attr:`Scope.PLAN_ON_GROUNDED_FACTS` (the
        grounded facts) or :attr:`Scope.UNCHECKED` (nothing grounded). WKM's V reads
        its predictions as facts: a plan valid only with them is recorded as
        unchecked."""
        if self.policy.verification and self.policy.ground_commit:
            self.ground_commit()
        h = self.best()
        if h is None:
            verdict = judge([Finding(FindingKind.EMPTY, None, "", "no hypothesis is left (H "
                                     "is empty)" + (f": {len(self.round.dropped)} discarded"
                                                    if self.round.dropped else ""))])
        elif not self.policy.verification:
            verdict = unchecked("committed without verification")
        else:
            verdict = verify(h, self.facts_for_verifier(), self.w.rules, self.actions,
                             self.goal)
            if self.policy.beliefs_as_facts and verdict.verdict is not \
                    verify(h, self.w.state, self.w.rules, self.actions, self.goal).verdict:
                why = "decided only with the world model's predictions taken as facts"
                verdict = judge([Finding(FindingKind.UNCHECKABLE, None, "", why),
                                 *verdict.findings], reason=f"{verdict.reason or 'valid'}: "
                                f"{why}", relied=verdict.relied) \
                    if verdict.ok else verdict
        committed = h is not None and (verdict.ok or (verdict.uncheckable and (
            self.policy.unchecked_commits or not self.policy.verification)))
        self.round.chosen, self.round.verdict, self.round.committed = h, verdict, committed
        self.emit(Event("verify", verdict.reason or "V accepts h*", ok=verdict.ok,
                        plan=tuple(h.actions) if h else (),
                        data={"verdict": verdict.verdict.value, "scope": verdict.scope.value,
                              "committed": committed}))
        return h, verdict


__all__ = ["Answer", "Controller", "Decision", "Dropped", "Policy", "QUERY", "QUERY_AMBIGUOUS",
           "QUERY_UNCERTAIN", "Round", "SIMULATE"]
