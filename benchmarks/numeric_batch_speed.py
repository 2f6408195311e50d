"""`veriplan validate --batch` against VAL batched per problem, on the planner-made
numeric and derived-predicate plans and their mutants (tests/data/ipc_plans).

In each of ``--rounds`` interleaved rounds (both tools under the same load):

- VAL: one ``Validate dom prob plan...`` process per problem with all its plans;
- veriplan: one ``veriplan validate --batch FILE.jsonl`` process over every plan
  (interpreter start, imports, reading, judging, writing each record).

Each plan is listed ``--copies`` times (default 10: more plans a problem favour VAL
batched, whose cost is mostly its start and its reading of the files). Wall time is
the round's; CPU is the children's user+system time (``resource.RUSAGE_CHILDREN``).
Printed: the totals over rounds and VAL/veriplan (above 1: veriplan is faster), for
the numeric plans and the derived-predicate plans apart; and both tools on each plan
once (``--copies 1``), which gives what a run costs before its repeated plans
(start-up, parses, the first sight of every step), what each plan beyond costs,
and the most veriplan could reach on this set if those cost nothing (``--kinds numeric``: the
numeric plans alone; VAL takes minutes a round on the derived-predicate ones).

The ``--batch`` processes run from compiled bytecode, as an installed package does
(see ``validate_speed.py``): with ``PYTHONDONTWRITEBYTECODE`` set in the environment,
as on the machine these figures come from, each process would compile veriplan's
sources again (about 0.2 s CPU a process). The bytecode is kept in a temporary
directory (``PYTHONPYCACHEPREFIX``; the warm-up run writes it); ``--no-bytecode``
runs the processes with the environment as it is.

    python benchmarks/numeric_batch_speed.py [--data-dir ../shared/data] [--copies 10]
        [--rounds 5] [--kinds numeric,derived] [--no-bytecode]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from functools import partial
from pathlib import Path

import common

REPO = Path(__file__).resolve().parents[1]
VERDICTS = REPO / "tests" / "data" / "ipc_plans" / "val_verdicts.jsonl"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(totals: dict[str, list[float]], key: str, cmds: list[list[str]],
           env: dict[str, str]) -> None:
    """Run ``cmds`` one after the other; add their wall and CPU time to ``totals[key]``."""
    c0, t0 = _cpu(), time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       check=False)
    totals[key][0] += time.perf_counter() - t0
    totals[key][1] += _cpu() - c0


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kinds", default="numeric,derived",
                    help="which plans: numeric, derived or both (default)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="run --batch with the environment as it is (no bytecode kept "
                         "when it sets PYTHONDONTWRITEBYTECODE)")
    args = ap.parse_args()
    wanted = {k.strip() for k in args.kinds.split(",") if k.strip()}
    if not wanted or wanted - {"numeric", "derived"}:
        ap.error("--kinds: numeric, derived or both (comma-separated)")
    from veriplan.verify.val import ValUnavailable, find_val

    try:
        val = find_val()
    except ValUnavailable as exc:
        print(f"VAL is needed for this benchmark: {exc}", file=sys.stderr)
        return 2
    ipc = args.data_dir / "ipc-dev"
    rows = [json.loads(line) for line in VERDICTS.read_text().splitlines() if line.strip()]
    kinds = {"numeric": [r for r in rows if "derived" not in r["variant"]],
             "derived": [r for r in rows if "derived" in r["variant"]]}
    veriplan = str(Path(sys.executable).parent / "veriplan")
    env = common.bytecode_env(Path(tempfile.mkdtemp(prefix="veriplan-pyc-")),
                              not args.no_bytecode)
    for kind, chosen in kinds.items():
        if not chosen or kind not in wanted:
            continue
        by_problem: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in chosen:
            for _ in range(args.copies):
                by_problem[(r["domain"], r["problem"])].append(str(REPO / r["plan"]))
        with tempfile.TemporaryDirectory(prefix="veriplan-bench-") as tmp:
            batch, once = Path(tmp) / "batch.jsonl", Path(tmp) / "once.jsonl"
            with batch.open("w") as f, once.open("w") as g:
                for (d, p), plans in by_problem.items():
                    for i, plan in enumerate(plans):
                        line = json.dumps({"domain": str(ipc / d), "problem": str(ipc / p),
                                           "plan_file": plan}) + "\n"
                        f.write(line)
                        if i < len(plans) // args.copies:
                            g.write(line)
            n = sum(len(p) for p in by_problem.values())
            subprocess.run([veriplan, "validate", "--batch", str(batch), "--lenient"],
                           stdout=subprocess.DEVNULL, env=env, check=False)  # warm-up
            # [wall, CPU] of the whole set, and of each plan once (--copies 1)
            totals = {k: [0.0, 0.0] for k in ("val", "veriplan", "val1", "veriplan1")}

            for _ in range(args.rounds):
                timed = partial(_timed, totals)
                timed("val", [[str(val.validate), str(ipc / d), str(ipc / p), *plans]
                              for (d, p), plans in by_problem.items()], val.env)
                timed("veriplan", [[veriplan, "validate", "--batch", str(batch), "--lenient"]],
                      env)
                timed("val1", [[str(val.validate), str(ipc / d), str(ipc / p),
                                *plans[:len(plans) // args.copies]]
                               for (d, p), plans in by_problem.items()], val.env)
                timed("veriplan1", [[veriplan, "validate", "--batch", str(once), "--lenient"]],
                      env)
        (vw, vc), (ow, oc) = totals["val"], totals["veriplan"]
        v1, o1 = totals["val1"][1], totals["veriplan1"][1]
        print(f"{kind}: {n} plans on {len(by_problem)} problems, {args.rounds} rounds: "
              f"VAL batched per problem wall {vw:.2f} s CPU {vc:.2f} s; veriplan --batch "
              f"wall {ow:.2f} s CPU {oc:.2f} s; VAL/veriplan: wall {vw / ow:.2f}x, "
              f"CPU {vc / oc:.2f}x")
        if args.copies > 1:
            extra = args.rounds * (n - n // args.copies)
            print(f"  each plan once ({n // args.copies} plans): VAL {v1:.2f} s CPU, veriplan "
                  f"{o1:.2f} s CPU (start-up, parses, first sight of every step). Beyond "
                  f"them, a plan costs VAL {1e6 * (vc - v1) / extra:.0f} us CPU and veriplan "
                  f"{1e6 * (oc - o1) / extra:.0f} us ({(vc - v1) / (oc - o1):.1f}x); with no "
                  f"time a plan beyond them, veriplan would be at most {vc / o1:.1f}x VAL's "
                  f"CPU on this set")
    return 0


if __name__ == "__main__":
    sys.exit(main())
