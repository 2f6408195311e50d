"""The item judge: :class:`ItemJudge` finds an item's files (the paths as the item
gives them, checked and kept by file identity for a run or a window of lines),
reads its plan and judges it, clean plans through the one-pass judge
(:func:`veriplan.verify.quick.quick_record`), others through the plan readers and
:func:`~veriplan.verify.validator.validate_plan`. :func:`validate_many` (verdicts)
and :func:`item_record` (record text, for JSON Lines) are its two faces."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from veriplan.core.arguments import BATCH_ITEM, ArgumentError, refused_path
from veriplan.errors import ConfigError, InputFileError, PDDLSemanticError, SourceError
from veriplan.pddl import inputs
from veriplan.pddl.task import cached_domain
from veriplan.verify.happening import TOLERANCE, check_tolerance
from veriplan.verify.quick import QUICK_MAX, quick_record, read_quick
from veriplan.verify.records import ItemId, error_record, result_record
from veriplan.verify.task_cache import CONFIGS, RACY_NS, TASK_CACHE_SIZE, task_for
from veriplan.verify.validator import ValidationResult, validate_plan
from veriplan.verify.verdicts import (
    BatchVerdict,
    ItemError,
    NotJudged,
    file_error,
    internal_error,
    missing_file,
    pddl_error,
)

if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeAlias

    from veriplan.core.jsonvalue import JSONValue
    from veriplan.pddl.ast import Domain
    from veriplan.pddl.task import Task

    #: An item to judge: a batch line's JSON value (a JSON object, when it is one the
    #: judge can read; any other value gets an ``item`` error), or a mapping an API
    #: caller gives (see :func:`validate_many`).
    BatchItem: TypeAlias = JSONValue | Mapping[str, object]

# The plan readers (veriplan.planio) are imported by the first item that takes the
# general path: a batch of clean plans does without them (and their start-up).

# An item's keys (veriplan.core.arguments.BATCH_ITEM): the judge reads the names batch
# files have always had (an item with only those is judged as it is); an item that
# gives the names every face shares (domain_path, problem_path, plan_path,
# planbench_config_path) is read under the older ones, and its messages name its own.
_OLDER = frozenset({"id", "domain", "problem", "plan", "plan_file", "format",
                    "planbench_config"})
_AS_READ = {new: old for old, new in BATCH_ITEM.aliases.items()}
_SHARED = frozenset(BATCH_ITEM.names)
_SHARED_GIVEN = {old: new for new, old in _AS_READ.items()}  # an item of the shared names


def contract_item(item: BatchItem) -> tuple[BatchItem, dict[str, str] | None]:
    """``item`` with its keys as the judge reads them, and the keys it gave for the
    ones renamed (None: none was); raises :class:`NotJudged` for a key that is not
    an item's (naming the valid keys) or an older name given with its new one."""
    if type(item) is dict:
        if _OLDER.issuperset(item):
            return item, None
        if _SHARED.issuperset(item):
            as_read = _AS_READ
            return {as_read.get(k, k): v for k, v in item.items()}, _SHARED_GIVEN
    if not isinstance(item, Mapping):
        return item, None
    try:
        BATCH_ITEM.check_keys(item)
    except ArgumentError as exc:
        raise NotJudged(ItemError("item", exc.message)) from None
    given = {_AS_READ[k]: k for k in item if k in _AS_READ}
    return {_AS_READ.get(k, k): v for k, v in item.items()}, given or None


