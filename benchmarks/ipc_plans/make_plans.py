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
        [--max-steps 400] [--only SUBSTRING,...] [--jobs 2]
        [--manifest-only]
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
    lines = [s for s in text.splitlines() if not s.startswith("INFO ")]
    for line in lines:
        s = line.strip()
        if re.search(r"error|exception|not found|mismatched|no viable|unsupported|"
                     r"not supported|encountered|cannot", s, re.I) and \
                not re.match(r"(translate|search) exit code", s):
            return s[:200]
    tail = [s for s in lines if s.strip()]
    return tail[-1][:200] if tail else "(no output)"


def drop_deleted_adds(domain: str) -> tuple[str, int]:
    """The domain without the ``(not A)`` of an action's effect that also adds ``A``.

    In PDDL (and in VAL) an atom an effect both deletes and adds is true afterwards;
    ENHSP applies the delete last, which makes rovers' ``communicate_*`` (``(not
    (available ?r))`` ... ``(available ?r)``) strand the rover: every ipc-2002 rovers
    problem then times out. Leaving such deletes out changes no plan's meaning.
    """
    parts = re.split(r"(?=\(:action\s)", domain)
    n = 0
    for k, part in enumerate(parts):
        i = part.find(":effect")
        if i < 0:
            continue
        eff = part[i:]
        if re.search(r"\((when|forall)\s", eff):
            continue  # a conditional add and delete: not the same thing
        negs = list(re.finditer(r"\(not\s*(\([^()]*\))\s*\)", eff))
        rest = re.sub(r"\(not\s*\([^()]*\)\s*\)", " ", eff)
        adds = {" ".join(a.strip("()").split()) for a in re.findall(r"\([^()]*\)", rest)}
        for m in reversed(negs):
            if " ".join(m.group(1).strip("()").split()) in adds:
                eff = eff[:m.start()] + eff[m.end():]
                n += 1
        parts[k] = part[:i] + eff
    return "".join(parts), n


def constants_first(domain: str) -> tuple[str, int]:
    """The domain with its ``(:constants ...)`` before ``(:predicates ...)``: ENHSP's
    reader takes the sections in the BNF's order only (settlers puts its constants
    after its functions)."""
    m = re.search(r"\(:constants\b[^()]*\)", domain)
    p = domain.find("(:predicates")
    if not m or p < 0 or m.start() < p:
        return domain, 0
    block = m.group(0)
    domain = domain[:m.start()] + domain[m.end():]
    return domain[:p] + block + "\n" + domain[p:], 1


def enhsp_direct(inst: c.Instance, timeout: float, extra: tuple[str, ...] = ()) -> Outcome:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        dom = inst.domain.read_text(errors="replace").lower()
        # ENHSP's reader has no (either ...): in ipc-dev it types only predicate
        # arguments (zenotravel's (at ?x - (either person aircraft) ?c - city)), where
        # ``object`` admits the same plans, the actions' parameters being typed.
        dom, n_either = re.subn(r"\(either\s[^()]*\)", "object", dom)
        dom, n_dels = drop_deleted_adds(dom)
        dom, n_moved = constants_first(dom)
        # ENHSP's grammar takes ``over`` (of ``over all``) as a keyword: umtranslog's
        # predicate (over ?p) is renamed in its copy (no predicate is in a plan)
        dom, n_over = re.subn(r"\(over(\s)", r"(over_\1", dom)
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
            if n_dels:
                out.detail += f"; {n_dels} deletes of atoms the same effect adds left out"
            if n_moved:
                out.detail += "; (:constants ...) moved before (:predicates ...)"
            if n_over:
                out.detail += "; predicate over renamed over_"
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
        dom = inst.domain.read_text(errors="replace")
        # FD refuses a type named ``number`` (promela's ADL domains declare one); in a
        # domain without functions it is renamed in FD's copy (no type is in a plan)
        renamed = ":functions" not in dom.lower() and re.search(r"\bnumber\b", dom, re.I)
        if renamed:
            dom = re.sub(r"\bnumber\b", "number-type", dom, flags=re.I)
            prob = re.sub(r"\bnumber\b", "number-type",
                          inst.problem.read_text(errors="replace"), flags=re.I)
            (t / "domain.pddl").write_text(dom)
            (t / "problem.pddl").write_text(prob)
        files = ["domain.pddl", "problem.pddl"] if renamed else [str(inst.domain),
                                                                 str(inst.problem)]
        cmd = [sys.executable, str(c.fast_downward()), "--overall-time-limit",
               f"{int(timeout)}s", "--alias", FD_ALIAS, "--plan-file", "plan.txt", *files]
        r = c.run(cmd, timeout=timeout + 5, cwd=t)
        out = Outcome("error", f"fast-downward {FD_ALIAS}", seconds=r.wall)
        plan = t / "plan.txt"
        if r.returncode is None:
            out.status = "timeout"
            out.detail = f"killed at {timeout + 5:g} s (FD's own limit {timeout:g} s)"
        elif r.returncode in (21, 23):
            out.status, out.detail = "timeout", f"stopped at {timeout:g} s"
        elif r.returncode == 0 and plan.exists():
            out.status = "solved"
            out.steps = [c.normal_step(s) for s in c.read_plan(plan)]
            if renamed:
                out.detail = "type number renamed number-type in FD's copy"
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


