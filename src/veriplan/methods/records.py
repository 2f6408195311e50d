"""The typed records every method produces, one schema for all of them:

- :class:`Event`: progress while a method runs (what an observer sees);
- :class:`Entry`: one transcript entry, usually one model call with the
  verdict on what the answer produced;
- :class:`Signal`: per attempt, the failure signals the report's hazard,
  failure-composition and NPMI analyses read.

Each has ``to_dict()`` (what the run store keeps) and ``from_dict()`` (what
``trace`` and ``report`` read back; missing keys take their defaults, so
records written before a field existed still read).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypedDict, TypeVar

from veriplan.core.jsonvalue import JSONValue

R = TypeVar("R")


def _from_dict(cls: type[R], data: Mapping[str, object]) -> R:
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    known = {k: v for k, v in data.items() if k in names}
    extra = {k: v for k, v in data.items() if k not in names}
    if extra and "data" in names:
        known["data"] = {**extra, **(known.get("data") or {})}
    return cls(**known)


class EventKind(StrEnum):
    """What an :class:`Event` reports. Every method's kinds are here, so an
    observer (the CLI's live output, ``veriplan trace``) can match on them."""

    PROMPT = "prompt"  # text: the prompt
    RESPONSE = "response"  # text: the model's answer; data["cached"]
    VERDICT = "verdict"  # ok: whether the verifier accepted; text: the diagnosis
    STOP = "stop"  # text: why the method stopped
    # DRIP (and its baselines)
    DECOMPOSE = "decompose"
    EXECUTE = "execute"
    CONFLICT = "conflict"
    TURN = "turn"  # ReAct's turns
    # AutoToS
    CALL = "call"
    CHECK = "check"
    FAILURE = "failure"
    ACCURACY = "accuracy"
    # SQ-BCP
    QUERY = "query"
    BRIDGE = "bridge"
    VERIFY = "verify"
    ITERATION = "iteration"
    # AEC
    HYPOTHESES = "hypotheses"
    SIMULATE = "simulate"
    COMMIT = "commit"
    REPLAN = "replan"
    RULE_DISABLED = "rule_disabled"


@dataclass(frozen=True)
class Event:
    """Something a method did, reported as it happens; ``kind`` says what
    (:class:`EventKind`; a string naming one is converted, anything else is a
    ``ValueError``), ``text`` is a one-line summary or the prompt/answer."""

    kind: EventKind
    text: str = ""
    attempt: int | None = None
    ok: bool | None = None
    plan: tuple[str, ...] = ()
    data: Mapping[str, JSONValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", EventKind(self.kind))

    def to_dict(self) -> EventDict:
        d = dataclasses.asdict(self)
        d["kind"] = self.kind.value
        d["plan"] = list(self.plan)
        d["data"] = dict(self.data)
        return d  # type: ignore[return-value]


Observer = Callable[[Event], None]


def quiet(event: Event) -> None:
    """The observer that ignores everything."""


@dataclass
class Entry:
    """One transcript entry: a model call (``call`` its number in the run, from
    1) and the verdict on what its answer produced, or a record that is not a
    call (``call`` None: DRIP's final tree, an AutoToS check).

    ``ok`` is True when the verdict accepted the answer, False when it rejected
    it, None when the answer was not judged on its own (a decomposition step,
    a turn whose action the environment carried out); ``verdict`` says what
    happened in words.
    """

    call: int | None
    role: str
    prompt: str = ""
    response: str = ""
    cached: bool = False
    plan: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    ok: bool | None = None
    verdict: str = ""
    data: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> EntryDict:
        return dataclasses.asdict(self)  # type: ignore[return-value]

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Entry:
        if "call" not in data:  # written before entries were typed (keys differed by method)
            data = dict(data)
            attempt = data.pop("attempt", None)
            data["call"] = attempt if isinstance(attempt, int) else None
            data.setdefault("role", "attempt")
            if "valid" in data:
                data["ok"] = data.pop("valid")
            if "diagnosis" in data:
                data["verdict"] = data.pop("diagnosis") or ""
        return _from_dict(cls, data)


@dataclass
class Signal:
    """Per attempt, the same fields for every method: which step failed, its
    action, the predicates it missed, and the kinds of failure
    (``translation``, ``precondition``, ``goal``)."""

    attempt: int
    verified: bool
    failed_step: int | None = None
    steps: int = 0
    action: str | None = None
    missing: list[str] = field(default_factory=list)
    failure: list[str] = field(default_factory=list)
    data: dict[str, JSONValue] = field(default_factory=dict)  # method-specific

    def to_dict(self) -> SignalDict:
        return dataclasses.asdict(self)  # type: ignore[return-value]

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Signal:
        return _from_dict(cls, data)


class EventDict(TypedDict):
    """:meth:`Event.to_dict`: the event as JSON."""

    kind: str
    text: str
    attempt: int | None
    ok: bool | None
    plan: list[str]
    data: dict[str, JSONValue]


class EntryDict(TypedDict):
    """:meth:`Entry.to_dict`: what the run store keeps of a transcript entry."""

    call: int | None
    role: str
    prompt: str
    response: str
    cached: bool
    plan: list[str]
    unread: list[str]
    ok: bool | None
    verdict: str
    data: dict[str, JSONValue]


class SignalDict(TypedDict):
    """:meth:`Signal.to_dict`: what the run store keeps of an attempt's signals."""

    attempt: int
    verified: bool
    failed_step: int | None
    steps: int
    action: str | None
    missing: list[str]
    failure: list[str]
    data: dict[str, JSONValue]
