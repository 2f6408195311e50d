"""The sound verifier V(h, w, w*) = CHECKPRE(h, w) and PULLBACKVERIFY(h, w, w*)
(Eq. 6), and the symbolic plan application Apply(h, w) it rests on
(Definition 3.3). V returns a :class:`Verification`, a three-valued
:class:`~veriplan.core.verdict.Judgement`: valid, invalid, or unknown where no
grounded fact decides (UNGROUNDED: a query could settle it) or nothing V knows
could (UNCHECKABLE: no goal form, preconditions the action model states only
in part, a fact the environment's frame rules do not keep until its step).

Every function here takes the grounded facts (a :class:`FactState`) and the
rule book, never the belief store: V reads w only. The caller that passes
something else is the WKM baseline, which by design treats predictions as
facts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TypedDict, Unpack

from veriplan.core.verdict import Finding, FindingKind, Judgement, Scope
from veriplan.core.verdict import Verdict as JVerdict
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
    an earlier step). ``unknown`` holds only what the current facts could
    settle (nothing earlier in the plan may have changed it); ``beyond`` the
    unknown needs that nothing known now could settle: a fact an earlier step
    may have changed without saying how, or one no frame rule keeps past the
    steps before it (ScienceWorld's ``in``). ``unmodelled``: steps whose
    preconditions the action model states only in part. ``unknown_action``:
    the first step the action model does not know (``unknown_actions``: each
    one the application reached). ``touched``: every
    predicate an effect wrote."""

    state: FactState
    unknown: list[tuple[int, Fact]] = field(default_factory=list)
    contradicted: list[tuple[int, Fact, bool]] = field(default_factory=list)
    relied: list[Relied] = field(default_factory=list)
    touched: set[Key] = field(default_factory=set)
    noops: list[int] = field(default_factory=list)
    unknown_actions: list[int] = field(default_factory=list)
    beyond: list[tuple[int, Fact]] = field(default_factory=list)
    unmodelled: list[int] = field(default_factory=list)

    @property
    def unknown_action(self) -> int | None:
        return self.unknown_actions[0] if self.unknown_actions else None


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


def complete(model: ActionModel, action: str, state: FactState) -> bool:
    """Whether the model's preconditions of ``action`` are all it needs (the
    model's optional ``complete``; without one, they are taken to be)."""
    fn = getattr(model, "complete", None)
    return True if fn is None else bool(fn(action, state))


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


def _forget_step(model: ActionModel, action: str, state: FactState, rules: RuleBook
                 ) -> set[Key]:
    """Forget in ``state`` what ``action`` may change and every fact no frame rule
    keeps past a step; the keys the action may change."""
    changed = may_change(model, action, state)
    for k in changed:
        state.forget(k)
    for k in [key_of(f) for f in state.facts() if not rules.persists(f.pred)]:
        state.forget(k)
    return changed


class PastUnknown(Enum):
    """What :func:`apply_plan` does at a step the action model does not know:
    stop there; skip it (as if it changed nothing: Pre(h)'s regression, never
    a verdict); or go on with what it may change forgotten (the model's
    ``touched``: for ScienceWorld, everything but the agent's focus), so that
    V can still refute what no unknown step could undo."""

    STOP = "stop"
    SKIP = "skip"
    FORGET = "forget"


def apply_plan(actions: Sequence[str], start: FactState, rules: RuleBook,
               model: ActionModel, *, stop_on_unknown_action: bool = True,
               past_unknown: PastUnknown | None = None) -> Application:
    """Symbolic execution of ``actions`` from ``start`` (copied, never changed).
    No-op steps (every effect already holds) are skipped, and a "not already
    so" guard (:func:`_guards`) is not a requirement. After each step the
    environment's frame rules apply (``rules.persists``): a fact no frame rule
    keeps is gone unless the step itself wrote it, as in the environment's
    own store. At a step the model does not know: ``past_unknown`` (when None,
    STOP if ``stop_on_unknown_action`` else SKIP)."""
    if past_unknown is None:
        past_unknown = PastUnknown.STOP if stop_on_unknown_action else PastUnknown.SKIP
    state = start.copy()
    app = Application(state)
    written: set[Key] = set()
    lost: set[Key] = set()  # changed by an earlier step, the new value unknown
    ticked = False  # an earlier step ran (the environment's clock moved)
    for i, action in enumerate(actions):
        pre = model.preconditions(action, state)
        if pre is None:
            app.unknown_actions.append(i)
            if past_unknown is PastUnknown.STOP:
                break
            if past_unknown is PastUnknown.FORGET:
                changed = _forget_step(model, action, state, rules)
                lost |= changed
                written -= changed
                ticked = True
                app.touched |= changed
            continue
        eff = list(model.effects(action, state))
        if is_noop(eff, state, rules):
            app.noops.append(i)
            continue
        if not complete(model, action, state):
            app.unmodelled.append(i)
        guards = _guards(eff, state, rules)
        for f in pre:
            k = key_of(f)
            if (k, f.value) in guards:
                continue
            v, rule = lookup(state, rules, k)
            if v is None:
                if k in lost or (ticked and not rules.persists(k[0])):
                    app.beyond.append((i, f))
                else:
                    app.unknown.append((i, f))
            elif v != f.value:
                app.contradicted.append((i, f, k not in written))
            elif rule is not None:
                app.relied.append((i, k, v, rule))
        changed = _forget_step(model, action, state, rules)
        for f in eff:
            state.set(key_of(f), f.value)
            written.add(key_of(f))
        lost |= changed
        lost -= {key_of(f) for f in eff}
        ticked = True
        app.touched |= changed
        retract_conflicts(state, eff, rules)
    return app