PLANNER_NOTES = """\
What the planners did with the files, and what the script does about it (each rewrite is
of the planner's copy only; every plan is judged by VAL on the original files):

- ENHSP's reader is case-sensitive (`Depot not found` for `depot0 - Depot`): it gets the
  files lower-cased. It has no `(either ...)` (zenotravel types `at`'s first argument so):
  read as `object` in its copy, which admits the same plans since every action parameter
  is typed. It takes the sections in the BNF's order only (settlers' `:constants` after
  `:functions`: moved) and `over` as a keyword (umtranslog's predicate `(over ?p)`:
  renamed `over_`).
- ENHSP applies an effect's delete after its add: rovers' `communicate_*` delete and add
  `(available ?r)` and `(channel_free ?l)`, which strands the rover in ENHSP's reading and
  made every rovers problem time out. Such deletes are left out of its copy
  (`drop_deleted_adds`; not in actions with conditional or universal effects).
- ENHSP's AIBR preprocessing calls solvable problems unsolvable (driverlog-numeric-hard:
  `Problem Detected as Unsolvable by AIBR during preprocessing`; promela's fluents
  variants: `Problem unsolvable` even with blind search): re-run with `-dap` (no AIBR),
  which solves them.
- ENHSP's reader has no `(:derived ...)` with typed parameters, Fast Downward no numeric
  fluents (`Error in requirements.`), unified-planning's reader neither `(either ...)`,
  `(total-time)` in a metric, `:constants` after `:functions`, nor promela's `:derived`:
  the two fluents+derived-predicates variants get no plan.
- Fast Downward refuses a type named `number` (promela's ADL domains declare one):
  renamed `number-type` in its copy.
- The hand-coded 2002 variants are the large problems: ENHSP runs out of its 60 s.
- satellite-numeric-hard's goals are empty (`(:goal (and))`, maximise `data-stored`):
  ENHSP's plan for some instances is the empty plan, kept (no mutants).
"""


