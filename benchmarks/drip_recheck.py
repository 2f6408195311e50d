"""Re-check a DRIP / CoT / ReAct run store on the tasks' own files (issue 30).

Every unit of STORE that says verified has its stored plan written to a
``veriplan validate --batch`` file with the instance's own domain and problem
files; the batch is judged by ``veriplan validate`` (a separate process, as a
user would run it), and each arm's verified count, how many of those plans
``validate`` accepts, and the mean plan lengths (the stored plan in the task's
actions, and the method's own tower moves) are printed.

    python benchmarks/drip_recheck.py results/drip-perfect --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from veriplan.bench.datasets import load_dataset
from veriplan.bench.store import RunStore


def mean(xs: list[int]) -> str:
    return f"{sum(xs) / len(xs):.2f}" if xs else "n/a"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store", help="experiment directory (--out of veriplan bench)")
    p.add_argument("--data-dir", required=True)
    args = p.parse_args(argv)
    paths: dict[tuple[str, str], tuple[str, str]] = {}
    arms: dict[str, list[dict]] = defaultdict(list)
    lines = []
    for rec in RunStore(Path(args.store)).records():
        if rec.dataset not in {d for d, _ in paths}:
            for inst in load_dataset(rec.dataset, args.data_dir).instances:
                paths[(rec.dataset, inst.id)] = (str(inst.domain_path), str(inst.problem_path))
        result = rec.result_dict()
        arm = f"{rec.method} {rec.model} {rec.config}"
        arms[arm].append({"id": rec.id, "verified": rec.verified, "plan": result.get("plan", []),
                          "moves": result.get("metrics", {}).get("method_plan_length")})
        if rec.verified:
            domain, problem = paths[(rec.dataset, rec.instance)]
            lines.append(json.dumps({"id": rec.id, "domain": domain, "problem": problem,
                                     "plan": "\n".join(result["plan"])}))
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "veriplan.cli", "validate", "--batch", f.name],
                         capture_output=True, text=True, check=False)
    Path(f.name).unlink()
    judged = [json.loads(x) for x in out.stdout.splitlines() if x.strip()]
    valid = {j["id"] for j in judged if j.get("valid")}
    for arm, units in sorted(arms.items()):
        ok = [u for u in units if u["verified"]]
        moves = [u["moves"] for u in ok if u["moves"] is not None]
        print(f"{arm}: {len(units)} units, verified {len(ok)}, accepted by veriplan validate "
              f"on the task's own files {sum(u['id'] in valid for u in ok)}; mean plan length "
              f"{mean([len(u['plan']) for u in ok])} actions on the task, "
              f"{mean(moves)} in the method's space")
    return 0 if all(u["id"] in valid for us in arms.values() for u in us if u["verified"]) \
        else 1


if __name__ == "__main__":
    raise SystemExit(main())
