"""Validation speed: veriplan against KCL's VAL and unified-planning, in one run, on
PlanBench's 1000 recorded GPT-4 plans (Blocksworld and Mystery Blocksworld).

Measured, per plan:

- veriplan benchmark path: the domain parsed once by the script, then per plan
  ``Task(domain, read_problem(...))`` + ``parse_plan`` + ``validate_plan``;
- veriplan public API: per plan ``load_task(domain, problem)`` (the domain from its
  cache, the problem parsed each time) + ``parse_plan`` + ``validate_plan``;
- ``veriplan validate --batch FILE.jsonl`` as a whole process (interpreter start,
  imports, reading, judging, writing every record), on the batch set below;
- VAL one process per plan (``Validate dom prob plan``, as PlanBench calls it);
- VAL one process per problem with all its plans (``Validate dom prob p1 p2 ...``);
  VAL stops a batch at a plan it cannot read ("Bad operator in plan!": an action
  the domain does not have), so the rest of that problem's plans go to a new
  process, and every process counts;
- unified-planning's sequential validator (reader + validator), on a sample.

The batch set: the 1000 real plans grouped by problem (1000 problems), each
problem's plan(s) replicated ``--copies`` times (default 10, so 10,000 plans with 10
a problem; the issue's shape is about 7, and more plans a problem favour VAL
batched). The JSON Lines file lists them by problem, as VAL batched gets them.
VAL reads plans in clean PDDL (one ``(action args)`` a line: the steps veriplan
read; a plan with an unread line is not valid for veriplan, so such plans are
counted apart in the agreement line).

Everything runs in ``--rounds`` interleaved rounds (default 10), so that all tools
see the same load on a shared machine: each round takes a tenth of the problems
for the per-plan and per-problem tools and runs one whole ``--batch`` process on
the full set.

The ``--batch`` processes run as an installed package does, from compiled bytecode:
pip compiles a package's modules when it installs them, but a checkout run with
``PYTHONDONTWRITEBYTECODE`` set (as on the machine these figures come from) compiles
veriplan's sources again in every process. The benchmark keeps the bytecode in its
temporary directory (``PYTHONPYCACHEPREFIX``; the warm-up run writes it);
``--no-bytecode`` runs the processes with the environment as it is.

    python benchmarks/validate_speed.py [--data-dir ../shared/data] [--copies 10]
        [--rounds 10] [--up-plans 100] [--workers 2] [--no-bytecode]
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

import common
from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task, load_task
from veriplan.planio import parse_plan
from veriplan.verify import validate_plan

SETS = [
    ("blocksworld__gpt-4_chat__one_shot.json", "blocksworld/generated_domain.pddl",
     "blocksworld/generated_basic", "correct"),
    ("mystery_blocksworld__gpt-4_chat__one_shot.json",
     "blocksworld/mystery/generated_domain.pddl", "blocksworld/mystery/generated_basic",
     "llm_correct"),
]


def load_cases(pb: Path, limit: int | None):
    """(domain, problem, problem text, plan text, PlanBench's verdict) per recorded plan."""
    cases = []
    for resp, dom, probs, key in SETS:
        data = json.loads((pb / "responses" / resp).read_text())
        for rec in data["instances"]:
            plan = rec["extracted_llm_plan"]
            plan = "\n".join(plan) if isinstance(plan, list) else plan
            prob = pb / "instances" / probs / f"instance-{rec['instance_id']}.pddl"
            cases.append((pb / "instances" / dom, prob, prob.read_text(), plan,
                          str(rec[key]) == "True"))
    return cases[:limit] if limit else cases


def time_veriplan(cases, domains: dict) -> tuple[float, int]:
    """Seconds for ``cases`` on the benchmark path (``domains``: parsed once)."""
    agree = 0
    start = time.perf_counter()
    for dom, prob, _text, plan, expected in cases:
        d = domains.get(dom)
        if d is None:
            d = domains[dom] = read_domain(dom)
        task = Task(d, read_problem(prob, d))  # read from disk, as the peer does
        agree += validate_plan(task, parse_plan(plan, task)).valid == expected
    return time.perf_counter() - start, agree


def time_public(cases) -> tuple[float, int]:
    """Seconds for ``cases`` on the public path."""
    agree = 0
    start = time.perf_counter()
    for dom, prob, _text, plan, expected in cases:
        task = load_task(dom, prob)
        agree += validate_plan(task, parse_plan(plan, task)).valid == expected
    return time.perf_counter() - start, agree


class UnifiedPlanning:
    def __init__(self) -> None:
        from unified_planning.engines import SequentialPlanValidator
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import get_environment

        get_environment().credits_stream = None
        self.validator = SequentialPlanValidator()
        self.reader = PDDLReader()

    def time(self, cases) -> tuple[float, float, int]:
        """Seconds for ``cases``: the whole pipeline, validation alone, agreements."""
        agree = 0
        validate_only = 0.0
        start = time.perf_counter()
        for dom, prob, _text, plan, expected in cases:
            problem = self.reader.parse_problem(str(dom), str(prob))
            t0 = time.perf_counter()
            up_plan = self.reader.parse_plan_string(problem, plan)
            ok = self.validator.validate(problem, up_plan).status.name == "VALID"
            validate_only += time.perf_counter() - t0
            agree += ok == expected
        return time.perf_counter() - start, validate_only, agree


# ----- VAL ---------------------------------------------------------------------------------
def val_verdicts(stdout: str) -> list[bool]:
    """One verdict per "Checking plan:" section of VAL's output, in order."""
    return ["Plan valid" in part for part in stdout.split("Checking plan: ")[1:]]


def val_batched(val, dom: Path, prob: Path, plans: list[str]) -> tuple[list[bool], int]:
    """VAL's verdicts on ``plans`` of one problem, one process for all of them, a
    new one after each plan VAL cannot read (that plan: not valid); and the
    number of processes."""
    out: list[bool] = []
    runs = 0
    while len(out) < len(plans):
        rest = plans[len(out):]
        r = val.run(dom, prob, *rest, verbose=False)
        runs += 1
        got = val_verdicts(r.stdout)[:len(rest)]
        if len(got) < len(rest):  # stopped at plan len(got) (or before the first)
            got = got[:-1] if got else []
            got.append(False)
        out += got
    return out, runs


class Batch:
    """The batch set: JSON Lines for veriplan, plan files for VAL."""

    def __init__(self, cases, copies: int, tmp: Path) -> None:
        by_problem: dict[tuple[Path, Path], list[int]] = defaultdict(list)
        for i, (dom, prob, *_rest) in enumerate(cases):
            by_problem[(dom, prob)].append(i)
        self.problems = list(by_problem.items())
        plan_dir = tmp / "plans"
        plan_dir.mkdir()
        self.plan_files: list[str] = []
        self.unread: set[int] = set()
        domains: dict = {}
        for i, (dom, prob, _text, plan, _e) in enumerate(cases):
            d = domains.get(dom) or domains.setdefault(dom, read_domain(dom))
            parsed = parse_plan(plan, Task(d, read_problem(prob, d)))
            if parsed.unread:
                self.unread.add(i)
            path = plan_dir / f"plan-{i}.pddl"
            path.write_text("".join(f"{s}\n" for s in parsed.steps))
            self.plan_files.append(str(path))
        self.jsonl = tmp / "batch.jsonl"
        self.order: list[int] = []  # case index of each batch line
        with self.jsonl.open("w") as f:
            for (dom, prob), idx in self.problems:
                for _ in range(copies):
                    for i in idx:
                        self.order.append(i)
                        f.write(json.dumps({"id": f"{len(self.order)}", "domain": str(dom),
                                            "problem": str(prob), "plan": cases[i][3]}) + "\n")
        self.copies = copies

    def __len__(self) -> int:
        return len(self.order)


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Clock:
    """Wall and CPU seconds of a block: in-process CPU plus the CPU of the child
    processes it waited for (VAL, ``veriplan validate --batch``)."""

    def __init__(self, wall: dict, cpu: dict, key: str) -> None:
        self.wall, self.cpu, self.key = wall, cpu, key

    def __enter__(self) -> Clock:
        self.t0, self.c0 = time.perf_counter(), time.process_time() + child_cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall[self.key] += time.perf_counter() - self.t0
        self.cpu[self.key] += time.process_time() + child_cpu() - self.c0


def veriplan_command() -> list[str]:
    exe = Path(sys.executable).parent / "veriplan"
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("veriplan")
    return [found] if found else [sys.executable, "-m", "veriplan.cli"]


def batch_env(tmp: Path, bytecode: bool) -> dict[str, str]:
    """The environment of the ``--batch`` processes: with ``bytecode``, compiled
    modules kept under ``tmp`` (written by the first run, read by the others)."""
    return common.bytecode_env(tmp / "pycache", bytecode)


def run_batch(cmd: list[str], jsonl: Path, out: Path, workers: int,
              env: dict[str, str] | None = None) -> None:
    """One whole ``veriplan validate --batch`` process."""
    args = [*cmd, "validate", "--batch", str(jsonl), *(["--workers", str(workers)]
                                                       if workers > 1 else [])]
    with out.open("w") as f:
        r = subprocess.run(args, stdout=f, stderr=subprocess.PIPE, text=True, check=False,
                           env=env)
    if r.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} exited {r.returncode}: {r.stderr[-500:]}")


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--limit", type=int, default=None, help="use the first N recorded plans")
    ap.add_argument("--copies", type=int, default=10,
                    help="copies of each problem's plans in the batch set (default 10)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds (default 10)")
    ap.add_argument("--up-plans", type=int, default=100,
                    help="plans judged by unified-planning (slow; default 100)")
    ap.add_argument("--workers", type=int, default=1,
                    help="also time --batch --workers N (N > 1)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="run the --batch processes without a bytecode cache when the "
                         "environment sets PYTHONDONTWRITEBYTECODE (each compiles "
                         "veriplan's sources)")
    args = ap.parse_args()
    found = common.planbench_and_val(args.data_dir)
    if found is None:
        return 2
    pb, val = found
    cases = load_cases(pb, args.limit)
    warnings.simplefilter("ignore")
    tmp = Path(tempfile.mkdtemp(prefix="validate-speed-"))
    try:
        return _run(args, cases, val, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, cases, val, tmp: Path) -> int:
    batch = Batch(cases, args.copies, tmp)
    cmd = veriplan_command()
    n, nb, rounds = len(cases), len(batch), args.rounds
    domains: dict = {}
    time_veriplan(cases[:50], domains)  # warm up imports and caches
    time_public(cases[:50])
    up = UnifiedPlanning()
    up.time(cases[:1])
    env = batch_env(tmp, not args.no_bytecode)
    empty = tmp / "empty.jsonl"
    empty.write_text("")
    run_batch(cmd, batch.jsonl, tmp / "warm.jsonl", 1, env)  # file system caches, bytecode
    load0 = f"{os.getloadavg()[0]:.2f}"
    wall: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    agree: dict[str, int] = defaultdict(int)
    val_batch_verdicts: dict[int, bool] = {}  # batch line -> VAL's verdict
    val_runs = 0
    up_cases = cases[::max(1, n // args.up_plans)][:args.up_plans]
    per_round = -(-len(batch.problems) // rounds)
    line_of_problem = []  # first batch line (0-based) of each problem
    pos = 0
    for (_key, idx) in batch.problems:
        line_of_problem.append(pos)
        pos += len(idx) * batch.copies
    for r in range(rounds):
        probs = range(r * per_round, min((r + 1) * per_round, len(batch.problems)))
        part = [i for p in probs for i in batch.problems[p][1]]
        sub = [cases[i] for i in part]
        # veriplan, in process
        with Clock(wall, cpu, "bench"):
            agree["bench"] += time_veriplan(sub, domains)[1]
        with Clock(wall, cpu, "public"):
            agree["public"] += time_public(sub)[1]
        # veriplan --batch, a whole process on the whole set
        with Clock(wall, cpu, "batch"):
            run_batch(cmd, batch.jsonl, tmp / f"out-{r}.jsonl", 1, env)
        with Clock(wall, cpu, "start"):  # the start-up alone: an empty batch file
            run_batch(cmd, empty, tmp / "out-empty.jsonl", 1, env)
        if args.workers > 1:
            with Clock(wall, cpu, "batch_w"):
                run_batch(cmd, batch.jsonl, tmp / "out-w.jsonl", args.workers, env)
        # VAL, one process per plan
        with Clock(wall, cpu, "val"):
            for i in part:
                dom, prob, *_rest, expected = cases[i]
                res = val.run(dom, prob, batch.plan_files[i], verbose=False)
                agree["val"] += (val_verdicts(res.stdout)[:1] == [True]) == expected
        # VAL, one process per problem with all its plans (as the batch set has them)
        with Clock(wall, cpu, "val_batch"):
            for p in probs:
                (dom, prob), idx = batch.problems[p]
                files = [batch.plan_files[i] for _ in range(batch.copies) for i in idx]
                verdicts, runs = val_batched(val, dom, prob, files)
                val_runs += runs
                for k, v in enumerate(verdicts):
                    val_batch_verdicts[line_of_problem[p] + k] = v
        # unified-planning, on its share of the sample
        share = up_cases[r * len(up_cases) // rounds:(r + 1) * len(up_cases) // rounds]
        with Clock(wall, cpu, "up"):
            agree["up"] += up.time(share)[2]
    # agreement of the last --batch output with VAL batched and with PlanBench
    records = [json.loads(line) for line in (tmp / f"out-{rounds - 1}.jsonl").open()]
    same_val = same_pb = unread_lines = 0
    for k, rec in enumerate(records):
        i = batch.order[k]
        if i in batch.unread:
            unread_lines += 1
            continue
        same_val += rec["valid"] == val_batch_verdicts[k]
        same_pb += rec["valid"] == cases[i][4]
    judged = len(records) - unread_lines
    nup = len(up_cases)
    plans = {"bench": n, "public": n, "batch": nb * rounds, "batch_w": nb * rounds,
             "val": n, "val_batch": nb, "up": nup}
    ms = {k: wall[k] / plans[k] * 1e3 for k in plans}
    cms = {k: cpu[k] / plans[k] * 1e3 for k in plans}
    print(f"recorded plans: {n} on {len(batch.problems)} problems; batch set: {nb} plans "
          f"({batch.copies} a problem); {rounds} interleaved rounds; "
          f"load average before: {load0}, after: {os.getloadavg()[0]:.2f}; --batch "
          f"{'as the environment has it' if args.no_bytecode else 'from bytecode'}")
    print(f"{'':28s} {'wall ms/plan':>12s} {'CPU ms/plan':>12s}")
    rows = [
        ("veriplan public API", "public", f"load_task + parse_plan + validate_plan, problem "
                                          f"parsed each time; agree with PlanBench "
                                          f"{agree['public']}/{n}"),
        ("veriplan benchmark path", "bench", f"domain parsed once by the script; agree "
                                             f"{agree['bench']}/{n}"),
        ("veriplan --batch", "batch", f"whole process on {nb} plans, {rounds} runs"),
        *([(f"veriplan --batch -w {args.workers}", "batch_w",
            f"whole process, {args.workers} worker processes")] if args.workers > 1 else []),
        ("VAL per plan", "val", f"one process a plan; agree with PlanBench {agree['val']}/{n}"),
        ("VAL batched per problem", "val_batch", f"{val_runs} processes for {nb} plans"),
        ("unified-planning", "up", f"reader + sequential validator on {nup} plans; agree "
                                   f"{agree['up']}/{nup}"),
    ]
    for label, key, note in rows:
        print(f"{label:28s} {ms[key]:12.4f} {cms[key]:12.4f}  {note}")
    print(f"--batch start-up (a process on an empty file): {wall['start'] / rounds * 1e3:.1f} "
          f"ms wall, {cpu['start'] / rounds * 1e3:.1f} ms CPU")
    print(f"--batch verdicts: agree with VAL batched {same_val}/{judged}, with PlanBench "
          f"{same_pb}/{judged} ({unread_lines} lines with an unread plan line left out)")
    print(f"{'ratio':40s} {'wall':>7s} {'CPU':>7s}  target")
    ratios = [
        ("VAL batched / --batch", "val_batch", "batch", ">= 10x"),
        ("VAL per plan / --batch", "val", "batch", ">= 100x"),
        *([(f"VAL batched / --batch -w {args.workers}", "val_batch", "batch_w", ""),
           (f"VAL per plan / --batch -w {args.workers}", "val", "batch_w", "")]
          if args.workers > 1 else []),
        ("VAL per plan / public API", "val", "public", ">= 10x"),
        ("VAL batched / public API", "val_batch", "public", ""),
        ("unified-planning / public API", "up", "public", ""),
        ("unified-planning / --batch", "up", "batch", ""),
    ]
    for label, a, b, target in ratios:
        print(f"{label:40s} {ms[a] / ms[b]:6.1f}x {cms[a] / cms[b]:6.1f}x  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
