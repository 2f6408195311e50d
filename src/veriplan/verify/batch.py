"""Plans by the thousand: judge many (domain, problem, plan) items in one go.

:func:`validate_many` is the Python API (an iterator of :class:`BatchVerdict`, in
the order of the items); :func:`batch_records` reads JSON Lines, optionally with
worker processes, and yields the JSON-ready records ``veriplan validate --batch``
prints. One item is a mapping::

    {"id": ..., "domain": PATH, "problem": PATH, "plan": TEXT}

with ``"plan_file": PATH`` instead of ``"plan"`` if the plan is in a file, and
optionally ``"format": "pddl"`` (the default) or ``"planbench"`` with
``"planbench_config": PATH``. Relative paths are read relative to ``base_dir``
(default: the current directory); with ``confine=True`` every path must lead,
through symlinks and ``..``, to a file inside it (an untrusted batch file). Every
file is read within a size limit (``max_bytes``, default
:data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`), and only regular files are read.

Parsed domains (:func:`veriplan.pddl.task.cached_domain`) and parsed problems
(here, as whole tasks) are cached by file identity across items and calls, so a
run over many plans of few problems parses each file once. An item that cannot be
judged (a missing file, a PDDL error, a malformed item or JSON line, even a
fault of veriplan's or a worker process that died) gets a verdict with an
:class:`ItemError` and the iteration goes on: no line loses its record.
"""

from __future__ import annotations

import _thread  # (threading.Lock is _thread.allocate_lock; threading costs start-up)
import codecs
import json
import os
import stat
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriplan.core.plan import Step
from veriplan.errors import (
    ConfigError,
    InputFileError,
    PDDLInputFileError,
    PDDLLenientWarning,
    PDDLSemanticError,
    SourceError,
    VeriplanError,
)
from veriplan.pddl import inputs
from veriplan.pddl.names import CLEAN_LINE
from veriplan.pddl.parser import _read_text, parse_problem
from veriplan.pddl.task import Task, cached_domain
from veriplan.verify.consistency import check_step, plainly_well_formed
from veriplan.verify.validator import (
    ValidationResult,
    false_parts,
    plan_metric,
    precondition_error,
    validate_plan,
)

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from veriplan.pddl.ast import Domain

# The plan readers (veriplan.planio) are imported by the first item that takes the
# general path: a batch of clean plans does without them (and their start-up).

#: The longest plan text the one-pass judge takes (a longer one takes the general
#: path, whose reader is lean on memory for long texts).
_QUICK_MAX = 1 << 16

#: The kinds of :class:`ItemError`.
ERROR_KINDS = ("json", "item", "missing-file", "pddl", "config", "too-large", "not-a-file",
               "not-text", "refused", "internal")


@dataclass(frozen=True, slots=True)
class ItemError:
    """Why an item could not be judged.

    ``kind`` is one of :data:`ERROR_KINDS`: ``json`` (the input line is not
    JSON; ``line`` and ``col`` locate the fault in the input), ``item`` (not an
    object, a key missing or of the wrong type), ``missing-file`` (``file``
    cannot be read), ``pddl`` (a PDDL file is malformed or outside veriplan's
    subset: ``file``, ``line`` and ``col`` locate it when known), ``config`` (a
    PlanBench config that cannot be used), ``too-large`` (a file, or the input
    line, over the size limit), ``not-a-file`` (a device, pipe or socket),
    ``not-text`` (a plan file that is not UTF-8 text), ``refused`` (a path
    outside the base directory of a confined batch), ``internal`` (a fault of
    veriplan's, or a worker process that died, on this line; the others go on).
    Messages name files but never quote a file that is not PDDL."""

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
             "failure", "detail", "unsatisfied", "unmet_goals", "metric", "error"}

        ``steps`` is the number of steps read; ``unread`` the lines that were not
        (``line``, ``text``, ``reason``); ``failed_step`` the 1-based number of
        the first step that cannot be executed and ``failed_action`` its text;
        ``failure`` its kind (``precondition``, ``unknown-action``, ...;
        ``unread`` when the steps read have no fault); ``unsatisfied`` its false
        preconditions and ``unmet_goals`` the goals false at the end, as PDDL;
        ``metric`` the problem's metric on the final state (VAL's "Final value"; null
        without a metric or for a plan that does not execute). ``error`` is None for a
        judged item; for one that was not, ``valid`` is None and ``error`` is
        :meth:`ItemError.to_dict`."""
        r = self.result
        if r is None:
            assert self.error is not None
            return {"line": self.line, "id": self.id, "valid": None, "steps": None,
                    "unread": [], "failed_step": None, "failed_action": None,
                    "failure": None, "detail": None, "unsatisfied": [], "unmet_goals": [],
                    "metric": None, "error": self.error.to_dict()}
        return {
            "line": self.line, "id": self.id, "valid": r.valid, "steps": len(r.plan),
            "unread": [{"line": u.line, "text": u.text, "reason": u.reason} for u in r.unread],
            "failed_step": r.failed_step, "failed_action": r.action,
            "failure": str(r.error) if r.error else None, "detail": r.detail or None,
            "unsatisfied": [u.pddl() for u in r.unsatisfied],
            "unmet_goals": [g.pddl() for g in r.unmet_goals],
            "metric": r.metric.value if r.metric is not None else None,
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
        self._lock = _thread.allocate_lock()
        self._entries: OrderedDict[tuple, list] = OrderedDict()  # key -> [value, text|None]

    def get(self, path: str, extra: tuple, build, read=_read_text,
            st: os.stat_result | None = None) -> Any:
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
            ) -> tuple[Any, os.stat_result]:
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


def _task_cache_size() -> int:
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
TASK_CACHE_SIZE = _task_cache_size()

_TASKS = _FileCache(TASK_CACHE_SIZE)  # problem file + its domain object -> Task
_CONFIGS = _FileCache(16)  # PlanBench config file -> PlanBenchConfig


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
    return _task(domain, os.fspath(problem_path), strict, max_bytes)


def _task(domain: Domain, problem_path: str, strict: bool,
          max_bytes: int | None = None, st: os.stat_result | None = None) -> Task:
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
    _CONFIGS.clear()


# ----- judging -----------------------------------------------------------------------------
class _Bad(Exception):
    def __init__(self, error: ItemError) -> None:
        self.error = error


_KIND = {"missing": "missing-file", "too-large": "too-large", "not-a-file": "not-a-file",
         "outside": "refused", "not-text": "not-text"}


def _file_error(exc: InputFileError) -> _Bad:
    """The record of a file that cannot be read: named, never quoted."""
    kind = _KIND.get(exc.reason, "missing-file")
    if kind == "not-text" and isinstance(exc, PDDLInputFileError):
        kind = "pddl"
    return _Bad(ItemError(kind, str(exc), file=exc.file, line=exc.line, col=exc.col))


def _missing(path: str, what: str, exc: OSError) -> _Bad:
    return _Bad(ItemError("missing-file", f"cannot read {what} {path}: {exc.strerror}",
                          file=path))


def _pddl_error(exc: VeriplanError) -> _Bad:
    if isinstance(exc, InputFileError):
        return _file_error(exc)
    if isinstance(exc, SourceError):
        return _Bad(ItemError("pddl", str(exc), file=exc.file, line=exc.line, col=exc.col))
    return _Bad(ItemError("pddl", str(exc)))


def _internal(exc: BaseException) -> ItemError:
    """The record of a fault of veriplan's on one line (the run goes on)."""
    text = str(exc)
    text = f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
    return ItemError("internal", f"internal error while judging this line ({text}); "
                                 "this is a bug in veriplan, please report it")


