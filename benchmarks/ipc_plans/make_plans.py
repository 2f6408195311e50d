"""Plans by real planners for ipc-dev's numeric and derived-predicate variants.

For every variant of ``ipc-dev`` with numeric fluents or derived predicates and no
durative actions, PDDL 3 or timed initial literals, and each of its instances, one
plan from a real planner, at most ``--timeout`` seconds a planner run:

- numeric: ENHSP (the jar that ``up-enhsp`` ships, run on the files themselves, as
  ``-planner sat-hmrp``); the files are given to it lower-cased, since ENHSP's reader
  is case-sensitive where PDDL is not ("Depot not found" for ``depot0 - Depot`` and
  ``(:types ... depot ...)``). Where ENHSP's own reader refuses the files, or says
  they are unsolvable, first ENHSP again with ``-dap`` (no AIBR preprocessing: it calls
  solvable ipc-dev problems unsolvable), then the same jar through unified-planning
  (``OneshotPlanner(name='enhsp')`` on ``PDDLReader``'s reading; the plan's action and
  object names are checked against the original files before it is kept);
- derived predicates: Fast Downward's ``lama-first`` (``up-fast-downward``'s build),
  which supports axioms;
- both: Fast Downward and ENHSP are each tried (each refuses today).

Each plan is written as plain PDDL, one ``(action arg ...)`` a line, lower case, in the
names of the original files, to ``tests/data/ipc_plans/<year>/<variant>/instance-N.plan``;
plans longer than ``--max-steps`` are not kept. ``MANIFEST.md`` says per variant what the
planner did, and ``manifest.json`` lists the same for the other scripts.

    python benchmarks/ipc_plans/make_plans.py [--data-dir ../shared/data] [--timeout 60]
        [--max-steps 400] [--only SUBSTRING] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import ipc_common as c

ENHSP_ARGS = ["-planner", "sat-hmrp", "-npm"]
UP_LOCK = threading.Lock()
FD_ALIAS = "lama-first"


@dataclass
class Outcome:
    status: str  # solved | timeout | refused | unsolvable | too-long | error
    planner: str
    detail: str = ""
    steps: list[str] = field(default_factory=list)
    seconds: float = 0.0
    attempts: list[dict] = field(default_factory=list)


# ----- ENHSP -------------------------------------------------------------------------------
def _first_error(text: str) -> str:
    for line in text.splitlines():
        s = line.strip()
        if re.search(r"error|exception|not found|mismatched|no viable|unsupported|"
                     r"not supported", s, re.I):
            return s[:200]
    tail = [s for s in text.splitlines() if s.strip()]
    return tail[-1][:200] if tail else "(no output)"


def enhsp_direct(inst: c.Instance, timeout: float, extra: tuple[str, ...] = ()) -> Outcome:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        dom = inst.domain.read_text(errors="replace").lower()
        # ENHSP's reader has no (either ...): in ipc-dev it types only predicate
        # arguments (zenotravel's (at ?x - (either person aircraft) ?c - city)), where
        # ``object`` admits the same plans, the actions' parameters being typed.
        dom, n_either = re.subn(r"\(either\s[^()]*\)", "object", dom)
        (t / "domain.pddl").write_text(dom)
        (t / "problem.pddl").write_text(inst.problem.read_text(errors="replace").lower())
        plan = t / "plan.txt"
        cmd = ["java", "-jar", str(c.enhsp_jar()), "-o", "domain.pddl", "-f",
               "problem.pddl", "-sp", "plan.txt", *ENHSP_ARGS, *extra]
        r = c.run(cmd, timeout=timeout, cwd=t)
        out = Outcome("error", " ".join(["enhsp", *extra]), seconds=r.wall)
        if r.returncode is None:
            out.status, out.detail = "timeout", f"killed at {timeout:g} s"
        elif plan.exists() and "Problem Solved" in r.output:
            out.status = "solved"
            out.steps = [c.normal_step(s) for s in c.read_plan(plan)]
            m = re.search(r"Metric \(Search\):\s*(\S+)", r.output)
            out.detail = f"ENHSP metric (search) {m.group(1)}" if m else ""
            if n_either:
                out.detail += "; (either ...) read as object in ENHSP's copy"
        elif ("Problem unsolvable" in r.output or "Unsolvable Problem" in r.output) and not \
                re.search(r"Exception|Syntax Error", r.output):
            out.status, out.detail = "unsolvable", "ENHSP: 'Problem unsolvable'"
        else:
            out.status = "refused"
            out.detail = "ENHSP's reader: " + _first_error(r.output)
        return out


def _original_names(inst: c.Instance) -> tuple[set[str], set[str]]:
    """The action names and the object/constant names of the original files (lower case)."""
    d = c.strip_comments(inst.domain.read_text(errors="replace")).lower()
    p = c.strip_comments(inst.problem.read_text(errors="replace")).lower()
    actions = set(re.findall(r"\(:action\s+([^\s()]+)", d))
    names: set[str] = set()
    for text, key in ((d, ":constants"), (p, ":objects")):
        m = re.search(r"\(" + key + r"([^()]*)\)", text)
        if m:
            names |= {w for w in m.group(1).split() if w != "-"}
    return actions, names


def enhsp_via_up(inst: c.Instance, timeout: float) -> Outcome:
    t0 = time.perf_counter()
    out = Outcome("error", "enhsp (via unified-planning)")
    try:
        import unified_planning.shortcuts as ups
        from unified_planning.engines import PlanGenerationResultStatus as S
        from unified_planning.io import PDDLReader

        ups.get_environment().credits_stream = None
        problem = PDDLReader().parse_problem(str(inst.domain), str(inst.problem))
    except Exception as exc:  # noqa: BLE001 - any reader failure is a refusal to record
        out.status = "refused"
        out.detail = f"unified-planning's reader: {type(exc).__name__}: {str(exc)[:160]}"
        out.seconds = time.perf_counter() - t0
        return out
    try:
        with ups.OneshotPlanner(name="enhsp") as planner:
            res = planner.solve(problem, timeout=timeout)
    except Exception as exc:  # noqa: BLE001
        out.status = "refused"
        out.detail = f"unified-planning/ENHSP: {type(exc).__name__}: {str(exc)[:160]}"
        out.seconds = time.perf_counter() - t0
        return out
    out.seconds = time.perf_counter() - t0
    if res.status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY) and res.plan is not None:
        actions, objects = _original_names(inst)
        steps = []
        for ai in res.plan.actions:
            name = ai.action.name.lower()
            args = [str(a).lower() for a in ai.actual_parameters]
            bad = [x for x in [name] if x not in actions] + \
                  [x for x in args if x not in objects]
            if bad:
                out.status = "error"
                out.detail = f"unified-planning renamed {bad[0]!r}: not in the original files"
                return out
            steps.append("(" + " ".join([name, *args]) + ")")
        out.status, out.steps = "solved", steps
    elif res.status == S.TIMEOUT:
        out.status, out.detail = "timeout", f"killed at {timeout:g} s"
    elif res.status in (S.UNSOLVABLE_PROVEN, S.UNSOLVABLE_INCOMPLETELY):
        out.status, out.detail = "unsolvable", f"ENHSP via unified-planning: {res.status.name}"
    else:
        logs = " ".join(m.message for m in res.log_messages or [])[-300:]
        out.status, out.detail = "error", f"{res.status.name}: {_first_error(logs)}"
    return out


# ----- Fast Downward -----------------------------------------------------------------------
FD_CODES = {10: "translator: unsolvable", 11: "search: unsolvable",
            12: "search: unsolved (incomplete)", 20: "translator: out of memory",
            21: "translator: out of time", 22: "search: out of memory",
            23: "search: out of time", 30: "translator: critical error",
            31: "translator: input error", 32: "search: critical error",
            33: "search: input error", 34: "search: unsupported"}


def fast_downward(inst: c.Instance, timeout: float) -> Outcome:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        cmd = [sys.executable, str(c.fast_downward()), "--overall-time-limit",
               f"{int(timeout)}s", "--alias", FD_ALIAS, "--plan-file", "plan.txt",
               str(inst.domain), str(inst.problem)]
        r = c.run(cmd, timeout=timeout + 5, cwd=t)
        out = Outcome("error", f"fast-downward {FD_ALIAS}", seconds=r.wall)
        plan = t / "plan.txt"
        if r.returncode is None or r.returncode in (21, 23):
            out.status, out.detail = "timeout", f"stopped at {timeout:g} s"
        elif r.returncode == 0 and plan.exists():
            out.status = "solved"
            out.steps = [c.normal_step(s) for s in c.read_plan(plan)]
        elif r.returncode in (10, 11):
            out.status, out.detail = "unsolvable", FD_CODES[r.returncode]
        else:
            why = FD_CODES.get(r.returncode, f"exit {r.returncode}")
            out.status = "refused"
            out.detail = f"Fast Downward {why}: {_first_error(r.output)}"
        return out


# ----- the corpus --------------------------------------------------------------------------
def solve(v: c.Variant, inst: c.Instance, timeout: float) -> Outcome:
    tries: list[Outcome] = []
    if v.kind == "derived":
        tries.append(fast_downward(inst, timeout))
    else:
        if v.kind == "numeric+derived":
            tries.append(fast_downward(inst, timeout))
        if not tries or tries[-1].status != "solved":
            tries.append(enhsp_direct(inst, timeout))
            if tries[-1].status == "unsolvable":
                # ENHSP's AIBR preprocessing calls solvable ipc-dev problems unsolvable
                # (driverlog-numeric-hard's nonlinear fuel, promela's fluents): without it
                tries.append(enhsp_direct(inst, timeout, ("-dap",)))
            if tries[-1].status in ("refused", "unsolvable", "error"):
                with UP_LOCK:
                    tries.append(enhsp_via_up(inst, timeout))
    best = next((t for t in tries if t.status == "solved"), tries[-1])
    best.attempts = [{"planner": t.planner, "status": t.status, "detail": t.detail,
                      "seconds": round(t.seconds, 2)} for t in tries]
    return best


def command_of(planner: str) -> str:
    if planner.startswith("fast-downward"):
        return (f"python fast-downward.py --overall-time-limit 60s --alias {FD_ALIAS} "
                f"--plan-file plan.txt DOMAIN PROBLEM")
    if "unified-planning" in planner:
        return ("PDDLReader().parse_problem(DOMAIN, PROBLEM); "
                "OneshotPlanner(name='enhsp').solve(problem, timeout=60)")
    return ("java -jar up_enhsp/ENHSP/enhsp.jar -o domain.pddl -f problem.pddl -sp plan.txt "
            + " ".join(ENHSP_ARGS) + "   (domain.pddl, problem.pddl: the files lower-cased)")


def manifest_md(records: list[dict], excluded: list[tuple[str, str]], args) -> str:
    lines = [
        "# Plans by real planners for ipc-dev's numeric and derived-predicate variants",
        "",
        "Made by `python benchmarks/ipc_plans/make_plans.py` "
        f"(`--timeout {args.timeout:g} --max-steps {args.max_steps}`), planners from PyPI: "
        "`up-enhsp` 0.1.1 (ENHSP's jar, Java 17), `up-fast-downward` 1.0.0, "
        "`unified-planning` (the fallback reader). Each plan: one `(action arg ...)` a line, "
        "lower case (PDDL names are case-insensitive; VAL reads them so), in the names of the "
        "original files. The variants: every ipc-dev variant with numeric fluents or derived "
        "predicates and no durative actions, PDDL 3 or timed initial literals (read from each "
        "domain's `:requirements` and sections: `ipc_common.features`).",
        "",
        "Commands (DOMAIN, PROBLEM: the ipc-dev files):",
        "",
        f"- ENHSP: `{command_of('enhsp')}`",
        f"- ENHSP via unified-planning (where ENHSP's own reader refuses the files or calls "
        f"them unsolvable): `{command_of('unified-planning')}`",
        f"- Fast Downward: `{command_of('fast-downward')}`",
        "",
        "Mutants (`mutate.py`) are under each variant's `mutants/`; a numeric perturbation is "
        "not applicable: these sequential plans carry no numbers.",
        "",
        "| variant | kind | planner | plans | per instance |",
        "| --- | --- | --- | --- | --- |",
    ]
    by_var: dict[str, list[dict]] = {}
    for r in records:
        by_var.setdefault(r["variant"], []).append(r)
    for key, rs in by_var.items():
        planners = sorted({r["planner"] for r in rs if r["status"] == "solved"}) or \
            sorted({r["planner"] for r in rs})
        kept = sum(1 for r in rs if r.get("plan"))
        per = []
        for r in rs:
            s = f"{r['instance']}: {r['status']}"
            if r["status"] == "solved":
                s += f" ({r['length']} steps, {r['seconds']:.1f} s)"
            else:
                s += f" ({'; '.join(a['planner'] + ': ' + a['status'] + ' ' + a['detail'] for a in r['attempts'])})"  # noqa: E501
            per.append(s.replace("|", "/"))
        lines.append(f"| {key} | {rs[0]['kind']} | {', '.join(planners)} | {kept}/{len(rs)} | "
                     + "<br>".join(per) + " |")
    lines += ["", "Not taken (durative actions, PDDL 3 or timed initial literals, though "
              "numeric or derived):", ""]
    lines += [f"- {k}: {why}" for k, why in excluded]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=c.DEFAULT_DATA)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--max-steps", type=int, default=400)
    ap.add_argument("--only", default="", help="variants whose name has this")
    ap.add_argument("--jobs", type=int, default=2, help="planner runs at once")
    args = ap.parse_args()
    variants = c.corpus_variants(args.data_dir)
    excluded = [(v.key, ", ".join(sorted(v.features & {"durative", "pddl3", "til"})))
                for v in c.all_variants(args.data_dir)
                if v.features & {"numeric", "derived"}
                and v.features & {"durative", "pddl3", "til"}]
    old = {}
    if (c.OUT / "manifest.json").exists():
        old = {(r["variant"], r["instance"]): r for r in c.load_manifest()["plans"]}
    todo = [(v, inst) for v in variants if not args.only or args.only in v.key
            for inst in v.instances]

    def one(job: tuple[c.Variant, c.Instance]) -> dict:
        v, inst = job
        o = solve(v, inst, args.timeout)
        target = c.OUT / v.year / v.name / f"instance-{inst.n}.plan"
        rec = {"variant": v.key, "kind": v.kind, "instance": inst.n,
               "domain": c.data_rel(inst.domain, args.data_dir),
               "problem": c.data_rel(inst.problem, args.data_dir),
               "planner": o.planner, "status": o.status, "detail": o.detail,
               "seconds": round(o.seconds, 2), "length": len(o.steps),
               "attempts": o.attempts, "plan": None}
        if o.status == "solved" and len(o.steps) > args.max_steps:
            rec["status"] = "too-long"
            rec["detail"] = f"{len(o.steps)} steps > {args.max_steps}: not kept"
        if rec["status"] == "solved":
            c.write_plan(target, o.steps)
            rec["plan"] = c.repo_rel(target)
        elif target.exists():
            target.unlink()
        print(f"{v.key} #{inst.n}: {rec['status']} {o.planner} "
              f"{len(o.steps)} steps {o.seconds:.1f}s {rec['detail']}", flush=True)
        return rec

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = {(r["variant"], r["instance"]): r for r in pool.map(one, todo)}
    records = [done.get((v.key, i.n)) or old.get((v.key, i.n)) for v in variants
               for i in v.instances]
    records = [r for r in records if r]
    c.OUT.mkdir(parents=True, exist_ok=True)
    (c.OUT / "manifest.json").write_text(json.dumps(
        {"plans": records, "excluded": excluded}, indent=1) + "\n")
    (c.OUT / "MANIFEST.md").write_text(manifest_md(records, excluded, args))
    solved = sum(1 for r in records if r["plan"])
    print(f"{solved} plans kept of {len(records)} instances in {len(variants)} variants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
