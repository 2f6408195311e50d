"""ScienceWorld's grounded door facts against the engine's own door states
(issue 33: a refused "go to R" grounds the door to R closed). Not a speed
benchmark: a check, with the engine's doors added to the truth that
``contradicted`` compares against (``true_facts() | true_doors()``; the
object tree behind ``true_facts`` has no doors, so the CLI checks skip them).

    python benchmarks/scienceworld_door_check.py moves
    python benchmarks/scienceworld_door_check.py walk [--steps 30]
    python benchmarks/scienceworld_door_check.py store
    python benchmarks/scienceworld_door_check.py sides [--control]

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
    ap.add_argument("mode", choices=["moves", "walk", "store", "sides"])
    ap.add_argument("--steps", type=int, default=30, help="walk: steps per task")
    ap.add_argument("--control", action="store_true",
                    help="sides: without the action model's other-side drop")
    ap.add_argument("--tasks", type=int, default=len(VARIATIONS),
                    help="the first N tasks only (default: all 30)")
    args = ap.parse_args()
    if args.control:
        one_side_only()

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
    held = {"stores": 0, "changes": 0}
    try:
        for task in list(VARIATIONS)[:args.tasks]:
            tid = f"{task}:{variations(task, 'unseen')[0]}"
            if args.mode == "moves":
                found = moves(env, tid)
            elif args.mode == "walk":
                r = replay_models(env, tid, policy=random_walk(tid), steps=args.steps)
                found = r.store + r.rules + r.effects + r.preconditions
            elif args.mode == "store":
                found = replay_store(env, tid).contradicted
            else:
                found = sides(env, tid, held)
            bad += [f"{tid}: {x}" for x in found]
    finally:
        env.close()
    print(f"{args.mode}: {min(args.tasks, len(VARIATIONS))} tasks; refused moves grounded "
          f"{grounded['refusals']}; door facts grounded {grounded['door facts']}; "
          f"contradicted {len(bad)}")
    if args.mode == "sides":
        print(f"door opened or closed from one side {held['changes']} times; the other "
              f"side's fact held by a store (env, w) then {held['stores']} times")
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


def one_side_only() -> None:
    """The control: "open/close door to R" forgets only its own side's fact."""
    from veriplan.envs.actions import ScienceWorldActions, _here

    touched = ScienceWorldActions.touched

    def one_side(self: ScienceWorldActions, action: str, facts):  # type: ignore[no-untyped-def]
        out = touched(self, action, facts)
        p, room = self.parse(action), _here(facts)
        if out is not None and p.form in ("open", "close") and room and \
                p.args[0].startswith("door to "):
            out.discard(("open", (f"door to {room}", p.args[0][len("door to "):])))
        return out

    ScienceWorldActions.touched = one_side  # type: ignore[method-assign]


def sides(env: ScienceWorld, tid: str, held: dict[str, int]) -> list[str]:
    """For every door on a loop of the house (A, B), both ways round and with
    each way of seeing it closed from A (a look, a refused "go to B"): open
    the loop's other doors, close A-B from A if it is open, see it closed from
    A, walk round to B, "open door to A"; walk back round, "close door to B".
    The environment's store and AEC's w are checked against the engine after
    every step from the look on (the walks that open doors are set-up)."""
    from collections import deque

    from veriplan.envs.base import EnvTask
    from veriplan.envs.rules import derive, rules_for
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.aec.config import AgentConfig
    from veriplan.methods.aec.controller import Policy
    from veriplan.methods.aec.episode import Agent, guard

    agent = Agent("door-sides", EnvTask(env.name, tid), LLM(ScriptedBackend()), AgentConfig(),
                  Policy())
    agent.env = env
    agent.start(env)
    env.max_steps = 10**6
    rules = rules_for(env.name, agent.rules.disabled)
    bad: list[str] = []
    checking = False

    def step(action: str) -> str:
        changed = agent.touched_by([action])
        result = guard(env.step, action)
        agent.after_step(result, changed)
        if checking:
            truth = env.true_facts() | env.true_doors()
            w = set(agent.w.facts())
            bad.extend(f"after {action} in {env._room}: {f} (env store)"
                       for f in env.contradicted(env.grounded, truth))
            bad.extend(f"after {action} in {env._room}: {f} (AEC's w)"
                       for f in env.contradicted(w | set(derive(w, rules)), truth))
        return result.observation.text

    def doors() -> dict[tuple[str, str], bool]:
        return {(f.args[1], f.args[0][len("door to "):]): f.value for f in env.true_doors()}

    def route(src: str, dst: str, banned: frozenset[str]) -> list[str] | None:
        links = {frozenset(k) for k in doors()} - {banned}
        back: dict[str, str] = {src: src}
        todo = deque([src])
        while todo:
            x = todo.popleft()
            for link in links:
                if x in link:
                    (y,) = link - {x}
                    if y not in back:
                        back[y] = x
                        todo.append(y)
        if dst not in back:
            return None
        path = [dst]
        while path[-1] != src:
            path.append(back[path[-1]])
        return path[::-1][1:]

    def here() -> str:
        (room,) = {f.args[1] for f in env.true_facts() if f.pred == "at"}
        return room

    def walk(path: list[str]) -> None:
        for room in path:
            if not doors()[(here(), room)]:
                step(f"open door to {room}")
            text = step(f"go to {room}")
            if not text.startswith("You move to"):
                raise RuntimeError(f"{tid}: go to {room} from {here()}: {text!r}")

    def holds(side: tuple[str, str], value: bool) -> int:
        f = Fact("open", (f"door to {side[1]}", side[0]), value)
        return (f in env.grounded) + (f in agent.w.facts())

    for a, b in sorted(doors()):
        loop = route(a, b, frozenset((a, b)))
        if loop is None:
            continue  # no other way round: nothing to provoke
        for seen in ("look around", f"go to {b}"):
            checking = False
            walk(route(here(), a, frozenset((a, b))) or [])
            walk(loop)
            walk([*loop[-2::-1], a])
            if doors()[(a, b)]:
                step(f"close door to {b}")
            checking = True
            step(seen)
            for room in loop:
                step(f"go to {room}")
            held["changes"] += 1
            held["stores"] += holds((a, b), False)
            step(f"open door to {a}")
            for room in [*loop[-2::-1], a]:
                step(f"go to {room}")
            held["changes"] += 1
            held["stores"] += holds((b, a), True)
            step(f"close door to {b}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
