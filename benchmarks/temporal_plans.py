"""Timed plans on ipc-dev's temporal variants, judged by veriplan and by VAL.

Steps (each writes under ``tests/data/temporal_plans/``):

    python benchmarks/temporal_plans.py make [--timeout 40] [--instances 2]
        # TAMER (up-tamer, through unified-planning) on the first instances of every
        # temporal variant VAL reads; each plan in VAL's form ``t: (a o ...) [d]``
    python benchmarks/temporal_plans.py mutate [--seed 47]
        # mutations that matter in time: a start shifted, a duration shrunk, two
        # steps at one time, a step moved onto another's interval, a step dropped
    python benchmarks/temporal_plans.py val     # VAL's verdicts (Validate -v, one run a problem)
    python benchmarks/temporal_plans.py compare [--rounds 3] [--no-bytecode]
        # veriplan beside VAL: pairs, agreements, disagreements with their cause, and
        # the speed of `validate --batch` against VAL batched per problem

Times are VAL's (``Validate`` default tolerance 0.01).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "temporal_plans"
sys.path.insert(0, str(ROOT / "src"))


def variants(data_dir: Path, instances: int) -> list[tuple[str, Path, Path]]:
    """(name, domain, problem) of every temporal variant's first instances (durative
    actions or timed initial literals; PDDL 3 left out)."""
    out = []
    for variant in sorted((data_dir / "ipc-dev").glob("*/*")):
        for inst in sorted((variant / "instances").glob("*.pddl"))[:instances]:
            dom = variant / "domain.pddl"
            if not dom.exists():
                dom = variant / "domains" / f"domain-{inst.name.split('-', 1)[1]}"
            text = dom.read_text().lower()
            if ":durative-action" not in text or ":preferences" in text \
                    or ":constraints" in text:
                continue
            out.append((f"{variant.parent.name}/{variant.name}", dom, inst))
    return out


def _val():
    from veriplan.verify.val import find_val

    return find_val()


# ----- make: TAMER's plans ----------------------------------------------------------------
def solve_one(dom: str, prob: str, out: str) -> None:
    """(In a child process.) TAMER's plan for the files, written in VAL's form."""
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    get_environment().credits_stream = None
    # unified-planning's reader takes no (either ...) type: the planner is given the
    # domain with it widened to object (the plan is judged on the original files)
    text = re.sub(r"\(either[^)]*\)", "object", Path(dom).read_text(), flags=re.I)
    with tempfile.NamedTemporaryFile("w", suffix=".pddl", delete=False) as f:
        f.write(text)
    problem = PDDLReader().parse_problem(f.name, prob)
    with OneshotPlanner(name="tamer") as planner:
        res = planner.solve(problem)
    plan = res.plan
    if plan is None:
        Path(out).write_text(f"; no plan: {res.status.name}\n")
        return
    lines = []
    # unified-planning's names for the domain's actions ('-' may come back as '_')
    names = {n.lower().replace("-", "_"): n.lower() for n in re.findall(
        r"\(:(?:durative-)?action\s+([^\s()]+)", text, flags=re.I)}
    for start, action, dur in plan.timed_actions:
        args = " ".join(str(p) for p in action.actual_parameters)
        name = names.get(action.action.name.lower().replace("-", "_"), action.action.name)
        t = float(start)
        text = f"({name} {args})" if args else f"({name})"
        if dur is not None:
            lines.append(f"{t:.3f}: {text.lower()} [{float(dur):.3f}]")
        else:
            lines.append(f"{t:.3f}: {text.lower()}")
    Path(out).write_text("\n".join(lines) + "\n")


def make(args) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, dom, prob in variants(Path(args.data_dir), args.instances):
        target = OUT / name / (prob.stem + ".plan")
        target.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.time()
        status = "solved"
        try:
            subprocess.run([sys.executable, __file__, "solve-one", str(dom), str(prob),
                            str(target)], timeout=args.timeout, capture_output=True,
                           check=True, text=True)
            if target.read_text().startswith("; no plan"):
                status = target.read_text().strip()[2:]
                target.unlink()
        except subprocess.TimeoutExpired:
            status = f"timeout ({args.timeout} s)"
        except subprocess.CalledProcessError as e:
            last = (e.stderr or "").strip().splitlines()[-1:] or ["?"]
            status = f"refused: {last[0][:160]}"
        if status != "solved" and target.exists():
            target.unlink()
        took = time.time() - t0
        print(f"{name} {prob.name}: {status} ({took:.1f} s)", flush=True)
        manifest.append({"variant": name, "domain": str(dom.relative_to(args.data_dir)),
                         "problem": str(prob.relative_to(args.data_dir)),
                         "plan": str(target.relative_to(OUT)) if status == "solved" else None,
                         "status": status, "seconds": round(took, 1)})
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


# ----- mutate ------------------------------------------------------------------------------
STEP = re.compile(r"^\s*([0-9.]+)\s*:\s*(\(.*?\))\s*(?:\[\s*([0-9.]+)\s*\])?\s*$")


def read_steps(text: str) -> list[tuple[float, str, float | None]]:
    out = []
    for line in text.splitlines():
        m = STEP.match(line)
        if m:
            out.append((float(m.group(1)), m.group(2), float(m.group(3)) if m.group(3)
                        else None))
    return out


def write_steps(steps: list[tuple[float, str, float | None]]) -> str:
    return "".join(f"{t:.3f}: {a}" + (f" [{d:.3f}]" if d is not None else "") + "\n"
                   for t, a, d in sorted(steps, key=lambda s: s[0]))


def mutants(steps, rng: random.Random) -> list[tuple[str, list]]:
    """Seeded mutations that matter in time."""
    out: list[tuple[str, list]] = []
    n = len(steps)
    if n == 0:
        return out
    i = rng.randrange(n)
    t, a, d = steps[i]
    out.append(("shift-start-earlier", steps[:i] + [(max(0.0, t - max(1.0, (d or 1) / 2)), a, d)]
                + steps[i + 1:]))
    out.append(("shift-start-later", steps[:i] + [(t + max(1.0, (d or 1) / 2), a, d)]
                + steps[i + 1:]))
    j = rng.randrange(n)
    t, a, d = steps[j]
    if d:
        out.append(("shrink-duration", steps[:j] + [(t, a, round(d / 2, 3))] + steps[j + 1:]))
        out.append(("duration-near", steps[:j] + [(t, a, round(d + 0.005, 3))] + steps[j + 1:]))
    if n >= 2:
        x, y = rng.sample(range(n), 2)
        moved = list(steps)
        moved[y] = (steps[x][0], steps[y][1], steps[y][2])
        out.append(("same-time", moved))
        # a step moved into the middle of another's interval (overlap, over-all breaks)
        tx, _ax, dx = steps[x]
        mid = list(steps)
        mid[y] = (tx + (dx or 0) / 2, steps[y][1], steps[y][2])
        out.append(("into-interval", mid))
        near = list(steps)
        near[y] = (steps[x][0] + 0.0005, steps[y][1], steps[y][2])
        out.append(("within-epsilon", near))
    k = rng.randrange(n)
    out.append(("drop-step", steps[:k] + steps[k + 1:]))
    return out


def mutate(args) -> None:
    manifest = json.loads((OUT / "manifest.json").read_text())
    rng = random.Random(args.seed)
    rows = []
    for m in manifest:
        if not m["plan"]:
            continue
        src = OUT / m["plan"]
        steps = read_steps(src.read_text())
        rows.append({"id": m["plan"], "domain": m["domain"], "problem": m["problem"],
                     "kind": "planner", "plan": src.read_text()})
        for kind, ms in mutants(steps, rng):
            rows.append({"id": f"{m['plan']}#{kind}", "domain": m["domain"],
                         "problem": m["problem"], "kind": kind, "plan": write_steps(ms)})
    with open(OUT / "plans.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} plans ({sum(r['kind'] == 'planner' for r in rows)} planner-made)")


# ----- VAL's verdicts ---------------------------------------------------------------------
def by_problem(rows):
    out: dict[tuple[str, str], list] = {}
    for r in rows:
        out.setdefault((r["domain"], r["problem"]), []).append(r)
    return out


def val(args) -> None:
    from veriplan.verify.val import parse_report

    tool = _val()
    rows = [json.loads(x) for x in (OUT / "plans.jsonl").read_text().splitlines()]
    data = Path(args.data_dir)
    verdicts = []
    with tempfile.TemporaryDirectory() as tmp:
        for (dom, prob), group in by_problem(rows).items():
            files = []
            for i, r in enumerate(group):
                f = Path(tmp) / f"p{i}.plan"
                f.write_text(r["plan"])
                files.append(str(f))
            proc = subprocess.run([str(tool.validate), "-v", str(data / dom), str(data / prob),
                                   *files], capture_output=True, text=True, env=tool.env,
                                  timeout=600)
            report = parse_report(proc.stdout, files, proc.returncode)
            for k, v in enumerate(report):
                if v is None:  # no section for it in the batched report: VAL alone on it
                    one = subprocess.run([str(tool.validate), "-v", str(data / dom),
                                          str(data / prob), files[k]], capture_output=True,
                                         text=True, env=tool.env, timeout=600)
                    report[k] = parse_report(one.stdout, [files[k]], one.returncode)[0]
            for r, v in zip(group, report):
                verdicts.append({"id": r["id"], "val": None if v is None else v.valid,
                                 "outcome": None if v is None else str(v.outcome),
                                 "action": None if v is None else v.action,
                                 "value": None if v is None else v.value})
    with open(OUT / "val_verdicts.jsonl", "w") as out:
        for v in verdicts:
            out.write(json.dumps(v) + "\n")
    print(f"{len(verdicts)} VAL verdicts: valid {sum(v['val'] is True for v in verdicts)}, "
          f"invalid {sum(v['val'] is False for v in verdicts)}, "
          f"none {sum(v['val'] is None for v in verdicts)}")


# ----- compare -----------------------------------------------------------------------------
def compare(args) -> None:
    import warnings

    from veriplan.pddl.task import load_task
    from veriplan.planio import parse_plan
    from veriplan.verify.validator import validate_plan

    rows = [json.loads(x) for x in (OUT / "plans.jsonl").read_text().splitlines()]
    vals = {v["id"]: v for v in map(json.loads,
                                    (OUT / "val_verdicts.jsonl").read_text().splitlines())}
    data = Path(args.data_dir)
    agree = values_equal = values_compared = 0
    disagree: list[str] = []
    tasks = {}
    for r in rows:
        key = (r["domain"], r["problem"])
        if key not in tasks:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tasks[key] = load_task(data / key[0], data / key[1])
        task = tasks[key]
        res = validate_plan(task, parse_plan(r["plan"], task))
        v = vals[r["id"]]
        if res.valid == v["val"]:
            agree += 1
            if res.valid and v["value"] is not None and res.metric is not None:
                values_compared += 1
                if abs(res.metric.value - v["value"]) <= 1e-3 * max(1.0, abs(v["value"])):
                    values_equal += 1
                else:
                    disagree.append(f"{r['id']}: metric {res.metric.value} vs VAL {v['value']}")
        else:
            disagree.append(f"{r['id']}: veriplan {res.valid} ({res.detail[:160]}), "
                            f"VAL {v['val']}")
    print(f"pairs {len(rows)}, agree {agree}, disagree {len(rows) - agree}, metric values "
          f"{values_equal}/{values_compared} equal")
    for d in disagree:
        print("  ", d)
    if args.rounds:
        speed(rows, data, args.rounds, bytecode=not args.no_bytecode)


def speed(rows, data: Path, rounds: int, repeat: int = 10, bytecode: bool = True) -> None:
    """``validate --batch`` (one process) against VAL batched per problem (one
    ``Validate`` a problem with all its plans), CPU and wall, in interleaved rounds,
    every plan listed ``repeat`` times (as benchmarks/numeric_batch_speed.py does).
    With ``bytecode`` the processes run from compiled modules, as an installed
    package does (see ``common.bytecode_env``; a warm-up run writes them)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import common

    tool = _val()
    with tempfile.TemporaryDirectory() as tmp:
        env = common.bytecode_env(Path(tmp) / "pycache", bytecode)
        batch = Path(tmp) / "batch.jsonl"
        groups = by_problem(rows)
        files: dict[tuple[str, str], list[str]] = {}
        with open(batch, "w") as b:
            for (dom, prob), group in groups.items():
                for i, r in enumerate(group):
                    f = Path(tmp) / f"{abs(hash((dom, prob)))}-{i}.plan"
                    f.write_text(r["plan"])
                    for _ in range(repeat):
                        files.setdefault((dom, prob), []).append(str(f))
                        b.write(json.dumps({"domain": str(data / dom),
                                            "problem": str(data / prob),
                                            "plan_file": str(f)}) + "\n")
        # one plan a problem: what a run costs before its plans (start-up, parses)
        first = Path(tmp) / "first.jsonl"
        first.write_text("".join(json.dumps({"domain": str(data / dom), "problem":
                                             str(data / prob), "plan": group[0]["plan"]}) + "\n"
                                 for (dom, prob), group in groups.items()))
        once = Path(tmp) / "once.jsonl"  # every plan once
        once.write_text("".join(line for i, line in enumerate(
            batch.read_text().splitlines(keepends=True)) if i % repeat == 0))
        ours_wall = ours_cpu = val_wall = val_cpu = fixed_cpu = once_cpu = val_once_cpu = 0.0
        exe = str(Path(sys.executable).parent / "veriplan")
        _timed([exe, "validate", "--batch", str(first)], env)  # warm-up (writes the bytecode)
        for _ in range(rounds):
            w, c = _timed([exe, "validate", "--batch", str(batch)], env)
            ours_wall += w
            ours_cpu += c
            fixed_cpu += _timed([exe, "validate", "--batch", str(first)], env)[1]
            for (dom, prob), fs in files.items():
                w, c = _timed([str(tool.validate), str(data / dom), str(data / prob), *fs],
                              tool.env)
                val_wall += w
                val_cpu += c
            # every plan once, each tool (what a plan beyond them costs: the difference)
            once_cpu += _timed([exe, "validate", "--batch", str(once)], env)[1]
            for (dom, prob), fs in files.items():
                val_once_cpu += _timed([str(tool.validate), str(data / dom), str(data / prob),
                                        *fs[::repeat]], tool.env)[1]
    n = len(rows) * rounds * repeat
    print(f"speed over {rounds} rounds of {len(rows)} x {repeat} plans: "
          f"VAL batched {val_cpu:.2f} s CPU "
          f"({val_wall:.2f} s wall), validate --batch {ours_cpu:.2f} s CPU "
          f"({ours_wall:.2f} s wall): {val_wall / ours_wall:.1f}x wall, "
          f"{val_cpu / ours_cpu:.1f}x CPU ({1000 * ours_cpu / n:.2f} ms CPU a plan)")
    print(f"validate --batch on one plan a problem ({len(groups)} lines: start-up and "
          f"parses): {fixed_cpu:.2f} s CPU; the plans beyond them "
          f"{1000 * (ours_cpu - fixed_cpu) / (n - rounds * len(groups)):.3f} ms CPU each; "
          f"with no time a plan at all, at most {val_cpu / fixed_cpu:.1f}x VAL's CPU")
    extra = n - rounds * len(rows)
    print(f"every plan once ({len(rows)} plans): VAL {val_once_cpu:.2f} s CPU, validate --batch "
          f"{once_cpu:.2f} s CPU; beyond them a plan costs VAL "
          f"{1e6 * (val_cpu - val_once_cpu) / extra:.0f} us CPU and veriplan "
          f"{1e6 * (ours_cpu - once_cpu) / extra:.0f} us "
          f"({(val_cpu - val_once_cpu) / (ours_cpu - once_cpu):.1f}x)")


def _timed(cmd: list[str], env: dict) -> tuple[float, float]:
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["make", "mutate", "val", "compare", "solve-one"])
    ap.add_argument("rest", nargs="*")
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--timeout", type=float, default=40)
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-bytecode", action="store_true",
                    help="compare: run --batch with the environment as it is (no bytecode "
                         "kept when it sets PYTHONDONTWRITEBYTECODE)")
    args = ap.parse_args()
    if args.command == "solve-one":
        solve_one(*args.rest)
    else:
        {"make": make, "mutate": mutate, "val": val, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
