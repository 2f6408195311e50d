"""Memory for a plan (issue 32): ``veriplan validate`` on one long plan file, as a user
runs it, in a fresh process per size; the peak resident memory the run adds over the
same process on a one-step plan, divided by the plan file's size. Target: under 10x.

The plan is clean PDDL on the bundled 3-block problem, ``(pick-up b)`` and
``(put-down b)`` repeated (valid at every length, so the validator executes every
step), then the bundled plan (so it ends in the goal).

    python benchmarks/plan_memory.py [--sizes 1,10,50] (MB)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "src" / "veriplan" / "examples"

CHILD = r"""
import resource, sys
from veriplan.cli import main
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = main(["validate", "--domain", sys.argv[1], "--problem", sys.argv[2], "--plan",
             sys.argv[3], "--max-bytes", "1G"])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(code, before, after, file=sys.stderr)
"""


def run(plan: Path) -> tuple[int, int, int]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(EX / "blocks-domain.pddl"),
                           str(EX / "blocks-problem.pddl"), str(plan)],
                          capture_output=True, text=True, check=False)
    code, before, after = (int(x) for x in done.stderr.split()[-3:])
    return code, before * 1024, after * 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,10,50", help="plan sizes in MB (default 1,10,50)")
    args = ap.parse_args()
    tail = (EX / "blocks-plan.txt").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.txt"
        small.write_text(tail)
        code, _b, base = run(small)
        assert code == 0, "the bundled plan is valid"
        print(f"baseline (6-step plan): peak {base / 2**20:.1f} MiB")
        print(f"{'plan MB':>8} {'steps':>10} {'peak MiB':>9} {'added MiB':>10} {'x size':>7}")
        for mb in (float(x) for x in args.sizes.split(",")):
            plan = Path(tmp) / f"plan-{mb}.txt"
            pair = "(pick-up b)\n(put-down b)\n"
            n = int(mb * 2**20) // len(pair)
            plan.write_text(pair * n + tail)
            size = plan.stat().st_size
            code, _b, peak = run(plan)
            assert code == 0, f"exit {code}"
            added = peak - base
            print(f"{size / 2**20:8.1f} {2 * n + 6:10d} {peak / 2**20:9.1f} "
                  f"{added / 2**20:10.1f} {added / size:7.2f}")
            plan.unlink()


if __name__ == "__main__":
    main()
