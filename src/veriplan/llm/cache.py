"""A persistent response cache: SQLite in WAL mode, shared by concurrent
processes, one row per canonical request hash.

Each answer is committed as soon as the call returns, so killing a process
(even with SIGKILL) loses nothing that returned. Keys never include API keys or
base URLs; rows hold the request's messages (no secrets) and the response.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from veriplan.llm.types import LLMRequest, LLMResponse
from veriplan.storage import WalDatabase, cache_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        self._db = WalDatabase(path, _SCHEMA)
        self.path = self._db.path
        self._conn = self._db.conn
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, backend: str, request: LLMRequest) -> LLMResponse | None:
        row = self._conn().execute("SELECT response FROM responses WHERE key = ?",
                                   (request.key(backend),)).fetchone()
        with self._lock:
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return LLMResponse.from_dict(json.loads(row[0]))

    def put(self, backend: str, request: LLMRequest, response: LLMResponse) -> None:
        self._conn().execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
            (request.key(backend), backend, response.model, request.canonical(backend),
             json.dumps(response.to_dict(), ensure_ascii=False), time.time()))

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def stats(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses}

    def close(self) -> None:
        self._db.close()


def default_cache_path() -> Path:
    return cache_dir() / "llm-cache.sqlite"
