"""Plans by the thousand: judge many (domain, problem, plan) items in one go.

:func:`validate_many` is the Python API (an iterator of :class:`BatchVerdict`, in
the order of the items); :func:`batch_records` reads JSON Lines, optionally with
worker processes, and yields the JSON-ready records ``veriplan validate --batch``
prints. One item is a mapping::

    {"id": ..., "domain": PATH, "problem": PATH, "plan": TEXT}

with ``"plan_file": PATH`` instead of ``"plan"`` if the plan is in a file, and
optionally ``"format": "pddl"`` (the default) or ``"planbench"`` with
``"planbench_config": PATH``. Relative paths are read relative to ``base_dir``
(default: the current directory).

Parsed domains (:func:`veriplan.pddl.task.cached_domain`) and parsed problems
(here, as whole tasks) are cached by file identity across items and calls, so a
run over many plans of few problems parses each file once. An item that cannot be
judged (a missing file, a PDDL error, a malformed item or JSON line) gets a
verdict with an :class:`ItemError` and the iteration goes on.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veriplan.errors import (
    ConfigError,
    PDDLLenientWarning,
    PDDLSemanticError,
    SourceError,
    VeriplanError,
)
from veriplan.pddl.ast import Domain
from veriplan.pddl.parser import _read_text, parse_problem
from veriplan.pddl.task import Task, cached_domain
from veriplan.planio import parse_plan
from veriplan.verify.validator import ValidationResult, validate_plan

#: The kinds of :class:`ItemError`.
ERROR_KINDS = ("json", "item", "missing-file", "pddl", "config")


@dataclass(frozen=True, slots=True)
class ItemError:
    """Why an item could not be judged.

    ``kind`` is one of :data:`ERROR_KINDS`: ``json`` (the input line is not
    JSON; ``line`` and ``col`` locate the fault in the input), ``item`` (not an
    object, a key missing or of the wrong type), ``missing-file`` (``file``
    cannot be read), ``pddl`` (a PDDL file is malformed or outside veriplan's
    subset: ``file``, ``line`` and ``col`` locate it when known), ``config`` (a
    PlanBench config that cannot be used)."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "file": self.file,
                "line": self.line, "col": self.col}


@dataclass(frozen=True, slots=True)
class BatchVerdict:
    """The verdict on one item: ``result`` when it was judged, else ``error``.

    ``line`` is the item's 1-based position in the input (for JSON Lines, its
    line number); ``id`` is the item's ``"id"`` (None when it has none)."""

    line: int
    id: Any
    result: ValidationResult | None = None
    error: ItemError | None = None

    @property
    def judged(self) -> bool:
        return self.result is not None

    @property
    def valid(self) -> bool | None:
        """True or False when judged, None when the item could not be judged."""
        return None if self.result is None else self.result.valid

    def to_dict(self) -> dict:
        """One JSON-ready record (the line ``veriplan validate --batch`` prints)::

            {"line", "id", "valid", "steps", "unread", "failed_step", "failed_action",
             "failure", "detail", "unsatisfied", "unmet_goals", "error"}

        ``steps`` is the number of steps read; ``unread`` the lines that were not
        (``line``, ``text``, ``reason``); ``failed_step`` the 1-based number of
        the first step that cannot be executed and ``failed_action`` its text;
        ``failure`` its kind (``precondition``, ``unknown-action``, ...;
        ``unread`` when the steps read have no fault); ``unsatisfied`` its false
        preconditions and ``unmet_goals`` the goals false at the end, as PDDL.
        ``error`` is None for a judged item; for one that was not, ``valid`` is
        None and ``error`` is :meth:`ItemError.to_dict`."""
        r = self.result
        if r is None:
            assert self.error is not None
            return {"line": self.line, "id": self.id, "valid": None, "steps": None,
                    "unread": [], "failed_step": None, "failed_action": None,
                    "failure": None, "detail": None, "unsatisfied": [], "unmet_goals": [],
                    "error": self.error.to_dict()}
        return {
            "line": self.line, "id": self.id, "valid": r.valid, "steps": len(r.plan),
            "unread": [{"line": u.line, "text": u.text, "reason": u.reason} for u in r.unread],
            "failed_step": r.failed_step, "failed_action": r.action,
            "failure": str(r.error) if r.error else None, "detail": r.detail or None,
            "unsatisfied": [u.pddl() for u in r.unsatisfied],
            "unmet_goals": [g.pddl() for g in r.unmet_goals],
            "error": None,
        }


