"""Unit-by-unit diff of two run stores: which units changed (status, verdict,
plan, calls, tokens, the result's metrics without timings), grouped by task
and by how they changed.

    python benchmarks/diff_stores.py OLD/runs.sqlite NEW/runs.sqlite
"""

from __future__ import annotations

import json
import sqlite3
import sys
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass

TIMING = ("second", "latency", "elapsed", "time", "finished")

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


def without_timings(x: JSON) -> JSON:
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items()
                if not any(t in k.lower() for t in TIMING)}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


@dataclass(frozen=True)
class Unit:
    method: str
    dataset: str
    instance: str
    model: str
    outcome: str  # the compared fields, as canonical JSON

    @property
    def fields(self) -> dict[str, JSON]:
        return json.loads(self.outcome)


def load(path: str) -> dict[str, Unit]:
    out = {}
    rows = sqlite3.connect(path).execute(
        "select id, method, dataset, instance, model, status, verified, llm_calls, tokens, "
        "error_category, result from units")
    for uid, method, ds, inst, model, status, ver, calls, toks, err, res in rows:
        d = json.loads(zlib.decompress(res) if isinstance(res, bytes) else res) if res else {}
        metrics = d.get("metrics") or {}
        outcome = {"status": status, "verified": bool(ver), "calls": calls, "tokens": toks,
                   "error": err, "plan": d.get("plan"), "violated": metrics.get("violated"),
                   "metrics": without_timings(metrics)}
        out[uid] = Unit(method, ds, inst, model, json.dumps(outcome, sort_keys=True))
    return out


def main(old_path: str, new_path: str) -> None:
    old, new = load(old_path), load(new_path)
    shared = old.keys() & new.keys()
    print(f"old {len(old)} units, new {len(new)}; shared {len(shared)}; only new "
          f"{len(new.keys() - old.keys())}; only old {len(old.keys() - new.keys())}")
    changed = sorted(u for u in shared if old[u].outcome != new[u].outcome)
    print(f"changed: {len(changed)}")
    by_task: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for u in changed:
        a, b = old[u].fields, new[u].fields
        what = ",".join(k for k in a if a[k] != b[k])
        by_task[old[u].dataset, old[u].instance][
            (old[u].method, f"verified {a['verified']}->{b['verified']}",
             f"violated {a['violated']}->{b['violated']}", what)] += 1
    for (ds, inst), counts in sorted(by_task.items()):
        print(f"{ds} {inst}: {sum(counts.values())} units")
        for key, n in sorted(counts.items()):
            print("   ", n, *key)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
