"""Reading a paper's units out of run stores, and the measurements every paper
makes of them: a rate with its Wilson interval (on model-solved units,
fallback-solved counted apart), a difference of two rates with Newcombe's
interval, a mean with a bootstrap interval. Units of different model kinds or
models are never pooled: :func:`groups` splits them first."""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from veriplan.bench.stats import wilson_interval
from veriplan.bench.store import STORE_NAME, RunStore, UnitRecord
from veriplan.papers.claims import Measured, ModelKind

# The backends that answer from another run's outputs.
_RECORDED = {"replay"}
_EMBEDDED = {"llamacpp"}


def model_kind(backend: str) -> ModelKind:
    """Who answered a unit run on ``backend``: a controlled test model (every
    ``controlled*`` backend), the embedded model, recorded answers, else the
    user's own endpoint (openai, anthropic, a script of the user's)."""
    if backend.startswith("controlled"):
        return ModelKind.CONTROLLED
    if backend in _EMBEDDED:
        return ModelKind.EMBEDDED
    if backend in _RECORDED:
        return ModelKind.RECORDED
    return ModelKind.USER


@dataclass(frozen=True)
class Unit:
    """One stored unit as a paper reads it: the record, its settings and its
    result (read once), and the store it came from."""

    record: UnitRecord
    settings: Mapping[str, object]
    result: Mapping[str, object]
    store: Path

    @property
    def method(self) -> str:
        return self.record.method

    @property
    def dataset(self) -> str:
        return self.record.dataset

    @property
    def kind(self) -> ModelKind:
        return model_kind(self.record.backend)

    @property
    def model(self) -> str:
        return self.record.model

    @property
    def metrics(self) -> Mapping[str, object]:
        m = self.result.get("metrics")
        return m if isinstance(m, Mapping) else {}

    @property
    def model_solved(self) -> bool:
        """Verified, and solved by the model (not a fallback)."""
        r = self.record
        return r.status == "done" and r.verified and r.solved_by in (None, "llm")

    @property
    def fallback_solved(self) -> bool:
        r = self.record
        return r.status == "done" and r.verified and r.solved_by not in (None, "llm")

    @property
    def failure(self) -> str | None:
        f = self.result.get("failure")
        return None if f is None else str(f)


def read_units(stores: Iterable[str | Path]) -> list[Unit]:
    """Every unit of every store (directories holding ``runs.sqlite``; a
    directory without one is skipped), in store order then finishing order.
    Each store is read from a copy (opening a store from before the scope
    column adds it, and the committed stores must not change by being read)."""
    out: list[Unit] = []
    for directory in stores:
        d = Path(directory)
        if not (d / STORE_NAME).is_file():
            continue
        with tempfile.TemporaryDirectory(prefix="veriplan-paper-") as tmp:
            shutil.copyfile(d / STORE_NAME, Path(tmp) / STORE_NAME)
            for extra in ("-wal", "-shm"):  # a store being written: its journal too
                if (d / f"{STORE_NAME}{extra}").is_file():
                    shutil.copyfile(d / f"{STORE_NAME}{extra}",
                                    Path(tmp) / f"{STORE_NAME}{extra}")
            store = RunStore(tmp, create=False)
            try:
                for rec in store.records():
                    out.append(Unit(rec, json.loads(rec.config or "{}"), rec.result_dict(),
                                    d))
            finally:
                store.close()
    return out


def select(units: Iterable[Unit], *, method: str | None = None,
           dataset: str | Sequence[str] | None = None,
           settings: Mapping[str, object] | None = None,
           where: Callable[[Unit], bool] | None = None) -> list[Unit]:
    """The units of ``method`` on ``dataset`` (one name or several) whose
    settings include ``settings`` (a setting a unit does not have matches only
    the value None) and for which ``where`` holds; units that ended in an error
    are kept (they count as not solved)."""
    names = (dataset,) if isinstance(dataset, str) else dataset
    out = []
    for u in units:
        if method is not None and u.method != method:
            continue
        if names is not None and u.dataset not in names:
            continue
        if settings and any(u.settings.get(k) != v for k, v in settings.items()):
            continue
        if where is not None and not where(u):
            continue
        out.append(u)
    return out


def groups(units: Iterable[Unit]) -> dict[tuple[ModelKind, str], list[Unit]]:
    """Units by (model kind, model), in the order first met: never pooled."""
    out: dict[tuple[ModelKind, str], list[Unit]] = {}
    for u in units:
        out.setdefault((u.kind, u.model), []).append(u)
    return out


def rate(units: Sequence[Unit], success: Callable[[Unit], bool] | None = None, *,
         command: str, kind: ModelKind | None = None, model: str | None = None,
         what: str = "") -> Measured:
    """The share of ``units`` for which ``success`` holds (default: model-solved),
    with its 95% Wilson interval; fallback-solved units counted apart."""
    test = success or (lambda u: u.model_solved)
    k = sum(1 for u in units if test(u))
    n = len(units)
    lo, hi = wilson_interval(k, n)
    fb = sum(1 for u in units if u.fallback_solved)
    return Measured(k / n if n else math.nan, (lo, hi) if n else None, n,
                    kind or (units[0].kind if units else ModelKind.USER), command,
                    model if model is not None else (units[0].model if units else ""),
                    sum(1 for u in units if u.model_solved), fb,
                    f"{k} of {n}{(' ' + what) if what else ''}"
                    + (f"; {fb} solved by a fallback (not counted)" if fb else ""))


