"""What a paper provides (:class:`Paper`), what a run of it is asked for
(:class:`RunRequest`), and the one way a paper runs its protocol: sweeps of
the benchmark harness into one resumable store (:func:`run_plans`, which is
``veriplan bench``'s runner: finished units are kept, a re-run resumes).

A paper is declared by its method as ``veriplan.methods.<m>.paper:PAPER`` and
registered by name in :data:`veriplan.papers.PAPERS`."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from veriplan.bench.runner import OnDone, Progress, run_sweep
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.papers.claims import Claim, ClaimResult, PaperReport, judge

# Beside a store's runs.sqlite: how `veriplan paper` filled it (the command is
# re-derived from it, so a row can name what measured it).
RUN_FILE = "paper.json"


@dataclass(frozen=True)
class RunRequest:
    """How to run a paper's protocol: the models (one BackendSpec each; several
    give the backbone tables), the stated quick subset or the paper's full
    sizes, and the harness's options (as ``veriplan bench`` takes them)."""

    backends: tuple[BackendSpec, ...]
    quick: bool = False
    # the first N instances of each dataset (None: the protocol's own sizes); a paper
    # that honours it says so in its run's command line (``--limit N``)
    limit: int | None = None
    data_root: Path | None = None
    workers: int = 1
    cache_path: Path | None = None
    unit_timeout: float | None = None
    rerun_errors: bool = False
    on_start: Callable[[Progress], None] | None = None
    on_done: OnDone | None = None


@dataclass
class RunSummary:
    """What a run did, over all of its sweeps."""

    total: int = 0
    skipped: int = 0
    done: int = 0
    verified: int = 0
    failed: int = 0
    errors: int = 0
    sweeps: list[Progress] = field(default_factory=list)

    def add(self, p: Progress) -> None:
        self.sweeps.append(p)
        self.total += p.total
        self.skipped += p.skipped
        self.done += p.done
        self.verified += p.verified
        self.failed += p.failed
        self.errors += p.errors


@runtime_checkable
class Paper(Protocol):
    """One paper's claims and its headline protocol.

    ``name`` is its registry name, ``title`` the paper's, ``quick`` the
    ``--quick`` subset in words, ``controlled`` the backend name of the method's
    controlled test model (``--backend controlled`` means it), ``committed`` the
    store directories under ``results/`` whose units it reads for
    ``docs/claims.md``. ``run`` runs the protocol into ``store`` (resumable:
    :func:`run_plans`); ``results`` reads the given store directories and
    returns every claim at least once (once per model kind and model that
    measured it; a claim nothing measured is NOT_MEASURABLE, with why)."""

    name: str
    title: str
    quick: str
    controlled: str
    committed: tuple[str, ...]

    def claims(self) -> list[Claim]: ...

    def run(self, request: RunRequest, store: Path) -> RunSummary: ...

    def results(self, stores: Sequence[Path]) -> list[ClaimResult]: ...


def backends_for(paper: Paper, backends: Sequence[BackendSpec]) -> tuple[BackendSpec, ...]:
    """``backends`` with the generic name ``controlled`` read as the paper's own
    controlled model (``controlled-aec`` for AEC, ...)."""
    return tuple(BackendSpec(paper.controlled, b.model, b.options)
                 if b.name == "controlled" else b for b in backends)


def run_plans(paper: Paper, plans: Sequence[SweepPlan], store: Path,
              request: RunRequest) -> RunSummary:
    """Run each sweep plan into ``store`` with the harness (``veriplan bench``'s
    runner), in order; finished units are kept, so a second call resumes. The
    request is written beside the store (:data:`RUN_FILE`) so its rows can say
    which command measured them."""
    store = Path(store)
    store.mkdir(parents=True, exist_ok=True)
    write_run_file(store, paper.name, request)
    summary = RunSummary()
    for plan in plans:
        summary.add(run_sweep(plan, store, data_root=request.data_root,
                              workers=request.workers, cache_path=request.cache_path,
                              unit_timeout=request.unit_timeout,
                              rerun_errors=request.rerun_errors,
                              on_start=request.on_start, on_done=request.on_done))
    return summary


def command_line(paper: str, backends: Sequence[BackendSpec], quick: bool,
                 store: str | Path | None = None, limit: int | None = None) -> str:
    """The ``veriplan paper`` command that runs ``backends`` (one backend, one
    ``--model`` a model; a base URL is written as ``URL``: it is the user's)."""
    words = ["veriplan", "paper", paper]
    if quick:
        words.append("--quick")
    if limit is not None:
        words += ["--limit", str(limit)]
    if backends:
        words += ["--backend", backends[0].name]
        if any(dict(b.options).get("base_url") for b in backends):
            words += ["--base-url", "URL"]
    for b in backends:
        if b.model:
            words += ["--model", b.model]
    if store is not None:
        words += ["--store", str(store)]
    return " ".join(words)


def write_run_file(store: Path, paper: str, request: RunRequest) -> None:
    data = {"paper": paper, "quick": request.quick, "limit": request.limit,
            "backends": [{"name": b.name, "model": b.model} for b in request.backends]}
    (store / RUN_FILE).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def run_command(store: Path, default: str = "") -> str:
    """The command that filled ``store``, from its :data:`RUN_FILE` (``default``
    when there is none: a store the harness filled directly)."""
    f = Path(store) / RUN_FILE
    if not f.is_file():
        return default
    data = json.loads(f.read_text())
    backends = [BackendSpec(b["name"], b.get("model", "")) for b in data.get("backends", [])]
    return command_line(data["paper"], backends, bool(data.get("quick")), store,
                        data.get("limit"))


__all__ = ["RUN_FILE", "Paper", "RunRequest", "RunSummary", "backends_for", "command_line",
           "make_report", "run_command", "run_plans", "unavailable_report", "write_run_file"]


def make_report(paper: Paper, stores: Sequence[Path], *, shown: Sequence[str] = ()
                ) -> PaperReport:
    """The paper's results over ``stores``, every claim at least once: a claim
    ``results`` left out is NOT_MEASURABLE (nothing in the stores measures it).
    ``shown``: the stores as the report names them (default: as given)."""
    results = list(paper.results(list(stores)))
    seen = {r.claim.id for r in results}
    claims = paper.claims()
    results += [judge(c, None) for c in claims if c.id not in seen]
    order = {c.id: i for i, c in enumerate(claims)}
    results.sort(key=lambda r: order.get(r.claim.id, len(order)))  # stable: kinds kept
    return PaperReport(paper.name, paper.title, paper.quick, tuple(results),
                       tuple(shown or (str(s) for s in stores)), claims=tuple(claims))


def unavailable_report(name: str, why: str) -> PaperReport:
    return PaperReport(name, "(not yet available)", "", available=False, note=why)