class _Judge:
    """Judges items one by one for one run. Consecutive items that name the same
    domain and problem files share one look-up of their task, and consecutive
    items that name the same domain file one look-up of the domain (the file
    identity is checked when the run reaches the first of them). After
    :meth:`new_window`, items of a window share the look-up of each file, in any
    order."""

    def __init__(self, base: str | None, strict: bool, confine: bool = False,
                 max_bytes: int | None = None) -> None:
        self.base = base
        self.strict = strict
        self.confine = confine
        self.max_bytes = inputs.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        self._root = os.path.realpath(base if base is not None else os.curdir)
        self._last: tuple[str, str, Task] | None = None
        self._raw: tuple[object, object, Task] | None = None  # as the item gave the paths
        self._domain: tuple[str, Domain] | None = None  # the last item's domain
        # domain path -> (mtime, inode, size, device, domain): this run's domains, found
        # with a stat and no look-up in the shared cache when the domain changes from
        # one item to the next (kept as _tasks keeps problems; not a domain read
        # leniently, whose warnings the shared cache gives again at every look-up)
        self._domains: dict[str, tuple] = {}
        # problem path -> (domain, mtime, inode, size, device, task): this run's
        # problems, found with a stat and no look-up in the shared cache (an entry is
        # kept once its file is older than RACY_NS, as the shared cache keeps it)
        self._tasks: dict[str, tuple] = {}
        # a path as an item gives it -> as it is read (not when confined: where a
        # path leads is looked up for each item then)
        self._paths: dict[str, str] | None = None if confine else {}
        # (domain path, problem path) -> task, and domain path -> domain: the files
        # whose identity was checked in this window of lines (see new_window); None:
        # every item checks its files (when its domain or problem differs from the
        # item before's)
        self._fresh: dict[tuple[str, str], Task] | None = None
        self._fresh_domains: dict[str, Domain] = {}
        # the same tasks by the paths as items give them (not when confined)
        self._named: dict[tuple[str, str], Task] | None = None

    def new_window(self) -> None:
        """Start a window of lines: from now on a file whose identity (device, inode,
        size, modification time) was checked in this window is not checked again
        until the next call; a file written in the last :data:`RACY_NS` is checked
        (and compared by text) at every item, as before."""
        self._fresh = {}
        self._named = {}
        self._fresh_domains.clear()
        self._last = self._raw = self._domain = None  # the window looks at them again

    def verdict(self, line: int, item: Any) -> BatchVerdict:
        ident = item.get("id") if isinstance(item, Mapping) else None
        try:
            return BatchVerdict(line, ident, result=self._judge(item))
        except _Bad as bad:
            return BatchVerdict(line, ident, error=bad.error)
        except PDDLSemanticError as exc:  # a task that cannot be grounded
            return BatchVerdict(line, ident, error=_pddl_error(exc).error)
        except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001
            return BatchVerdict(line, ident, error=_internal(exc))

    def _path(self, item: Mapping, key: str, what: str) -> str:
        p = item.get(key)
        paths = self._paths
        if paths is not None and type(p) is str:
            known = paths.get(p)
            if known is not None:
                return known
        if not isinstance(p, str) or not p:
            raise _Bad(ItemError("item", f"'{key}' must be a file path (a non-empty string)"
                                 if key in item else f"the item has no '{key}' (a file path)"))
        try:
            p = inputs.check_path(p, what)
        except InputFileError as exc:
            raise _Bad(ItemError("item", f"'{key}': {exc.message}", file=exc.file)) from None
        base = self.base
        if base is not None and not os.path.isabs(p):
            p = os.path.join(base, p)
        if self.confine:
            full = os.path.realpath(p)
            root = self._root
            if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
                raise _Bad(ItemError(
                    "refused", f"{p}: the {what} is outside the base directory {root} "
                               "(--confine: paths may not leave it, also through symlinks "
                               "or '..')", file=p))
        if paths is not None and type(item.get(key)) is str:
            if len(paths) >= 4096:
                paths.clear()
            paths[item[key]] = p
        return p

    def _task(self, dpath: str, ppath: str) -> Task:
        last = self._last
        if last is not None and last[0] == dpath and last[1] == ppath:
            return last[2]
        fresh = self._fresh
        if fresh is not None:
            task = fresh.get((dpath, ppath))
            if task is not None:  # checked in this window
                self._domain = (dpath, task.domain)
                self._last = (dpath, ppath, task)
                return task
        strict = self.strict
        held = self._domain
        if held is not None and held[0] == dpath:
            domain = held[1]
        else:
            self._domain = None
            domain = self._fresh_domains.get(dpath) if fresh is not None else None
            if domain is None:
                domain = self._domain_at(dpath)
            self._domain = (dpath, domain)
        try:
            st = os.stat(ppath)
            seen = self._tasks.get(ppath)
            if (seen is not None and seen[0] is domain and seen[1] == st.st_mtime_ns
                    and seen[2] == st.st_ino and seen[3] == st.st_size
                    and seen[4] == st.st_dev):
                task = seen[5]
                if fresh is not None:
                    self._checked(fresh, dpath, ppath, task)
            else:
                task = _task(domain, ppath, strict, self.max_bytes, st)
                if stat.S_ISREG(st.st_mode) and time.time_ns() - st.st_mtime_ns >= RACY_NS:
                    if len(self._tasks) >= TASK_CACHE_SIZE:
                        self._tasks.clear()
                    self._tasks[ppath] = (domain, st.st_mtime_ns, st.st_ino, st.st_size,
                                          st.st_dev, task)
                    if fresh is not None:
                        self._checked(fresh, dpath, ppath, task)
        except OSError as exc:
            raise _missing(ppath, "problem file", exc) from None
        except InputFileError as exc:
            raise _file_error(exc) from None
        except (SourceError, PDDLSemanticError) as exc:
            raise _pddl_error(exc) from None
        self._last = (dpath, ppath, task)
        return task

    def _domain_at(self, dpath: str) -> Domain:
        """The domain of file ``dpath``: this run's when the file is as it was then,
        else :func:`~veriplan.pddl.task.cached_domain`'s (which says why a file
        cannot be read)."""
        try:
            st = os.stat(dpath)
        except (OSError, ValueError):
            st = None
        else:
            seen = self._domains.get(dpath)
            if (seen is not None and seen[0] == st.st_mtime_ns and seen[1] == st.st_ino
                    and seen[2] == st.st_size and seen[3] == st.st_dev):
                if self._fresh is not None and len(self._fresh_domains) < 64:
                    self._fresh_domains[dpath] = seen[4]
                return seen[4]
        try:
            domain = cached_domain(dpath, strict=self.strict, max_bytes=self.max_bytes)
        except InputFileError as exc:
            raise _file_error(exc) from None
        except (SourceError, PDDLSemanticError) as exc:
            raise _pddl_error(exc) from None
        if (st is not None and stat.S_ISREG(st.st_mode) and not domain.warnings
                and time.time_ns() - st.st_mtime_ns >= RACY_NS):
            if len(self._domains) >= 64:
                self._domains.clear()
            self._domains[dpath] = (st.st_mtime_ns, st.st_ino, st.st_size, st.st_dev, domain)
            if self._fresh is not None and len(self._fresh_domains) < 64:
                self._fresh_domains[dpath] = domain
        return domain

    def _checked(self, fresh: dict[tuple[str, str], Task], dpath: str, ppath: str,
                 task: Task) -> None:
        """Keep a task whose files were checked, for the rest of the window (at most
        :data:`TASK_CACHE_SIZE` of them: the run keeps no more): not one whose domain
        file is looked at for every item (written in the last :data:`RACY_NS`, or
        read leniently, whose warnings are given at every look-up)."""
        if len(fresh) < TASK_CACHE_SIZE and self._fresh_domains.get(dpath) is task.domain:
            fresh[(dpath, ppath)] = task

    def _quick(self, line: int, ident: Any, item: dict) -> tuple[bool, str] | None:
        """The verdict and record of a common item, ``{"domain", "problem", "plan"}``
        whose plan is clean PDDL (every line blank or one ``(action arg ...)``), read
        and judged in one pass without building the steps, the parsed plan or the
        result; None for any other item (the general path judges it: the same
        record). Raises what :meth:`_judge` raises for the item's files."""
        plan_text = item.get("plan")
        if (type(plan_text) is not str or "format" in item or "planbench_config" in item
                or "plan_file" in item or len(plan_text) > _QUICK_MAX
                or len(plan_text) > self.max_bytes):
            return None
        raw = self._raw
        d, p = item.get("domain"), item.get("problem")
        if raw is not None and d == raw[0] and p == raw[1]:
            task = raw[2]
        else:
            named = self._named
            key = (d, p) if type(d) is str and type(p) is str else None
            task = named.get(key) if named is not None and key is not None else None
            if task is None:  # (named: the paths as items give them, checked this window)
                dpath = self._path(item, "domain", "domain file")
                ppath = self._path(item, "problem", "problem file")
                task = self._task(dpath, ppath)
                if (named is not None and key is not None and self._paths is not None
                        and self._fresh is not None
                        and self._fresh.get((dpath, ppath)) is task
                        and len(named) < TASK_CACHE_SIZE):
                    named[key] = task
            self._raw = (d, p, task) if key is not None else None
        if task.numeric or task.axioms is not None:
            return None  # numbers, derived predicates: the general path's
        # (str.islower tests every character's case through Unicode's tables: for an
        # ASCII text, lower-casing it outright costs less and gives the same text)
        low = (plan_text.lower() if plan_text.isascii() or not plan_text.islower()
               else plan_text)
        if "plan" in low:
            from veriplan.planio.pddl_plan import clean_text

            if clean_text(plan_text) is None:
                return None  # a plan marker, or "__" (see clean_text)
        lines = low.split("\n")
        if lines[-1][-1:] == "\r":
            return None  # not clean: a "\r" ends no line
        memo = task._by_text  # this task's steps
        if memo is None or len(memo) > _BY_TEXT:
            memo = task._by_text = {}
        # The STRIPS steps of an untyped domain, for every task of it: such a step is
        # read and well-formed in a task whose objects hold its arguments.
        shared = None if task.domain.types else task._shared.by_text
        objects = task.objects
        # Every step first, as the reader reads them all before the validator runs:
        # a line that is not clean, or a step the reader would not read as it
        # stands, leaves the plan to the general path (which reads it some other
        # way, or reports the line unread). The memos hold clean lines only.
        ops = []
        for text in lines:
            if shared is not None:
                op = shared.get(text)
                if op is not None:
                    for a in op.args:
                        if a not in objects:
                            return None
                    ops.append(op)
                    continue
            op = memo.get(text)
            if op is None:
                if not text:
                    continue
                m = CLEAN_LINE.fullmatch(text)
                if m is None:
                    return None
                step = m.group(1)
                if step is None:  # a blank line
                    continue
                op = _quick_op(task, step[1:-1], len(ops) + 1)
                if op is None:
                    return None
                if shared is not None and op.name in task._templates:
                    if len(shared) > _BY_TEXT_SHARED:
                        shared.clear()
                    shared[text] = op
                else:
                    memo[text] = op
            ops.append(op)
        n = len(ops)
        state = task.init
        for i, op in enumerate(ops, 1):
            if op.pre_rest or op.cond_effects:
                if not op.applicable(state):
                    return self._quick_failed(line, ident, task, op, i, n, state)
                state = op.apply(state)
            else:
                pos = op.pre_pos
                if state & pos != pos or state & op.pre_neg:
                    return self._quick_failed(line, ident, task, op, i, n, state)
                state = (state & ~op.delete) | op.add
        if task.goal.holds(state):
            metric = "null"
            if task.problem.metric is not None:
                m = plan_metric(task, sum(op.cost for op in ops), n)
                metric = _json(m.value if m is not None else None)
            return True, _record_text(line, _id_json(ident), "true", n, "null", "null",
                                      "null", "null", "", "", "", metric)
        unmet = false_parts(task.goal, state, task.facts)
        return not unmet, _judged(line, ident, not unmet, n, None, None, None, None, (), unmet)

    @staticmethod
    def _quick_failed(line: int, ident: Any, task: Task, op: Any, i: int, n: int,
                      state: int) -> tuple[bool, str]:
        """The record of a plan whose step ``i`` (operator ``op``) cannot be executed
        in ``state``. A conjunctive precondition's failure is told the same way for
        the same false literals: kept per domain, by the literals."""
        key = None
        if not op.pre_rest:
            key = (op.name, op.args, op.pre_pos & ~state, op.pre_neg & state)
            told = task._shared.failures.get(key)
            if told is not None:
                return False, _record_text(line, _id_json(ident), "false", n, str(i), *told)
        err = precondition_error(task, Step(op.name, op.args), i, op, state)
        enc = _STR
        told = (enc(str(err.step)), enc(str(err.kind)),
                enc(err.detail) if err.detail else "null",
                ", ".join([enc(u.pddl()) for u in err.unsatisfied]), "", "")
        if key is not None:
            failures = task._shared.failures
            if len(failures) > _BY_TEXT_SHARED:
                failures.clear()
            failures[key] = told
        return False, _record_text(line, _id_json(ident), "false", n, str(i), *told)

    def _judge(self, item: Any) -> ValidationResult:
        if type(item) is dict and "format" not in item and "planbench_config" not in item:
            # The common item: {"domain", "problem", "plan"} of the last item's problem.
            raw, plan_text = self._raw, item.get("plan")
            if (raw is not None and type(plan_text) is str and item.get("domain") == raw[0]
                    and item.get("problem") == raw[1] and "plan_file" not in item
                    and len(plan_text) <= self.max_bytes):
                task = raw[2]
                from veriplan.planio import parse_plan

                return validate_plan(task, parse_plan(plan_text, task))
        if not isinstance(item, Mapping):
            raise _Bad(ItemError("item", f"an item must be a JSON object, not "
                                         f"{type(item).__name__}"))
        dpath = self._path(item, "domain", "domain file")
        ppath = self._path(item, "problem", "problem file")
        fmt = item.get("format", "pddl")
        if fmt not in ("pddl", "planbench"):
            shown = fmt if isinstance(fmt, str) and len(fmt) <= 40 else type(fmt).__name__
            raise _Bad(ItemError("item", f"unknown format {shown!r}: use 'pddl' or "
                                         "'planbench'"))
        if "plan" in item and "plan_file" in item:
            raise _Bad(ItemError("item", "the item has both 'plan' and 'plan_file': give one"))
        if "plan" in item:
            plan_text = item["plan"]
            if isinstance(plan_text, list) and all(isinstance(s, str) for s in plan_text):
                plan_text = "\n".join(plan_text)
            if not isinstance(plan_text, str):
                raise _Bad(ItemError("item", "'plan' must be the plan's text (a string, or a "
                                             "list of lines)"))
            if len(plan_text) > self.max_bytes:
                raise _Bad(ItemError("too-large", "'plan' is larger than the limit of "
                                     f"{inputs.size_text(self.max_bytes)} (--max-bytes)"))
        elif "plan_file" in item:
            plan_path = self._path(item, "plan_file", "plan file")
            try:
                plan_text = inputs.read_text(plan_path, what="plan file",
                                             max_bytes=self.max_bytes)
            except InputFileError as exc:
                raise _file_error(exc) from None
        else:
            raise _Bad(ItemError("item", "the item has neither 'plan' (text) nor 'plan_file'"))
        config = None
        if fmt == "planbench" or "planbench_config" in item:
            if "planbench_config" not in item:
                raise _Bad(ItemError("item", "format 'planbench' needs 'planbench_config' "
                                             "(a PlanBench YAML config)"))
            cpath = self._path(item, "planbench_config", "PlanBench config")
            from veriplan.planio.planbench import PlanBenchConfig

            def read(path: str) -> str:
                return inputs.read_text(path, what="PlanBench config", max_bytes=self.max_bytes)

            try:
                config = _CONFIGS.get(cpath, (), lambda text: PlanBenchConfig.from_text(
                    text, file=cpath), read)
            except OSError as exc:
                raise _missing(cpath, "PlanBench config", exc) from None
            except InputFileError as exc:
                raise _file_error(exc) from None
            except (ConfigError, SourceError) as exc:
                raise _Bad(ItemError("config", str(exc), file=cpath)) from None
        task = self._task(dpath, ppath)
        raw = (item["domain"], item["problem"])
        self._raw = (*raw, task) if all(type(r) is str for r in raw) else None
        from veriplan.planio import parse_plan

        parsed = parse_plan(plan_text, task, format=fmt, config=config)
        try:
            return validate_plan(task, parsed)
        except PDDLSemanticError as exc:  # an action that cannot be grounded
            raise _pddl_error(exc) from None


