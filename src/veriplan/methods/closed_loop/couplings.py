"""NPMI couplings between a failing action and the predicates it missed
(section 5.6 of the paper): high-coupling pairs are the ones RC answers with
Parameter Swap & Landmarks.

The events are this run's failures (SA's signals, one per failed step: the
action and its missing predicates), optionally joined by a table from an
earlier run (the ``couplings`` setting: a JSON list of ``[action, predicate,
npmi, count]`` rows, or a ``report.json`` whose closed-loop groups list them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from veriplan.errors import ConfigError
from veriplan.npmi import npmi_pairs

Table = dict[tuple[str, str], tuple[float, int]]


def load_table(path: str) -> Table:
    """Coupling rows from ``path`` (see the module's docstring)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"setting couplings={path!r}: cannot read it ({exc})") from None
    rows: list = []
    if isinstance(data, dict) and "analyses" in data:
        for a in data["analyses"]:
            if a.get("method") == "closed-loop":
                rows += a.get("npmi", []) + a.get("npmi_negative", [])
    elif isinstance(data, dict):
        rows = data.get("couplings", [])
    else:
        rows = data
    table: Table = {}
    for row in rows:
        try:
            action, pred, value, count = row[0], row[1], float(row[2]), int(row[3])
        except (IndexError, TypeError, ValueError):
            raise ConfigError(f"setting couplings={path!r}: rows must be [action, predicate, "
                              f"npmi, count], found {row!r}") from None
        old = table.get((action, pred))
        if old is None or count > old[1]:
            table[(action, pred)] = (value, count)
    return table


@dataclass
class Couplings:
    threshold: float = 0.5
    min_count: int = 2
    prior: Table = field(default_factory=dict)
    events: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def add(self, action: str, predicates: tuple[str, ...]) -> None:
        if predicates:
            self.events.append((action, predicates))

    def strongest(self, action: str, predicates: tuple[str, ...]
                  ) -> tuple[str, float, int, str] | None:
        """The most strongly coupled of ``action``'s missing ``predicates``:
        (predicate, NPMI, count, "this run" or "earlier runs"), or None when no
        pair reaches the threshold with enough events."""
        run = npmi_pairs(self.events)
        best = None
        for source, table in (("this run", run), ("earlier runs", self.prior)):
            for p in predicates:
                hit = table.get((action, p))
                if hit is None or hit[0] < self.threshold or hit[1] < self.min_count:
                    continue
                if best is None or (hit[0], hit[1]) > (best[1], best[2]):
                    best = (p, hit[0], hit[1], source)
        return best
