"""A run store as a pandas DataFrame, for notebooks (pandas is the ``frames``
extra: ``pip install 'veriplan[frames]'``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.bench.store import RunStore, UnitRecord
from veriplan.errors import VeriplanError

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

#: The fixed columns, in order, with their pandas dtypes; ``settings.<key>`` and
#: ``metrics.<key>`` columns follow (object dtype: values as the method gave them).
COLUMNS: dict[str, str] = {
    "id": "string", "method": "string", "settings": "string", "dataset": "string",
    "instance": "string", "backend": "string", "model": "string", "seed": "int64",
    "status": "string", "verified": "bool", "scope": "string", "solved_by": "string",
    "calls": "int64",
    "tokens": "int64", "cost": "Float64", "seconds": "float64", "failure": "string",
    "error_category": "string", "veriplan_version": "string", "dataset_version": "string",
    "finished": "float64",
}


class MissingExtraError(VeriplanError, ImportError):
    """An optional dependency that is not installed (names the extra to install)."""


def _pandas():
    try:
        import pandas
    except ImportError:
        raise MissingExtraError("load_runs needs pandas, which is in veriplan's 'frames' "
                                "extra: pip install 'veriplan[frames]'") from None
    return pandas


def failure(r: UnitRecord, result: Mapping[str, object]) -> str | None:
    """Why a unit is not model-solved: the error category of a unit that
    failed to run, else the method's own failure category, else the failure
    kinds of its last attempt ("precondition", "goal+translation", ...); None
    for a unit the model solved."""
    if r.status == "error":
        return r.error_category or "error"
    if r.verified and r.solved_by == "llm":
        return None
    if result.get("failure"):
        return str(result["failure"])
    signals = result.get("signals") or []
    kinds = sorted(signals[-1].get("failure") or []) if signals else []
    return "+".join(kinds) if kinds else None


def row(r: UnitRecord) -> dict[str, JSONValue]:
    """One unit as a flat row: the store's columns, settings and metrics
    flattened (``settings.<key>``, ``metrics.<key>``; nested dicts by dots)."""
    result = r.result_dict()
    out: dict[str, JSONValue] = {
        "id": r.id, "method": r.method, "settings": r.config, "dataset": r.dataset,
        "instance": r.instance, "backend": r.backend, "model": r.model, "seed": r.seed,
        "status": r.status, "verified": bool(r.verified),
        "scope": r.scope.value if r.scope is not None else None, "solved_by": r.solved_by,
        "calls": r.llm_calls, "tokens": r.tokens, "cost": r.cost, "seconds": r.seconds,
        "failure": failure(r, result), "error_category": r.error_category,
        "veriplan_version": r.veriplan_version, "dataset_version": r.dataset_version,
        "finished": r.finished}
    _flatten("settings", json.loads(r.config or "{}"), out)
    _flatten("metrics", result.get("metrics") or {}, out)
    return out


def _flatten(prefix: str, value: JSONValue, out: dict[str, JSONValue]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}", v, out)
    else:
        out[prefix] = value


def load_runs(directory: str | Path):
    """Every unit of the run store in ``directory`` as a pandas DataFrame, one
    row per unit in the order they finished: the columns of :data:`COLUMNS`
    (typed: ``verified`` bool, ``seed``/``calls``/``tokens`` int64, ``cost``
    nullable Float64, text as pandas strings), then ``settings.<key>`` and
    ``metrics.<key>`` for every setting and metric any unit has (missing where a
    unit has none). ``failure`` says why a unit is not model-solved (see
    :func:`failure`). A directory without a store is a
    :class:`~veriplan.errors.DataError`; without pandas, a
    :class:`MissingExtraError` naming the ``frames`` extra."""
    pd = _pandas()
    store = RunStore(directory, create=False)
    try:
        rows = [row(r) for r in store.records()]
    finally:
        store.close()
    extra = sorted({k for x in rows for k in x if k not in COLUMNS},
                   key=lambda k: (not k.startswith("settings."), k))
    frame = pd.DataFrame(rows, columns=[*COLUMNS, *extra])
    return frame.astype(COLUMNS)
