"""The benchmark harness: datasets, units, the run store, runners, reports,
published runs re-judged, and runs as a DataFrame.

Exported here (imported on first use): :func:`load_runs` (a run store as a
pandas DataFrame), :func:`import_planbench` and :func:`import_mystery_planning`
(published results into a run store)."""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "load_runs": "veriplan.bench.frame",
    "import_planbench": "veriplan.bench.imports_planbench",
    "import_mystery_planning": "veriplan.bench.imports_mystery",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'veriplan.bench' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