def validate_many(items: Iterable[Mapping], *, base_dir: str | Path | None = None,
                  strict: bool = True, confine: bool = False,
                  max_bytes: int | None = None) -> Iterator[BatchVerdict]:
    """Judge each item (see the module docstring for its keys), in order.

    Yields one :class:`BatchVerdict` per item, lazily: ``verdict.line`` is the
    item's 1-based position, ``verdict.result`` the
    :class:`~veriplan.verify.ValidationResult` (a plan with an unread line is
    not valid), or ``verdict.error`` an :class:`ItemError` for an item that
    could not be judged; the iteration goes on after it. Relative paths are
    read relative to ``base_dir`` (default: the current directory);
    ``confine=True`` refuses paths that lead outside it (through symlinks and
    ``..`` too). Files over ``max_bytes`` (default
    :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`) and files that are not
    regular files are refused.
    ``strict=False`` accepts known defects of published PDDL files with a
    :class:`~veriplan.errors.PDDLLenientWarning`. Domains and problems are
    parsed once per file identity (see :func:`cached_task`).
    """
    judge = _Judge(os.fspath(base_dir) if base_dir is not None else None, strict, confine,
                   max_bytes)
    for n, item in enumerate(items, 1):
        yield judge.verdict(n, item)


# ----- JSON Lines, with worker processes ---------------------------------------------------
_BLANK = object()


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


