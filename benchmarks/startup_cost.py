"""What a veriplan process costs before it judges anything, against VAL's in the same
run: CPU (user + system, ``os.times`` of the children) of, in interleaved rounds,

- ``python -c pass`` (the interpreter alone);
- ``veriplan validate --batch EMPTY.jsonl`` (the interpreter and the batch judge's
  imports: the fixed cost of every ``--batch`` run);
- ``veriplan validate`` of one plan (the bundled Blocksworld and numeric tanks examples:
  what an agent or PlanBench's harness pays when it starts one process a plan);
- VAL's ``Validate`` on the same plans, one process each.

The veriplan processes run from bytecode, as an installed package does
(``common.bytecode_env``).

    python benchmarks/startup_cost.py [--rounds 30]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import common

EX = Path(__file__).resolve().parents[1] / "src" / "veriplan" / "examples"


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    from veriplan.verify.val import ValUnavailable, find_val

    try:
        val = find_val()
    except ValUnavailable as exc:
        print(f"VAL is needed for this benchmark: {exc}", file=sys.stderr)
        return 2
    exe = str(Path(sys.executable).parent / "veriplan")
    with tempfile.TemporaryDirectory(prefix="veriplan-startup-") as tmp:
        env = common.bytecode_env(Path(tmp) / "pycache")
        empty = Path(tmp) / "empty.jsonl"
        empty.write_text("")
        runs: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], env),
            "--batch, empty file": ([exe, "validate", "--batch", str(empty)], env),
        }
        for name in ("blocks", "tanks"):
            files = [str(EX / f"{name}-{part}") for part in
                     ("domain.pddl", "problem.pddl", "plan.txt")]
            runs[f"validate, {name}"] = ([exe, "validate", "--domain", files[0], "--problem",
                                          files[1], "--plan", files[2]], env)
            runs[f"VAL, {name}"] = ([str(val.validate), *files], val.env)
        cpu: dict[str, list[float]] = {k: [] for k in runs}
        for cmd, cenv in runs.values():  # warm-up (writes the bytecode)
            subprocess.run(cmd, capture_output=True, env=cenv, check=False)
        for _ in range(args.rounds):
            for key, (cmd, cenv) in runs.items():
                before = os.times()
                subprocess.run(cmd, capture_output=True, env=cenv, check=False)
                after = os.times()
                cpu[key].append(after.children_user - before.children_user
                                + after.children_system - before.children_system)
    mean = {k: 1000 * statistics.mean(v) for k, v in cpu.items()}
    for key, ms in mean.items():
        print(f"{key}: {ms:.1f} ms CPU a process (mean of {args.rounds})")
    for name in ("blocks", "tanks"):
        ratio = mean[f"validate, {name}"] / max(mean[f"VAL, {name}"], 1e-3)
        print(f"one plan a process, {name}: veriplan/VAL {ratio:.1f}x (above 1: VAL is faster)")
    print(f"os.times() counts in 10 ms clock ticks on most systems: means over "
          f"{args.rounds} runs, not single figures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
