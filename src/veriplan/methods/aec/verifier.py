"""The sound verifier V(h, w, w*) = CHECKPRE(h, w) and PULLBACKVERIFY(h, w, w*)
(Eq. 6), and the symbolic plan application Apply(h, w) it rests on
(Definition 3.3).

Every function here takes the grounded facts (a :class:`FactState`) and the
rule book, never the belief store: V reads w only. The caller that passes
something else is the WKM baseline, which by design treats predictions as
facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from veriplan.envs.base import Fact
from veriplan.methods.aec.domain import ActionModel, FactState, Goal, Key, key_of, show
from veriplan.methods.aec.repair import RuleBook, retract_conflicts
from veriplan.methods.aec.state import Hypothesis

Relied = tuple[int, Key, bool, str]  # (step, predicate, value, rule): an entailment V used


def lookup(state: FactState, rules: RuleBook, key: Key) -> tuple[bool | None, str | None]:
    v = state.get(key)
    if v is not None:
        return v, None
    e = rules.entails(state, key)
    return (e[0], e[1]) if e is not None else (None, None)


@dataclass
class Application:
    """Apply(h, w): what each step needed and what the plan leaves.

    ``unknown``/``contradicted``: (step, fact) pairs whose precondition was
    neither known nor entailed, or known to be the opposite (``grounded``:
    the contradicting value was in the starting facts, not brought about by
    an earlier step). ``unknown_action``: the first step the action model does
    not know. ``touched``: every predicate an effect wrote."""

    state: FactState
    unknown: list[tuple[int, Fact]] = field(default_factory=list)
    contradicted: list[tuple[int, Fact, bool]] = field(default_factory=list)
    relied: list[Relied] = field(default_factory=list)
    touched: set[Key] = field(default_factory=set)
    noops: list[int] = field(default_factory=list)
    unknown_action: int | None = None


def may_change(model: ActionModel, action: str, state: FactState) -> set[Key]:
    """The predicates ``action`` may change from ``state``: the model's own
    ``touched`` when it has one (None there: every fact but the static ones),
    else the keys of its effects."""
    fn = getattr(model, "touched", None)
    keys = {key_of(f) for f in model.effects(action, state)}
    if fn is None:
        return keys
    out = fn(action, state)
    if out is None:
        static = getattr(model, "static", frozenset())
        return keys | {key_of(f) for f in state.facts() if f.pred not in static}
    return keys | set(out)


def is_noop(effects: Sequence[Fact], state: FactState, rules: RuleBook) -> bool:
    return bool(effects) and all(lookup(state, rules, key_of(f))[0] == f.value for f in effects)


def _guards(effects: Sequence[Fact], state: FactState, rules: RuleBook) -> set[tuple[Key, bool]]:
    """Preconditions that only say "not already so": the negation of an effect
    when every other effect already holds (were it false, the step would be a
    no-op, which is skipped). "open R" needs R closed only in this sense; "take O
    from R" needs O in R for real (holding O is not already so)."""
    out = set()
    for f in effects:
        if all(lookup(state, rules, key_of(g))[0] == g.value for g in effects if g is not f):
            out.add((key_of(f), not f.value))
    return out


def apply_plan(actions: Sequence[str], start: FactState, rules: RuleBook,
               model: ActionModel, *, stop_on_unknown_action: bool = True) -> Application:
    """Symbolic execution of ``actions`` from ``start`` (copied, never changed).
    No-op steps (every effect already holds) are skipped, and a "not already
    so" guard (:func:`_guards`) is not a requirement."""
    state = start.copy()
    app = Application(state)
    written: set[Key] = set()
    for i, action in enumerate(actions):
        pre = model.preconditions(action, state)
        if pre is None:
            if app.unknown_action is None:
                app.unknown_action = i
            if stop_on_unknown_action:
                break
            continue
        eff = list(model.effects(action, state))
        if is_noop(eff, state, rules):
            app.noops.append(i)
            continue
        guards = _guards(eff, state, rules)
        for f in pre:
            k = key_of(f)
            if (k, f.value) in guards:
                continue
            v, rule = lookup(state, rules, k)
            if v is None:
                app.unknown.append((i, f))
            elif v != f.value:
                app.contradicted.append((i, f, k not in written))
            elif rule is not None:
                app.relied.append((i, k, v, rule))
        changed = may_change(model, action, state)
        for k in changed:
            state.forget(k)
        for f in eff:
            state.set(key_of(f), f.value)
            written.add(key_of(f))
        app.touched |= changed
        retract_conflicts(state, eff, rules)
    return app


@dataclass
class Verdict:
    """V's answer with its reasons: ``missing`` preconditions neither grounded
    nor entailed, ``contradicted`` ones, the entailments it ``relied`` on
    (for B.4's counterexamples), and each conjunct's result."""

    ok: bool
    reason: str = ""
    check_pre: bool | None = None
    pullback: bool | None = None
    missing: list[Key] = field(default_factory=list)
    contradicted: list[Key] = field(default_factory=list)
    relied: list[Relied] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "reason": self.reason, "check_pre": self.check_pre,
                "pullback": self.pullback, "missing": [show(k) for k in self.missing],
                "contradicted": [show(k) for k in self.contradicted],
                "relied": [{"step": i, "p": show(k), "value": v, "rule": r}
                           for i, k, v, r in self.relied]}


