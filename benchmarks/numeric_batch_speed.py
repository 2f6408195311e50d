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
the numeric plans and the derived-predicate plans apart (``--kinds numeric``: the
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
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import common

REPO = Path(__file__).resolve().parents[1]
VERDICTS = REPO / "tests" / "data" / "ipc_plans" / "val_verdicts.jsonl"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


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
    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="veriplan-pyc-")
    for kind, chosen in kinds.items():
        if not chosen or kind not in wanted:
            continue
        by_problem: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in chosen:
            for _ in range(args.copies):
                by_problem[(r["domain"], r["problem"])].append(str(REPO / r["plan"]))
        with tempfile.TemporaryDirectory(prefix="veriplan-bench-") as tmp:
            batch = Path(tmp) / "batch.jsonl"
            with batch.open("w") as f:
                for (d, p), plans in by_problem.items():
                    for plan in plans:
                        f.write(json.dumps({"domain": str(ipc / d), "problem": str(ipc / p),
                                            "plan_file": plan}) + "\n")
            n = sum(len(p) for p in by_problem.values())
            subprocess.run([veriplan, "validate", "--batch", str(batch), "--lenient"],
                           stdout=subprocess.DEVNULL, env=env, check=False)  # warm-up
            totals = {"val": [0.0, 0.0], "veriplan": [0.0, 0.0]}
            for _ in range(args.rounds):
                c0, t0 = _cpu(), time.perf_counter()
                for (d, p), plans in by_problem.items():
                    subprocess.run([str(val.validate), str(ipc / d), str(ipc / p), *plans],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=val.env, check=False)
                totals["val"][0] += time.perf_counter() - t0
                totals["val"][1] += _cpu() - c0
                c0, t0 = _cpu(), time.perf_counter()
                subprocess.run([veriplan, "validate", "--batch", str(batch), "--lenient"],
                               stdout=subprocess.DEVNULL, env=env, check=False)
                totals["veriplan"][0] += time.perf_counter() - t0
                totals["veriplan"][1] += _cpu() - c0
        (vw, vc), (ow, oc) = totals["val"], totals["veriplan"]
        print(f"{kind}: {n} plans on {len(by_problem)} problems, {args.rounds} rounds: "
              f"VAL batched per problem wall {vw:.2f} s CPU {vc:.2f} s; veriplan --batch "
              f"wall {ow:.2f} s CPU {oc:.2f} s; VAL/veriplan: wall {vw / ow:.2f}x, "
              f"CPU {vc / oc:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
