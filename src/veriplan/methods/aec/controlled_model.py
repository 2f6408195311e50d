"""What the controlled AEC models of both families (the household games',
:mod:`.controlled`, and ScienceWorld's, :mod:`.controlled_scienceworld`)
share: their settings (``aec:p=P,g=G,acc=A,conf=C,seed=S``), the seeded draws
that make the same model err on the same plans and predicates whichever
method calls it, an ensemble member's vote, and how one request is answered
by the kind of answer it asks for."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from veriplan.errors import ConfigError
from veriplan.llm.types import LLMRequest

MEMBERS = 5  # the ensemble's size the votes are written for (AEC's default)
VARIANT_MARKS = ("Question: does ", "You are a world model", "Statement: ")


@dataclass(frozen=True)
class Settings:
    """``aec:p=P,g=G,acc=A,conf=calibrated|over,seed=S``."""

    p: float = 0.2  # a plan's perturbation rate (a wrong place for the object)
    acc: float = 0.8  # a prediction's accuracy
    conf: str = "calibrated"  # or "over": every prediction unanimous
    seed: int = 0
    g: float = 0.0  # a plan's goal-error rate (the object put in a wrong kind of place)

    @classmethod
    def parse(cls, spec: str) -> Settings:
        family, _, rest = (spec or "aec").partition(":")
        if family not in ("", "aec"):
            raise ConfigError(f"controlled-aec model family {family!r}: only 'aec'")
        values: dict[str, Any] = {}  # each field its own type (float, int, str), for cls(**values)
        for part in filter(None, (x.strip() for x in rest.split(","))):
            k, sep, v = part.partition("=")
            if not sep or k not in ("p", "g", "acc", "conf", "seed"):
                raise ConfigError(f"controlled-aec model {spec!r}: unknown setting {part!r} "
                                  "(p, g, acc, conf, seed)")
            try:
                values[k] = int(v) if k == "seed" else v if k == "conf" else float(v)
            except ValueError:
                raise ConfigError(f"controlled-aec model {spec!r}: bad {k}={v!r}") from None
        s = cls(**values)
        if s.conf not in ("calibrated", "over"):
            raise ConfigError(f"controlled-aec model {spec!r}: conf is 'calibrated' or 'over'")
        if not 0 <= s.p <= 1 or not 0 <= s.g <= 1 or not 0.6 <= s.acc <= 1:
            raise ConfigError(f"controlled-aec model {spec!r}: p and g in [0, 1], acc in "
                              "[0.6, 1]")
        return s


def draw(s: Settings, *parts: object) -> float:
    return random.Random(":".join(map(str, (s.seed, *parts)))).random()


def confidence(s: Settings, *parts: object) -> float:
    """A calibrated prediction's confidence: one of the two levels of
    (0.6, 0.8, 1.0) around ``acc``, mixed so that its mean is ``acc``."""
    lo, hi = (0.8, 1.0) if s.acc >= 0.8 else (0.6, 0.8)
    return hi if draw(s, "conf", *parts) < (s.acc - lo) / (hi - lo) else lo


def vote_text(s: Settings, truth: bool | None, where: tuple[object, ...], member: int) -> str:
    """One ensemble member's answer about a predicate whose value is ``truth``
    (None: "unknown"); ``where`` seeds the draws (the task, the predicate)."""
    if truth is None:
        return json.dumps({"answer": "unknown"})
    if s.conf == "over":
        c, agree = s.acc, MEMBERS
    else:
        c = confidence(s, *where)
        agree = round(MEMBERS * c)
    right = draw(s, "right", *where) < c
    value = truth if right else not truth
    said = value if member < agree else not value
    return json.dumps({"answer": "yes" if said else "no"})


def member_of(prompt: str, request: LLMRequest) -> int:
    """The ensemble member k (variant k mod 3, sample k div 3) a request is."""
    variant = next((i for i, m in enumerate(VARIANT_MARKS) if m in prompt), 0)
    return (request.sample_index or 0) * len(VARIANT_MARKS) + variant


class Answerer(Protocol):
    """What a controlled AEC model answers (the household's and ScienceWorld's)."""

    def vote(self, key: tuple[str, tuple[str, ...]], member: int) -> str: ...
    def plans(self, k: int, round_: object) -> str: ...
    def direct(self, round_: object) -> str: ...
    def react(self, prompt: str) -> str: ...


def dispatch(model: Answerer, prompt: str, request: LLMRequest,
             read: Callable[[str], tuple[str, tuple[str, ...]] | None]) -> str:
    """The answer of ``model`` to one request, by the kind of answer asked for: a
    prediction's vote (on the question ``read`` finds in the prompt), K plans, one
    plan (Direct), or a ReAct turn."""
    kind = request.schema_name if request.schema is not None else "turn"
    if kind == "prediction":
        key = read(prompt)
        if key is None:
            return json.dumps({"answer": "unknown"})
        return model.vote(key, member_of(prompt, request))
    if kind == "plans":
        m = re.search(r"Propose up to (\d+)", prompt)
        return model.plans(int(m.group(1)) if m else 1, request.seed)
    if kind == "plan":
        return model.direct(request.seed)
    return model.react(prompt)


__all__ = ["MEMBERS", "VARIANT_MARKS", "Answerer", "Settings", "confidence", "dispatch", "draw",
           "member_of", "vote_text"]