def check_pre(h: Hypothesis, w: FactState, rules: RuleBook) -> Verdict:
    """CHECKPRE(h, w): every p in Pre(h) is grounded in w or entailed by the
    rules, with the value h expects."""
    missing, contradicted, relied = [], [], []
    for k, expected in h.pre.items():
        v, rule = lookup(w, rules, k)
        if v is None:
            missing.append(k)
        elif v != expected:
            contradicted.append(k)
        elif rule is not None:
            relied.append((-1, k, v, rule))
    ok = not missing and not contradicted
    reason = "" if ok else (f"precondition {show(contradicted[0])} is contradicted by w"
                            if contradicted else
                            f"precondition {show(missing[0])} is neither grounded nor entailed")
    return Verdict(ok, reason, ok, None, missing, contradicted, relied)


def pullback(h: Hypothesis, w: FactState, rules: RuleBook, model: ActionModel | None,
             goal: Goal | None) -> Verdict:
    """PULLBACKVERIFY(h, w, w*): h applied symbolically to w composes (each
    step's preconditions hold, grounded or entailed, in the state the earlier
    steps leave) and the final state satisfies the goal constraints."""
    if model is None:
        return Verdict(False, "no symbolic action model for this environment", None, False)
    app = apply_plan(h.actions, w, rules, model)
    if app.unknown_action is not None:
        i = app.unknown_action
        return Verdict(False, f"step {i + 1} ({h.actions[i]}) is not an action the model "
                       "knows", None, False)
    if app.contradicted:
        i, f, _ = app.contradicted[0]
        return Verdict(False, f"step {i + 1} ({h.actions[i]}) needs {show(key_of(f), f.value)}"
                       ", which does not hold", None, False,
                       contradicted=[key_of(f) for _, f, _ in app.contradicted],
                       relied=app.relied)
    if app.unknown:
        i, f = app.unknown[0]
        return Verdict(False, f"step {i + 1} ({h.actions[i]}) needs {show(key_of(f), f.value)}"
                       ", which is neither grounded nor entailed", None, False,
                       missing=list(dict.fromkeys(key_of(f) for _, f in app.unknown)),
                       relied=app.relied)
    if goal is not None and not goal.check(app.state):
        return Verdict(False, f"the plan does not reach the goal ({goal.text})", None, False,
                       relied=app.relied)
    return Verdict(True, "", None, True, relied=app.relied)


def verify(h: Hypothesis, w: FactState, rules: RuleBook, model: ActionModel | None,
           goal: Goal | None) -> Verdict:
    """V(h, w, w*) = CHECKPRE(h, w) and PULLBACKVERIFY(h, w, w*)."""
    pre = check_pre(h, w, rules)
    if not pre.ok:
        return pre
    pb = pullback(h, w, rules, model, goal)
    pb.check_pre = True
    pb.relied = pre.relied + pb.relied
    return pb


def ungrounded(h: Hypothesis, w: FactState, rules: RuleBook, model: ActionModel | None
               ) -> list[Key]:
    """What V would still need grounded for ``h``: its preconditions that are
    neither grounded nor entailed, then the steps' unknown requirements."""
    out = [k for k in h.pre if lookup(w, rules, k)[0] is None]
    if model is not None:
        app = apply_plan(h.actions, w, rules, model)
        out += [key_of(f) for _, f in app.unknown]
    return list(dict.fromkeys(out))


def derive(actions: Sequence[str], w: FactState, rules: RuleBook, model: ActionModel | None,
           stated: dict[Key, bool]) -> tuple[dict[Key, bool], list[str], dict[Key, int]]:
    """Pre(h) for a proposed plan: what its steps need that no earlier step
    brings about (regressed to the current state by the action model), and the
    model's stated preconditions on predicates no step writes. Returns Pre(h),
    notes (a step the model does not know, a step that contradicts an earlier
    one's effect) and, for each derived precondition, the step that needs it."""
    if model is None:
        return dict(stated), [], {}
    app = apply_plan(actions, w, rules, model, stop_on_unknown_action=False)
    pre = {k: v for k, v in stated.items() if k not in app.touched}
    notes = []
    needed: dict[Key, bool] = {}
    steps: dict[Key, int] = {}
    for i, f in app.unknown:  # the earliest step's need, over what the model stated
        if key_of(f) not in needed:
            needed[key_of(f)] = f.value
            steps[key_of(f)] = i
    pre.update(needed)
    for i, f, grounded in app.contradicted:
        if grounded:  # the current facts already refute it: evidence override drops h
            if key_of(f) not in steps or pre.get(key_of(f)) != f.value:
                steps[key_of(f)] = i
            pre[key_of(f)] = f.value
        else:
            notes.append(f"step {i + 1} ({actions[i]}) needs {show(key_of(f), f.value)}, "
                         "which an earlier step undoes")
    if app.unknown_action is not None:
        notes.append(f"step {app.unknown_action + 1} ({actions[app.unknown_action]}) is not "
                     "an action the model knows")
    return pre, notes, steps


__all__ = ["Application", "Verdict", "apply_plan", "check_pre", "derive", "lookup", "pullback",
           "ungrounded", "verify"]
