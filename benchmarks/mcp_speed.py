"""validate_plan through ``veriplan mcp``: calls per second over stdio with the MCP
SDK's client (the whole round trip: request, JSON-RPC, reading the files,
judging, the structured verdict with repair hints, the reply), against
``veriplan validate`` as a process per plan (what an agent that shells out pays)
and KCL's VAL as a process per plan, in one run, in interleaved rounds; and
validate_batch, 100 plans a call; and, as the floor of a round trip, the same
client against a stand-in server that replays the real server's replies from
memory (what the SDK's client and the pipes cost alone).

The plans: the bundled Blocksworld examples (a valid 6-step plan, a broken one, a
PlanBench-numbered one) and plans of the 6-block problem (a solution found by our
BFS, and its prefixes, which leave goals unmet), all given by path; the server
also gets them as inline text (domain, problem and plan in the request), as an
agent that holds the task in its context does.

    python benchmarks/mcp_speed.py [--rounds 5] [--calls 200] [--processes 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from veriplan.pddl.task import load_task
from veriplan.search import bfs

EX = Path(__file__).resolve().parents[1] / "src" / "veriplan" / "examples"
VERIPLAN = str(Path(sys.executable).parent / "veriplan")


def plans(work: Path) -> list[tuple[str, str, str]]:
    """(domain, problem, plan file) triples, all inside ``work``."""
    for f in EX.iterdir():
        (work / f.name).write_bytes(f.read_bytes())
    six = load_task(work / "blocks-domain.pddl", work / "blocks6-problem.pddl")
    found = bfs(six).plan or []
    out = [("blocks-domain.pddl", "blocks-problem.pddl", p) for p in
           ("blocks-plan.txt", "blocks-bad-plan.txt")]
    for k in (len(found), len(found) // 2, 1):
        name = f"six-{k}.txt"
        (work / name).write_text("\n".join(str(op) for op in found[:k]) + "\n")
        out.append(("blocks-domain.pddl", "blocks6-problem.pddl", name))
    return out


async def mcp_rate(client: Client, items: list[tuple[str, str, str]], calls: int,
                   inline: bool, work: Path) -> float:
    args = []
    for d, p, plan in items:
        if inline:
            args.append({"domain": (work / d).read_text(), "problem": (work / p).read_text(),
                         "plan": (work / plan).read_text()})
        else:
            args.append({"domain_path": d, "problem_path": p, "plan_path": plan})
    start = time.perf_counter()
    for i in range(calls):
        r = await client.call_tool("validate_plan", args[i % len(args)])
        assert not r.is_error, r.content
    return calls / (time.perf_counter() - start)


async def batch_rate(client: Client, items: list[tuple[str, str, str]], calls: int,
                     size: int) -> float:
    """Plans a second through validate_batch, ``size`` plans a call."""
    batch = [{"domain_path": d, "problem_path": p, "plan_path": plan}
             for d, p, plan in (items * (size // len(items) + 1))[:size]]
    start = time.perf_counter()
    for _ in range(calls):
        r = await client.call_tool("validate_batch", {"items": batch})
        assert not r.is_error and r.structured_content["unjudged"] == 0, r.content
    return calls * size / (time.perf_counter() - start)


#: A stdio server that answers each distinct request (id aside) once through a real
#: ``veriplan mcp`` and then replays that reply from memory: what the SDK's client and
#: the pipes cost a round trip when the server costs next to nothing.
REPLAY = """
import json, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
memo = {}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        child.stdin.write(line); child.stdin.flush(); continue
    ident = msg.pop("id"); key = json.dumps(msg, sort_keys=True)
    if key not in memo:
        child.stdin.write(json.dumps({**msg, "id": 0}) + "\\n"); child.stdin.flush()
        memo[key] = json.loads(child.stdout.readline())
    reply = memo[key]; reply["id"] = ident
    sys.stdout.write(json.dumps(reply) + "\\n"); sys.stdout.flush()
child.stdin.close(); child.wait()
"""


def process_rate(command: list[list[str]], work: Path) -> float:
    start = time.perf_counter()
    for c in command:
        subprocess.run(c, cwd=work, capture_output=True, check=False)
    return len(command) / (time.perf_counter() - start)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200, help="MCP calls a round (each way)")
    ap.add_argument("--processes", type=int, default=10,
                    help="CLI and VAL processes a round")
    a = ap.parse_args()
    try:
        from veriplan.verify.val import find_val

        val = find_val()
    except Exception as exc:  # noqa: BLE001
        val = None
        print(f"VAL not measured: {exc}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        items = plans(work)
        cli = [[VERIPLAN, "validate", "--domain", d, "--problem", p, "--plan", plan]
               for d, p, plan in items]
        vals = [[*map(str, val.command(work / d, work / p, work / plan))]
                for d, p, plan in items] if val else []
        rates: dict[str, list[float]] = {"mcp (paths)": [], "mcp (inline text)": [],
                                         "mcp validate_batch, 100 plans a call": [],
                                         "floor: SDK client, replies replayed": [],
                                         "veriplan validate, a process a plan": [],
                                         "VAL, a process a plan": []}
        params = StdioServerParameters(command=VERIPLAN, args=["mcp", "--root", str(work)],
                                       cwd=str(work))
        (work / "replay.py").write_text(REPLAY)
        replay = StdioServerParameters(command=sys.executable,
                                       args=[str(work / "replay.py"), VERIPLAN, "mcp",
                                             "--root", str(work)], cwd=str(work))
        async with Client(params) as client, Client(replay) as floor:
            await mcp_rate(client, items, 20, False, work)  # warm-up: imports, caches
            await mcp_rate(floor, items, 20, False, work)
            for _ in range(a.rounds):
                rates["floor: SDK client, replies replayed"].append(
                    await mcp_rate(floor, items, a.calls, False, work))
                rates["mcp (paths)"].append(await mcp_rate(client, items, a.calls, False,
                                                           work))
                rates["mcp (inline text)"].append(await mcp_rate(client, items, a.calls,
                                                                 True, work))
                rates["mcp validate_batch, 100 plans a call"].append(
                    await batch_rate(client, items, max(1, a.calls // 20), 100))
                n = a.processes
                rates["veriplan validate, a process a plan"].append(
                    process_rate([cli[i % len(cli)] for i in range(n)], work))
                if vals:
                    rates["VAL, a process a plan"].append(process_rate(
                        [vals[i % len(vals)] for i in range(n)], work))
    print(f"validate_plan round trips, {a.rounds} interleaved rounds "
          f"(median of rounds; plans/s and ms a plan):")
    base = statistics.median(rates["VAL, a process a plan"]) if vals else None
    for name, values in rates.items():
        if not values:
            continue
        m = statistics.median(values)
        vs = f"  {m / base:6.1f}x VAL" if base else ""
        print(f"  {name:40s} {m:9.1f}/s  {1000 / m:8.2f} ms{vs}")


if __name__ == "__main__":
    asyncio.run(main())
