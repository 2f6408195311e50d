"""The batch's caches of values built from files: the tasks of (domain, problem)
files (:func:`cached_task`) and the PlanBench configs, by file identity, across
items and calls (the parsed domains are :func:`veriplan.pddl.task.cached_domain`'s)."""

from __future__ import annotations

import _thread  # (threading.Lock is _thread.allocate_lock; threading costs start-up)
import os
import stat
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from veriplan.pddl.parser import _read_text, parse_problem
from veriplan.pddl.task import Task, cached_domain

if TYPE_CHECKING:
    from pathlib import Path

    from veriplan.pddl.ast import Domain
    from veriplan.planio.planbench import PlanBenchConfig

V = TypeVar("V")

RACY_NS = 2_000_000_000  # as the domain cache: a file this young is also compared by text


class FileCache(Generic[V]):
    """Values built from files, by file identity (path, device, inode, size,
    mtime in ns) and a caller's key; least recently used entries beyond
    ``size`` are dropped. A file written within :data:`RACY_NS` of being read
    keeps its text with the entry, and the entry is served only while the file
    still holds that text (see :class:`veriplan.pddl.task._DomainCache`).
    Thread-safe; a miss builds outside the lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = _thread.allocate_lock()
        self._entries: OrderedDict[tuple, list] = OrderedDict()  # key -> [value, text|None]

    def get(self, path: str, extra: tuple, build: Callable[[str], V],
            read: Callable[[str], str] = _read_text,
            st: os.stat_result | None = None) -> V:
        """The value for ``path`` (``build(read(path))`` on a miss); OSError if
        it cannot be looked at, ``read``'s error if it cannot be read. ``st``: the
        file's stat, if the caller has just taken it."""
        now = time.time_ns()
        if st is None:
            st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # not a regular file: read() says why
            read(path)
        key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, *extra)
        racy = now - st.st_mtime_ns < RACY_NS
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                value, source = entry
        if entry is not None:
            if source is None:
                return value
            if read(path) == source:
                if not racy:
                    entry[1] = None
                return value
        text = read(path)
        value = build(text)
        with self._lock:
            self._entries[key] = [value, text if racy else None]
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def hit(self, path: str, extra: tuple, st: os.stat_result | None = None
            ) -> tuple[V | None, os.stat_result]:
        """The value for ``path`` when it is cached, the file unchanged and the
        entry past its racy window, else None (:meth:`get` then); and the file's
        stat (``st``, if the caller has just taken it). OSError if the file cannot
        be looked at."""
        if st is None:
            st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None, st
        key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, *extra)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[1] is not None:
                return None, st
            self._entries.move_to_end(key)
        return entry[0], st

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def task_cache_size() -> int:
    """:data:`TASK_CACHE_SIZE`: ``VERIPLAN_TASK_CACHE`` when it is a positive integer."""
    try:
        size = int(os.environ.get("VERIPLAN_TASK_CACHE", ""))
    except ValueError:
        return 4096
    return size if size > 0 else 4096


#: How many problems' tasks a process keeps (least recently used beyond it are dropped):
#: 4096, or ``VERIPLAN_TASK_CACHE``. Results files list one model's answers after
#: another's, so a problem recurs about as many lines later as a model has answers;
#: a Blocksworld task holds about 3 KB, so 4096 of them about 13 MB.
TASK_CACHE_SIZE = task_cache_size()

#: problem file + its domain object -> (that domain, the Task)
_TASKS: FileCache[tuple[Domain, Task]] = FileCache(TASK_CACHE_SIZE)
#: PlanBench config file -> PlanBenchConfig
CONFIGS: FileCache[PlanBenchConfig] = FileCache(16)


def cached_task(domain_path: str | Path, problem_path: str | Path, *,
                strict: bool = True, max_bytes: int | None = None) -> Task:
    """The task of a domain and a problem file, both parsed once per file
    identity: the domain by :func:`veriplan.pddl.task.cached_domain`, the
    problem (with the task built on it) here, for the domain object it was
    parsed against (a changed domain file re-reads its problems). Up to
    :data:`TASK_CACHE_SIZE` tasks are kept. Tasks are shared: treat them as
    read-only. Each file may hold at most ``max_bytes`` (default
    :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`)."""
    domain = cached_domain(domain_path, strict=strict, max_bytes=max_bytes)
    return task_for(domain, os.fspath(problem_path), strict, max_bytes)


def task_for(domain: Domain, problem_path: str, strict: bool,
             max_bytes: int | None = None, st: os.stat_result | None = None) -> Task:
    """The task of problem file ``problem_path`` on ``domain`` (a parsed domain
    object), from the cache when the file is unchanged. ``st``: the file's stat, if
    the caller has just taken it."""
    got, st = _TASKS.hit(problem_path, (id(domain), strict), st)
    if got is not None and got[0] is domain:
        return got[1]

    def build(text: str) -> tuple[Domain, Task]:
        return domain, Task(domain, parse_problem(text, domain, file=problem_path,
                                                  strict=strict))

    def read(path: str) -> str:
        return _read_text(path, max_bytes)

    held, task = _TASKS.get(problem_path, (id(domain), strict), build, read, st)
    if held is not domain:  # an id reused by a new domain object: build afresh
        held, task = build(read(problem_path))
    return task


def clear_caches() -> None:
    """Forget the cached tasks and PlanBench configs (the domain cache is
    :func:`veriplan.pddl.task.clear_domain_cache`)."""
    _TASKS.clear()
    CONFIGS.clear()