def newcombe_interval(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Newcombe's hybrid score interval (95%) for p1 - p2 of two independent
    proportions, from their Wilson intervals (conservative for paired units)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1)
    l2, u2 = wilson_interval(k2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def difference(a: Sequence[Unit], b: Sequence[Unit], success: Callable[[Unit], bool], *,
               command: str, names: tuple[str, str] = ("A", "B"),
               what: str = "") -> Measured:
    """rate(a) - rate(b) of ``success`` with Newcombe's interval; n is the
    smaller arm (0 when either is empty: not measurable)."""
    k1, n1 = sum(1 for u in a if success(u)), len(a)
    k2, n2 = sum(1 for u in b if success(u)), len(b)
    first = (a or b)
    kind, model = (first[0].kind, first[0].model) if first else (ModelKind.USER, "")
    detail = f"{names[0]} {k1}/{n1} against {names[1]} {k2}/{n2}" + (f" {what}" if what
                                                                      else "")
    if not n1 or not n2:
        return Measured(math.nan, None, 0, kind, command, model, detail=detail)
    fb = sum(1 for u in (*a, *b) if u.fallback_solved)
    return Measured(k1 / n1 - k2 / n2, newcombe_interval(k1, n1, k2, n2), min(n1, n2), kind,
                    command, model, sum(1 for u in a if u.model_solved), fb, detail)


def mean(units: Sequence[Unit], value: Callable[[Unit], float | None], *, command: str,
         what: str = "") -> Measured:
    """The mean of ``value`` over the units that have one, with a 95% bootstrap
    interval (seeded: the same units give the same interval)."""
    values = [v for v in (value(u) for u in units) if v is not None]
    kind, model = (units[0].kind, units[0].model) if units else (ModelKind.USER, "")
    if not values:
        return Measured(math.nan, None, 0, kind, command, model, detail=what)
    lo, hi = mean_interval(values)
    return Measured(sum(values) / len(values), (lo, hi), len(values), kind, command, model,
                    sum(1 for u in units if u.model_solved),
                    sum(1 for u in units if u.fallback_solved),
                    f"mean of {len(values)}{(' ' + what) if what else ''}")


def _draws(n: int, reps: int, seed: int) -> np.ndarray:
    """``reps`` resamples of ``n`` indices (seeded: the same units give the same
    interval)."""
    return np.random.default_rng(seed).integers(0, n, size=(reps, n))


def _percentiles(values: np.ndarray) -> tuple[float, float]:
    lo, hi = np.percentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def mean_interval(values: Sequence[float], *, reps: int = 2000,
                  seed: int = 0) -> tuple[float, float]:
    """A 95% percentile bootstrap interval for the mean, from the values sorted
    (so the same values in any order give the same interval)."""
    v = np.sort(np.asarray(values, dtype=float))
    return _percentiles(v[_draws(len(v), reps, seed)].mean(axis=1))


def mean_difference(a: Sequence[Unit], b: Sequence[Unit],
                    value: Callable[[Unit], float | None], *, command: str,
                    names: tuple[str, str] = ("A", "B"), reps: int = 2000,
                    seed: int = 0) -> Measured:
    """mean(a) - mean(b) of ``value`` with a 95% percentile bootstrap interval
    (each arm resampled on its own, from its values sorted; seeded)."""
    va = sorted(v for v in (value(u) for u in a) if v is not None)
    vb = sorted(v for v in (value(u) for u in b) if v is not None)
    first = (a or b)
    kind, model = (first[0].kind, first[0].model) if first else (ModelKind.USER, "")
    detail = (f"{names[0]} mean {sum(va) / len(va):.3g} of {len(va)} against {names[1]} "
              f"mean {sum(vb) / len(vb):.3g} of {len(vb)}" if va and vb else
              f"{names[0]} {len(va)} values, {names[1]} {len(vb)}")
    if not va or not vb:
        return Measured(math.nan, None, 0, kind, command, model, detail=detail)
    xa, xb = np.asarray(va), np.asarray(vb)
    diffs = (xa[_draws(len(xa), reps, seed)].mean(axis=1)
             - xb[_draws(len(xb), reps, seed + 1)].mean(axis=1))
    d = sum(va) / len(va) - sum(vb) / len(vb)
    return Measured(d, _percentiles(diffs), min(len(va), len(vb)), kind, command, model,
                    sum(1 for u in a if u.model_solved),
                    sum(1 for u in (*a, *b) if u.fallback_solved), detail)


def slope(points: Sequence[tuple[float, float]], *, kind: ModelKind, model: str,
          command: str, what: str = "", reps: int = 2000, seed: int = 0) -> Measured:
    """The least-squares slope of y on x, with a 95% percentile bootstrap
    interval over the points (seeded; resamples with one x value left out);
    n is the number of points."""
    pts = np.asarray(sorted(points), dtype=float).reshape(-1, 2)
    x, y = pts[:, 0], pts[:, 1]
    if len(pts) < 2 or np.ptp(x) == 0:
        return Measured(math.nan, None, 0, kind, command, model,
                        detail=f"{len(pts)} points with fewer than two x values")
    b = float(np.cov(x, y, bias=True)[0, 1] / np.var(x))
    idx = _draws(len(pts), reps, seed)
    xs, ys = x[idx], y[idx]
    xc = xs - xs.mean(axis=1, keepdims=True)
    sxx = (xc ** 2).sum(axis=1)
    keep = sxx > 0
    boots = (xc * (ys - ys.mean(axis=1, keepdims=True))).sum(axis=1)[keep] / sxx[keep]
    return Measured(b, _percentiles(boots), len(pts), kind, command, model,
                    detail=f"slope over {len(pts)} units{(' ' + what) if what else ''}")


__all__ = ["Unit", "difference", "groups", "mean", "mean_difference", "mean_interval",
           "model_kind",
           "newcombe_interval", "rate", "read_units", "select", "slope"]
