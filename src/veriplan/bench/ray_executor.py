"""The same units on a Ray cluster; results come back to the driver, which
writes them to the run store as they arrive.

Each worker process builds its backend once (from the unit's spec) and keeps
it; API keys come from the workers' environment. On a cluster, the data
directory and the response cache path must be visible on every node (a shared
file system), or pass ``cache_path=None``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from veriplan.bench.execute import execute, make_llm
from veriplan.bench.store import UnitRecord
from veriplan.errors import VeriplanError

_LLMS: dict = {}


def _remote_execute(work, cache_path: str | None, data_root: str | None = None) -> UnitRecord:
    llm = _LLMS.get(work.spec)
    if llm is None:
        llm = _LLMS[work.spec] = make_llm(work.spec, Path(cache_path) if cache_path else None,
                                          data_root=data_root)
    return execute(work.unit, work.instance, llm, work.dataset_version)


def run_on_ray(todo: list, record: Callable[[UnitRecord], None], *, workers: int,
               cache_path: Path | None, data_root: object = None) -> None:
    try:
        import ray
    except ImportError:
        raise VeriplanError("Ray is not installed: pip install 'veriplan[ray]'") from None
    if not ray.is_initialized():
        # RAY_ADDRESS (e.g. ray://head:10001 or auto) joins a cluster; unset starts a
        # local Ray on this machine.
        ray.init(address=os.environ.get("RAY_ADDRESS"), ignore_reinit_error=True,
                 log_to_driver=False)
    remote = ray.remote(_remote_execute)
    cache = str(cache_path) if cache_path else None
    root = str(data_root) if data_root is not None else None
    queue = iter(todo)
    pending: dict = {}
    while True:
        while len(pending) < max(1, workers):
            w = next(queue, None)
            if w is None:
                break
            pending[remote.remote(w, cache, root)] = w
        if not pending:
            return
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            pending.pop(ref)
            record(ray.get(ref))