# ----- caches ------------------------------------------------------------------------------
RACY_NS = 2_000_000_000  # as the domain cache: a file this young is also compared by text


class _FileCache:
    """Values built from files, by file identity (path, device, inode, size,
    mtime in ns) and a caller's key; least recently used entries beyond
    ``size`` are dropped. A file written within :data:`RACY_NS` of being read
    keeps its text with the entry, and the entry is served only while the file
    still holds that text (see :class:`veriplan.pddl.task._DomainCache`).
    Thread-safe; a miss builds outside the lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple, list] = OrderedDict()  # key -> [value, text|None]

    def get(self, path: str, extra: tuple, build) -> Any:
        """The value for ``path`` (``build(text)`` on a miss); OSError if unreadable."""
        now = time.time_ns()
        st = os.stat(path)
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
            if _read_text(path) == source:
                if not racy:
                    entry[1] = None
                return value
        text = _read_text(path)
        value = build(text)
        with self._lock:
            self._entries[key] = [value, text if racy else None]
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_TASKS = _FileCache(128)  # problem file + its domain object -> Task
_CONFIGS = _FileCache(16)  # PlanBench config file -> PlanBenchConfig


def cached_task(domain_path: str | Path, problem_path: str | Path, *,
                strict: bool = True) -> Task:
    """The task of a domain and a problem file, both parsed once per file
    identity: the domain by :func:`veriplan.pddl.task.cached_domain`, the
    problem (with the task built on it) here, for the domain object it was
    parsed against (a changed domain file re-reads its problems). Up to 128
    tasks are kept. Tasks are shared: treat them as read-only."""
    domain = cached_domain(domain_path, strict=strict)
    return _task(domain, os.fspath(problem_path), strict)


def _task(domain: Domain, problem_path: str, strict: bool) -> Task:
    def build(text: str) -> tuple[Domain, Task]:
        return domain, Task(domain, parse_problem(text, domain, file=problem_path,
                                                  strict=strict))

    held, task = _TASKS.get(problem_path, (id(domain), strict), build)
    if held is not domain:  # an id reused by a new domain object: build afresh
        held, task = build(_read_text(problem_path))
    return task


def clear_caches() -> None:
    """Forget the cached tasks and PlanBench configs (the domain cache is
    :func:`veriplan.pddl.task.clear_domain_cache`)."""
    _TASKS.clear()
    _CONFIGS.clear()


# ----- judging -----------------------------------------------------------------------------
class _Bad(Exception):
    def __init__(self, error: ItemError) -> None:
        self.error = error


def _path(item: Mapping, key: str, base: str | None) -> str:
    p = item.get(key)
    if not isinstance(p, str) or not p:
        raise _Bad(ItemError("item", f"'{key}' must be a file path (a non-empty string)"
                             if key in item else f"the item has no '{key}' (a file path)"))
    if base is not None and not os.path.isabs(p):
        p = os.path.join(base, p)
    return p


def _missing(path: str, what: str, exc: OSError) -> _Bad:
    return _Bad(ItemError("missing-file", f"cannot read {what} {path}: {exc.strerror}",
                          file=path))


def _readable(path: str, what: str) -> None:
    """Raise a missing-file error when ``path`` cannot be read as a file (after a
    read error, to tell a missing file from a malformed one)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _missing(path, what, exc) from None
    if stat.S_ISDIR(st.st_mode):
        raise _Bad(ItemError("missing-file", f"cannot read {what} {path}: it is a directory",
                             file=path))
    if not os.access(path, os.R_OK):
        raise _Bad(ItemError("missing-file", f"cannot read {what} {path}: permission denied",
                             file=path))


