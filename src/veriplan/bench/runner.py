"""Running a sweep: every unit once, in parallel up to ``workers``, each
result stored the moment it ends; finished units are skipped on a re-run."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from veriplan.bench.datasets import Instance, load_dataset
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.bench.units import BackendSpec, SweepPlan, Unit, canonical
from veriplan.errors import BackendError, LLMOutputParseError, VeriplanError
from veriplan.llm import LLM, ResponseCache, create_backend
from veriplan.methods import get_method


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


def make_llm(spec: BackendSpec, cache_path: Path | None, max_in_flight: int = 8) -> LLM:
    backend = create_backend(spec.name, **spec.kwargs())
    cache = ResponseCache(cache_path) if cache_path is not None else None
    return LLM(backend, cache=cache, max_in_flight=max_in_flight)


def execute(unit: Unit, instance: Instance, llm: LLM, dataset_version: str) -> UnitRecord:
    """Run one unit; an exception becomes an error record, never escapes."""
    start = time.perf_counter()
    try:
        spec = get_method(unit.method)
        result = spec.run(instance, llm, spec.make_config(json.loads(unit.config)), unit.seed)
        d = result.to_dict()
        return UnitRecord(unit.id, unit.method, unit.dataset, unit.instance, unit.backend,
                          unit.model, unit.config, unit.seed, "done", bool(result.verified),
                          result.solved_by, result.llm_calls, result.tokens, result.cost,
                          time.perf_counter() - start, None, None, json.dumps(d), version(),
                          dataset_version, time.time())
    except Exception as exc:
        return error_record(unit, dataset_version, exc, time.perf_counter() - start,
                            traceback.format_exc())


def error_record(unit: Unit, dataset_version: str, exc: BaseException, seconds: float,
                 trace: str) -> UnitRecord:
    return UnitRecord(unit.id, unit.method, unit.dataset, unit.instance, unit.backend,
                      unit.model, unit.config, unit.seed, "error", False, None, 0, 0, None,
                      seconds, error_category(exc), trace, None, version(), dataset_version,
                      time.time())


@dataclass
class Progress:
    total: int
    skipped: int = 0
    done: int = 0
    verified: int = 0
    failed: int = 0
    errors: int = 0
    tokens: int = 0
    cost: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    def add(self, rec: UnitRecord) -> None:
        self.done += 1
        self.tokens += rec.tokens
        self.cost += rec.cost or 0.0
        if rec.status == "error":
            self.errors += 1
        elif rec.verified:
            self.verified += 1
        else:
            self.failed += 1


@dataclass
class Work:
    unit: Unit
    instance: Instance
    spec: BackendSpec
    dataset_version: str


def plan_work(plan: SweepPlan, models: dict[BackendSpec, str], root: str | Path | None
              ) -> list[Work]:
    """Expand a sweep into units (model names resolved through ``models``)."""
    out = []
    for dataset in plan.datasets:
        ds = load_dataset(dataset, root)
        for method in plan.methods:
            get_method(method)  # fail early on a bad name
            for given in plan.configs_for(method):
                # Typed values, so "3" on the command line and 3 in TOML are one unit.
                typed = get_method(method).make_config(given)
                cfg = {k: getattr(typed, k) for k in given}
                for spec in plan.backends:
                    for seed in plan.seeds:
                        for inst in ds.take(plan.limit):
                            unit = Unit(method, dataset, inst.id, spec.name, models[spec],
                                        canonical(cfg), seed)
                            out.append(Work(unit, inst, spec, ds.version))
    return out


OnDone = Callable[[UnitRecord, Progress], None]


def run_sweep(plan: SweepPlan, out_dir: str | Path, *, data_root: str | Path | None = None,
              workers: int = 1, executor: str = "local", cache_path: Path | None = None,
              unit_timeout: float | None = None, rerun_errors: bool = False,
              on_done: OnDone | None = None, llms: dict[BackendSpec, LLM] | None = None,
              ) -> Progress:
    """Run every unit of ``plan`` not yet in ``out_dir``'s store."""
    store = RunStore(out_dir)
    llms = dict(llms or {})
    for spec in plan.backends:
        if spec not in llms and executor == "local":
            llms[spec] = make_llm(spec, cache_path)
    models = {s: s.model_name() for s in plan.backends}
    work = plan_work(plan, models, data_root)
    finished = store.finished_ids(include_errors=not rerun_errors)
    todo = [w for w in work if w.unit.id not in finished]
    progress = Progress(total=len(todo), skipped=len(work) - len(todo))

    def record(rec: UnitRecord) -> None:
        stored = store.replace(rec) if rerun_errors else store.add(rec)
        if stored is not False:
            progress.add(rec)
            if on_done:
                on_done(rec, progress)

    if executor == "ray":
        from veriplan.bench.ray_executor import run_on_ray

        run_on_ray(todo, record, workers=workers, cache_path=cache_path, data_root=data_root)
    elif executor == "local":
        _run_local(todo, llms, record, workers, unit_timeout)
    else:
        raise VeriplanError(f"unknown executor {executor!r}: use local or ray")
    return progress


def _run_local(todo: list[Work], llms: dict[BackendSpec, LLM],
               record: Callable[[UnitRecord], None], workers: int,
               unit_timeout: float | None) -> None:
    if workers <= 1 and unit_timeout is None:
        for w in todo:
            record(execute(w.unit, w.instance, llms[w.spec], w.dataset_version))
        return
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    pending: dict[Future, tuple[Work, float]] = {}
    queue = iter(todo)
    try:
        while True:
            while len(pending) < max(1, workers):
                w = next(queue, None)
                if w is None:
                    break
                fut = pool.submit(execute, w.unit, w.instance, llms[w.spec], w.dataset_version)
                pending[fut] = (w, time.perf_counter())
            if not pending:
                break
            done, _ = wait(pending, timeout=1.0 if unit_timeout else None,
                           return_when=FIRST_COMPLETED)
            for fut in done:
                pending.pop(fut)
                record(fut.result())
            if unit_timeout:
                now = time.perf_counter()
                for fut, (w, t0) in list(pending.items()):
                    if now - t0 > unit_timeout:
                        pending.pop(fut)  # the thread cannot be stopped; its result is dropped
                        record(error_record(w.unit, w.dataset_version, TimeoutError(),
                                            now - t0, f"unit exceeded {unit_timeout} s"))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)

