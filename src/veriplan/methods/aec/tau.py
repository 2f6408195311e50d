"""Choosing tau on a validation split (Section 4.4) and recording the choice.

`veriplan aec select-tau` runs AEC over the validation episodes once per
candidate tau (through the benchmark harness, so it resumes and runs in
parallel), then :func:`choose` takes the candidate with the highest success
rate, then the fewest replanning rounds, then the fewest queries, then the
smaller tau, and records which of these criteria decided (``decided_by``).
When no candidate won a validation episode nothing was selected: the
remaining criteria would pick the tau that queries least, a choice that builds
in a later "AEC queries less", so the tau file keeps the method's default tau
and says it was not selected. :func:`save_tau` writes the choice with every
candidate's numbers. A run loads it with ``--config tau_file=NAME`` (a name
under the cache, or a path); the result's metrics say which tau it used and
from where (:func:`load_tau`'s provenance, read back by :func:`read_source`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict

from veriplan.errors import ConfigError
from veriplan.methods.aec.predictor import read_stored, store_path

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

CANDIDATES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
FORMAT = "aec-tau/1"
# What decided the choice: the first criterion that left one candidate; "tie" when
# none did (the tied candidates' smallest tau, or nothing selected when none won);
# "only_candidate" when a single tau was given (nothing compared).
CRITERIA = ("success", "replanning_rounds", "queries")
DECIDED_BY = (*CRITERIA, "tie", "only_candidate")
NO_WIN = "no candidate won a validation episode"
_REASONS = {"success": "the highest success rate",
            "replanning_rounds": "success tied; the fewest replanning rounds",
            "queries": "success and replanning rounds tied; the fewest queries",
            "tie": "success, replanning rounds and queries tied; the smallest tau"}
# load_tau's provenance: "PATH (selected by KEY)" or "PATH (not selected: REASON; the
# default tau)"; a tau file written before these keys existed gives the bare path.
_SELECTED = " (selected by "
_NOT_SELECTED = " (not selected: "


class Candidate(TypedDict):
    """One tau's numbers, as :func:`summarize` gives them."""

    tau: float
    episodes: int  # compared (those whose environment failed left out)
    left_out: int  # episodes whose environment failed for some candidate
    success: float
    replanning_rounds: float
    queries: float
    env_steps: float


class _Chosen(TypedDict, total=False):  # a Candidate's numbers, when one was chosen
    episodes: int
    left_out: int
    success: float
    replanning_rounds: float
    queries: float
    env_steps: float


class Choice(_Chosen):
    """What :func:`choose` gives: the chosen candidate's numbers (none when
    nothing was selected) and the choice."""

    tau: float
    selected: bool
    decided_by: str  # one of DECIDED_BY
    reason: str


class TauSource(TypedDict):
    """A run's ``tau_source`` read back (:func:`read_source`)."""

    file: str | None
    selected: bool | None
    decided_by: str | None
    reason: NotRequired[str]


def summarize(results: Iterable[tuple[float, str, Mapping[str, JSONValue]]]
              ) -> list[Candidate]:
    """Per tau, from (tau, episode, SolveResult dict) triples: episodes, success
    rate, mean replanning rounds (the cap for failures), queries and environment
    steps. An episode whose environment failed (failure ``env_error``: the
    simulator raised or died) for any candidate is left out of every candidate,
    so that all candidates are compared on the same episodes and a simulator
    crash never decides tau; ``left_out`` counts those episodes."""
    rows = [(float(tau), str(episode), r) for tau, episode, r in results]
    broken = {ep for _, ep, r in rows if r.get("failure") == "env_error"}
    by: dict[float, list[Mapping[str, JSONValue]]] = {}
    for tau, ep, r in rows:
        by.setdefault(tau, [])
        if ep not in broken:
            by[tau].append(r)
    out = []
    for tau in sorted(by):
        rs = by[tau]
        m = [r.get("metrics") or {} for r in rs]
        n = len(rs)
        out.append({"tau": tau, "episodes": n, "left_out": len(broken),
                    "success": _mean([float(bool(r.get("verified"))) for r in rs]),
                    "replanning_rounds": _mean([x.get("replanning_rounds", 0) for x in m]),
                    "queries": _mean([x.get("queries", 0) for x in m]),
                    "env_steps": _mean([x.get("env_steps", 0) for x in m])})
    return out


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def default_tau() -> float:
    """AEC's default tau (its Config's), kept when nothing was selected."""
    from veriplan.methods.aec.config import Config

    return float(Config().tau)