def _pddl_error(exc: VeriplanError) -> _Bad:
    if isinstance(exc, SourceError):
        return _Bad(ItemError("pddl", str(exc), file=exc.file, line=exc.line, col=exc.col))
    return _Bad(ItemError("pddl", str(exc)))


class _Judge:
    """Judges items one by one for one run. Consecutive items that name the same
    domain and problem files share one look-up of their task (the file identity
    is checked when the run reaches the first of them)."""

    def __init__(self, base: str | None, strict: bool) -> None:
        self.base = base
        self.strict = strict
        self._last: tuple[str, str, Task] | None = None
        self._raw: tuple[object, object, Task] | None = None  # as the item gave the paths

    def verdict(self, line: int, item: Any) -> BatchVerdict:
        ident = item.get("id") if isinstance(item, Mapping) else None
        try:
            return BatchVerdict(line, ident, result=self._judge(item))
        except _Bad as bad:
            return BatchVerdict(line, ident, error=bad.error)

    def _task(self, dpath: str, ppath: str) -> Task:
        last = self._last
        if last is not None and last[0] == dpath and last[1] == ppath:
            return last[2]
        strict = self.strict
        try:
            domain = cached_domain(dpath, strict=strict)
        except (SourceError, PDDLSemanticError) as exc:
            _readable(dpath, "domain file")
            raise _pddl_error(exc) from None
        try:
            task = _task(domain, ppath, strict)
        except OSError as exc:
            raise _missing(ppath, "problem file", exc) from None
        except (SourceError, PDDLSemanticError) as exc:
            _readable(ppath, "problem file")
            raise _pddl_error(exc) from None
        self._last = (dpath, ppath, task)
        return task

    def _judge(self, item: Any) -> ValidationResult:
        if type(item) is dict and "format" not in item and "planbench_config" not in item:
            # The common item: {"domain", "problem", "plan"} of the last item's problem.
            raw, plan_text = self._raw, item.get("plan")
            if (raw is not None and type(plan_text) is str and item.get("domain") == raw[0]
                    and item.get("problem") == raw[1]):
                task = raw[2]
                return validate_plan(task, parse_plan(plan_text, task))
        base = self.base
        if not isinstance(item, Mapping):
            raise _Bad(ItemError("item", f"an item must be a JSON object, not "
                                         f"{type(item).__name__}"))
        dpath = _path(item, "domain", base)
        ppath = _path(item, "problem", base)
        fmt = item.get("format", "pddl")
        if fmt not in ("pddl", "planbench"):
            raise _Bad(ItemError("item", f"unknown format {fmt!r}: use 'pddl' or 'planbench'"))
        if "plan" in item:
            plan_text = item["plan"]
            if isinstance(plan_text, list) and all(isinstance(s, str) for s in plan_text):
                plan_text = "\n".join(plan_text)
            if not isinstance(plan_text, str):
                raise _Bad(ItemError("item", "'plan' must be the plan's text (a string, or a "
                                             "list of lines)"))
        elif "plan_file" in item:
            plan_path = _path(item, "plan_file", base)
            try:
                with open(plan_path, encoding="utf-8", errors="replace") as f:
                    plan_text = f.read()
            except OSError as exc:
                raise _missing(plan_path, "plan file", exc) from None
        else:
            raise _Bad(ItemError("item", "the item has neither 'plan' (text) nor 'plan_file'"))
        config = None
        if fmt == "planbench" or "planbench_config" in item:
            if "planbench_config" not in item:
                raise _Bad(ItemError("item", "format 'planbench' needs 'planbench_config' "
                                             "(a PlanBench YAML config)"))
            cpath = _path(item, "planbench_config", base)
            from veriplan.planio.planbench import PlanBenchConfig

            try:
                config = _CONFIGS.get(cpath, (), lambda _text: PlanBenchConfig.from_yaml(cpath))
            except OSError as exc:
                raise _missing(cpath, "PlanBench config", exc) from None
            except (ConfigError, SourceError) as exc:
                raise _Bad(ItemError("config", str(exc), file=cpath)) from None
        task = self._task(dpath, ppath)
        raw = (item["domain"], item["problem"])
        self._raw = (*raw, task) if all(type(r) is str for r in raw) else None
        return validate_plan(task, parse_plan(plan_text, task, format=fmt, config=config))


