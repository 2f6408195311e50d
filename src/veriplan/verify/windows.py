"""JSON Lines judged window by window: :func:`batch_lines` reads each line's item,
judges it (in this process, or in worker processes) and yields its record, in
input order; a domain or problem file is looked at once a window of lines."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from veriplan.pddl import inputs
from veriplan.verify.happening import TOLERANCE, check_tolerance
from veriplan.verify.input_lines import BLANK, read_line
from veriplan.verify.judge import ItemJudge, item_record
from veriplan.verify.workers import pooled, worker_cap

if TYPE_CHECKING:
    from pathlib import Path

    from veriplan.verify.judge import BatchItem
    from veriplan.verify.verdicts import ItemError

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
                max_bytes: int | None = None,
                tolerance: float = TOLERANCE) -> Iterator[tuple[bool | None, str]]:
    """Judge the items of JSON Lines ``lines`` and yield, for each, its verdict
    (True valid, False not valid, None not judged) and its record's JSON text
    (:meth:`~veriplan.verify.verdicts.BatchVerdict.to_dict`, ``line`` = the input
    line number), in input order; blank lines are skipped. A line that is not JSON
    (strict JSON: no ``NaN`` or ``Infinity``) gets a record with error kind
    ``json``, a line over ``max_bytes`` one with kind ``too-large``; whatever a line
    holds, every other line gets its record. Records are strict JSON (see
    :func:`~veriplan.verify.records.json_text` for writing them to a stream that
    cannot encode every character). ``base_dir``, ``confine``, ``max_bytes`` and
    ``tolerance`` (VAL's ``-t`` for timed plans): see
    :func:`~veriplan.verify.judge.validate_many`.

    ``window``: the lines are judged ``window`` at a time (``window_chars``
    characters of them at most, with workers), and a domain or problem file is
    looked at (device, inode, size, modification time) once a window: a file
    changed while a window's lines are judged is read again from the next window
    on (one written in the last :data:`~veriplan.verify.task_cache.RACY_NS` is also
    compared by text at every line). With one process the lines are still judged
    and their records yielded one by one, and nothing is held but the window's
    checked files, so a shuffled file costs about what a file sorted by problem
    does. ``None`` (the default): with one process each line's files are looked at
    whenever its domain or problem differs from the line before's (a stream whose
    lines name files written as they come); with workers, :data:`WINDOW` lines.

    ``workers > 1`` judges in that many processes (at most
    :func:`~veriplan.verify.workers.worker_cap`): the lines of a window are read
    and grouped by (domain, problem), each problem sent to the same process, whose
    caches then parse it once; the order is kept. A worker that dies is replaced;
    the lines it held are judged again in a fresh one, and a line on which a worker
    dies alone gets an ``internal`` error record. Lenient warnings of the workers
    are re-issued here, once each."""
    base = os.fspath(base_dir) if base_dir is not None else None
    limit = inputs.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    tolerance = check_tolerance(tolerance)
    if window is not None and window < 1:
        raise ValueError(f"window must be at least 1 line, not {window}")
    if workers > 1:
        workers = min(workers, worker_cap())
    if workers > 1:
        yield from pooled(_windows(lines, limit, window or WINDOW, window_chars),
                          (base, strict, confine, limit, tolerance), workers)
        return
    judge = ItemJudge(base, strict, confine, limit, tolerance)
    if window is None or window == 1:
        for n, text in enumerate(lines, 1):
            item = read_line(n, text, limit)
            if item is not BLANK:
                yield item_record(judge, n, item)
        return
    left = window
    judge.new_window()
    for n, text in enumerate(lines, 1):
        item = read_line(n, text, limit)
        if item is not BLANK:
            yield item_record(judge, n, item)
            left -= 1
            if not left:
                judge.new_window()
                left = window


def _windows(lines: Iterable[str], limit: int, window: int, chars: int
             ) -> Iterator[list[tuple[int, BatchItem | ItemError]]]:
    """The numbered items of ``lines`` (blank lines left out), ``window`` lines at a
    time, fewer when the lines held reach ``chars`` characters."""
    batch: list[tuple[int, BatchItem | ItemError]] = []
    held = 0
    for n, text in enumerate(lines, 1):
        item = read_line(n, text, limit)
        if item is BLANK:
            continue
        batch.append((n, item))
        held += len(text)
        if len(batch) >= window or held >= chars:
            yield batch
            batch = []
            held = 0
    if batch:
        yield batch