def choose(summary: list[Candidate], default: float | None = None) -> Choice:
    """The chosen candidate's numbers with ``selected``, ``decided_by`` and
    ``reason``. Candidates are ranked by success (higher), replanning rounds,
    queries (fewer), tau (smaller); ``decided_by`` is the first of the three
    criteria after which one candidate is left, else "tie" ("only_candidate"
    for a single candidate). When every candidate has success 0, nothing is
    selected: ``tau`` is ``default`` (AEC's default tau when None),
    ``selected`` is False and ``decided_by`` is "tie"."""
    if not summary or all(s["episodes"] == 0 for s in summary):
        raise ConfigError("no finished validation episodes to choose tau from (episodes "
                          "whose environment failed are left out): run select-tau again "
                          "or on more validation episodes (--limit)")
    if all(s["success"] == 0 for s in summary):
        tau = default_tau() if default is None else float(default)
        return {"tau": tau, "selected": False, "decided_by": "tie", "reason": NO_WIN}
    best = max(summary, key=lambda s: (s["success"], -s["replanning_rounds"], -s["queries"],
                                       -s["tau"]))
    if len(summary) == 1:
        return {**best, "selected": True, "decided_by": "only_candidate",
                "reason": "the only candidate: nothing was compared"}
    left, decided = list(summary), "tie"
    for key in CRITERIA:
        left = [s for s in left if math.isclose(s[key], best[key], abs_tol=1e-9)]
        if len(left) == 1:
            decided = key
            break
    return {**best, "selected": True, "decided_by": decided, "reason": _REASONS[decided]}


def save_tau(name: str, chosen: Choice, summary: list[Candidate], **context: JSONValue
             ) -> Path:
    path = store_path("tau", name)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "tau": chosen["tau"], "selected": chosen.get("selected", True),
            "decided_by": chosen.get("decided_by"), "reason": chosen.get("reason", ""),
            "chosen": chosen, "candidates": summary,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"), **context}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)
    return path


def load_tau(name: str) -> tuple[float, str]:
    """(tau, where it came from) for a tau file given by name or path. The
    provenance is the path, followed by "(selected by KEY)" or, when no
    candidate was selected, "(not selected: REASON; the default tau)"; a file
    from before these were recorded gives the bare path."""
    data, path = read_stored("tau", name, "tau file",
                             "choose one with `veriplan aec select-tau --dataset "
                             "household_valid --name NAME`")
    if (not isinstance(data, dict) or data.get("format") != FORMAT
            or not isinstance(data.get("tau"), int | float)):
        raise ConfigError(f"{path} is not a tau file (format {FORMAT} with a number tau)")
    if data.get("selected") is False:
        reason = str(data.get("reason") or NO_WIN)
        return float(data["tau"]), f"{path}{_NOT_SELECTED}{reason}; the default tau)"
    if data.get("decided_by") in DECIDED_BY:
        return float(data["tau"]), f"{path}{_SELECTED}{data['decided_by']})"
    return float(data["tau"]), str(path)


def read_source(source: str) -> TauSource:
    """What a run's ``tau_source`` says: ``file`` (None for the config
    setting), ``selected`` (True, False, or None when not recorded) and
    ``decided_by`` (None when not recorded or not selected)."""
    if not source or source == "config":
        return {"file": None, "selected": False, "decided_by": None}
    if source.endswith(")") and _NOT_SELECTED in source:
        file, _, rest = source.partition(_NOT_SELECTED)
        return {"file": file, "selected": False, "decided_by": None,
                "reason": rest.removesuffix(")").removesuffix("; the default tau")}
    if source.endswith(")") and _SELECTED in source:
        file, _, rest = source.rpartition(_SELECTED)
        key = rest.removesuffix(")")
        if key in DECIDED_BY:
            return {"file": file, "selected": True, "decided_by": key}
    return {"file": source, "selected": None, "decided_by": None}


__all__ = ["CANDIDATES", "DECIDED_BY", "NO_WIN", "Candidate", "Choice", "TauSource", "choose",
           "default_tau", "load_tau", "read_source", "save_tau", "summarize"]
