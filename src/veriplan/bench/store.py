"""The run store: one SQLite file (WAL) per experiment directory, one row per
unit, written as soon as the unit ends. The unit id is the primary key and
rows are inserted with INSERT OR IGNORE, so a resumed sweep never counts a
unit twice; a kill at any moment loses at most the units still running.

A unit's result (its transcript included) is stored zlib-compressed: the
transcripts repeat their prompts, and the AEC household units took about 30
times less room. A store written before that holds its results as text; it is
read as it is, and :meth:`RunStore.compact` (run by every sweep) compresses it.

A result's ``failure`` is stored as its text and read back as the unit's
method's typed failure (:mod:`veriplan.methods.failures`) whenever the result
is read (:meth:`UnitRecord.result_dict`, :attr:`UnitRecord.failure`); a text
that method does not report is a RecordError naming the unit and the field."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from veriplan.core.verdict import Scope
from veriplan.errors import DataError
from veriplan.methods.failures import Failure, read_failure
from veriplan.storage import WalDatabase

STORE_NAME = "runs.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    id TEXT PRIMARY KEY,
    method TEXT NOT NULL, dataset TEXT NOT NULL, instance TEXT NOT NULL,
    backend TEXT NOT NULL, model TEXT NOT NULL, config TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL,             -- 'done' or 'error'
    verified INTEGER NOT NULL,        -- a sound check said valid, on the unit's scope
    solved_by TEXT,                   -- 'llm', a fallback's name, or NULL
    llm_calls INTEGER NOT NULL, tokens INTEGER NOT NULL, cost REAL,
    seconds REAL NOT NULL,
    error_category TEXT, error TEXT,
    result TEXT,                      -- the method's result: zlib-compressed JSON (a BLOB)
    veriplan_version TEXT NOT NULL, dataset_version TEXT NOT NULL,
    finished REAL NOT NULL,
    scope TEXT                        -- what "verified" was checked against (a Scope)
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
    # What "verified" was checked against (None: an error unit, which ran no check).
    scope: Scope | None = None

    def result_dict(self) -> dict:
        """The method's result, its ``failure`` read back as the typed value
        (see :attr:`failure`)."""
        if not self.result:
            return {}
        data = json.loads(self.result)
        if data.get("failure") is not None:
            data["failure"] = read_failure(data["failure"], method=self.method,
                                           record=f"unit {self.id} ({self.method})")
        return data

    @property
    def failure(self) -> Failure | None:
        """Why the method's run was not verified: a member of the method's
        failure enum, or None; a stored text the method does not report is a
        :class:`~veriplan.errors.RecordError` naming this unit and the field."""
        if not self.result:
            return None
        return read_failure(json.loads(self.result).get("failure"), method=self.method,
                            record=f"unit {self.id} ({self.method})")


def stored_scope(unit: str, result: str | None, where: str = "", dataset: str = ""
                 ) -> Scope | None:
    """The scope of a unit stored before the store had a scope column: read
    from its result (a current value, or free text of earlier versions,
    migrated); a result without one is a RecordError naming the unit.

    Free text ``"plan"`` meant "valid on the task the method was given", which
    was not always the dataset's own: DRIP and its baselines checked plans in
    the tower-move space (``metrics.action_space`` other than ``standard``) and
    the obfuscated datasets gave methods a renamed task. Such units migrate to
    :attr:`Scope.PLAN_IN_METHOD_SPACE`, never to a plan on the task."""
    if not result:
        return None
    data = json.loads(result)
    if "scope" in data:
        return Scope.read(data["scope"], record=f"unit {unit}{where}")
    scope = Scope.read(data.get("verified_scope"), record=f"unit {unit}{where}")
    metrics = data.get("metrics") or {}
    elsewhere = (metrics.get("action_space", "standard") != "standard"
                 or dataset.endswith("_obfuscated"))
    if scope is Scope.PLAN_ON_TASK and elsewhere:
        return Scope.PLAN_IN_METHOD_SPACE
    return scope


_COLUMNS = [f for f in UnitRecord.__dataclass_fields__]


def _pack(result: str | None) -> bytes | None:
    return None if result is None else zlib.compress(result.encode(), 6)


def _unpack(stored: str | bytes | None) -> str | None:
    """A stored result: compressed bytes, or the text of a store from before."""
    return zlib.decompress(stored).decode() if isinstance(stored, bytes) else stored


def _row(rec: UnitRecord) -> list:
    row = asdict(rec)
    row["result"] = _pack(rec.result)
    row["scope"] = rec.scope.value if rec.scope is not None else None
    return [row[c] for c in _COLUMNS]


class RunStore:
    def __init__(self, directory: str | Path, *, create: bool = True) -> None:
        self.dir = Path(directory)
        self.path = self.dir / STORE_NAME
        if not create and not self.path.is_file():
            raise DataError(f"no run store in {self.dir} (expected {self.path}): run "
                            "`veriplan bench ... --out DIR` first")
        self._db = WalDatabase(self.path, _SCHEMA)
        self._conn = self._db.conn
        columns = {row[1] for row in self._conn().execute("PRAGMA table_info(units)")}
        if "scope" not in columns:  # a store from before scopes were typed
            with contextlib.suppress(sqlite3.OperationalError):  # another process added it
                self._conn().execute("ALTER TABLE units ADD COLUMN scope TEXT")

    def add(self, rec: UnitRecord) -> bool:
        """Store a finished unit; False if it was already there (kept as it was)."""
        cur = self._conn().execute(
            f"INSERT OR IGNORE INTO units ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in _COLUMNS)})", _row(rec))
        return cur.rowcount == 1

    def replace(self, rec: UnitRecord) -> None:
        self._conn().execute(
            f"INSERT OR REPLACE INTO units ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in _COLUMNS)})", _row(rec))

    def compact(self) -> int:
        """Compress the results stored as text (a store from before compression)
        and give the freed pages back to the file system; returns how many."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(
                "SELECT id, result FROM units WHERE typeof(result) = 'text'").fetchall()
            conn.executemany("UPDATE units SET result = ? WHERE id = ?",
                             [(_pack(text), uid) for uid, text in rows])
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        # free pages (these, or an earlier call's that another process kept from
        # being given back) go back to the file system
        if conn.execute("PRAGMA freelist_count").fetchone()[0]:
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("VACUUM")
        return len(rows)

    def finished_ids(self, *, include_errors: bool = True) -> set[str]:
        q = "SELECT id FROM units" + ("" if include_errors else " WHERE status = 'done'")
        return {r[0] for r in self._conn().execute(q)}

    def dataset_versions(self) -> dict[str, str]:
        """The version of its dataset each stored unit ran on, by unit id."""
        return dict(self._conn().execute("SELECT id, dataset_version FROM units"))

    def records(self) -> Iterator[UnitRecord]:
        cur = self._conn().execute(f"SELECT {', '.join(_COLUMNS)} FROM units ORDER BY finished")
        for row in cur:
            d = dict(zip(_COLUMNS, row))
            d["verified"] = bool(d["verified"])
            d["result"] = _unpack(d["result"])
            if d["scope"] is None:
                d["scope"] = stored_scope(d["id"], d["result"], f" in {self.path}",
                                          d["dataset"])
            else:
                d["scope"] = Scope.read(d["scope"], record=f"unit {d['id']} in {self.path}")
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
