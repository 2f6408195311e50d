"""What reading ScienceWorld's truth costs a check (issue 33): ``true_doors``
(the world's doors found once per load, their states read per call) against
a fresh read of the doors (found again each call, as before) and against
``true_facts`` (the object tree), in the same engine and run.

    python benchmarks/scienceworld_truth_speed.py [--calls 20] [TASK ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from veriplan.envs import make_env


def per_call(fn: Callable[[], object], n: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", nargs="*", default=["boil:21", "find-animal:230"])
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()
    env = make_env("scienceworld")
    try:
        for tid in args.tasks:
            env.reset(tid)

            def fresh() -> object:
                env._door_sides = None  # type: ignore[attr-defined]
                return env.true_doors()  # type: ignore[attr-defined]

            doors = per_call(env.true_doors, args.calls)  # type: ignore[attr-defined]
            again = per_call(fresh, args.calls)
            tree = per_call(env.true_facts, args.calls)  # type: ignore[attr-defined]
            print(f"{tid}: true_doors {doors:.1f} ms, found afresh {again:.1f} ms "
                  f"({again / doors:.0f}x), true_facts {tree:.1f} ms "
                  f"(doors {doors / tree:.1%} of it)", flush=True)
    finally:
        env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
