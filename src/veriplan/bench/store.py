"""The run store: one SQLite file (WAL) per experiment directory, one row per
unit, written as soon as the unit ends. The unit id is the primary key and
rows are inserted with INSERT OR IGNORE, so a resumed sweep never counts a
unit twice; a kill at any moment loses at most the units still running."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from veriplan.errors import DataError
from veriplan.storage import WalDatabase

STORE_NAME = "runs.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    id TEXT PRIMARY KEY,
    method TEXT NOT NULL, dataset TEXT NOT NULL, instance TEXT NOT NULL,
    backend TEXT NOT NULL, model TEXT NOT NULL, config TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL,             -- 'done' or 'error'
    verified INTEGER NOT NULL,        -- the validator accepted the plan
    solved_by TEXT,                   -- 'llm', a fallback's name, or NULL
    llm_calls INTEGER NOT NULL, tokens INTEGER NOT NULL, cost REAL,
    seconds REAL NOT NULL,
    error_category TEXT, error TEXT,
    result TEXT,                      -- the method's serialized result
    veriplan_version TEXT NOT NULL, dataset_version TEXT NOT NULL,
    finished REAL NOT NULL
)
"""


@dataclass(frozen=True)
class UnitRecord:
    id: str
    method: str
    dataset: str
    instance: str
    backend: str
    model: str
    config: str  # canonical JSON
    seed: int
    status: str
    verified: bool
    solved_by: str | None
    llm_calls: int
    tokens: int
    cost: float | None
    seconds: float
    error_category: str | None
    error: str | None
    result: str | None
    veriplan_version: str
    dataset_version: str
    finished: float

    def result_dict(self) -> dict:
        return json.loads(self.result) if self.result else {}


_COLUMNS = [f for f in UnitRecord.__dataclass_fields__]


class RunStore:
    def __init__(self, directory: str | Path, *, create: bool = True) -> None:
        self.dir = Path(directory)
        self.path = self.dir / STORE_NAME
        if not create and not self.path.is_file():
            raise DataError(f"no run store in {self.dir} (expected {self.path}): run "
                            "`veriplan bench ... --out DIR` first")
        self._db = WalDatabase(self.path, _SCHEMA)
        self._conn = self._db.conn

    def add(self, rec: UnitRecord) -> bool:
        """Store a finished unit; False if it was already there (kept as it was)."""
        row = asdict(rec)
        cur = self._conn().execute(
            f"INSERT OR IGNORE INTO units ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in _COLUMNS)})", [row[c] for c in _COLUMNS])
        return cur.rowcount == 1

    def replace(self, rec: UnitRecord) -> None:
        row = asdict(rec)
        self._conn().execute(
            f"INSERT OR REPLACE INTO units ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in _COLUMNS)})", [row[c] for c in _COLUMNS])

    def finished_ids(self, *, include_errors: bool = True) -> set[str]:
        q = "SELECT id FROM units" + ("" if include_errors else " WHERE status = 'done'")
        return {r[0] for r in self._conn().execute(q)}

    def records(self) -> Iterator[UnitRecord]:
        cur = self._conn().execute(f"SELECT {', '.join(_COLUMNS)} FROM units ORDER BY finished")
        for row in cur:
            d = dict(zip(_COLUMNS, row))
            d["verified"] = bool(d["verified"])
            yield UnitRecord(**d)

    def get(self, prefix: str) -> UnitRecord:
        rows = [r for r in self.records() if r.id.startswith(prefix)]
        if len(rows) != 1:
            raise DataError(f"{len(rows)} results have an id starting with {prefix!r} in "
                            f"{self.path}; give more of the id")
        return rows[0]

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM units").fetchone()[0]

    def close(self) -> None:
        self._db.close()
