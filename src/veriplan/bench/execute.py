"""Running one unit: the pieces shared by the local runner and the Ray executor."""

from __future__ import annotations

import dataclasses
import json
import time
import traceback
from pathlib import Path
from typing import Protocol, runtime_checkable

from veriplan.bench.datasets import Instance
from veriplan.bench.store import UnitRecord
from veriplan.bench.units import BackendSpec, Unit
from veriplan.errors import BackendError, LLMOutputParseError, VeriplanError
from veriplan.llm import LLM, ResponseCache, create_backend
from veriplan.llm.binding import TaskBound, TaskRef, bound
from veriplan.methods import SolveResult, get_method


@runtime_checkable
class PlannedElsewhere(Protocol):
    """An instance whose method plans on a transformed task (renamed names):
    it maps a result back to the dataset's own files and validates it there."""

    def on_user_task(self, result: SolveResult) -> SolveResult: ...


def version() -> str:
    from veriplan import __version__

    return __version__


def error_category(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, BackendError):
        return f"backend:{type(exc).__name__}"
    if isinstance(exc, LLMOutputParseError):
        return "llm-output"
    if isinstance(exc, VeriplanError):
        return f"veriplan:{type(exc).__name__}"
    return f"crash:{type(exc).__name__}"  # a bug in a method: recorded, sweep goes on


def error_reason(rec: UnitRecord) -> str:
    """One line on why an error unit failed: the exception's message (its class
    is in the unit's ``error_category``), from the last line of the stored
    traceback."""
    lines = (rec.error or "").strip().splitlines()
    if not lines:
        return rec.error_category or "no reason recorded"
    name, sep, message = lines[-1].partition(": ")
    return message if sep and " " not in name and message else lines[-1]


def make_llm(spec: BackendSpec, cache_path: Path | None, max_in_flight: int = 8,
             data_root: str | Path | None = None) -> LLM:
    """The unit's client. ``data_root`` (the sweep's ``--data-dir``) reaches a backend
    that reads the benchmark data itself (a controlled model's truth) as its
    ``data_dir`` option, unless the spec names one; backends ignore options they do
    not take."""
    options = spec.kwargs()
    if data_root is not None:
        options.setdefault("data_dir", str(data_root))
    backend = create_backend(spec.name, **options)
    cache = ResponseCache(cache_path) if cache_path is not None else None
    return LLM(backend, cache=cache, max_in_flight=max_in_flight)


def execute(unit: Unit, instance: Instance, llm: LLM, dataset_version: str) -> UnitRecord:
    """Run one unit; an exception becomes an error record, never escapes."""
    start = time.perf_counter()
    try:
        spec = get_method(unit.method)
        config = spec.make_config(json.loads(unit.config))
        if "seed" in spec.settings():
            config = dataclasses.replace(config, seed=unit.seed)
        # each unit its own session: exact usage while workers share the client
        session = llm.session()
        if isinstance(llm.backend, TaskBound):
            # its answers depend on the bound task, not only on the request (the cache's key)
            session.cache = None
        # a backend that wants it learns the unit's task (cleared on return or raise);
        # the method gets the same client and sends the same prompts either way
        with bound(llm.backend, TaskRef(unit.dataset, unit.instance)):
            result = spec.solve(instance.problem(spec.problem), session, config)
        if isinstance(instance, PlannedElsewhere):  # a renamed task: back to the user's files
            result = instance.on_user_task(result)
        d = result.to_dict()
        return UnitRecord(unit.id, unit.method, unit.dataset, unit.instance, unit.backend,
                          unit.model, unit.config, unit.seed, "done", bool(result.verified),
                          result.solved_by, result.llm_calls, result.tokens, result.cost,
                          time.perf_counter() - start, None, None, json.dumps(d), version(),
                          dataset_version, time.time(), result.scope)
    except Exception as exc:
        return error_record(unit, dataset_version, exc, time.perf_counter() - start,
                            traceback.format_exc())


def error_record(unit: Unit, dataset_version: str, exc: BaseException, seconds: float,
                 trace: str) -> UnitRecord:
    return UnitRecord(unit.id, unit.method, unit.dataset, unit.instance, unit.backend,
                      unit.model, unit.config, unit.seed, "error", False, None, 0, 0, None,
                      seconds, error_category(exc), trace, None, version(), dataset_version,
                      time.time())