def manifest_md(records: list[dict], excluded: list[tuple[str, str]], args) -> str:
    lines = [
        "# Plans by real planners for ipc-dev's numeric and derived-predicate variants",
        "",
        "Made by `python benchmarks/ipc_plans/make_plans.py` "
        f"(`--timeout {args.timeout:g} --max-steps {args.max_steps}`), planners from PyPI: "
        "`up-enhsp` 0.1.1 (ENHSP's jar, Java 17), `up-fast-downward` 1.0.0, "
        "`unified-planning` 1.3 (the fallback reader). Each plan: one `(action arg ...)` a "
        "line, lower case (PDDL names are case-insensitive; VAL reads them so), in the names "
        "of the original files. The variants: every ipc-dev variant with numeric fluents or "
        "derived predicates and no durative actions, PDDL 3 or timed initial literals (read "
        "from each domain's `:requirements` and sections: `ipc_common.features`). ipc-2002's "
        "satellite-complex-* and ipc-2004's satellite-complex-strips have durative actions: "
        "not taken.",
        "",
        "Commands (DOMAIN, PROBLEM: the ipc-dev files; each run stopped at "
        f"{args.timeout:g} s):",
        "",
        f"- ENHSP: `{command_of('enhsp')}`; where it says unsolvable, the same with `-dap`",
        f"- ENHSP via unified-planning (where ENHSP's own reader refuses the files or calls "
        f"them unsolvable): `{command_of('unified-planning')}`",
        f"- Fast Downward: `{command_of('fast-downward')}`",
        "",
        PLANNER_NOTES,
        "Mutants (`mutate.py`) are under each variant's `mutants/`, listed in `mutants.jsonl`; "
        "a numeric perturbation is not applicable: these sequential plans carry no numbers. "
        "VAL's verdicts on all of them: `val_verdicts.jsonl` (`val_verdicts.py`); what VAL "
        "does with tied steps, `(total-time)` and strict comparisons: `VAL_NOTES.md`.",
        "",
        "| variant | kind | planner | plans kept | steps (instance 1-5) | not solved: why |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    by_var: dict[str, list[dict]] = {}
    for r in records:
        by_var.setdefault(r["variant"], []).append(r)
    total = kept_all = 0
    for key, rs in by_var.items():
        planners = sorted({r["planner"] for r in rs if r["status"] == "solved"}) or \
            sorted({r["planner"] for r in rs})
        kept = sum(1 for r in rs if r.get("plan"))
        total += len(rs)
        kept_all += kept
        steps = ", ".join(str(r["length"]) if r["plan"] else "-" for r in rs)
        why: dict[str, list[int]] = {}
        for r in rs:
            if r["plan"]:
                continue
            text = "; ".join(f"{a['planner']}: {a['status']} {a['detail']}".strip()
                             for a in r["attempts"])
            why.setdefault(text, []).append(r["instance"])
        whys = "<br>".join(f"#{','.join(map(str, ns))}: {t}" for t, ns in why.items())
        lines.append(f"| {key} | {rs[0]['kind']} | {', '.join(planners)} | {kept}/{len(rs)} "
                     f"| {steps} | {whys.replace('|', '/')} |")
    lines += ["", f"{kept_all} plans kept of {total} instances in {len(by_var)} variants.",
              "", "Not taken (durative actions, PDDL 3 or timed initial literals, though "
              "numeric or derived):", ""]
    lines += [f"- {k}: {why}" for k, why in excluded]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=c.DEFAULT_DATA)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--max-steps", type=int, default=400)
    ap.add_argument("--only", default="",
                    help="variants whose name has one of these (comma-separated)")
    ap.add_argument("--jobs", type=int, default=2, help="planner runs at once")
    ap.add_argument("--manifest-only", action="store_true",
                    help="rewrite MANIFEST.md from manifest.json, running no planner")
    args = ap.parse_args()
    if args.manifest_only:
        m = c.load_manifest()
        (c.OUT / "MANIFEST.md").write_text(manifest_md(m["plans"], m["excluded"], args))
        return 0
    variants = c.corpus_variants(args.data_dir)
    excluded = [(v.key, ", ".join(sorted(v.features & {"durative", "pddl3", "til"})))
                for v in c.all_variants(args.data_dir)
                if v.features & {"numeric", "derived"}
                and v.features & {"durative", "pddl3", "til"}]
    old = {}
    if (c.OUT / "manifest.json").exists():
        old = {(r["variant"], r["instance"]): r for r in c.load_manifest()["plans"]}
    only = [o for o in args.only.split(",") if o]
    todo = [(v, inst) for v in variants if not only or any(o in v.key for o in only)
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
        {"plans": records, "excluded": excluded}, separators=(",", ":")) + "\n")
    (c.OUT / "MANIFEST.md").write_text(manifest_md(records, excluded, args))
    solved = sum(1 for r in records if r["plan"])
    print(f"{solved} plans kept of {len(records)} instances in {len(variants)} variants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
