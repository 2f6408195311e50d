"""The worker processes of a batch: :func:`pooled` judges windows of numbered items
in up to :func:`worker_cap` processes, each problem's items sent to the process
that has it cached, the records given back in input order; a worker that dies is
replaced and its lines judged again, a line it dies on alone gets an ``internal``
error record."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from veriplan.errors import PDDLLenientWarning
from veriplan.verify.judge import ItemJudge, item_record
from veriplan.verify.records import error_record
from veriplan.verify.verdicts import ItemError

if TYPE_CHECKING:
    from veriplan.verify.judge import BatchItem


def _work(base: str | None, strict: bool, confine: bool, max_bytes: int | None,
          tolerance: float, chunk: list[tuple[int, BatchItem | ItemError]]
          ) -> tuple[list[tuple[int, tuple[bool | None, str]]], list[str]]:
    """In a worker process: each item's verdict and record text, and the
    lenient warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PDDLLenientWarning)
        judge = ItemJudge(base, strict, confine, max_bytes, tolerance)
        judge.new_window()  # the chunk is (part of) a window
        out = [(n, item_record(judge, n, item)) for n, item in chunk]
    return out, list(dict.fromkeys(str(w.message) for w in caught
                                   if issubclass(w.category, PDDLLenientWarning)))


def _group_key(item: BatchItem | ItemError) -> tuple[str, str]:
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


def _died(n: int) -> tuple[int, tuple[None, str]]:
    return n, (None, error_record(n, None, ItemError(
        "internal", f"the worker process judging input line {n} died (killed, or out of "
                    "memory); judged alone in a fresh process, it died again")))


def pooled(windows: Iterator[list[tuple[int, BatchItem | ItemError]]], setup: tuple, workers: int
           ) -> Iterator[tuple[bool | None, str]]:
    """The records of the numbered items of ``windows``, in input order, judged in
    ``workers`` processes, each with an :class:`~veriplan.verify.judge.ItemJudge` of
    ``setup`` (base, strict, confine, max_bytes, tolerance); the next window is judged while
    this one's records are taken. Lenient warnings of the workers are re-issued
    here, once each."""
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
    local: list[ItemJudge] = []  # judges in this process, for a pool that cannot start

    def run_here(chunk: list[tuple[int, BatchItem | ItemError]]):
        if not local:
            local.append(ItemJudge(*setup))
        return [(n, item_record(local[0], n, item)) for n, item in chunk], []

    def start(w: int, chunk: list[tuple[int, BatchItem | ItemError]]) -> tuple:
        for _ in range(2):
            pool = pools[w]
            try:
                return w, pool, chunk, pool.submit(_work, *setup, chunk)
            except BrokenProcessPool:  # its process died since: a fresh one
                replace(w, pool)
            except (OSError, RuntimeError):  # no process can start: judged here
                break
        return w, pools[w], chunk, None

    def submit(batch: list[tuple[int, BatchItem | ItemError]]) -> list[tuple]:
        groups: dict[tuple, list[tuple[int, BatchItem | ItemError]]] = {}
        for n, item in batch:
            groups.setdefault(_group_key(item), []).append((n, item))
        chunks: list[list[tuple[int, BatchItem | ItemError]]] = [[] for _ in pools]
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