def validate_many(items: Iterable[Mapping], *, base_dir: str | Path | None = None,
                  strict: bool = True) -> Iterator[BatchVerdict]:
    """Judge each item (see the module docstring for its keys), in order.

    Yields one :class:`BatchVerdict` per item, lazily: ``verdict.line`` is the
    item's 1-based position, ``verdict.result`` the
    :class:`~veriplan.verify.ValidationResult` (a plan with an unread line is
    not valid), or ``verdict.error`` an :class:`ItemError` for an item that
    could not be judged; the iteration goes on after it. Relative paths are
    read relative to ``base_dir`` (default: the current directory).
    ``strict=False`` accepts known defects of published PDDL files with a
    :class:`~veriplan.errors.PDDLLenientWarning`. Domains and problems are
    parsed once per file identity (see :func:`cached_task`).
    """
    judge = _Judge(os.fspath(base_dir) if base_dir is not None else None, strict)
    for n, item in enumerate(items, 1):
        yield judge.verdict(n, item)


# ----- JSON Lines, with worker processes ---------------------------------------------------
_BLANK = object()


_SCAN = json.JSONDecoder().scan_once  # one JSON value at a position


def _read_line(n: int, text: str) -> Any:
    """The item on JSON line ``n``, or an ItemError; _BLANK for a blank line."""
    try:  # the common line: a value from its first character to the line's end
        item, end = _SCAN(text, 0)
        if end == len(text) or text[end:] in ("\n", "\r\n"):
            return item
    except (StopIteration, ValueError, RecursionError):
        pass  # json.loads says what is wrong, or reads what the scanner did not start on
    if not text.strip():
        return _BLANK
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        return ItemError("json", f"input line {n} is not JSON: {exc.msg} at column "
                                 f"{exc.colno}", line=n, col=exc.colno)
    except RecursionError:
        return ItemError("json", f"input line {n} is not JSON: nested too deeply", line=n)


_ENCODER = json.JSONEncoder(ensure_ascii=False)


_STR = json.encoder.encode_basestring  # a str as JSON, as _ENCODER writes it


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is str:
        return _STR(value)
    if type(value) is int:
        return int.__repr__(value)
    return _ENCODER.encode(value)


def _record(judge: _Judge, line: int, item: Any) -> tuple[bool | None, str]:
    """An item's verdict and its record's JSON text (that of
    ``_ENCODER.encode(verdict.to_dict())``, written directly for a judged item)."""
    if isinstance(item, ItemError):
        return None, _ENCODER.encode(BatchVerdict(line, None, error=item).to_dict())
    ident = item.get("id") if type(item) is dict or isinstance(item, Mapping) else None
    try:
        r = judge._judge(item)
    except _Bad as bad:
        return None, _ENCODER.encode(BatchVerdict(line, ident, error=bad.error).to_dict())
    enc = _STR
    unread = ", ".join([f'{{"line": {_json(u.line)}, "text": {enc(u.text)}, '
                        f'"reason": {enc(u.reason)}}}' for u in r.unread]) if r.unread else ""
    return r.valid, (
        f'{{"line": {line}, "id": {_json(ident)}, "valid": {"true" if r.valid else "false"}, '
        f'"steps": {len(r.plan)}, "unread": [{unread}], '
        f'"failed_step": {_json(r.failed_step)}, "failed_action": {_json(r.action)}, '
        f'"failure": {enc(str(r.error)) if r.error else "null"}, '
        f'"detail": {enc(r.detail) if r.detail else "null"}, '
        f'"unsatisfied": [{", ".join([enc(u.pddl()) for u in r.unsatisfied])}], '
        f'"unmet_goals": [{", ".join([enc(g.pddl()) for g in r.unmet_goals])}], '
        f'"error": null}}')


