"""The predictive model M(w, p) -> (mu, sigma) of Eq. 3 and its calibration
(appendix B.2).

:class:`EnsemblePredictor` asks the model ``members`` times whether p holds,
cycling over three prompt variants (and sample indices, at a sampling
temperature): mu is the vote share (yes 1, no 0, unknown 1/2), and the raw
uncertainty is u = 1 - |2 mu - 1| (1 - d), with d the dispersion of the votes
(twice their standard deviation). A :class:`Calibration` maps u to sigma:
without one, sigma = u; fitted on training games, sigma is the estimated
probability that the discretized prediction is wrong, by bins of u made
monotone. Its prompt is built from the grounded facts w alone (no belief
leakage): it is given the grounded store, nothing else of the state.

Any other estimator plugs in through :class:`Predictor`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

from veriplan.errors import ConfigError
from veriplan.llm.parsing import parse_structured
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.aec.domain import Key
from veriplan.methods.aec.prompting import render
from veriplan.methods.records import Entry, Observer, quiet

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.llm.client import LLM
    from veriplan.methods.aec.state import GroundedStore

VOTE_SCHEMA = {"type": "object", "required": ["answer"],
               "properties": {"answer": {"enum": ["yes", "no", "unknown"]}}}
VARIANTS = ("predict_facts.j2", "predict_world.j2", "predict_doubt.j2")
_VOTE = {"yes": 1.0, "no": 0.0, "unknown": 0.5}


class PredictionRecord(TypedDict):
    """A :class:`Prediction` as the transcript keeps it."""

    mu: float
    sigma: float
    raw: float
    votes: list[float]
    unread: int


class CalibrationFile(TypedDict):
    """A :class:`Calibration` as its file keeps it (format ``aec-calibration/1``)."""

    format: str
    name: str
    bins: int
    n: list[int]
    wrong: list[int]
    prior_weight: float
    sigma: list[float] | str  # the table, or "u" (no samples: sigma = u)
    meta: dict[str, JSONValue]


@dataclass(frozen=True)
class Prediction:
    mu: float
    sigma: float
    raw: float = 0.0  # u, the uncalibrated uncertainty
    votes: tuple[float, ...] = ()
    unread: int = 0

    def to_dict(self) -> PredictionRecord:
        return {"mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "raw": round(self.raw, 4),
                "votes": list(self.votes), "unread": self.unread}


class Predictor(Protocol):
    """M(w, p): given the grounded store only."""

    def predict(self, w: GroundedStore, key: Key) -> Prediction: ...


def raw_uncertainty(votes: Sequence[float]) -> tuple[float, float]:
    """(mu, u) of a list of votes in [0, 1]."""
    if not votes:
        return 0.5, 1.0
    mu = sum(votes) / len(votes)
    spread = 2 * math.sqrt(sum((v - mu) ** 2 for v in votes) / len(votes))
    return mu, min(1.0, max(0.0, 1 - abs(2 * mu - 1) * (1 - min(1.0, spread))))


# ----- calibration (B.2) ------------------------------------------------------------------
def _pav(values: list[float], weights: list[float]) -> list[float]:
    """Pool adjacent violators: the non-decreasing fit of ``values``."""
    blocks: list[list[float]] = []  # [value, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out: list[float] = []
    for v, _, c in blocks:
        out += [v] * int(c)
    return out


def scored(mu: float, truth: bool) -> bool | None:
    """Whether the discretized prediction was right; None when the votes had no
    majority (mu = 0.5: no value was predicted, so it is neither right nor
    wrong; with epsilon > 0 the gate queries it whatever sigma says)."""
    return None if mu == 0.5 else (mu > 0.5) == truth


@dataclass
class Calibration:
    """sigma as a function of the raw uncertainty u: by ``bins`` equal bins of u,
    the share of wrong discretized predictions, with a prior of weight
    ``prior_weight`` at u/2 (a coin flip is wrong half the time), made
    non-decreasing. No samples: the identity (sigma = u)."""

    name: str = "none"
    bins: int = 10
    n: list[int] = field(default_factory=lambda: [0] * 10)
    wrong: list[int] = field(default_factory=lambda: [0] * 10)
    prior_weight: float = 2.0
    meta: dict[str, JSONValue] = field(default_factory=dict)
    _table: list[float] | None = field(default=None, repr=False, compare=False)

    @property
    def samples(self) -> int:
        return sum(self.n)

    def _bin(self, u: float) -> int:
        return min(self.bins - 1, max(0, int(u * self.bins)))

    def table(self) -> list[float]:
        if self._table is None:
            rates, weights = [], []
            for b in range(self.bins):
                prior = (b + 0.5) / self.bins / 2
                w = self.n[b] + self.prior_weight
                rates.append((self.wrong[b] + self.prior_weight * prior) / w)
                weights.append(w)
            self._table = _pav(rates, weights)
        return self._table

    def __call__(self, u: float) -> float:
        if self.samples == 0:
            return u
        return self.table()[self._bin(u)]

    def updated(self, samples: Iterable[tuple[float, bool]], name: str | None = None
                ) -> Calibration:
        """A new calibration with ``samples`` ((u, prediction was right)) added."""
        n, wrong = list(self.n), list(self.wrong)
        for u, right in samples:
            b = self._bin(u)
            n[b] += 1
            wrong[b] += 0 if right else 1
        return Calibration(name or self.name, self.bins, n, wrong, self.prior_weight,
                           dict(self.meta))

    @classmethod
    def fit(cls, samples: Iterable[tuple[float, bool]], name: str = "fitted", bins: int = 10,
            **meta: JSONValue) -> Calibration:
        return cls(name, bins, [0] * bins, [0] * bins, meta=dict(meta)).updated(samples)

    def to_dict(self) -> CalibrationFile:
        return {"format": "aec-calibration/1", "name": self.name, "bins": self.bins,
                "n": self.n, "wrong": self.wrong, "prior_weight": self.prior_weight,
                "sigma": [round(x, 4) for x in self.table()] if self.samples else "u",
                "meta": self.meta}

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1))
        tmp.replace(path)
        return path

    @classmethod
    def from_dict(cls, d: Mapping[str, JSONValue]) -> Calibration:
        """Read from a calibration file's JSON (checked here: format, counts per bin)."""
        if d.get("format") != "aec-calibration/1":
            raise ConfigError("not an AEC calibration file (format aec-calibration/1)")
        bins = int(d["bins"])
        n, wrong = [int(x) for x in d["n"]], [int(x) for x in d["wrong"]]
        if len(n) != bins or len(wrong) != bins:
            raise ConfigError("AEC calibration file: n and wrong must have one count per bin")
        return cls(str(d.get("name", "")), bins, n, wrong, float(d.get("prior_weight", 2.0)),
                   dict(d.get("meta") or {}))


