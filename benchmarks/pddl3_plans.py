"""Plans on ipc-dev's PDDL 3 variants (IPC 2006 preference tracks), judged by veriplan
and by VAL: verdicts, violation counts per preference and metric values.

No planner for PDDL 3 preferences installs from PyPI (unified-planning's reader and
Fast Downward refuse ``:preferences``), so the plans are ours, stated as such:

    python benchmarks/pddl3_plans.py make [--seed 49] [--walks 3]
        # per instance: Fast Downward (lama-first, up-fast-downward) on the hard goal
        # with the preferences taken out (where there is a hard goal), and seeded random
        # walks of applicable steps (sequential; timed, one step after another, on the
        # temporal variant); written under tests/data/pddl3_plans/
    python benchmarks/pddl3_plans.py complete [--seed 49] [--walks 3]
        # a random walk, then Fast Downward from where it ends to the hard goal: valid
        # plans that differ (openstacks, rovers-qualitative)
    python benchmarks/pddl3_plans.py mutate [--seed 49]
        # a step dropped, two swapped, a step repeated, the last cut
    python benchmarks/pddl3_plans.py val      # VAL's verdicts (Validate -v, one run a problem)
    python benchmarks/pddl3_plans.py compare  # veriplan beside VAL: the agreement counts
    python benchmarks/pddl3_plans.py semantics [--seed 49] [--problems 40]
        # every constraint kind on seeded random trajectories of a three-atom domain
        # (any state reachable in one step), as preferences and as hard constraints,
        # VAL's violation counts and outcomes recorded in semantics.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "pddl3_plans"
sys.path.insert(0, str(ROOT / "src"))

VARIANTS = ("openstacks-preferences-qualitative", "openstacks-preferences-simple",
            "pathways-preferences-complex", "pathways-preferences-simple",
            "rovers-metric-preferences-simple", "rovers-preferences-qualitative")


def problems(data_dir: Path) -> list[tuple[str, Path, Path]]:
    out = []
    for v in VARIANTS:
        for inst in sorted((data_dir / "ipc-dev" / "ipc-2006" / v / "instances").glob("*.pddl")):
            out.append((f"{v}/{inst.stem}", data_dir / "ipc-dev" / "ipc-2006" / v /
                        "domain.pddl", inst))
    return out


def _task(dom: Path, prob: Path):
    from veriplan.pddl.task import load_task

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_task(dom, prob)


def _hard_task(task):
    """The task without PDDL 3 (its hard goal only), for a classical planner."""
    from veriplan.pddl.task import Task

    drop = {":preferences", ":constraints"}
    d = dataclasses.replace(task.domain, requirements=tuple(
        r for r in task.domain.requirements if r not in drop), constraints=(), preferences=())
    p = dataclasses.replace(task.problem, constraints=(), preferences=(), metric=None)
    return Task(d, p)


def _durations(task):
    """Each durative schema's fixed duration in the initial state, by name, as a
    function of the step (its ``(= ?duration e)``)."""
    from veriplan.pddl import numeric as N
    from veriplan.pddl.ast import DurativeAction

    values = {k: float(v) for k, v in task.problem.numeric_init.items()}

    def duration(step) -> float | None:
        schema = task.schemas[step.name]
        if not isinstance(schema, DurativeAction):
            return None
        sub = {p.name: a for p, a in zip(schema.params, step.args)}
        for c in schema.duration:
            try:
                return N.value(c.value, sub, values, 0.0)
            except N.Undefined:
                return None
        return 1.0
    return duration


def _text(steps, timed: list[tuple[float, float | None]] | None) -> str:
    if timed is None:
        return "".join(f"{s}\n" for s in steps)
    return "".join(f"{t:.3f}: {s}" + (f" [{d:.3f}]" if d is not None else "") + "\n"
                   for s, (t, d) in zip(steps, timed))


def random_walk(task, rng: random.Random, length: int, tries: int = 400):
    """Up to ``length`` steps, each a random applicable one (random schema and typed
    arguments, kept when the plan so far still executes)."""
    from veriplan.core.plan import Step
    from veriplan.verify.validator import validate_plan

    temporal = task.domain.temporal
    duration = _durations(task) if temporal else None
    schemas = list(task.schemas.values())
    steps: list = []
    timed: list[tuple[float, float | None]] = []
    clock = 0.0
    for _ in range(length):
        for _ in range(tries):
            schema = rng.choice(schemas)
            args = []
            for p in schema.params:
                objs = task.objects_of_type(p.type)
                if not objs:
                    break
                args.append(rng.choice(objs))
            else:
                step = Step(schema.name, tuple(args))
                if temporal:
                    d = duration(step)
                    if d is None:
                        continue
                    when = [*timed, (clock + 0.01, d)]
                    r = validate_plan(task, [*steps, step], times=[t for t, _ in when],
                                      durations=[x for _, x in when])
                else:
                    r = validate_plan(task, [*steps, step])
                if r.failed_step is None:
                    steps.append(step)
                    if temporal:
                        timed.append((clock + 0.01, d))
                        clock += 0.01 + d
                    break
        else:
            break
    return steps, (timed if temporal else None)


def make(args) -> None:
    from veriplan.planners.classical import solve_classical

    rng = random.Random(args.seed)
    (OUT / "plans").mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, dom, prob in problems(args.data_dir):
        task = _task(dom, prob)
        stem = name.replace("/", "__")
        made = []
        from veriplan.pddl.ast import And

        hard = task.problem.goal
        if not task.domain.temporal and not (isinstance(hard, And) and not hard.parts):
            t0 = time.time()
            try:
                r = solve_classical(_hard_task(task), "fd", time_limit=args.timeout)
                if r.plan:
                    made.append(("fd", [str(s) for s in r.plan], None))
            except Exception as exc:  # noqa: BLE001 (recorded: the manifest says why)
                print(f"{name}: fd failed: {exc}", file=sys.stderr)
            print(f"{name}: fd {len(made[-1][1]) if made else 'none'} "
                  f"({time.time() - t0:.1f}s)", file=sys.stderr)
        for w in range(args.walks):
            steps, timed = random_walk(task, rng, rng.randint(3, args.length))
            made.append((f"walk{w}", [str(s) for s in steps], timed))
        for source, steps, timed in made:
            f = OUT / "plans" / f"{stem}__{source}.txt"
            f.write_text(_text(steps, timed))
            manifest.append({"problem": name, "plan": f.name, "source": source,
                             "steps": len(steps)})
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} plans", file=sys.stderr)


def complete(args) -> None:
    """Valid plans that differ: a seeded random walk, then Fast Downward from the state
    it reaches to the hard goal (the sequential variants with a hard goal)."""
    from veriplan.pddl.ast import And
    from veriplan.planners.classical import solve_classical

    rng = random.Random(args.seed + 1)
    manifest = json.loads((OUT / "manifest.json").read_text())
    for name, dom, prob in problems(args.data_dir):
        task = _task(dom, prob)
        hard = task.problem.goal
        if task.domain.temporal or task.numeric or (isinstance(hard, And) and not hard.parts):
            continue
        stem = name.replace("/", "__")
        for w in range(args.walks):
            prefix, _ = random_walk(task, rng, rng.randint(2, 8))
            rest = _hard_task(task)
            state = rest.init
            for s in prefix:
                state = rest.apply(rest.operator(s.name, s.args), state)
            rest.init = state
            try:
                r = solve_classical(rest, "fd", time_limit=args.timeout)
            except Exception as exc:  # noqa: BLE001 (the run goes on; stderr says why)
                print(f"{name}: fd failed: {exc}", file=sys.stderr)
                continue
            if not r.plan:
                continue
            steps = [str(s) for s in prefix] + [str(s) for s in r.plan]
            f = OUT / "plans" / f"{stem}__walkfd{w}.txt"
            f.write_text(_text(steps, None))
            manifest.append({"problem": name, "plan": f.name, "source": f"walkfd{w}",
                             "steps": len(steps)})
            print(f"{name}: walk {len(prefix)} + fd {len(r.plan)}", file=sys.stderr)
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


_TIMED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*(\(.*?\))\s*(?:\[(\d+(?:\.\d+)?)\])?\s*$")


def mutate(args) -> None:
    rng = random.Random(args.seed)
    manifest = [m for m in json.loads((OUT / "manifest.json").read_text())
                if not m["source"].startswith("mut")]
    out = list(manifest)
    for m in manifest:
        lines = (OUT / "plans" / m["plan"]).read_text().splitlines()
        if len(lines) < 2:
            continue
        timed = bool(_TIMED.match(lines[0]))
        muts = []
        i = rng.randrange(len(lines))
        muts.append(("drop", lines[:i] + lines[i + 1:]))
        j = rng.randrange(len(lines) - 1)
        sw = list(lines)
        sw[j], sw[j + 1] = sw[j + 1], sw[j]
        muts.append(("swap", sw))
        if not timed:
            k = rng.randrange(len(lines))
            muts.append(("repeat", lines[:k + 1] + lines[k:]))
        muts.append(("cut", lines[:-1]))
        for kind, new in muts:
            if timed and kind == "swap":  # swap the steps, keep the times
                a, b = _TIMED.match(sw[j]), _TIMED.match(sw[j + 1])
                new = list(lines)
                la, lb = _TIMED.match(lines[j]), _TIMED.match(lines[j + 1])
                new[j] = f"{la.group(1)}: {lb.group(2)} [{lb.group(3)}]"
                new[j + 1] = f"{lb.group(1)}: {la.group(2)} [{la.group(3)}]"
                del a, b
            name = m["plan"].replace(".txt", f"__mut-{kind}.txt")
            (OUT / "plans" / name).write_text("\n".join(new) + ("\n" if new else ""))
            out.append({"problem": m["problem"], "plan": name, "source": f"mut-{kind}",
                        "steps": len(new)})
    (OUT / "manifest.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out)} plans ({len(out) - len(manifest)} mutants)", file=sys.stderr)


def parse_val(section: str) -> dict:
    """VAL's verdict, violations and final value from one plan's ``Validate -v`` text."""
    valid = "Plan valid" in section
    if valid:
        outcome = "valid"
    elif "Goal not satisfied" in section:
        outcome = "goal"
    elif "failed to execute" in section or "unsatisfied precondition" in section:
        outcome = "execution"
    else:
        outcome = "other"
    violations = {}
    m = re.search(r"Violations:\n((?:\t.*\n)*)", section)
    if m:
        for line in m.group(1).splitlines():
            n, c = line.strip().rsplit(": ", 1)
            violations[n] = int(c)
    v = re.search(r"Final value: (\S+)", section)
    return {"valid": valid, "outcome": outcome, "violations": violations if valid else None,
            "value": float(v.group(1)) if v and valid else None}


def val_run(val, dom: Path, prob: Path, plans: list[Path]) -> list[dict]:
    out = subprocess.run([str(val.validate), "-v", str(dom), str(prob), *map(str, plans)],
                         capture_output=True, text=True, env=val.env, timeout=600).stdout
    sections = out.split("Checking plan: ")[1:]
    got = {}
    for s in sections:
        got[s.split("\n", 1)[0].strip()] = parse_val(s)
    return [got.get(str(p), {"valid": None, "outcome": "unparsed"}) for p in plans]


def val(args) -> None:
    from veriplan.verify.val import find_val

    tool = find_val()
    manifest = json.loads((OUT / "manifest.json").read_text())
    by_problem: dict[str, list[dict]] = {}
    for m in manifest:
        by_problem.setdefault(m["problem"], []).append(m)
    paths = {n: (d, p) for n, d, p in problems(args.data_dir)}
    for name, items in by_problem.items():
        d, p = paths[name]
        res = val_run(tool, d, p, [OUT / "plans" / m["plan"] for m in items])
        parser = subprocess.run([str(tool.validate.parent / "Parser"), str(d), str(p)],
                                capture_output=True, text=True, env=tool.env,
                                timeout=120).stdout
        e = re.search(r"Errors: (\d+)", parser)
        reads = e is not None and e.group(1) == "0"
        for m, r in zip(items, res):
            m["val"] = r
            m["val_parser_reads"] = reads
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def ours(task, text: str) -> dict:
    from veriplan.planio import parse_plan
    from veriplan.verify.validator import validate_plan

    r = validate_plan(task, parse_plan(text, task))
    return {"valid": r.valid,
            "violations": r.preferences.violated() if r.valid and r.preferences else
            ({} if r.valid else None),
            "value": r.metric.value if r.valid and r.metric is not None else None}


def compare(args) -> dict:
    manifest = json.loads((OUT / "manifest.json").read_text())
    paths = {n: (d, p) for n, d, p in problems(args.data_dir)}
    tasks: dict[str, object] = {}
    counts = {"pairs": 0, "agree": 0, "valid": 0, "violations_equal": 0,
              "metrics_compared": 0, "metrics_equal": 0, "val_defect": 0, "val_refuses": 0,
              "disagree": []}
    for m in manifest:
        if "val" not in m or m["val"]["valid"] is None:
            continue
        if not m.get("val_parser_reads", True):  # (VAL's Parser refuses the problem)
            counts["val_refuses"] += 1
            continue
        if m["problem"] not in tasks:
            tasks[m["problem"]] = _task(*paths[m["problem"]])
        o = ours(tasks[m["problem"]], (OUT / "plans" / m["plan"]).read_text())
        v = m["val"]
        counts["pairs"] += 1
        same = o["valid"] == v["valid"]
        if v["valid"]:
            counts["valid"] += 1
            same = same and o["violations"] == v["violations"]
            if o["violations"] == v["violations"]:
                counts["violations_equal"] += 1
            if v["value"] is not None:
                counts["metrics_compared"] += 1
                if o["value"] is not None and abs(o["value"] - v["value"]) <= 1e-3 * max(
                        1.0, abs(v["value"])):
                    counts["metrics_equal"] += 1
                else:
                    same = False
        if same:
            counts["agree"] += 1
        elif val_numeric_defect(tasks[m["problem"]], o, v):
            counts["val_defect"] += 1
        else:
            counts["disagree"].append((m["plan"], o, v))
    return counts


def _numeric_constraint_prefs(task) -> set[str]:
    """Names of constraint preferences whose constraint compares numbers."""
    from veriplan.pddl.ast import formula_uses_numbers
    from veriplan.pddl.constraints import Constraint

    out = set()
    for pref in (*task.domain.preferences, *task.problem.preferences):
        if isinstance(pref.body, Constraint) and any(
                formula_uses_numbers(f) for f in pref.body.formulas):
            out.add(pref.name)
    return out


def val_numeric_defect(task, o: dict, v: dict) -> bool:
    """True when the only difference is VAL's reading of numeric comparisons inside
    trajectory constraints (it reports ``Satisfied ((n) > 0)`` with ``n`` = 0: see
    ``tests/verify/test_pddl3.py``): every name whose count differs is a constraint
    preference over a comparison, and our metric priced with VAL's counts is VAL's
    value."""
    from veriplan.pddl.constraints import violation_term

    if not (o["valid"] and v["valid"]) or o["violations"] is None:
        return False
    names = {k for k in set(o["violations"]) | set(v["violations"])
             if o["violations"].get(k, 0) != v["violations"].get(k, 0)}
    if not names or not names <= _numeric_constraint_prefs(task):
        return False
    metric = task.problem.metric
    if metric is None or v["value"] is None or o["value"] is None:
        return True
    # the metric is linear in each (is-violated p): put VAL's counts in its place
    def priced(counts: dict) -> float:
        return _delta(metric.expr, {violation_term(n): float(counts.get(n, 0)) for n in names})

    ours_part = priced(o["violations"])
    val_part = priced(v["violations"])
    return abs((o["value"] - ours_part + val_part) - v["value"]) <= 1e-3 * max(
        1.0, abs(v["value"]))


def _delta(expr, vals: dict) -> float:
    """The part of a metric ``(+ ... (* w (is-violated p)) ...)`` that the names in
    ``vals`` contribute, with their counts ``vals``."""
    from veriplan.pddl.ast import Arith, ArithOp, FuncTerm

    if isinstance(expr, FuncTerm):
        return vals.get(expr, 0.0)
    if isinstance(expr, Arith) and expr.op is ArithOp.ADD:
        return sum(_delta(a, vals) for a in expr.args)
    if isinstance(expr, Arith) and expr.op is ArithOp.MUL and len(expr.args) == 2:
        a, b = expr.args
        if isinstance(a, int | float):
            return a * _delta(b, vals)
        if isinstance(b, int | float):
            return b * _delta(a, vals)
    return 0.0


# ----- the semantics corpus: every constraint kind on random trajectories ---------------
ATOMS = "pqr"


def semantics_domain() -> str:
    """A domain whose actions ``go-XYZ`` set the three atoms to X, Y, Z (any state in
    one step): a plan is any trajectory."""
    import itertools

    acts = []
    for bits in itertools.product((0, 1), repeat=3):
        eff = " ".join(f"({a})" if b else f"(not ({a}))" for a, b in zip(ATOMS, bits))
        acts.append(f"(:action go-{''.join(map(str, bits))} :parameters () "
                    f":precondition (and) :effect (and {eff}))")
    return ("(define (domain traj) (:requirements :strips :preferences :constraints "
            ":negative-preconditions)\n(:predicates (p) (q) (r))\n" + "\n".join(acts) + ")\n")


def semantics_problem(constraints: list[str], init: list[str], hard: bool) -> str:
    if hard:
        body, metric = "(and " + " ".join(constraints) + ")", ""
    else:
        body = "(and " + " ".join(f"(preference c{i} {c})"
                                  for i, c in enumerate(constraints)) + ")"
        metric = ("(:metric minimize (+ 0 " + " ".join(
            f"(is-violated c{i})" for i in range(len(constraints))) + "))")
    ini = " ".join(f"({a})" for a in init)
    return (f"(define (problem trajp) (:domain traj) (:init {ini}) (:goal (and)) "
            f"(:constraints {body}) {metric})\n")


def semantics_plan(states: list[str], times: list[float] | None = None) -> str:
    """The plan that makes ``states`` (each the atoms true after its step), at
    ``times`` (the timed form) or untimed."""
    steps = ["(go-" + "".join("1" if a in s else "0" for a in ATOMS) + ")" for s in states]
    if times is None:
        return "".join(f"{s}\n" for s in steps)
    return "".join(f"{t:.3f}: {s}\n" for t, s in zip(times, steps))


def _random_constraint(rng: random.Random) -> str:
    def lit() -> str:
        a = rng.choice(ATOMS)
        return f"(not ({a}))" if rng.random() < 0.3 else f"({a})"

    def t() -> str:
        return rng.choice(("0", "1", "2", "3", "1.5", "4"))
    k = rng.choice(("always", "sometime", "within", "at-most-once", "sometime-after",
                    "sometime-before", "always-within", "hold-during", "hold-after",
                    "at end"))
    if k in ("always", "sometime", "at-most-once", "at end"):
        return f"({k} {lit()})"
    if k in ("within", "hold-after"):
        return f"({k} {t()} {lit()})"
    if k in ("sometime-after", "sometime-before"):
        return f"({k} {lit()} {lit()})"
    if k == "always-within":
        return f"(always-within {t()} {lit()} {lit()})"
    a = float(t())
    return f"(hold-during {a:g} {a + rng.choice((0.5, 1, 2, 3)):g} {lit()})"


def semantics(args) -> None:
    import tempfile

    from veriplan.verify.val import find_val

    tool = find_val()
    rng = random.Random(args.seed)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "d.pddl"
        d.write_text(semantics_domain())
        for n in range(args.problems):
            hard = n % 2 == 1
            cons = [_random_constraint(rng) for _ in range(rng.choice((1, 2, 3)) if hard
                                                              else 12)]
            init = [a for a in ATOMS if rng.random() < 0.5]
            plans = [["".join(a for a in ATOMS if rng.random() < 0.5)
                      for _ in range(rng.randint(0, 6))] for _ in range(12)]
            timed = n % 4 >= 2  # half the problems: the plans at times of their own
            times = []
            for states in plans:
                t, at = 0.0, []
                for _ in states:
                    t += rng.choice((0.25, 0.5, 1.0, 1.5, 2.0))
                    at.append(t)
                times.append(at if timed else None)
            p = Path(tmp) / "p.pddl"
            p.write_text(semantics_problem(cons, init, hard))
            files = []
            for i, states in enumerate(plans):
                f = Path(tmp) / f"plan{i}"
                f.write_text(semantics_plan(states, times[i]))
                files.append(f)
            res = val_run(tool, d, p, files)
            cases.append({"constraints": cons, "init": init, "hard": hard, "plans": plans,
                          "times": times,
                          "val": [{"outcome": r["outcome"], "violations": r.get("violations")}
                                  for r in res]})
    (OUT / "semantics.json").write_text(json.dumps(cases, indent=None) + "\n")
    print(f"{len(cases)} problems, {sum(len(c['plans']) for c in cases)} trajectories",
          file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=("make", "complete", "mutate", "val", "compare",
                                     "semantics"))
    ap.add_argument("--problems", type=int, default=40)
    ap.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--walks", type=int, default=3)
    ap.add_argument("--length", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    if args.step == "make":
        make(args)
    elif args.step == "complete":
        complete(args)
    elif args.step == "mutate":
        mutate(args)
    elif args.step == "val":
        val(args)
    elif args.step == "semantics":
        semantics(args)
    else:
        c = compare(args)
        print(f"left out (VAL's Parser refuses the problem) {c['val_refuses']}; "
              f"pairs {c['pairs']}, agree {c['agree']}, valid to VAL {c['valid']}, "
              f"violation counts equal {c['violations_equal']} of {c['valid']}, metric "
              f"values equal {c['metrics_equal']} of {c['metrics_compared']}; differing as "
              f"VAL's numeric-constraint defect {c['val_defect']}, unexplained "
              f"{len(c['disagree'])}")
        for d in c["disagree"]:
            print("DISAGREE", *d)


if __name__ == "__main__":
    main()