@dataclass(frozen=True)
class Verification(Judgement):
    """V's answer: a :class:`~veriplan.core.verdict.Judgement` (valid,
    invalid, or unknown where no grounded fact decides or nothing V knows
    could) with its findings, and what AEC needs besides: ``reason`` in one
    line, each conjunct's result, the preconditions ``missing`` (neither
    grounded nor entailed, and a query now could settle them) and
    ``contradicted``, and the entailments it ``relied`` on (for B.4's
    counterexamples). Scope: :attr:`Scope.PLAN_ON_GROUNDED_FACTS` (the plan
    against the episode's grounded facts) when the facts decided, :attr:`Scope.UNCHECKED`
    when they did not."""

    reason: str = ""
    check_pre: bool | None = None
    pullback: bool | None = None
    missing: tuple[Key, ...] = ()
    contradicted: tuple[Key, ...] = ()
    relied: tuple[Relied, ...] = ()

    @property
    def ok(self) -> bool:
        """V accepts: valid (unknown is not)."""
        return self.valid

    @property
    def uncheckable(self) -> bool:
        """Unknown, and only for reasons no grounded fact could remove (no goal
        form, preconditions the model does not state, a fact the frame rules
        do not keep until the step that needs it): no query could make V
        decide."""
        return self.verdict is JVerdict.UNKNOWN and bool(self.findings) and all(
            f.kind is FindingKind.UNCHECKABLE for f in self.findings)

    def to_dict(self) -> dict[str, object]:  # as Judgement.to_dict, with AEC's fields
        return {**Judgement.to_dict(self), "ok": self.ok, "reason": self.reason,
                "check_pre": self.check_pre, "pullback": self.pullback,
                "missing": [show(k) for k in self.missing],
                "contradicted": [show(k) for k in self.contradicted],
                "relied": [{"step": i, "p": show(k), "value": v, "rule": r}
                           for i, k, v, r in self.relied]}


class VerificationFields(TypedDict, total=False):
    """What :func:`judge` passes on to :class:`Verification` besides the verdict."""

    check_pre: bool | None
    pullback: bool | None
    missing: tuple[Key, ...]
    contradicted: tuple[Key, ...]
    relied: tuple[Relied, ...]


def judge(findings: Sequence[Finding], *, reason: str = "",
          **extra: Unpack[VerificationFields]) -> Verification:
    """The verdict of ``findings``: invalid when one is decisive (anything but
    UNGROUNDED and UNCHECKABLE), unknown when there are others, else valid."""
    undecided = (FindingKind.UNGROUNDED, FindingKind.UNCHECKABLE)
    if any(f.kind not in undecided for f in findings):
        verdict = JVerdict.INVALID
    elif findings:
        verdict = JVerdict.UNKNOWN
    else:
        verdict = JVerdict.VALID
    scope = Scope.UNCHECKED if verdict is JVerdict.UNKNOWN else Scope.PLAN_ON_GROUNDED_FACTS
    if not reason and findings:
        first = next((f for f in findings if f.kind not in undecided), None) or next(
            (f for f in findings if f.kind is FindingKind.UNGROUNDED), findings[0])
        reason = first.detail
    return Verification(verdict, scope, tuple(findings), reason, **extra)


def unchecked(reason: str) -> Verification:
    """A commit that V did not check at all (the ablation without verification,
    the baselines that do not verify): unknown, scope unchecked."""
    return judge([Finding(FindingKind.UNCHECKABLE, None, "", reason)], reason=reason)


def _step(h: Hypothesis, i: int) -> str:
    return f"step {i + 1} ({h.actions[i]})"


def check_pre(h: Hypothesis, w: FactState, rules: RuleBook) -> Verification:
    """CHECKPRE(h, w): every p in Pre(h) is grounded in w or entailed by the
    rules, with the value h expects (unknown: neither; invalid: the other
    value)."""
    missing, contradicted, relied = [], [], []
    findings: list[Finding] = []
    for k, expected in h.pre.items():
        v, rule = lookup(w, rules, k)
        at = h.steps.get(k)
        step = None if at is None else at + 1
        if v is None:
            missing.append(k)
            findings.append(Finding(FindingKind.UNGROUNDED, step, show(k, expected),
                                    f"precondition {show(k)} is neither grounded nor entailed"))
        elif v != expected:
            contradicted.append(k)
            findings.append(Finding(FindingKind.PRECONDITION, step, show(k, expected),
                                    f"precondition {show(k)} is contradicted by w"))
        elif rule is not None:
            relied.append((-1, k, v, rule))
    contradicted_first = sorted(findings, key=lambda f: f.kind is FindingKind.UNGROUNDED)
    ok = not findings
    return judge(contradicted_first, check_pre=ok, missing=tuple(missing),
                 contradicted=tuple(contradicted), relied=tuple(relied))


