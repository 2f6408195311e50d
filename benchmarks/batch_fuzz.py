"""The long fuzz of ``veriplan validate --batch`` (issue 32): seeded batches of hostile
lines (tests/verify/batch_fuzz.py: random JSON values, random bytes, deep nesting of
JSON and PDDL, huge fields, NUL bytes and lone surrogates, NaN and huge numbers,
truncated lines, devices and directories as paths, PlanBench configs that are not
text), each run through the command as a user runs it: from a file and from standard
input, with 1, 2 and 4 workers, and with ``--confine``. Every run must give one
strict-JSON record per non-blank line, in order, the same records whatever the
workers and source, an exit code of 0, 1 or 4, and no traceback.

    python benchmarks/batch_fuzz.py [--seeds 10] [--lines 2000] [--huge 2000000]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.verify.batch_fuzz import check, fixtures, fuzz_lines  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10, help="batches (default 10)")
    ap.add_argument("--lines", type=int, default=2000, help="lines a batch (default 2000)")
    ap.add_argument("--huge", type=int, default=2_000_000,
                    help="largest huge field, in characters (default 2,000,000)")
    ap.add_argument("--max-bytes", default="1M", help="--max-bytes of the runs (default 1M)")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    runs = lines_total = records_total = failures = 0
    kinds: collections.Counter = collections.Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        files = fixtures(Path(tmp))
        for seed in range(args.seeds):
            lines = fuzz_lines(random.Random(seed), args.lines, files, huge=args.huge)
            data = b"\n".join(lines) + b"\n"
            path = Path(tmp) / f"fuzz-{seed}.jsonl"
            path.write_bytes(data)
            outs = []
            for source, workers, extra in (("file", "1", ()), ("file", "2", ()),
                                           ("-", "4", ()), ("file", "2", ("--confine",))):
                base = tmp if extra else "/"  # confined to the fixtures: most paths refused
                cmd = [sys.executable, "-m", "veriplan.cli", "validate", "--batch",
                       str(path) if source == "file" else "-", "--workers", workers,
                       "--max-bytes", args.max_bytes, "--base-dir", base, *extra]
                done = subprocess.run(cmd, input=data if source == "-" else None,
                                      capture_output=True, env=env, timeout=3600, check=False)
                runs += 1
                lines_total += len(lines)
                try:
                    assert done.returncode in (0, 1, 4), f"exit {done.returncode}"
                    assert b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]
                    out = check(lines, done.stdout.decode("utf-8").splitlines())
                except (AssertionError, ValueError) as exc:
                    failures += 1
                    print(f"seed {seed} {source} workers {workers} {extra}: FAILED {exc}")
                    continue
                records_total += len(out)
                if not extra:
                    outs.append(done.stdout)
                    kinds.update((r["error"] or {}).get("kind", f"judged {r['valid']}")
                                 for r in out)
            if len(set(outs)) > 1:
                failures += 1
                print(f"seed {seed}: records differ between sources or worker counts")
            print(f"seed {seed}: {len(lines)} lines, {len(out)} records a run, "
                  f"{time.perf_counter() - started:.0f} s so far", flush=True)
    seconds = time.perf_counter() - started
    print(json.dumps({"runs": runs, "lines": lines_total, "records": records_total,
                      "failures": failures, "seconds": round(seconds, 1),
                      "kinds (no --confine)": dict(kinds.most_common())}, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
