"""What a check concluded, and what it was checked against: one vocabulary for
the PDDL validator, the hidden-precondition task's decider, AEC's verifier V,
every method's result, the run store and the reports.

- :class:`Scope`: what a verdict was checked against. "Verified" means one
  thing per scope, and results of different scopes are never pooled.
- :class:`Verdict`: valid, invalid or unknown. Unknown (no grounded fact
  decides) is never counted as verified.
- :class:`Finding`: one typed reason (step, kind, subject, detail).
- :class:`Judgement`: a verdict, its scope and its findings.

Nothing here imports another veriplan subpackage.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Scope(StrEnum):
    """What a verdict was checked against."""

    # A plan, on exactly the PDDL domain and problem the user (or the dataset) gave.
    PLAN_ON_TASK = "plan_on_task"
    # A plan in a method's own action space (DRIP's tower moves) that could not be
    # mapped back to the user's domain: never verified on the user's task.
    PLAN_IN_METHOD_SPACE = "plan_in_method_space"
    # Model-written search components (AutoToS): checked on the domain's instances.
    SEARCH_COMPONENTS = "search_components"
    # A plan for a hidden-precondition task, judged against its true (hidden) facts.
    HIDDEN_TASK = "hidden_task"
    # An environment episode, judged by the simulator (the environment's own "done").
    ENV_EPISODE = "env_episode"
    # A plan for an episode, judged against the facts grounded in it so far (AEC's V
    # before it commits): not the episode's outcome, which ENV_EPISODE judges.
    PLAN_ON_GROUNDED_FACTS = "plan_on_grounded_facts"
    # Nothing grounded decided (an AEC commit V could not check): never verified.
    UNCHECKED = "unchecked"

    @property
    def describes(self) -> str:
        """The scope in words, for "verified (...)" in printed output."""
        return _WORDS[self]

    @classmethod
    def read(cls, value: object, *, record: str = "record") -> Scope:
        """The scope stored in ``value``: a current value, or text written before
        scopes were typed (migrated). Anything else is a
        :class:`~veriplan.errors.RecordError` naming ``record`` and the field,
        never a silent relabelling."""
        if isinstance(value, Scope):
            return value
        if isinstance(value, str):
            try:
                return cls(value)
            except ValueError:
                pass
            legacy = _LEGACY.get(value.strip())
            if legacy is not None:
                return legacy
        from veriplan.errors import RecordError

        raise RecordError(f"{record}: field verified_scope holds {value!r}, which is no "
                          f"scope veriplan knows ({', '.join(s.value for s in cls)}); "
                          "re-run the unit (veriplan bench ... --rerun-errors does not "
                          "cover it: delete the unit's row or start a new run folder)")


_WORDS: Mapping[Scope, str] = {
    Scope.PLAN_ON_TASK: "on your PDDL domain and problem",
    Scope.PLAN_IN_METHOD_SPACE: "only in the method's own action space, not on your task",
    Scope.SEARCH_COMPONENTS: "the model's search components, on the domain's instances",
    Scope.HIDDEN_TASK: "against the hidden-precondition task's true facts",
    Scope.ENV_EPISODE: "by the environment's simulator",
    Scope.PLAN_ON_GROUNDED_FACTS: "against the episode's grounded facts",
    Scope.UNCHECKED: "by nothing grounded",
}

# Free-text scopes written by veriplan before they were typed (run stores of
# earlier sessions), each with the scope it meant.
_LEGACY: Mapping[str, Scope] = {
    "plan": Scope.PLAN_ON_TASK,
    "domain": Scope.SEARCH_COMPONENTS,
    "hidden-precondition task: accepted and no violation": Scope.HIDDEN_TASK,
    "hidden-precondition task: no violation": Scope.HIDDEN_TASK,
    "episode: the environment reported the task done": Scope.ENV_EPISODE,
}


class Verdict(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    UNKNOWN = "unknown"


class FindingKind(StrEnum):
    """Why a check did not say valid."""

    UNREAD = "unread"  # a line of the answer that was read as no step
    UNKNOWN_ACTION = "unknown_action"
    BAD_ARGUMENTS = "bad_arguments"  # arity, unknown object, wrong type
    PRECONDITION = "precondition"  # a precondition false where the step runs
    GOAL = "goal"  # a goal part false at the end
    MUTEX = "mutex"  # two steps at one time interfere (one happening cannot hold both)
    NUMERIC = "numeric"  # an expression with no value (a fluent never set, division by 0)
    CONSTRAINT = "constraint"  # a PDDL 3 trajectory constraint broken by the plan's states
    MISSING_ITEM = "missing_item"  # a step uses something the user lacks
    RESOURCE = "resource"  # a step consumes a resource nothing produced
    NOT_PRODUCED = "not_produced"  # the goal's product (r*) is never produced
    UNGROUNDED = "ungrounded"  # no grounded fact decides (the verdict is unknown)
    NOT_MAPPED = "not_mapped"  # a step could not be mapped back to the user's domain
    EMPTY = "empty"  # no plan at all
    # Nothing the checker knows could decide it, whatever were grounded (AEC's V: a
    # goal with no symbolic form, a command whose preconditions the action model
    # states only in part, a fact the environment's frame rules do not keep until the
    # step that needs it): like UNGROUNDED, the verdict is unknown, never invalid.
    UNCHECKABLE = "uncheckable"


@dataclass(frozen=True, slots=True)
class Finding:
    """One typed reason: ``step`` 1-based (None: the plan as a whole),
    ``subject`` what it is about (a literal, an item, an action), ``detail``
    the sentence a user reads."""

    kind: FindingKind
    step: int | None = None
    subject: str = ""
    detail: str = ""

    def __str__(self) -> str:
        where = f"step {self.step}: " if self.step is not None else ""
        return f"{where}{self.detail or f'{self.kind.value} {self.subject}'.strip()}"

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind.value, "step": self.step, "subject": self.subject,
                "detail": self.detail}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Finding:
        step = data.get("step")
        return cls(FindingKind(str(data["kind"])), step if isinstance(step, int) else None,
                   str(data.get("subject") or ""), str(data.get("detail") or ""))


# Findings that say nothing decides, rather than that something is wrong.
_UNDECIDED = frozenset({FindingKind.UNGROUNDED, FindingKind.UNCHECKABLE})


@dataclass(frozen=True, slots=True)
class Judgement:
    """A verdict, what it was checked against, and why."""

    verdict: Verdict
    scope: Scope
    findings: tuple[Finding, ...] = ()

    @property
    def valid(self) -> bool:
        """True only for :attr:`Verdict.VALID` (unknown is not valid)."""
        return self.verdict is Verdict.VALID

    @classmethod
    def of(cls, scope: Scope, findings: Iterable[Finding], *,
           unknown: bool = False) -> Judgement:
        """Valid when there are no findings; unknown when the only findings
        say nothing decides (:attr:`FindingKind.UNGROUNDED`,
        :attr:`FindingKind.UNCHECKABLE`), or ``unknown`` is set and nothing
        proved the plan invalid; else invalid."""
        found = tuple(findings)
        decisive = [f for f in found if f.kind not in _UNDECIDED]
        if decisive:
            return cls(Verdict.INVALID, scope, found)
        if found or unknown:
            return cls(Verdict.UNKNOWN, scope, found)
        return cls(Verdict.VALID, scope, found)

    def to_dict(self) -> dict[str, object]:
        return {"verdict": self.verdict.value, "scope": self.scope.value,
                "findings": [f.to_dict() for f in self.findings]}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Judgement:
        raw = data.get("findings") or ()
        findings = tuple(Finding.from_dict(f) for f in raw  # type: ignore[union-attr]
                         if isinstance(f, Mapping))
        return cls(Verdict(str(data["verdict"])), Scope.read(data["scope"]), findings)


__all__ = ["Finding", "FindingKind", "Judgement", "Scope", "Verdict"]