def pullback(h: Hypothesis, w: FactState, rules: RuleBook, model: ActionModel | None,
             goal: Goal | None) -> Verification:
    """PULLBACKVERIFY(h, w, w*): h applied symbolically to w composes (each
    step's preconditions hold, grounded or entailed, in the state the earlier
    steps leave) and the final state satisfies the goal constraints. Unknown
    where the facts cannot tell: a need neither grounded nor entailed, a step
    whose preconditions the model states only in part, a need the frame rules
    do not keep until its step, a goal without a symbolic form or whose
    checkable part the final state leaves unknown."""
    if model is None:
        return judge([Finding(FindingKind.UNCHECKABLE, None, "",
                              "no symbolic action model for this environment")],
                     check_pre=None, pullback=False)
    complete_grammar = getattr(model, "grammar_complete", True)
    # a command of no form the model knows: refused, where the model covers the
    # environment's whole grammar (the household games); else (ScienceWorld) beyond V,
    # and the rest of the plan is applied with what it may change forgotten, so that
    # what it cannot change (a wrong focus) is still refuted (issue 33: V stopped there)
    app = apply_plan(h.actions, w, rules, model, past_unknown=PastUnknown.STOP
                     if complete_grammar else PastUnknown.FORGET)
    if app.unknown_action is not None and complete_grammar:
        i = app.unknown_action
        return judge([Finding(FindingKind.UNKNOWN_ACTION, i + 1, h.actions[i],
                              f"{_step(h, i)} is not an action the model knows")],
                     pullback=False, relied=tuple(app.relied))
    findings = [Finding(FindingKind.PRECONDITION, i + 1, show(key_of(f), f.value),
                        f"{_step(h, i)} needs {show(key_of(f), f.value)}, which does not hold")
                for i, f, _ in app.contradicted]
    findings += [Finding(FindingKind.UNGROUNDED, i + 1, show(key_of(f), f.value),
                         f"{_step(h, i)} needs {show(key_of(f), f.value)}, which is neither "
                         "grounded nor entailed") for i, f in app.unknown]
    findings += [Finding(FindingKind.UNCHECKABLE, i + 1, show(key_of(f), f.value),
                         f"{_step(h, i)} needs {show(key_of(f), f.value)}, which nothing "
                         "known before the plan runs can tell (an earlier step may change "
                         "it, or no frame rule keeps it)") for i, f in app.beyond]
    findings += [Finding(FindingKind.UNCHECKABLE, i + 1, h.actions[i],
                         f"{_step(h, i)}: the action model states only part of its "
                         "preconditions") for i in app.unmodelled]
    findings += [Finding(FindingKind.UNCHECKABLE, i + 1, h.actions[i],
                         f"{_step(h, i)} is not an action the model knows (what it may "
                         "change is forgotten)") for i in app.unknown_actions]
    if goal is None:
        findings.append(Finding(FindingKind.UNCHECKABLE, None, "goal",
                                "the task's goal has no symbolic form here"))
    elif not app.contradicted:
        reached = goal.check(app.state)
        if reached is False:
            findings.append(Finding(FindingKind.GOAL, None, goal.text,
                                    f"the plan does not reach the goal ({goal.text})"))
        elif reached is None:
            findings.append(Finding(FindingKind.UNCHECKABLE, None, goal.text,
                                    f"the facts cannot tell whether the plan reaches the goal "
                                    f"({goal.text})"))
    decisive = [f for f in findings if f.kind not in (FindingKind.UNGROUNDED,
                                                      FindingKind.UNCHECKABLE)]
    return judge(decisive + [f for f in findings if f not in decisive],
                 pullback=not findings,
                 missing=tuple(dict.fromkeys(key_of(f) for _, f in app.unknown)),
                 contradicted=tuple(key_of(f) for _, f, _ in app.contradicted),
                 relied=tuple(app.relied))


def verify(h: Hypothesis, w: FactState, rules: RuleBook, model: ActionModel | None,
           goal: Goal | None) -> Verification:
    """V(h, w, w*) = CHECKPRE(h, w) and PULLBACKVERIFY(h, w, w*), three-valued:
    valid only when both hold on grounded (or entailed) facts."""
    pre = check_pre(h, w, rules)
    if not pre.ok:
        return pre
    pb = pullback(h, w, rules, model, goal)
    return dataclasses.replace(pb, check_pre=True, relied=pre.relied + pb.relied)


def ungrounded(h: Hypothesis, w: FactState, rules: RuleBook, model: ActionModel | None
               ) -> list[Key]:
    """What V would still need grounded for ``h``, that a query now could
    settle: its preconditions that are neither grounded nor entailed, then the
    steps' unknown requirements (not those no fact known now could tell)."""
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


__all__ = ["Application", "PastUnknown", "Verification", "apply_plan", "check_pre", "complete",
           "derive", "judge", "lookup", "pullback", "unchecked", "ungrounded", "verify"]