# Strict JSON: NaN, Infinity and numbers out of a float's range are refused (a record
# that repeated them would not be JSON).
_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)
_SCAN = _DECODER.scan_once  # one JSON value at a position


class _TooLong(str):
    """A line cut at the size limit (its rest was skipped)."""


def _read_line(n: int, text: str, limit: int | None = None) -> Any:
    """The item on JSON line ``n``, or an ItemError; _BLANK for a blank line."""
    if text.__class__ is _TooLong or (limit is not None and len(text) > limit):
        return ItemError("too-large", f"input line {n} is longer than the limit of "
                                      f"{inputs.size_text(limit or len(text))} "
                                      "(--max-bytes)", line=n)
    try:  # the common line: a value from its first character to the line's end
        item, end = _SCAN(text, 0)
        if end == len(text) or text[end:] in ("\n", "\r\n"):
            return item
    except (StopIteration, ValueError, RecursionError):
        pass  # the decoder says what is wrong, or reads what the scanner did not start on
    body = text.rstrip("\r\n")
    if not body.strip():
        return _BLANK
    if body[:1] == inputs.BOM:  # a file's byte-order mark, or a concatenated file's
        body = body[1:]
    try:
        return _DECODER.decode(body)
    except json.JSONDecodeError as exc:
        end = " (the line ends there)" if exc.pos >= len(body) else ""
        return ItemError("json", f"input line {n} is not JSON: {exc.msg} at column "
                                 f"{exc.colno}{end}", line=n, col=exc.colno)
    except RecursionError:
        return ItemError("json", f"input line {n} is not JSON: nested too deeply", line=n)
    except ValueError as exc:  # NaN, Infinity, 1e999, an integer of over 4300 digits
        return ItemError("json", f"input line {n} is not JSON: {str(exc)[:120]}", line=n)


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


