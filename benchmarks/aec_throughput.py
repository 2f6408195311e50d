"""AEC's episode throughput on the household eval set through the benchmark
harness (``run_sweep``, the code behind ``veriplan bench aec --workers N``):
episodes per minute with 1 worker and with 2, and their ratio. Each episode
makes its own environment, so each owns its TextWorld process.

    python benchmarks/aec_throughput.py [--limit 30] [--workers 2]

The model is scripted (no LLM): an oracle that finds the game from the task
text and the room's receptacles in the prompt and proposes the game's own
walkthrough (Fast Downward's plan, as commands), and answers every prediction
with "unknown" (mu 0.5: ambiguous, so AEC queries). What is timed is AEC's
whole loop with real simulator steps and queries: hypotheses, Algorithm 1,
the verifier, execution, the store. The first ``--limit`` eval games are 5 per
task type at 30 (the dataset runs round-robin over the types). A warm-up
episode runs first, outside the timing.
"""

from __future__ import annotations

import json
import os
import re
import resource
import tempfile
import time
from functools import cache

import common
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.envs.household.env import display
from veriplan.envs.household.games import game_ids, load_game
from veriplan.llm import LLM, ScriptedBackend

_TASK = re.compile(r"Your task: (.+)")
_KIND = re.compile(r"^- kind\(([^,]+), [^)]+\) = true$", re.M)


def command(step: str) -> str | None:
    """A PDDL step of a walkthrough as the game's command."""
    name, *args = step.strip("()").split()
    a = [display(x) for x in args]
    return {"gotolocation": lambda: f"go to {a[3]}", "openobject": lambda: f"open {a[2]}",
            "closeobject": lambda: f"close {a[2]}",
            "pickupobject": lambda: f"take {a[2]} from {a[3]}",
            "putobject": lambda: f"move {a[2]} to {a[3]}",
            "heatobject": lambda: f"heat {a[3]} with {a[2]}",
            "coolobject": lambda: f"cool {a[3]} with {a[2]}",
            "cleanobject": lambda: f"clean {a[3]} with {a[2]}",
            "toggleobject": lambda: f"use {a[2]}"}.get(name, lambda: None)()


@cache
def games() -> list[tuple[str, frozenset[str], list[str]]]:
    """(task text, the room's receptacles, the walkthrough's commands) per eval game."""
    out = []
    for gid in game_ids("eval"):
        g = load_game(gid)
        rooms = frozenset(display(x.split(" - ")[0].strip())
                          for x in g.problem.split("(:objects", 1)[1].split(")", 1)[0]
                          .splitlines() if x.strip().endswith("- receptacle"))
        out.append((g.task, rooms, [c for c in map(command, g.plan) if c]))
    return out


def oracle(request) -> str:
    prompt = request.messages[-1].content
    if request.schema_name == "plans":
        m = _TASK.search(prompt)
        task = m.group(1).strip() if m else ""
        seen = set(_KIND.findall(prompt))
        fits = [g for g in games() if g[0] == task and g[1] <= seen]
        plans = [{"actions": max(fits, key=lambda g: len(g[1]))[2], "score": 0.9}] if fits else []
        return json.dumps({"plans": plans})
    if request.schema_name == "prediction":
        return json.dumps({"answer": "unknown"})
    return "Thought: look.\nAction: look"


def _cpu() -> tuple[float, float]:
    """CPU seconds so far: this process, and its children that have ended (the
    episodes' TextWorld processes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def sweep(limit: int, workers: int, llm: LLM) -> dict[str, float]:
    """Wall seconds for ``limit`` episodes with ``workers``, the CPU seconds of
    this process and of the simulators, the episodes won and their steps."""
    spec = BackendSpec.of("scripted", None, script="aec_throughput:oracle")
    with tempfile.TemporaryDirectory() as out:
        plan = SweepPlan(["aec"], ["household_eval"], [spec], limit=limit)
        (me0, kids0), t0 = _cpu(), time.perf_counter()
        progress = run_sweep(plan, out, workers=workers, llms={spec: llm})
        seconds = time.perf_counter() - t0
        me1, kids1 = _cpu()
        if progress.errors:
            raise SystemExit(f"{progress.errors} unit(s) ended in an error")
        recs = list(RunStore(out, create=False).records())
        steps = sum(r.result_dict()["metrics"]["env_steps"] for r in recs)
        return {"seconds": seconds, "cpu_self": me1 - me0, "cpu_sim": kids1 - kids0,
                "won": sum(r.verified for r in recs), "steps": steps}


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--limit", type=int, default=30, help="first N eval games (30: 5 per type)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    llm = LLM(ScriptedBackend(fn=oracle))
    games()
    sweep(1, 1, llm)  # warm-up: imports, the game cache
    print(f"AEC episode throughput, household eval set, first {args.limit} games, scripted "
          "oracle model (each episode its own TextWorld process)")
    rates = {}
    for w in (1, args.workers):
        r = sweep(args.limit, w, llm)
        rates[w] = 60 * args.limit / r["seconds"]
        cpu = r["cpu_self"] + r["cpu_sim"]
        print(f"workers={w}: {r['seconds']:.1f} s, {rates[w]:.1f} episodes/min, won "
              f"{r['won']}/{args.limit}, {r['steps']} environment steps; CPU {cpu:.1f} s "
              f"(simulators {r['cpu_sim']:.1f} s, this process {r['cpu_self']:.1f} s), "
              f"{cpu / r['seconds']:.2f} cores busy on average")
    print(f"ratio workers={args.workers} / workers=1: {rates[args.workers] / rates[1]:.2f} "
          f"(episodes/min; the machine has {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f} at the end)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
