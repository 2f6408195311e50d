"""Plans by the thousand: judge many (domain, problem, plan) items in one go.

:func:`validate_many` is the Python API (an iterator of :class:`BatchVerdict`, in
the order of the items); :func:`batch_lines` reads JSON Lines, optionally with
worker processes, and yields the JSON-ready records ``veriplan validate --batch``
prints, as JSON text. One item is a mapping::

    {"id": ..., "domain": PATH, "problem": PATH, "plan": TEXT}

with ``"plan_file": PATH`` instead of ``"plan"`` if the plan is in a file, and
optionally ``"format": "pddl"`` (the default) or ``"planbench"`` with
``"planbench_config": PATH``. Relative paths are read relative to ``base_dir``
(default: the current directory); with ``confine=True`` every path must lead,
through symlinks and ``..``, to a file inside it (an untrusted batch file). Every
file is read within a size limit (``max_bytes``, default
:data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`), and only regular files are read.

Parsed domains (:func:`veriplan.pddl.task.cached_domain`) and parsed problems
(as whole tasks: :func:`cached_task`) are cached by file identity across items and
calls, so a run over many plans of few problems parses each file once. An item
that cannot be judged (a missing file, a PDDL error, a malformed item or JSON
line, even a fault of veriplan's or a worker process that died) gets a verdict
with an :class:`ItemError` and the iteration goes on: no line loses its record.

This module is the batch's front door; the work is done, one concern a module, by:

- :mod:`veriplan.verify.verdicts`: :class:`BatchVerdict`, :class:`ItemError` and the
  errors met while judging made into an item's error;
- :mod:`veriplan.verify.task_cache`: the tasks and PlanBench configs cached by file
  identity (:func:`cached_task`, :func:`clear_caches`);
- :mod:`veriplan.verify.input_lines`: a stream's lines within the size limit
  (:func:`read_lines`) and each line's item as strict JSON;
- :mod:`veriplan.verify.quick`: the one-pass judge of clean plans
  (:func:`~veriplan.verify.quick.quick_record`);
- :mod:`veriplan.verify.judge`: the item judge (:func:`validate_many`, and the
  record of one line);
- :mod:`veriplan.verify.workers`: the worker processes (:func:`worker_cap`);
- :mod:`veriplan.verify.windows`: JSON Lines judged window by window
  (:func:`batch_lines`);
- :mod:`veriplan.verify.records`: the records as JSON text (:func:`json_text`).
"""

from __future__ import annotations

from veriplan.verify.input_lines import read_lines
from veriplan.verify.judge import ItemJudge as _Judge  # noqa: F401 (tests patch its methods)
from veriplan.verify.judge import validate_many
from veriplan.verify.records import JSON_ESCAPE, json_text
from veriplan.verify.task_cache import (
    RACY_NS,
    TASK_CACHE_SIZE,
    cached_task,
    clear_caches,
)
from veriplan.verify.task_cache import task_cache_size as _task_cache_size  # noqa: F401
from veriplan.verify.verdicts import ERROR_KINDS, BatchVerdict, ItemError
from veriplan.verify.windows import FILE_WINDOW, WINDOW, WINDOW_CHARS, batch_lines
from veriplan.verify.workers import MAX_WORKERS, worker_cap

__all__ = [
    "ERROR_KINDS", "FILE_WINDOW", "JSON_ESCAPE", "MAX_WORKERS", "RACY_NS", "TASK_CACHE_SIZE",
    "WINDOW", "WINDOW_CHARS", "BatchVerdict", "ItemError", "batch_lines", "cached_task",
    "clear_caches", "json_text", "read_lines", "validate_many", "worker_cap",
]
