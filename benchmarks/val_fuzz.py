"""Differential fuzzing of veriplan's validator against VAL: the larger sweep.

For every bundled domain (PlanBench Blocksworld, Mystery, Blocksworld-hard,
Logistics, AutoToS Sokoban, the examples, Blocksworld with tower moves, the
household games' alfred.pddl), a seeded sample of problems; on each, seeded random
walks (valid executions) with a goal of atoms true at their end, and every mutation
of each walk (a step dropped, two swapped, one inserted, an argument replaced, the
tail cut, an unknown object, an unknown action). Each plan is judged by veriplan
and by VAL (batched per problem and goal); every disagreement is shrunk to its
smallest case and printed, with the settlement when it is a known VAL error
(veriplan.verify.val.KNOWN_VAL_ERRORS).

    python benchmarks/val_fuzz.py [--data-dir ../shared/data] [--per-family 40]
        [--walks 12] [--seed 1] [--household-max-objects N] [--shrink 3]

Exit code 0 when every disagreement is settled, 1 otherwise, 2 when VAL is missing.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import common
from veriplan.bench.fuzz_problems import bundled_problems
from veriplan.pddl.writer import problem_to_pddl
from veriplan.verify.fuzz import (
    fuzz,
    goal_variant,
    shrink,
)
from veriplan.verify.val import (
    ValUnavailable,
    find_val,
    known_val_error,
)


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--per-family", type=int, default=40, help="problems per domain")
    ap.add_argument("--walks", type=int, default=12, help="walks per problem")
    ap.add_argument("--max-length", type=int, default=16, help="longest walk")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--household-max-objects", type=int, default=0,
                    help="pass over household games with more objects (0: take all; "
                         "grounding a kitchen takes veriplan 15-25 s)")
    ap.add_argument("--shrink", type=int, default=3,
                    help="disagreements shrunk and shown per (domain, class)")
    args = ap.parse_args()
    try:
        val = find_val()
    except ValUnavailable as exc:
        print(f"VAL is needed: {exc}", file=sys.stderr)
        return 2
    data = args.data_dir if args.data_dir.is_dir() else None
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="val-fuzz-") as tmp:
        skipped: dict[str, str] = {}
        problems = bundled_problems(data, Path(tmp), per_family=args.per_family,
                                    seed=args.seed, skipped=skipped,
                                    household_max_objects=args.household_max_objects or None)
        report = fuzz(problems, val, seed=args.seed, walks=args.walks,
                      max_length=args.max_length)
        seconds = time.perf_counter() - start
        per_family = Counter(p.family for p in problems)
        print(f"cases: {report.cases} plans judged by both, {report.val_calls} batched VAL "
              f"calls, {seconds:.1f} s")
        print(f"domains: {len(report.by_family)}")
        for fam, n in sorted(report.by_family.items()):
            print(f"  {fam:18} {per_family[fam]:4} problems {n:7} cases")
        for fam, why in sorted(skipped.items()):
            print(f"  {fam:18} skipped: {why}")
        print("VAL's verdicts: " + ", ".join(f"{k} {v}" for k, v in
                                             sorted(report.by_outcome.items())))
        groups: dict[tuple[str, str], list] = defaultdict(list)
        for d in report.disagreements:
            groups[(d.case.problem.family, known_val_error(d.ours, d.val) or "UNSETTLED")
                   ].append(d)
        settled = sum(len(v) for (_, k), v in groups.items() if k != "UNSETTLED")
        print(f"disagreements: {len(report.disagreements)} ({settled} settled as VAL's "
              f"error, {len(report.disagreements) - settled} unsettled)")
        for (fam, why), ds in sorted(groups.items()):
            print(f"  {fam}: {why}: {len(ds)}")
            for d in ds[:args.shrink]:
                s = shrink(d, val)
                task = goal_variant(s.case.problem.task(), s.case.goal)
                print(f"    shrunk from {len(d.case.plan)} steps ({d.case.kind}) of "
                      f"{s.case.problem.name}: plan {[str(x) for x in s.case.plan]}")
                print(f"      {s.reason}")
                if why == "UNSETTLED":
                    print("      problem:\n" + "\n".join(
                        "        " + line for line in problem_to_pddl(task.problem).splitlines()))
    return 0 if all(k != "UNSETTLED" for _, k in groups) else 1


if __name__ == "__main__":
    sys.exit(main())
