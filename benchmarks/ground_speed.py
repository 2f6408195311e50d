"""Grounding speed on the largest (15-block) Blocksworld-hard problems:
veriplan's reachability grounding against Fast Downward's translator (the
standard grounder; run as its own process, as planners run it).

    python benchmarks/ground_speed.py [--data-dir ../shared/data] [--repeat 5]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task
from veriplan.planners.fast_downward import fast_downward_script


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    hard = Path(args.data_dir) / "planbench" / "instances" / "blocksworld_hard"
    dom_path = hard / "generated_domain.pddl"
    domain = read_domain(dom_path)
    problems = [p for p in sorted((hard / "generated").glob("*.pddl"))
                if len(read_problem(p, domain).objects) == 15]
    if not problems:
        print("no 15-block problems found", file=sys.stderr)
        return 2
    ours, theirs, n_ops = [], [], 0
    script = fast_downward_script()
    for p in problems:
        for _ in range(args.repeat):
            d = read_domain(dom_path)  # a fresh domain: nothing cached between runs
            start = time.perf_counter()
            task = Task(d, read_problem(p, d))
            n_ops = len(task.ground())
            ours.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run([sys.executable, str(script), "--translate", str(dom_path), str(p)],
                           cwd=tmp, capture_output=True, check=True)
            theirs.append(time.perf_counter() - start)
    o, t = statistics.median(ours), statistics.median(theirs)
    print(f"15-block problems: {len(problems)}; ground operators per problem: {n_ops}")
    print(f"veriplan parse + ground          : {o * 1e3:7.2f} ms (median; target well under 50)")
    print(f"Fast Downward translate (process): {t * 1e3:7.2f} ms (median)")
    print(f"ratio (FD translate / veriplan)  : {t / o:7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
