"""Running a sweep: every unit once, in parallel up to ``workers``, each
result stored the moment it ends; finished units are skipped on a re-run."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from veriplan.bench.datasets import Instance, load_dataset
from veriplan.bench.execute import (
    error_category,
    error_reason,
    error_record,
    execute,
    make_llm,
    version,
)
from veriplan.bench.ray_executor import run_on_ray
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.bench.units import BackendSpec, SweepPlan, Unit, canonical
from veriplan.core.verdict import Scope
from veriplan.errors import ConfigError, StaleUnitsError, VeriplanError
from veriplan.llm import LLM
from veriplan.methods import METHODS, get_method, method_specs

__all__ = ["STOP_AFTER_SAME_ERRORS", "Progress", "SweepStoppedError", "Work", "error_category",
           "error_record", "execute", "find_sweep", "make_llm", "method_sweeps", "plan_work",
           "run_sweep", "version"]

# A run whose first this many units all end in the same error stops there (0: never):
# a server that is not running, a wrong model name or a bug fails every unit alike.
STOP_AFTER_SAME_ERRORS = 3


def method_sweeps() -> dict[str, Path]:
    """Every registered method's sweep files (``MethodSpec.sweeps``), as
    ``METHOD:NAME`` -> the file, in the order the methods are declared."""
    return {f"{spec.name}:{name}": path for spec in method_specs()
            for name, path in spec.sweep_files().items()}


def find_sweep(given: str | Path) -> Path:
    """The sweep file ``given`` names: a file, or ``METHOD:NAME``, one of the
    method's sweeps (a ConfigError naming them otherwise)."""
    path = Path(given)
    method, sep, name = str(given).partition(":")
    if path.exists() or not sep or method not in METHODS:
        return path
    sweeps = get_method(method).sweep_files()
    if name not in sweeps:
        raise ConfigError(f"method {method} has no sweep {name!r}; its sweeps are "
                          f"{', '.join(sweeps) or '(none)'}")
    return sweeps[name]


@dataclass
class Progress:
    total: int
    skipped: int = 0
    done: int = 0
    verified: int = 0
    failed: int = 0
    errors: int = 0
    tokens: int = 0
    cost: float = 0.0  # the known costs of the units run now (US dollars), summed
    # units run now with a known cost (a local backend's: 0) and with none (an API
    # model without a price); an error unit records no usage and counts in neither
    priced: int = 0
    unpriced: int = 0
    started: float = field(default_factory=time.perf_counter)
    # verified units by what they were verified against (never pooled in words)
    by_scope: dict[Scope, int] = field(default_factory=dict)
    # the first error unit's category and one line on why (None: no error yet)
    first_error: tuple[str, str] | None = None
    # how each of the first units ended, in order: (category, reason), None when no error
    opening: list[tuple[str, str] | None] = field(default_factory=list)

    def add(self, rec: UnitRecord) -> None:
        self.done += 1
        self.tokens += rec.tokens
        if rec.status != "error":
            if rec.cost is None:
                self.unpriced += 1
            else:
                self.priced += 1
                self.cost += rec.cost
        way = (rec.error_category or "error", error_reason(rec)) \
            if rec.status == "error" else None
        if len(self.opening) < _OPENING:
            self.opening.append(way)
        if way is not None:
            self.errors += 1
            if self.first_error is None:
                self.first_error = way
        elif rec.verified:
            self.verified += 1
            if rec.scope is not None:
                self.by_scope[rec.scope] = self.by_scope.get(rec.scope, 0) + 1
        else:
            self.failed += 1

    @property
    def known_cost(self) -> float | None:
        """What the units run now cost (US dollars); None unless each of them that
        ran to its end has a known cost (one unit without a price makes the sum no
        cost of the run), and None when none did."""
        return self.cost if self.priced and not self.unpriced else None

    def verified_words(self) -> str:
        """"verified N (scope)", one part per scope."""
        if not self.by_scope:
            return f"verified {self.verified}"
        return "verified " + ", ".join(f"{n} ({scope.value})"
                                       for scope, n in sorted(self.by_scope.items()))


