"""ScienceWorld: the time of one engine step as the environment takes it
(``ScienceWorld._engine_step``: the step, the score, the completion) against
the peer, the engine's Python wrapper's own step (``ScienceWorldEnv.step``,
which also reads a free look, the inventory, the task text and the valid
actions, the last one item by item over the gateway), on the gold paths of a
few unseen variations, both in the same engine, episode after episode.
And a reset (one load) against the wrapper's load then reset (two loads).

    python benchmarks/scienceworld_step_speed.py [--tasks boil:21,chemistry-mix:24] [--rounds 2]

Needs Java. What ``veriplan aec check-store`` gains per step is the ratio
below; its other per-step cost (reading the simulator's state to check w
against) is the same on both sides.
"""

from __future__ import annotations

import statistics
import time

import common
from veriplan.envs import make_env
from veriplan.envs.scienceworld import check_task_id


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--tasks", default="boil:21,chemistry-mix:24,find-animal:230")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    ours: list[float] = []
    theirs: list[float] = []
    reset_ours: list[float] = []
    reset_theirs: list[float] = []
    with make_env("scienceworld") as env:
        engine = env._env  # type: ignore[attr-defined]
        for _ in range(args.rounds):
            for tid in args.tasks.split(","):
                for mine in (True, False):
                    start = time.perf_counter()
                    if mine:
                        env.reset(tid)
                        reset_ours.append(time.perf_counter() - start)
                    else:
                        task, var = check_task_id(tid)
                        engine.load(task, var, "", generateGoldPath=True)
                        engine.reset()
                        reset_theirs.append(time.perf_counter() - start)
                    path = list(engine.get_gold_action_sequence())
                    for action in path:
                        start = time.perf_counter()
                        if mine:
                            env._engine_step(action)  # type: ignore[attr-defined]
                        else:
                            engine.step(action)
                        (ours if mine else theirs).append(time.perf_counter() - start)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"engine step: ours {1000 * a:.1f} ms, the wrapper's {1000 * b:.1f} ms (median of "
          f"{len(ours)} and {len(theirs)} steps): ratio {b / a:.1f}x")
    a, b = statistics.median(reset_ours), statistics.median(reset_theirs)
    print(f"reset: ours {1000 * a:.0f} ms, the wrapper's load+reset {1000 * b:.0f} ms: "
          f"ratio {b / a:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