class ItemJudge:
    """Judges items one by one for one run. Consecutive items that name the same
    domain and problem files share one look-up of their task, and consecutive
    items that name the same domain file one look-up of the domain (the file
    identity is checked when the run reaches the first of them). After
    :meth:`new_window`, items of a window share the look-up of each file, in any
    order."""

    def __init__(self, base: str | None, strict: bool, confine: bool = False,
                 max_bytes: int | None = None, tolerance: float = TOLERANCE) -> None:
        self.base = base
        # VAL's -t for timed plans (None: the default, the one-pass judge's plans)
        self.tolerance = check_tolerance(tolerance)
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
        # the keys the current item gave for the ones the judge reads under older
        # names (None: it gave the older names), for its messages
        self._given: dict[str, str] | None = None

    def new_window(self) -> None:
        """Start a window of lines: from now on a file whose identity (device, inode,
        size, modification time) was checked in this window is not checked again
        until the next call; a file written in the last :data:`RACY_NS` is checked
        (and compared by text) at every item, as before."""
        self._fresh = {}
        self._named = {}
        self._fresh_domains.clear()
        self._last = self._raw = self._domain = None  # the window looks at them again

    def key(self, name: str) -> str:
        """Key ``name`` (as the judge reads it) as the current item gave it."""
        given = self._given
        return name if given is None else given.get(name, name)

    def missing(self, name: str) -> str:
        """Key ``name`` for a message that says the item lacks it: its name, and the
        older name for the keys that have one."""
        new = BATCH_ITEM.aliases.get(name)
        return f"'{name}'" if new is None else f"'{new}' (or '{name}')"

    def verdict(self, line: int, item: BatchItem) -> BatchVerdict:
        ident = item.get("id") if isinstance(item, Mapping) else None
        try:
            item, self._given = contract_item(item)
            return BatchVerdict(line, ident, result=self._judge(item))
        except NotJudged as bad:
            return BatchVerdict(line, ident, error=bad.error)
        except PDDLSemanticError as exc:  # a task that cannot be grounded
            return BatchVerdict(line, ident, error=pddl_error(exc).error)
        except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001
            return BatchVerdict(line, ident, error=internal_error(exc))

    def _path(self, item: Mapping, key: str, what: str) -> str:
        p = item.get(key)
        paths = self._paths
        if paths is not None and type(p) is str:
            known = paths.get(p)
            if known is not None:
                return known
        if not isinstance(p, str) or not p:
            raise NotJudged(ItemError("item", f"'{self.key(key)}' must be a file path (a "
                                              "non-empty string)" if key in item else
                                      f"the item has no {self.missing(key)} (a file path)"))
        given = p
        try:
            p = inputs.check_path(p, what)
        except InputFileError as exc:
            raise NotJudged(ItemError("item", f"'{self.key(key)}': {exc.message}",
                                      file=exc.file)) from None
        base = self.base
        if base is not None and not os.path.isabs(p):
            p = os.path.join(base, p)
        if self.confine:
            full = os.path.realpath(p)
            root = self._root
            if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
                where = (f"the base directory {base}" if base is not None
                         else "the base directory (the current directory)")
                raise NotJudged(ItemError("refused", refused_path(
                    given, what, where, "--confine; --base-dir DIR to allow another "
                                        "directory"), file=given))
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
                task = task_for(domain, ppath, strict, self.max_bytes, st)
                if stat.S_ISREG(st.st_mode) and time.time_ns() - st.st_mtime_ns >= RACY_NS:
                    if len(self._tasks) >= TASK_CACHE_SIZE:
                        self._tasks.clear()
                    self._tasks[ppath] = (domain, st.st_mtime_ns, st.st_ino, st.st_size,
                                          st.st_dev, task)
                    if fresh is not None:
                        self._checked(fresh, dpath, ppath, task)
        except OSError as exc:
            raise missing_file(ppath, "problem file", exc) from None
        except InputFileError as exc:
            raise file_error(exc) from None
        except (SourceError, PDDLSemanticError) as exc:
            raise pddl_error(exc) from None
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
            raise file_error(exc) from None
        except (SourceError, PDDLSemanticError) as exc:
            raise pddl_error(exc) from None
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

    def _quick(self, line: int, ident: ItemId, item: dict) -> tuple[bool, str] | None:
        """The verdict and record of a common item, ``{"domain", "problem", "plan"}``
        whose plan is clean PDDL (every line blank or one ``(action arg ...)``), read
        and judged in one pass by :func:`~veriplan.verify.quick.quick_record` on the
        item's task, found here; None for any other item (the general path judges it:
        the same record). Raises what :meth:`_judge` raises for the item's files."""
        plan_text = item.get("plan")
        if "format" in item or "planbench_config" in item:
            return None
        raw = self._raw
        d, p = item.get("domain"), item.get("problem")
        if plan_text is None and "plan_file" in item:
            # A plan in a file is read after the domain's and the problem's paths are
            # found and before the task is read, as the general path reads it (the
            # same error first); past the size of a quick plan, the general path's.
            if raw is None or d != raw[0] or p != raw[1]:
                self._path(item, "domain", "domain file")
                self._path(item, "problem", "problem file")
            plan_path = self._path(item, "plan_file", "plan file")
            plan_text = read_quick(plan_path, min(self.max_bytes, QUICK_MAX))
            if plan_text is None:
                return None
        elif (type(plan_text) is not str or "plan_file" in item
                or len(plan_text) > QUICK_MAX or len(plan_text) > self.max_bytes):
            return None
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
        if task.domain.temporal:  # clean timed plans: the temporal one-pass judge
            from veriplan.verify.temporal_fast import timed_record

            return timed_record(task, line, ident, plan_text.lower().split("\n"),
                                self.tolerance)
        return quick_record(task, line, ident, plan_text)

    def _judge(self, item: BatchItem) -> ValidationResult:
        if type(item) is dict and "format" not in item and "planbench_config" not in item:
            # The common item: {"domain", "problem", "plan"} of the last item's problem.
            raw, plan_text = self._raw, item.get("plan")
            if (raw is not None and type(plan_text) is str and item.get("domain") == raw[0]
                    and item.get("problem") == raw[1] and "plan_file" not in item
                    and len(plan_text) <= self.max_bytes):
                task = raw[2]
                from veriplan.planio import parse_plan

                return validate_plan(task, parse_plan(plan_text, task),
                                     tolerance=self.tolerance)
        if not isinstance(item, Mapping):
            raise NotJudged(ItemError("item", f"an item must be a JSON object, not "
                                         f"{type(item).__name__}"))
        dpath = self._path(item, "domain", "domain file")
        ppath = self._path(item, "problem", "problem file")
        fmt = item.get("format", "pddl")
        if fmt not in ("pddl", "planbench"):
            shown = fmt if isinstance(fmt, str) and len(fmt) <= 40 else type(fmt).__name__
            raise NotJudged(ItemError("item", f"unknown format {shown!r}: use 'pddl' or "
                                         "'planbench'"))
        if "plan" in item and "plan_file" in item:
            raise NotJudged(ItemError("item", f"the item has both 'plan' and "
                                              f"'{self.key('plan_file')}': give one"))
        if "plan" in item:
            plan_text = item["plan"]
            if isinstance(plan_text, list) and all(isinstance(s, str) for s in plan_text):
                plan_text = "\n".join(plan_text)
            if not isinstance(plan_text, str):
                raise NotJudged(ItemError("item", "'plan' must be the plan's text (a string, or a "
                                             "list of lines)"))
            if len(plan_text) > self.max_bytes:
                raise NotJudged(ItemError("too-large", "'plan' is larger than the limit of "
                                     f"{inputs.size_text(self.max_bytes)} (--max-bytes)"))
        elif "plan_file" in item:
            plan_path = self._path(item, "plan_file", "plan file")
            try:
                plan_text = inputs.read_text(plan_path, what="plan file",
                                             max_bytes=self.max_bytes)
            except InputFileError as exc:
                raise file_error(exc) from None
        else:
            raise NotJudged(ItemError("item", "the item has neither 'plan' (text) nor "
                                              f"{self.missing('plan_file')}"))
        config = None
        if fmt == "planbench" or "planbench_config" in item:
            if "planbench_config" not in item:
                raise NotJudged(ItemError("item", "format 'planbench' needs "
                                                  f"{self.missing('planbench_config')} "
                                                  "(a PlanBench YAML config)"))
            cpath = self._path(item, "planbench_config", "PlanBench config")
            from veriplan.planio.planbench import PlanBenchConfig

            def read(path: str) -> str:
                return inputs.read_text(path, what="PlanBench config", max_bytes=self.max_bytes)

            try:
                config = CONFIGS.get(cpath, (), lambda text: PlanBenchConfig.from_text(
                    text, file=cpath), read)
            except OSError as exc:
                raise missing_file(cpath, "PlanBench config", exc) from None
            except InputFileError as exc:
                raise file_error(exc) from None
            except (ConfigError, SourceError) as exc:
                raise NotJudged(ItemError("config", str(exc), file=cpath)) from None
        task = self._task(dpath, ppath)
        raw = (item["domain"], item["problem"])
        self._raw = (*raw, task) if all(type(r) is str for r in raw) else None
        from veriplan.planio import parse_plan

        parsed = parse_plan(plan_text, task, format=fmt, config=config)
        try:
            return validate_plan(task, parsed, tolerance=self.tolerance)
        except PDDLSemanticError as exc:  # an action that cannot be grounded
            raise pddl_error(exc) from None