def _work(base: str | None, strict: bool,
          chunk: list[tuple[int, Any]]
          ) -> tuple[list[tuple[int, tuple[bool | None, str]]], list[str]]:
    """In a worker process: each item's verdict and record text, and the
    lenient warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PDDLLenientWarning)
        judge = _Judge(base, strict)
        out = [(n, _record(judge, n, item)) for n, item in chunk]
    return out, list(dict.fromkeys(str(w.message) for w in caught
                                   if issubclass(w.category, PDDLLenientWarning)))


def _group_key(item: Any) -> tuple:
    if isinstance(item, Mapping):
        return (str(item.get("domain")), str(item.get("problem")))
    return ("", "")


def batch_lines(lines: Iterable[str], *, base_dir: str | Path | None = None,
                strict: bool = True, workers: int = 1,
                window: int = 2000) -> Iterator[tuple[bool | None, str]]:
    """Judge the items of JSON Lines ``lines`` and yield, for each, its verdict
    (True valid, False not valid, None not judged) and its record's JSON text
    (:meth:`BatchVerdict.to_dict`, ``line`` = the input line number), in input
    order; blank lines are skipped. A line that is not JSON gets a record with
    error kind ``json``.

    ``workers > 1`` judges in that many processes: the lines are read
    ``window`` at a time, grouped by (domain, problem) and each problem sent to
    the same process, whose caches then parse it once; the order is kept.
    Lenient warnings of the workers are re-issued here, once each."""
    base = os.fspath(base_dir) if base_dir is not None else None
    if workers <= 1:
        judge = _Judge(base, strict)
        for n, text in enumerate(lines, 1):
            item = _read_line(n, text)
            if item is not _BLANK:
                yield _record(judge, n, item)
        return
    numbered = ((n, _read_line(n, t)) for n, t in enumerate(lines, 1))
    numbered = ((n, x) for n, x in numbered if x is not _BLANK)
    yield from _pooled(numbered, base, strict, workers, window)


def _pooled(numbered: Iterator[tuple[int, Any]], base: str | None, strict: bool,
            workers: int, window: int) -> Iterator[tuple[bool | None, str]]:
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(method)
    pools = [ProcessPoolExecutor(max_workers=1, mp_context=ctx) for _ in range(workers)]
    home: dict[tuple, int] = {}  # problem -> the worker that has it cached
    load = [0] * workers

    def submit(batch: list[tuple[int, Any]]) -> list[Future]:
        groups: dict[tuple, list[tuple[int, Any]]] = {}
        for n, item in batch:
            groups.setdefault(_group_key(item), []).append((n, item))
        chunks: list[list[tuple[int, Any]]] = [[] for _ in pools]
        for key, group in groups.items():
            w = home.get(key)
            if w is None:
                w = home[key] = load.index(min(load))
            load[w] += len(group)
            chunks[w] += group  # a problem's items stay together
        # One task a worker a window: a task costs a round trip through the pool.
        return [pools[w].submit(_work, base, strict, chunk)
                for w, chunk in enumerate(chunks) if chunk]

    def windows() -> Iterator[list[tuple[int, Any]]]:
        batch: list[tuple[int, Any]] = []
        for x in numbered:
            batch.append(x)
            if len(batch) >= window:
                yield batch
                batch = []
        if batch:
            yield batch

    seen_warnings: set[str] = set()

    def drain(futures: list[Future]) -> Iterator[tuple[bool | None, str]]:
        done: list[tuple[int, tuple[bool | None, str]]] = []
        for f in futures:
            out, warned = f.result()
            done += out
            for text in warned:
                if text not in seen_warnings:
                    seen_warnings.add(text)
                    warnings.warn(text, PDDLLenientWarning, stacklevel=2)
        done.sort(key=lambda x: x[0])
        for _n, record in done:
            yield record

    try:
        pending: list[Future] | None = None
        for batch in windows():
            futures = submit(batch)  # the next window runs while this one is written
            if pending is not None:
                yield from drain(pending)
            pending = futures
        if pending is not None:
            yield from drain(pending)
    finally:
        for p in pools:
            p.shutdown(wait=True, cancel_futures=True)
