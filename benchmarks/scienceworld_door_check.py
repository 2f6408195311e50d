"""ScienceWorld's grounded door facts against the engine's own door states
(issue 33: a refused "go to R" grounds the door to R closed). Not a speed
benchmark: a check, with the engine's doors added to the truth that
``contradicted`` compares against (``true_facts() | true_doors()``; the
object tree behind ``true_facts`` has no doors, so the CLI checks skip them).

    python benchmarks/scienceworld_door_check.py moves
    python benchmarks/scienceworld_door_check.py walk [--steps 30]
    python benchmarks/scienceworld_door_check.py store

``moves``: along the gold path of the first unseen variation of each task,
in every room it enters, "go to R" for every other room R (a move carried
out is walked back through the same door), the environment's grounded store
checked after each; ``walk``: ``replay_models`` random walks (``veriplan env check --models
--walk``: admissible actions, one in eight a command the engine may refuse) of
the first unseen variation of each task; ``store``: AEC's w along the same
variations' gold paths (``veriplan aec check-store``). Prints the refused
moves whose door was grounded, the door facts checked and what was
contradicted.
"""

from __future__ import annotations

import argparse
import sys

from veriplan.envs import make_env
from veriplan.envs.base import Fact
from veriplan.envs.check import random_walk, replay_models
from veriplan.envs.scienceworld import VARIATIONS, ScienceWorld, variations
from veriplan.methods.aec.storecheck import replay_store


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["moves", "walk", "store"])
    ap.add_argument("--steps", type=int, default=30, help="walk: steps per task")
    args = ap.parse_args()

    plain = ScienceWorld.true_facts
    ScienceWorld.true_facts = lambda self: plain(self) | self.true_doors()  # type: ignore
    grounded = {"refusals": 0, "door facts": 0}
    ground = ScienceWorld.ground

    def counting(self: ScienceWorld, text: str, action: str | None = None) -> set[Fact]:
        facts = ground(self, text, action)
        doors = {f for f in facts if f.pred == "open" and f.args[0].startswith("door to ")}
        grounded["door facts"] += len(doors)
        grounded["refusals"] += text.strip() == "The door is not open." and bool(doors)
        return facts

    ScienceWorld.ground = counting  # type: ignore[method-assign]
    env = make_env("scienceworld")
    bad: list[str] = []
    try:
        for task in VARIATIONS:
            tid = f"{task}:{variations(task, 'unseen')[0]}"
            if args.mode == "moves":
                found = moves(env, tid)
            elif args.mode == "walk":
                r = replay_models(env, tid, policy=random_walk(tid), steps=args.steps)
                found = r.store + r.rules + r.effects + r.preconditions
            else:
                found = replay_store(env, tid).contradicted
            bad += [f"{tid}: {x}" for x in found]
    finally:
        env.close()
    print(f"{args.mode}: {len(VARIATIONS)} tasks; refused moves grounded "
          f"{grounded['refusals']}; door facts grounded {grounded['door facts']}; "
          f"contradicted {len(bad)}")
    print("\n".join(bad[:20]))
    return 1 if bad else 0


def moves(env: ScienceWorld, tid: str) -> list[str]:
    """Every "go to R" from every room the gold path enters; what the engine's
    doors contradict in the environment's grounded store after each."""
    from veriplan.envs.actions import ROOMS

    env.reset(tid)
    path = env.gold_path(tid, loaded=True)
    env.max_steps = 10**6
    bad: list[str] = []
    seen: set[str] = set()
    for step in [None, *path]:
        if step is not None:
            env.step(step)
        here = env._room
        if here is None or here in seen:
            continue
        seen.add(here)
        for room in ROOMS:
            if room == here:
                continue
            text = env.step(f"go to {room}").observation.text
            truth = env.true_facts() | env.true_doors()
            bad += [f"after go to {room} from {here}: {f}"
                    for f in env.contradicted(env.grounded, truth)]
            if text.startswith("You move to"):
                env.step(f"go to {here}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
