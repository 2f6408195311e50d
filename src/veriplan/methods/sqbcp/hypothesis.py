"""Hypotheses h = (ACTION, PRE, EFF, SCORE) (Section 3.3): read from the model's
structured answers, labelled against the grounded state, composed with
bridges (Section 3.4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TypedDict

from veriplan.core.jsonvalue import JSONValue
from veriplan.methods.sqbcp.world import SAT, UNK, VIOL, Effects, World

LABELS = (SAT, VIOL, UNK)

# What the model is asked to return (a JSON schema, enforced where the backend can).
HYPOTHESIS = {
    "type": "object",
    "properties": {
        "action": {"type": "string"},
        "preconditions": {"type": "array", "items": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "subject": {"type": "string"},
                           "label": {"type": "string", "enum": list(LABELS)}},
            "required": ["text", "subject", "label"]}},
        "effects": {"type": "object", "properties": {
            "resources": {"type": "object", "additionalProperties": {"type": "integer"}},
            "structure": {"type": "string"},
            "facts_true": {"type": "array", "items": {"type": "string"}},
            "facts_false": {"type": "array", "items": {"type": "string"}},
            "completes_goal": {"type": "boolean"},
            "seconds": {"type": "number"}}},
    },
    "required": ["action", "preconditions", "effects"],
}


def hypotheses_schema(k: int) -> dict[str, JSONValue]:
    """The JSON schema of an answer of at most ``k`` hypotheses."""
    return {"type": "object", "required": ["hypotheses"], "properties": {
        "hypotheses": {"type": "array", "items": HYPOTHESIS, "maxItems": k}}}


@dataclass(frozen=True)
class Precondition:
    """``label`` is veriplan's, against the grounded state; ``claimed`` is the
    model's; ``how`` says what resolved it (stated, bridge, query, substitution)."""

    text: str
    subject: str
    label: str
    claimed: str = UNK
    how: str = ""


class PreconditionDict(TypedDict):
    """A precondition as :meth:`Hypothesis.to_dict` shows it."""

    text: str
    subject: str
    label: str
    claimed: str
    how: str


class HypothesisDict(TypedDict):
    """:meth:`Hypothesis.to_dict`: a hypothesis as SQ-BCP's transcript keeps it
    (``effects`` in words: :meth:`~veriplan.methods.sqbcp.world.Effects.summary`)."""

    action: str
    steps: list[str]
    score: float
    completes_goal: bool
    pre: list[PreconditionDict]
    effects: str


@dataclass(frozen=True)
class Hypothesis:
    action: str
    pre: tuple[Precondition, ...]
    eff: Effects
    score: float = 0.0
    steps: tuple[str, ...] = ()  # the actions it stands for (bridges first)
    completes_goal: bool = False

    @property
    def unknown(self) -> tuple[Precondition, ...]:
        return tuple(p for p in self.pre if p.label == UNK)

    @property
    def violated(self) -> tuple[Precondition, ...]:
        return tuple(p for p in self.pre if p.label == VIOL)

    @property
    def resolved(self) -> bool:
        return all(p.label == SAT for p in self.pre)

    def relabel(self, w: World) -> Hypothesis:
        """Labels against ``w``: only grounded facts make SAT or VIOL; the
        model's own label is kept as ``claimed`` and never trusted."""
        pre = []
        for p in self.pre:
            if p.how in ("query", "substitution", "bridge"):
                pre.append(p)  # resolved by evidence during refinement
                continue
            pre.append(replace(p, label=w.label(p.text, p.subject), how="known"
                               if w.value(p.text, p.subject) is not None else ""))
        return replace(self, pre=tuple(pre))

    def to_dict(self) -> HypothesisDict:
        return {"action": self.action, "steps": list(self.steps), "score": round(self.score, 4),
                "completes_goal": self.completes_goal,
                "pre": [{"text": p.text, "subject": p.subject, "label": p.label,
                         "claimed": p.claimed, "how": p.how} for p in self.pre],
                "effects": self.eff.summary()}


def compose(bridge: Hypothesis, h: Hypothesis, epsilon: float) -> Hypothesis:
    """h' (+) h: the bridge first; score min(s1, s2)(1 - epsilon) (Section 3.4)."""
    return Hypothesis(h.action, bridge.pre + h.pre, bridge.eff.then(h.eff),
                      min(bridge.score, h.score) * (1 - epsilon),
                      bridge.steps + h.steps, h.completes_goal or bridge.completes_goal)


class NotAHypothesis(ValueError):
    """A model answer item that is not a hypothesis (counted, the run goes on)."""


def _str(x: object, what: str) -> str:
    if not isinstance(x, str) or not x.strip():
        raise NotAHypothesis(f"{what} is not a non-empty string")
    return " ".join(x.split())


def read(item: JSONValue) -> Hypothesis:
    """A hypothesis from one item of the model's answer (a JSON value: anything
    but an object of the expected form is a :class:`NotAHypothesis`)."""
    if not isinstance(item, Mapping):
        raise NotAHypothesis("not an object")
    action = _str(item.get("action"), "action")
    pre = []
    for raw in item.get("preconditions") or []:
        if not isinstance(raw, Mapping):
            raise NotAHypothesis("a precondition is not an object")
        text = _str(raw.get("text"), "precondition text")
        subject = raw.get("subject") if isinstance(raw.get("subject"), str) else ""
        claimed = str(raw.get("label", UNK)).upper()
        pre.append(Precondition(text, " ".join(subject.split()) or text, UNK,
                                claimed if claimed in LABELS else UNK))
    eff = item.get("effects") or {}
    if not isinstance(eff, Mapping):
        raise NotAHypothesis("effects is not an object")
    dr = {}
    for k, v in (eff.get("resources") or {}).items():
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise NotAHypothesis(f"resource change of {k!r} is not a number")
        if int(v):
            dr[" ".join(str(k).lower().split())] = int(v)
    dl = {str(f): True for f in eff.get("facts_true") or [] if isinstance(f, str)}
    dl.update({str(f): False for f in eff.get("facts_false") or [] if isinstance(f, str)})
    seconds = eff.get("seconds") or 0
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
        raise NotAHypothesis("seconds is not a non-negative number")
    structure = eff.get("structure") if isinstance(eff.get("structure"), str) else None
    return Hypothesis(action, tuple(pre), Effects(dr, structure, dl, float(seconds)),
                      steps=(action,), completes_goal=eff.get("completes_goal") is True)


def read_all(value: JSONValue, limit: int) -> tuple[list[Hypothesis], list[str]]:
    """The hypotheses of an answer (at most ``limit``) and why items were not."""
    items = value.get("hypotheses") if isinstance(value, Mapping) else value
    if isinstance(items, Mapping):
        items = [items]
    if not isinstance(items, list):
        return [], ["the answer holds no list of hypotheses"]
    out, bad = [], []
    for item in items[:limit]:
        try:
            out.append(read(item))
        except NotAHypothesis as exc:
            bad.append(str(exc))
    return out, bad


@dataclass
class Tally:
    """What a run counts: hypotheses proposed, not read, bridged, queries
    (oracle calls) and answers reused for a question asked before."""

    proposed: int = 0
    unreadable: int = 0
    bridges: int = 0
    queries: int = 0
    reused: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, why: str) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + 1