_OPENING = 100  # how many first units Progress.opening keeps (a bound on --stop-after)


class SweepStoppedError(VeriplanError):
    """The first ``units`` units of a run all ended in the same error
    (``category``, ``reason``); the run stopped there. Their records are in
    the store; ``progress`` holds the run's counts."""

    def __init__(self, progress: Progress, category: str, reason: str) -> None:
        self.progress, self.category, self.reason = progress, category, reason
        self.units = progress.done
        super().__init__(
            f"stopped after {self.units} units failing the same way ({category}): {reason}. "
            f"Their records are stored as errors; fix the cause, then run the same command "
            f"again with --rerun-errors to resume ({progress.total - progress.done} unit(s) "
            f"not run yet), or with --stop-after 0 never to stop early")


def same_way(opening: list[tuple[str, str] | None], n: int) -> tuple[str, str] | None:
    """The one way the first ``n`` units failed when they all failed alike, else None."""
    if n <= 0 or len(opening) < n:
        return None
    first = opening[0]
    return first if first is not None and all(w == first for w in opening[:n]) else None


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


@dataclass(frozen=True)
class StaleUnit:
    """A stored unit whose dataset has changed since it ran."""

    id: str
    dataset: str
    stored_version: str
    current_version: str


def stale_units(store: RunStore, work: list[Work]) -> dict[str, StaleUnit]:
    """The units of ``work`` stored with another dataset version, by id."""
    versions = store.dataset_versions()
    return {w.unit.id: StaleUnit(w.unit.id, w.unit.dataset, versions[w.unit.id],
                                 w.dataset_version)
            for w in work if versions.get(w.unit.id, w.dataset_version) != w.dataset_version}


def run_sweep(plan: SweepPlan, out_dir: str | Path, *, data_root: str | Path | None = None,
              workers: int = 1, executor: str = "local", cache_path: Path | None = None,
              unit_timeout: float | None = None, rerun_errors: bool = False,
              rerun_stale: bool = False,
              on_done: OnDone | None = None, llms: dict[BackendSpec, LLM] | None = None,
              on_start: Callable[[Progress], None] | None = None,
              stop_after: int = STOP_AFTER_SAME_ERRORS,
              ) -> Progress:
    """Run every unit of ``plan`` not yet in ``out_dir``'s store. A stored unit
    that ran on another version of its dataset is stale: the sweep refuses to
    go on beside it (:class:`~veriplan.errors.StaleUnitsError`) unless
    ``rerun_stale``, which runs it again and replaces its record.

    ``on_start`` is called once the units to run are known, before the first
    starts; ``on_done`` after each. When the first ``stop_after`` units of
    this run all end in the same error (category and reason), the run stops
    with :class:`SweepStoppedError` (0: never)."""
    if not 0 <= stop_after <= _OPENING:
        raise ConfigError(f"--stop-after (stop_after) must be 0 (never stop early) to "
                          f"{_OPENING}, not {stop_after}")
    store = RunStore(out_dir)
    store.compact()  # a store from before compressed results
    llms = dict(llms or {})
    for spec in plan.backends:
        if spec not in llms and executor == "local":
            llms[spec] = make_llm(spec, cache_path, data_root=data_root)
    models = {s: s.model_name() for s in plan.backends}
    work = plan_work(plan, models, data_root)
    finished = store.finished_ids(include_errors=not rerun_errors)
    stale = stale_units(store, work)
    if stale and not rerun_stale:
        raise StaleUnitsError(store.path, stale)
    todo = [w for w in work if w.unit.id not in finished or w.unit.id in stale]
    progress = Progress(total=len(todo), skipped=len(work) - len(todo))
    if on_start:
        on_start(progress)

    def record(rec: UnitRecord) -> None:
        replace = rerun_errors or rec.id in stale
        stored = store.replace(rec) if replace else store.add(rec)
        if stored is not False:
            progress.add(rec)
            if on_done:
                on_done(rec, progress)
            if progress.done == stop_after and progress.done < progress.total:
                way = same_way(progress.opening, stop_after)
                if way is not None:
                    raise SweepStoppedError(progress, *way)

    if executor == "ray":
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

