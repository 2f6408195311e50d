"""V on ScienceWorld's gold paths (issue 33): not a speed benchmark, a check
that V, which now goes on past a command the action model does not know
(with what it may change forgotten), still never refutes a plan the engine
carries out to a win. Along each gold path, before every step, V judges the
rest of the path from the AEC agent's own w (fed as an episode feeds it); a
won episode with any "invalid" verdict is a false rejection, and a "valid"
one would be unsound (nothing makes a ScienceWorld plan valid). Prints, per
task, the verdicts and how many of the judged rests had an unknown command
before a focus step (the plans where V's goal check used to stop short).

    python benchmarks/aec_v_gold_paths.py [--per-task 1] [--limit N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from veriplan.core.verdict import Verdict
from veriplan.envs import make_env
from veriplan.envs.base import EnvTask
from veriplan.envs.check import select_ids
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec.config import AgentConfig
from veriplan.methods.aec.controller import Policy
from veriplan.methods.aec.episode import Agent, guard
from veriplan.methods.aec.hypotheses import build, read_plan
from veriplan.methods.aec.verifier import verify


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-task", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    ids = select_ids("scienceworld", "unseen", args.per_task)
    ids = ids[:args.limit] if args.limit else ids
    env = make_env("scienceworld")
    total: Counter[str] = Counter()
    bad = 0
    start = time.perf_counter()
    try:
        for tid in ids:
            agent = Agent("v", EnvTask("scienceworld", tid), LLM(ScriptedBackend()),
                          AgentConfig(), Policy())
            agent.env = env
            agent.start(env)
            path = env.gold_path(tid, loaded=True)
            env.max_steps = max(env.max_steps, len(path) + 1)
            m = agent.model
            goal = m.goal_for(env.task_description)
            seen: Counter[str] = Counter()
            for i, step in enumerate(path):
                rest = path[i:]
                (h,) = build([read_plan({"actions": rest}, m.predicates)], agent.w,
                             agent.rules, m)
                v = verify(h, agent.w.state, agent.rules, m.actions, goal)
                seen[v.verdict.value] += 1
                known = [m.actions.preconditions(a, agent.w.state) is not None for a in rest]
                focus = [j for j, a in enumerate(rest) if a.lower().startswith("focus on")]
                if focus and not all(known[:focus[-1]]):
                    seen["unknown command before a focus"] += 1
                changed = agent.touched_by([step])
                agent.after_step(guard(env.step, step), changed)
            won = env.won
            wrong = seen[Verdict.INVALID.value] + seen[Verdict.VALID.value]
            bad += wrong if won else 0
            total.update(seen)
            total["episodes"] += 1
            total["won"] += won
            print(f"{tid}: {'won' if won else 'NOT WON'}, {len(path)} steps; "
                  + ", ".join(f"{k} {n}" for k, n in sorted(seen.items())), flush=True)
    finally:
        env.close()
    print(f"== {total['episodes']} gold paths ({total['won']} won), "
          f"{sum(total[v.value] for v in Verdict)} rests judged: "
          + ", ".join(f"{k} {n}" for k, n in sorted(total.items())
                      if k not in ("episodes", "won"))
          + f"; refuted or accepted in a won episode: {bad} "
          f"({time.perf_counter() - start:.0f} s)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