_STR = json.encoder.encode_basestring  # a str as JSON, as _ENCODER writes it


def _json(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is str:
        return _STR(value)
    if type(value) is int:
        return int.__repr__(value)
    return _ENCODER.encode(value)


def _id_json(ident: Any) -> str:
    """An item's id as JSON; null for one that cannot be written (nested deeper than
    the encoder goes)."""
    try:
        return _json(ident)
    except (ValueError, TypeError, RecursionError):
        return "null"


def _error_record(line: int, ident: Any, error: ItemError) -> str:
    d = BatchVerdict(line, None, error=error).to_dict()
    text = _ENCODER.encode(d)
    return text.replace('"id": null', '"id": ' + _id_json(ident), 1)


_BY_TEXT = 4096  # the most step texts a task's memo keeps (then it starts afresh)
_BY_TEXT_SHARED = 1 << 16  # and a domain's


def _quick_op(task: Task, group: str, index: int) -> Any:
    """The operator of the clean step ``(group)`` of a plan, if the PDDL reader reads
    it as the step (a known action with its number of arguments, known objects: see
    :func:`veriplan.planio.pddl_plan.read_clean`) and the validator finds it
    well-formed; else None."""
    words = group.split()
    name = words[0]
    schema = task.schemas.get(name)
    if schema is None or len(schema.params) != len(words) - 1:
        return None
    args = tuple(words[1:])
    objects = task.objects
    for a in args:
        if a not in objects:
            return None
    op = task.checked_operator(name, args)
    if op is not None:
        return op
    step = Step(name, args)
    if not plainly_well_formed(task, step) and check_step(task, step, index) is not None:
        return None
    try:
        return task.mark_checked(name, args)
    except PDDLSemanticError:  # the general path says why
        return None


def _judged(line: int, ident: Any, valid: bool, steps: int, failed_step: int | None,
            action: str | None, failure: str | None, detail: str | None,
            unsatisfied: Iterable[Any], unmet: Iterable[Any], unread: str = "",
            metric: float | None = None) -> str:
    """The record of a judged item (:meth:`BatchVerdict.to_dict`), as JSON text."""
    enc = _STR
    return _record_text(line, _id_json(ident), "true" if valid else "false", steps,
                        _json(failed_step), _json(action), enc(failure) if failure else "null",
                        enc(detail) if detail else "null",
                        ", ".join([enc(u.pddl()) for u in unsatisfied]),
                        ", ".join([enc(g.pddl()) for g in unmet]), unread, _json(metric))


def _record_text(line: int, ident: str, valid: str, steps: int, failed_step: str,
                 action: str, failure: str, detail: str, unsatisfied: str, unmet: str,
                 unread: str, metric: str = "null") -> str:
    """A judged item's record from its fields' JSON (the lists' items joined)."""
    return (f'{{"line": {line}, "id": {ident}, "valid": {valid}, "steps": {steps}, '
            f'"unread": [{unread}], "failed_step": {failed_step}, "failed_action": {action}, '
            f'"failure": {failure}, "detail": {detail}, "unsatisfied": [{unsatisfied}], '
            f'"unmet_goals": [{unmet}], "metric": {metric}, "error": null}}')


def _record(judge: _Judge, line: int, item: Any) -> tuple[bool | None, str]:
    """An item's verdict and its record's JSON text (that of
    ``_ENCODER.encode(verdict.to_dict())``, written directly for a judged item).
    Never raises: a fault on this line becomes its record (error kind
    ``internal``)."""
    if isinstance(item, ItemError):
        return None, _error_record(line, None, item)
    ident = item.get("id") if type(item) is dict or isinstance(item, Mapping) else None
    try:
        if type(item) is dict:
            quick = judge._quick(line, ident, item)
            if quick is not None:
                return quick
        r = judge._judge(item)
        enc = _STR
        unread = ", ".join([f'{{"line": {_json(u.line)}, "text": {enc(u.text)}, '
                            f'"reason": {enc(u.reason)}}}' for u in r.unread]
                           ) if r.unread else ""
        return r.valid, _judged(line, ident, r.valid, len(r.plan), r.failed_step, r.action,
                                str(r.error) if r.error else None, r.detail, r.unsatisfied,
                                r.unmet_goals, unread,
                                r.metric.value if r.metric is not None else None)
    except _Bad as bad:
        return None, _error_record(line, ident, bad.error)
    except PDDLSemanticError as exc:  # a task that cannot be grounded
        return None, _error_record(line, ident, _pddl_error(exc).error)
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001
        judge._last = judge._raw = judge._domain = None
        if judge._fresh is not None:
            judge.new_window()  # (what it holds is looked at again)
        return None, _error_record(line, ident, _internal(exc))


def _work(base: str | None, strict: bool, confine: bool, max_bytes: int | None,
          chunk: list[tuple[int, Any]]
          ) -> tuple[list[tuple[int, tuple[bool | None, str]]], list[str]]:
    """In a worker process: each item's verdict and record text, and the
    lenient warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PDDLLenientWarning)
        judge = _Judge(base, strict, confine, max_bytes)
        judge.new_window()  # the chunk is (part of) a window
        out = [(n, _record(judge, n, item)) for n, item in chunk]
    return out, list(dict.fromkeys(str(w.message) for w in caught
                                   if issubclass(w.category, PDDLLenientWarning)))


def _group_key(item: Any) -> tuple:
    if isinstance(item, Mapping):
        d, p = item.get("domain"), item.get("problem")
        return (d if type(d) is str else "", p if type(p) is str else "")
    return ("", "")


#: The most worker processes a batch starts, whatever it is asked for.
MAX_WORKERS = 64


def worker_cap() -> int:
    """How many worker processes a batch starts at most here: four a CPU, at most
    :data:`MAX_WORKERS`, and few enough for the open-file limit (a worker holds
    about eight descriptors)."""
    cap = min(MAX_WORKERS, 4 * (os.cpu_count() or 1))
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft != resource.RLIM_INFINITY:
            cap = min(cap, max(1, (soft - 64) // 8))
    except (ImportError, OSError, ValueError):
        pass
    return max(1, cap)


def read_lines(stream: Any, limit: int | None = None) -> Iterator[str]:
    """The lines of a text stream, each at most ``limit`` characters (default
    :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`): a longer line is cut there and
    its rest skipped without being held, and comes out marked so that
    :func:`batch_lines` gives it a ``too-large`` record."""
    limit = inputs.DEFAULT_MAX_BYTES if limit is None else limit
    readline = stream.readline
    while True:
        line = readline(limit + 1)
        if not line:
            return
        if len(line) > limit and line[-1] != "\n":
            while True:  # skip the rest of the line
                rest = readline(1 << 20)
                if not rest or rest[-1] == "\n":
                    break
            line = _TooLong("")
        yield line


#: The lines of a window with ``workers > 1`` when ``window`` is not given: each
#: worker gets the window's lines of its problems in one task.
WINDOW = 2000
#: The lines of a window of ``veriplan validate --batch FILE`` with one process
#: (a file's lines are all there when the run starts; see :func:`batch_lines`).
FILE_WINDOW = 10_000
#: The most characters of input lines a window of ``workers > 1`` holds (a longer
#: line is a window of its own, at most ``max_bytes``).
WINDOW_CHARS = 8 << 20


def batch_lines(lines: Iterable[str], *, base_dir: str | Path | None = None,
                strict: bool = True, workers: int = 1, window: int | None = None,
                window_chars: int = WINDOW_CHARS, confine: bool = False,
                max_bytes: int | None = None) -> Iterator[tuple[bool | None, str]]:
    """Judge the items of JSON Lines ``lines`` and yield, for each, its verdict
    (True valid, False not valid, None not judged) and its record's JSON text
    (:meth:`BatchVerdict.to_dict`, ``line`` = the input line number), in input
    order; blank lines are skipped. A line that is not JSON (strict JSON: no
    ``NaN`` or ``Infinity``) gets a record with error kind ``json``, a line over
    ``max_bytes`` one with kind ``too-large``; whatever a line holds, every
    other line gets its record. Records are strict JSON (see
    :func:`json_text` for writing them to a stream that cannot encode every
    character). ``base_dir``, ``confine`` and ``max_bytes``: see
    :func:`validate_many`.

    ``window``: the lines are judged ``window`` at a time (``window_chars``
    characters of them at most, with workers), and a domain or problem file is
    looked at (device, inode, size, modification time) once a window: a file
    changed while a window's lines are judged is read again from the next window
    on (one written in the last :data:`RACY_NS` is also compared by text at every
    line). With one process the lines are still judged and their records yielded
    one by one, and nothing is held but the window's checked files, so a shuffled
    file costs about what a file sorted by problem does. ``None`` (the default):
    with one process each line's files are looked at whenever its domain or
    problem differs from the line before's (a stream whose lines name files
    written as they come); with workers, :data:`WINDOW` lines.

    ``workers > 1`` judges in that many processes (at most :func:`worker_cap`):
    the lines of a window are read and grouped by (domain, problem), each problem
    sent to the same process, whose caches then parse it once; the order is kept.
    A worker that dies is replaced; the lines it held are judged again in a fresh
    one, and a line on which a worker dies alone gets an ``internal`` error
    record. Lenient warnings of the workers are re-issued here, once each."""
    base = os.fspath(base_dir) if base_dir is not None else None
    limit = inputs.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if window is not None and window < 1:
        raise ValueError(f"window must be at least 1 line, not {window}")
    if workers > 1:
        workers = min(workers, worker_cap())
    if workers > 1:
        yield from _pooled(_windows(lines, limit, window or WINDOW, window_chars),
                           (base, strict, confine, limit), workers)
        return
    judge = _Judge(base, strict, confine, limit)
    if window is None or window == 1:
        for n, text in enumerate(lines, 1):
            item = _read_line(n, text, limit)
            if item is not _BLANK:
                yield _record(judge, n, item)
        return
    left = window
    judge.new_window()
    for n, text in enumerate(lines, 1):
        item = _read_line(n, text, limit)
        if item is not _BLANK:
            yield _record(judge, n, item)
            left -= 1
            if not left:
                judge.new_window()
                left = window


def _windows(lines: Iterable[str], limit: int, window: int, chars: int
             ) -> Iterator[list[tuple[int, Any]]]:
    """The numbered items of ``lines`` (blank lines left out), ``window`` lines at a
    time, fewer when the lines held reach ``chars`` characters."""
    batch: list[tuple[int, Any]] = []
    held = 0
    for n, text in enumerate(lines, 1):
        item = _read_line(n, text, limit)
        if item is _BLANK:
            continue
        batch.append((n, item))
        held += len(text)
        if len(batch) >= window or held >= chars:
            yield batch
            batch = []
            held = 0
    if batch:
        yield batch


def _died(n: int) -> tuple[int, tuple[None, str]]:
    return n, (None, _error_record(n, None, ItemError(
        "internal", f"the worker process judging input line {n} died (killed, or out of "
                    "memory); judged alone in a fresh process, it died again")))


def _pooled(windows: Iterator[list[tuple[int, Any]]], setup: tuple, workers: int
            ) -> Iterator[tuple[bool | None, str]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(method)

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=ctx)

    pools = [new_pool() for _ in range(workers)]
    home: dict[tuple, int] = {}  # problem -> the worker that has it cached
    load = [0] * workers
    local: list[_Judge] = []  # judges in this process, for a pool that cannot start

    def run_here(chunk: list[tuple[int, Any]]):
        if not local:
            local.append(_Judge(*setup))
        return [(n, _record(local[0], n, item)) for n, item in chunk], []

    def start(w: int, chunk: list[tuple[int, Any]]) -> tuple:
        for _ in range(2):
            pool = pools[w]
            try:
                return w, pool, chunk, pool.submit(_work, *setup, chunk)
            except BrokenProcessPool:  # its process died since: a fresh one
                replace(w, pool)
            except (OSError, RuntimeError):  # no process can start: judged here
                break
        return w, pools[w], chunk, None

    def submit(batch: list[tuple[int, Any]]) -> list[tuple]:
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
        return [start(w, chunk) for w, chunk in enumerate(chunks) if chunk]

    def replace(w: int, pool: ProcessPoolExecutor) -> None:
        if pools[w] is pool:
            pool.shutdown(wait=False, cancel_futures=True)
            pools[w] = new_pool()

    def outcome(task: tuple):
        """The chunk's records, and its warnings; a chunk whose worker died is
        judged again, in halves, in a fresh process."""
        w, pool, chunk, future = task
        if future is None:
            return run_here(chunk)
        try:
            return future.result()
        except Exception:  # noqa: BLE001 (BrokenProcessPool, or the chunk would not pickle)
            replace(w, pool)
        if len(chunk) == 1:
            again = start(w, chunk)
            try:
                return again[3].result() if again[3] is not None else run_here(chunk)
            except Exception:  # noqa: BLE001
                replace(w, again[1])
                return [_died(chunk[0][0])], []
        half = len(chunk) // 2
        out: list = []
        warned: list[str] = []
        for part in (chunk[:half], chunk[half:]):
            o, ws = outcome(start(w, part))
            out += o
            warned += ws
        return out, warned

    seen_warnings: set[str] = set()

    def drain(tasks: list[tuple]) -> Iterator[tuple[bool | None, str]]:
        done: list[tuple[int, tuple[bool | None, str]]] = []
        for task in tasks:
            out, warned = outcome(task)
            done += out
            for text in warned:
                if text not in seen_warnings:
                    seen_warnings.add(text)
                    warnings.warn(text, PDDLLenientWarning, stacklevel=2)
        done.sort(key=lambda x: x[0])
        for _n, record in done:
            yield record

    try:
        pending: list[tuple] | None = None
        for batch in windows:
            tasks = submit(batch)  # the next window runs while this one is written
            if pending is not None:
                yield from drain(pending)
            pending = tasks
        if pending is not None:
            yield from drain(pending)
    finally:
        for p in pools:
            p.shutdown(wait=True, cancel_futures=True)


# ----- writing records -----------------------------------------------------------------------
def _json_escape(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}")
        else:
            out.append(f"\\u{cp:04x}")
    return "".join(out), exc.end


#: The codec error handler that writes a character the output cannot encode (a lone
#: surrogate from a JSON "\ud800"; any non-ASCII one on an ASCII stream) as a JSON
#: escape; records only hold such characters inside strings, so they stay JSON.
JSON_ESCAPE = "veriplan-json-escape"
codecs.register_error(JSON_ESCAPE, _json_escape)


def json_text(text: str, encoding: str | None) -> str:
    """Record text that ``encoding`` can write: characters it cannot (lone
    surrogates, or any beyond its range) as JSON escapes."""
    enc = encoding or "utf-8"
    try:
        text.encode(enc)
        return text
    except UnicodeEncodeError:
        return text.encode(enc, JSON_ESCAPE).decode(enc)
