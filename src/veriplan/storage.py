"""Where veriplan keeps files, and SQLite files shared by threads and
processes: WAL journal, one connection per thread, every statement committed on
its own (autocommit)."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path


def cache_dir() -> Path:
    """``VERIPLAN_CACHE``, else ``$XDG_CACHE_HOME/veriplan``, else ``~/.cache/veriplan``."""
    env = os.environ.get("VERIPLAN_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "veriplan"


class WalDatabase:
    def __init__(self, path: str | Path, schema: str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self.conn().execute(schema)

    def conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a killed process loses no committed row; a power cut
            # may roll back the last commits, never corrupt the file.
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
