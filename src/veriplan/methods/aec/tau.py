"""Choosing tau on a validation split (Section 4.4) and recording the choice.

`veriplan aec select-tau` runs AEC over the validation episodes once per
candidate tau (through the benchmark harness, so it resumes and runs in
parallel), then :func:`choose` takes the candidate with the highest success
rate, then the fewest replanning rounds, then the fewest queries, and
:func:`save_tau` writes it with every candidate's numbers. A run loads it with
``--config tau_file=NAME`` (a name under the cache, or a path); the result's
metrics say which tau it used and from where.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from veriplan.errors import ConfigError
from veriplan.methods.aec.predictor import read_stored, store_path

CANDIDATES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
FORMAT = "aec-tau/1"


def summarize(results: Iterable[tuple[float, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Per tau, from (tau, SolveResult dict) pairs: episodes, success rate, mean
    replanning rounds (the cap for failures), queries and environment steps."""
    by: dict[float, list[Mapping[str, Any]]] = {}
    for tau, result in results:
        by.setdefault(float(tau), []).append(result)
    out = []
    for tau in sorted(by):
        rs = by[tau]
        m = [r.get("metrics") or {} for r in rs]
        n = len(rs)
        out.append({"tau": tau, "episodes": n,
                    "success": sum(bool(r.get("verified")) for r in rs) / n,
                    "replanning_rounds": sum(x.get("replanning_rounds", 0) for x in m) / n,
                    "queries": sum(x.get("queries", 0) for x in m) / n,
                    "env_steps": sum(x.get("env_steps", 0) for x in m) / n})
    return out


def choose(summary: list[dict[str, Any]]) -> dict[str, Any]:
    if not summary:
        raise ConfigError("no finished validation episodes to choose tau from")
    return max(summary, key=lambda s: (s["success"], -s["replanning_rounds"], -s["queries"],
                                       -s["tau"]))


def save_tau(name: str, chosen: dict[str, Any], summary: list[dict[str, Any]],
             **context: Any) -> Path:
    path = store_path("tau", name)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "tau": chosen["tau"], "chosen": chosen, "candidates": summary,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"), **context}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)
    return path


def load_tau(name: str) -> tuple[float, str]:
    """(tau, where it came from) for a tau file given by name or path."""
    data, path = read_stored("tau", name, "tau file",
                             "choose one with `veriplan aec select-tau --dataset "
                             "household_valid --name NAME`")
    if data.get("format") != FORMAT or not isinstance(data.get("tau"), int | float):
        raise ConfigError(f"{path} is not a tau file (format {FORMAT} with a number tau)")
    return float(data["tau"]), str(path)


__all__ = ["CANDIDATES", "choose", "load_tau", "save_tau", "summarize"]
