"""The harness's own time per unit (unit planning, store write, bookkeeping),
against a scripted method that sleeps 20 ms: 1,000 units, one worker.

    python benchmarks/harness_overhead.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass

import common
from veriplan.bench.runner import run_sweep
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.methods import register_method
from veriplan.methods.result import SolveResult

SLEEP = 0.020
spent: list[float] = []


@dataclass(frozen=True)
class Config:
    pass


def sleeper(problem, llm, config, *, observer=None) -> SolveResult:
    start = time.perf_counter()
    time.sleep(SLEEP)
    spent.append(time.perf_counter() - start)
    return SolveResult("sleeper", False, [], 1, 0, 0, SLEEP)


def main() -> int:
    args = common.parser(__doc__).parse_args()
    register_method("sleeper", sleeper, Config)
    plan = SweepPlan(["sleeper"], ["blocksworld"], [BackendSpec.of("scripted")],
                     seeds=[0, 1], limit=500)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        progress = run_sweep(plan, tmp, data_root=args.data_dir, workers=1)
        wall = time.perf_counter() - start
    n = progress.done
    method = sum(spent)
    overhead = (wall - method) / n
    print(f"units: {n}; wall {wall:.2f} s; inside the method {method:.2f} s")
    print(f"harness overhead : {overhead * 1e3:6.3f} ms/unit (target < 1 ms)")
    print(f"method time      : {method / n * 1e3:6.3f} ms/unit (peer: the 20 ms sleep)")
    print(f"ratio (overhead / method): {overhead / (method / n):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