def store_path(kind: str, name: str) -> Path:
    """A file given by path (``.json`` or with a ``/``), or by name under the
    cache (``$VERIPLAN_CACHE/aec/<kind>/<name>.json``)."""
    if name.endswith(".json") or "/" in name:
        return Path(name)
    from veriplan.storage import cache_dir

    return cache_dir() / "aec" / kind / f"{name}.json"


def read_stored(kind: str, name: str, what: str, make: str) -> tuple[JSONValue, Path]:
    """The JSON of a stored file of ``kind`` (by name or path) and its path; a
    missing or unreadable file is a ConfigError naming it and how to ``make`` one."""
    path = store_path(kind, name)
    try:
        return json.loads(path.read_text()), path
    except FileNotFoundError:
        raise ConfigError(f"no {what} {name!r} at {path}: {make}") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc}") from None


def load_calibration(name: str) -> Calibration:
    """``"none"``: the identity; else a calibration file by name or path."""
    if name in ("", "none"):
        return Calibration()
    data, _ = read_stored("calibration", name, "AEC calibration",
                          "fit one with `veriplan aec calibrate --dataset household_train "
                          "--name NAME`")
    cal = Calibration.from_dict(data)
    cal.name = cal.name or name
    return cal


# ----- the ensemble -------------------------------------------------------------------------
class EnsemblePredictor:
    """M(w, p) from ``members`` model answers (see the module docstring)."""

    def __init__(self, llm: LLM, *, task: str, describe: Callable[[Key], str],
                 members: int = 5, temperature: float = 0.7, seed: int = 0,
                 calibration: Calibration | None = None, log: list[Entry] | None = None,
                 emit: Observer = quiet, max_tokens: int = 40) -> None:
        self.llm, self.task, self.describe = llm, task, describe
        self.members, self.temperature, self.seed = members, temperature, seed
        self.calibration = calibration or Calibration()
        self.log = log if log is not None else []
        self.emit = emit
        self.max_tokens = max_tokens
        self.calls = 0
        self.seconds = 0.0

    def members_order(self) -> list[int]:
        """The members' numbers k (variant k mod 3, sample k div 3), those of a
        variant next to each other: a llama.cpp context that answers them in
        this order reuses the whole prompt for a variant's second sample. The
        votes are the same in any order."""
        return sorted(range(self.members), key=lambda k: (k % len(VARIANTS), k))

    def prompts(self, w: GroundedStore, key: Key) -> list[str]:
        """Member k's prompt, for k = 0 .. members - 1."""
        facts = w.describe()
        question = self.describe(key)
        return [render(VARIANTS[k % len(VARIANTS)], task=self.task, facts=facts,
                       question=question) for k in range(self.members)]

    def predict(self, w: GroundedStore, key: Key) -> Prediction:
        start = time.perf_counter()
        prompts = self.prompts(w, key)
        order = self.members_order()
        requests = [LLMRequest((Message("user", prompts[k]),), temperature=self.temperature,
                               max_tokens=self.max_tokens, seed=self.seed,
                               sample_index=k // len(VARIANTS), schema=VOTE_SCHEMA,
                               schema_name="prediction")
                    for k in order]
        # at temperature 0 a variant's second sample is its first again (greedy
        # decoding): it is asked once and its vote counted for each member
        first: dict[str, int] = {}  # prompt -> the first position asking it
        for i, k in enumerate(order):
            first.setdefault(prompts[k], i)
        asked = sorted(first.values()) if self.temperature == 0 else list(range(len(order)))
        answered = dict(zip(asked, self.llm.complete_many([requests[i] for i in asked])))
        votes, unread = [], 0
        for i, k in enumerate(order):
            prompt = prompts[k]
            same = i not in answered
            resp = answered[first[prompt]] if same else answered[i]
            value, error = parse_structured(resp.text, VOTE_SCHEMA)
            vote = _VOTE[value["answer"]] if value is not None else 0.5
            votes.append(vote)
            unread += value is None
            verdict = f"vote {vote}" if value is not None else \
                f"not read ({error}): counted as unknown"
            if same:
                self.log.append(Entry(None, "predict", prompt, resp.text, True,
                                      ok=value is not None, verdict="the same prompt as the "
                                      f"member before, at temperature 0: no call; {verdict}"))
                continue
            self.calls += 1
            calls = sum(e.call is not None for e in self.log)
            self.log.append(Entry(calls + 1, "predict", prompt, resp.text, resp.cached,
                                  ok=value is not None, verdict=verdict,
                                  data={"prompt_tokens": resp.prompt_tokens,
                                        "completion_tokens": resp.completion_tokens,
                                        "seconds": round(resp.latency, 3)}))
        mu, u = raw_uncertainty(votes)
        sigma = self.calibration(u)
        self.seconds += time.perf_counter() - start
        return Prediction(mu, sigma, u, tuple(votes), unread)


__all__ = ["Calibration", "EnsemblePredictor", "Prediction", "Predictor", "VOTE_SCHEMA",
           "load_calibration", "raw_uncertainty", "scored", "store_path"]
