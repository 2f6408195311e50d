"""The cost of the OS sandbox (issue 31): per job, per call, and the reference
AutoToS searches of all five domains, against the sandbox before it (the
source tree at ``--baseline``, by default the commit before issue 31), in the
same run.

* per job: ``run_code("result = 1")`` started and answered, repeated;
  bubblewrap (``VERIPLAN_SANDBOX=bwrap``), the process sandbox kept as the
  opt-out (``process``), and the baseline's sandbox.
* the reference searches: ``veriplan autotos reference``'s work for each
  domain (every check on), each side in a fresh Python process, alternating;
  per call is the time divided by the calls of generated functions made.
  Target: ours / baseline <= 1.5 for every domain. ``--before REV`` adds the
  tree at git revision REV (e.g. the commit before a change) as a third side.

    python benchmarks/sandbox_cost.py [--data-dir ../shared/data] [--repeats 2]
        [--jobs 20] [--baseline 6a62b1a] [--domains 24game blocksworld ...] [--before REV]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import common

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ["24game", "blocksworld", "crossword", "prontoqa", "sokoban"]

# Run in a fresh interpreter with the tree to measure first on sys.path. For the
# baseline, its sandbox starts ``python -I -m veriplan.sandbox.child``, which
# would import the installed (current) tree: the start command is pointed at
# the baseline's tree instead.
DRIVER = r"""
import json, subprocess, sys, time
src, what, arg, data = sys.argv[1:5]
sys.path.insert(0, src)
import veriplan.sandbox.runner as runner
if runner.__file__.startswith(src) and not hasattr(runner, "Job"):
    real = subprocess.Popen
    boot = ("import sys,runpy;sys.path.insert(0,%r);"
            "runpy.run_module('veriplan.sandbox.child',run_name='__main__')" % src)
    def popen(cmd, *a, **k):
        if cmd[1:4] == ["-I", "-m", "veriplan.sandbox.child"]:
            cmd = [cmd[0], "-I", "-c", boot, *cmd[4:]]
        return real(cmd, *a, **k)
    runner.subprocess.Popen = popen
assert runner.__file__.startswith(src), runner.__file__
if what == "job":
    from veriplan.sandbox import run_code
    times = []
    for _ in range(int(arg)):
        t = time.perf_counter(); out = run_code("result = 1"); times.append(time.perf_counter() - t)
        assert out.ok and out.result == 1, out
    print(json.dumps({"times": times}))
else:
    from veriplan.domains.autotos import get_domain
    from veriplan.methods.autotos.config import Config
    from veriplan.methods.autotos.method import reference
    d = get_domain(arg); dd = d.load(__import__("pathlib").Path(data))
    t = time.perf_counter(); r = reference(d, dd, Config()); s = time.perf_counter() - t
    good = r["optimal"] if d.optimal else r["valid"]
    print(json.dumps({"seconds": s, "good": good, "instances": r["instances"],
                      "calls": r.get("calls", 0), "categories": r["categories"]}))
"""


def baseline_tree(rev: str, into: Path) -> Path:
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def run(src: Path, what: str, arg: str, data: Path, mode: str = "bwrap") -> dict:
    env = dict(os.environ, VERIPLAN_SANDBOX=mode)
    out = subprocess.run([sys.executable, "-c", DRIVER, str(src), what, arg, str(data)],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        raise SystemExit(f"{what} {arg} ({src}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = common.parser(__doc__)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=20)
    ap.add_argument("--baseline", default="6a62b1a")
    ap.add_argument("--domains", nargs="*", default=DOMAINS)
    ap.add_argument("--before", default=None)
    args = ap.parse_args()
    ours = ROOT / "src"
    with tempfile.TemporaryDirectory() as tmp:
        base = baseline_tree(args.baseline, Path(tmp) / "baseline")
        before = baseline_tree(args.before, Path(tmp) / "before") if args.before else None
        print(f"baseline: {args.baseline}; load average {os.getloadavg()[0]:.2f}")
        print("\n| sandbox | per job: median | min | jobs |\n|---|---|---|---|")
        for label, src, mode in (("baseline (process child, audit hook)", base, "bwrap"),
                                 ("ours, VERIPLAN_SANDBOX=process", ours, "process"),
                                 ("ours, bubblewrap + seccomp", ours, "bwrap")):
            t = run(src, "job", str(args.jobs), args.data_dir, mode)["times"]
            print(f"| {label} | {statistics.median(t) * 1000:.0f} ms | {min(t) * 1000:.0f} ms "
                  f"| {len(t)} |")
        extra = f" {args.before} | its ratio |" if before else ""
        print("\n| domain | run | baseline | ours (bubblewrap) | ratio (target <= 1.5) "
              f"| calls | per call: baseline / ours | solved and validated |{extra}")
        print("|---|---|---|---|---|---|---|---|" + ("---|---|" if before else ""))
        for name in args.domains:
            for r in range(1, args.repeats + 1):
                b = run(base, "reference", name, args.data_dir)
                p = run(before, "reference", name, args.data_dir) if before else None
                o = run(ours, "reference", name, args.data_dir)
                calls = o["calls"] or b["calls"] or 1
                row = (f"| {name} | {r} | {b['seconds']:.2f} s | {o['seconds']:.2f} s | "
                       f"{o['seconds'] / b['seconds']:.2f}x | {calls} | "
                       f"{b['seconds'] / calls * 1e6:.1f} / {o['seconds'] / calls * 1e6:.1f} us "
                       f"| {o['good']}/{o['instances']} (baseline {b['good']}) |")
                if p:
                    row += f" {p['seconds']:.2f} s | {p['seconds'] / b['seconds']:.2f}x |"
                print(row, flush=True)
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}; {time.strftime('%H:%M')}")


if __name__ == "__main__":
    main()