def validate_many(items: Iterable[Mapping], *, base_dir: str | Path | None = None,
                  strict: bool = True, confine: bool = False,
                  max_bytes: int | None = None,
                  tolerance: float = TOLERANCE) -> Iterator[BatchVerdict]:
    """Judge each item (see :mod:`veriplan.verify.batch` for its keys), in order.

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
    parsed once per file identity (see
    :func:`~veriplan.verify.task_cache.cached_task`). ``tolerance`` is VAL's ``-t``
    for every item's timed plan (see :func:`~veriplan.verify.validator.validate_plan`).
    """
    judge = ItemJudge(os.fspath(base_dir) if base_dir is not None else None, strict,
                      confine, max_bytes, tolerance)
    for n, item in enumerate(items, 1):
        yield judge.verdict(n, item)


def item_record(judge: ItemJudge, line: int, item: BatchItem | ItemError
                ) -> tuple[bool | None, str]:
    """An item's verdict and its record's JSON text (that of
    ``ENCODER.encode(verdict.to_dict())``, written directly for a judged item).
    Never raises: a fault on this line becomes its record (error kind
    ``internal``)."""
    if isinstance(item, ItemError):
        return None, error_record(line, None, item)
    ident = item.get("id") if type(item) is dict or isinstance(item, Mapping) else None
    try:
        item, judge._given = contract_item(item)
        if type(item) is dict:
            quick = judge._quick(line, ident, item)
            if quick is not None:
                return quick
        return result_record(line, ident, judge._judge(item))
    except NotJudged as bad:
        return None, error_record(line, ident, bad.error)
    except PDDLSemanticError as exc:  # a task that cannot be grounded
        return None, error_record(line, ident, pddl_error(exc).error)
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001
        judge._last = judge._raw = judge._domain = None
        if judge._fresh is not None:
            judge.new_window()  # (what it holds is looked at again)
        return None, error_record(line, ident, internal_error(exc))

