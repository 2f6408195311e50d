"""veriplan against VAL on the corpus of planner-made plans and their mutants.

Reads ``tests/data/ipc_plans/val_verdicts.jsonl`` (``val_verdicts.py``) and judges each
plan with veriplan's API::

    task = load_task(domain, problem, strict=False)
    r = validate_plan(task, parse_plan(text, task))

then compares ``r.valid`` with VAL's verdict and, where both say valid and the problem
has a ``(:metric ...)``, ``r.metric.value`` with VAL's "Final value" (relative tolerance
1e-6; without a metric VAL prints the plan's length, which is not compared). A task
veriplan does not load is counted as refused, with its reason. Where both say invalid,
the first failing step is compared too (VAL's happening time N is step N), for the
record only.

Speed, in the same run: per problem, VAL batched (one ``Validate`` process for all the
problem's plans, without ``-v``) against veriplan (``load_task`` once, then
``parse_plan`` + ``validate_plan`` for each plan), wall and CPU, over the problems
veriplan reads.

    python benchmarks/ipc_plans/compare.py [--data-dir ../shared/data] [--repeat 1]
        [--show 40]

A disagreement that a known VAL defect explains (``known_val_defect``: VAL reads
``(> a b)`` as true at ``a = b``, VAL_NOTES.md) is listed as settled. Exit code 0 when
every disagreement is settled, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import ipc_common as c


def rel_close(a: float, b: float, tol: float = 1e-6) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def our_reason(r) -> str:
    if r.valid:
        return "valid"
    parts = []
    if getattr(r, "failed_step", None):
        parts.append(f"step {r.failed_step}")
    if getattr(r, "action", None):
        parts.append(str(r.action))
    if getattr(r, "error", None):
        parts.append(str(r.error))
    if getattr(r, "unmet_goals", ()):
        parts.append("unmet goals " + " ".join(str(g) for g in r.unmet_goals[:3]))
    if getattr(r, "unsatisfied", ()):
        parts.append("unsatisfied " + " ".join(str(u) for u in r.unsatisfied[:3]))
    if getattr(r, "detail", ""):
        parts.append(str(r.detail)[:200])
    return "; ".join(parts) or "invalid"


STRICT = re.compile(r"^\((>|<)\s")


def known_val_defect(r, val_ok: bool) -> str | None:
    """The VAL defect that explains a disagreement, if it is a known one."""
    if val_ok and not r.valid and any(STRICT.match(str(u).strip())
                                      for u in getattr(r, "unsatisfied", ())):
        return ("VAL defect: a strict comparison read as non-strict, (> a b) true at a = b "
                "(tests/data/ipc_plans/VAL_NOTES.md, section 3)")
    return None


def metric_value(r) -> float | None:
    m = getattr(r, "metric", None)
    if m is None:
        return None
    v = getattr(m, "value", m)
    return None if v is None else float(v)


def time_val(dom: Path, prob: Path, plans: list[str]) -> tuple[float, float]:
    cmd = [str(c.val_bin() / "Validate"), str(dom), str(prob), *plans]
    r = c.run(cmd, timeout=300, cwd=c.REPO, env=c.val_env())
    return r.wall, r.cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=c.DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=1, help="timing runs (the best is taken)")
    ap.add_argument("--show", type=int, default=40, help="disagreements listed")
    args = ap.parse_args()
    from veriplan.pddl.task import load_task
    from veriplan.planio import parse_plan
    from veriplan.verify.validator import validate_plan

    ipc = args.data_dir / "ipc-dev"
    rows = [json.loads(s) for s in (c.OUT / "val_verdicts.jsonl").read_text().splitlines()]
    by_problem: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        by_problem[(row["domain"], row["problem"])].append(row)

    counts: Counter = Counter()
    refused: Counter = Counter()
    refused_variants: dict[str, set] = defaultdict(set)
    errors: Counter = Counter()
    disagree: list[str] = []
    step_differs: list[str] = []
    per_variant: dict[str, Counter] = defaultdict(Counter)
    t_val = [0.0, 0.0]
    t_ours = [0.0, 0.0]
    t_val_all = [0.0, 0.0]
    n_timed = 0
    kinds = {r["variant"]: r["kind"] for r in c.load_manifest()["plans"]}
    by_kind: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for (dom_rel, prob_rel), group in by_problem.items():
        dom, prob = ipc / dom_rel, ipc / prob_rel
        has_metric = ":metric" in c.strip_comments(prob.read_text(errors="replace")).lower()
        plans = [g["plan"] for g in group]
        vw, vc = min((time_val(dom, prob, plans) for _ in range(args.repeat)),
                     key=lambda x: x[0])
        t_val_all[0] += vw
        t_val_all[1] += vc
        counts["pairs"] += len(group)
        best = None
        results: dict[str, object] = {}
        load_error = None
        for _ in range(args.repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            try:
                task = load_task(dom, prob, strict=False)
            except Exception as exc:  # noqa: BLE001 - a refusal is counted, with its reason
                load_error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                break
            for g in group:
                try:
                    text = (c.REPO / g["plan"]).read_text()
                    results[g["plan"]] = validate_plan(task, parse_plan(text, task))
                except Exception as exc:  # noqa: BLE001
                    results[g["plan"]] = exc
            took = (time.perf_counter() - w0, time.process_time() - c0)
            best = took if best is None or took[0] < best[0] else best
        if load_error is not None:
            counts["refused"] += len(group)
            refused[load_error] += len(group)
            refused_variants[load_error].add(group[0]["variant"])
            per_variant[group[0]["variant"]]["refused"] += len(group)
            continue
        n_timed += 1
        kt = by_kind[kinds.get(group[0]["variant"], "?")]
        for i, x in enumerate((vw, vc, best[0], best[1])):
            kt[i] += x
        t_val[0] += vw
        t_val[1] += vc
        t_ours[0] += best[0]
        t_ours[1] += best[1]
        for g in group:
            r = results[g["plan"]]
            pv = per_variant[g["variant"]]
            if isinstance(r, Exception):
                counts["veriplan error"] += 1
                errors[f"{type(r).__name__}: {str(r)[:160]}"] += 1
                pv["veriplan error"] += 1
                continue
            if g.get("verdict") == "error":
                counts["VAL error"] += 1
                pv["VAL error"] += 1
                continue
            counts["compared"] += 1
            val_ok = g.get("verdict") == "valid"
            what = f"{g['plan']} ({g.get('mutation') or 'original'})"
            if r.valid != val_ok:
                counts["disagree"] += 1
                pv["disagree"] += 1
                known = known_val_defect(r, val_ok)
                if known:
                    counts["settled"] += 1
                    what += f"\n    settled: {known}"
                disagree.append(f"{what}\n    VAL: {g.get('verdict')}: {g.get('reason') or ''} "
                                f"{g.get('advice') or ''}\n    veriplan: "
                                f"{'valid' if r.valid else 'invalid'}: {our_reason(r)}")
                continue
            if val_ok and has_metric and isinstance(g.get("final_value"), float):
                ours = metric_value(r)
                if ours is None or not rel_close(ours, g.get("final_value")):
                    counts["disagree"] += 1
                    pv["disagree"] += 1
                    disagree.append(f"{what}\n    metric: VAL {g.get('final_value')!r}, "
                                    f"veriplan {ours!r}")
                    continue
                counts["metric agree"] += 1
            counts["agree"] += 1
            pv["agree"] += 1
            if not val_ok and g.get("failed_time") is not None and r.failed_step is not None \
                    and int(g.get("failed_time")) != r.failed_step:
                step_differs.append(f"{what}: VAL step {int(g.get('failed_time'))}, "
                                    f"veriplan step {r.failed_step}")

    n_plans = len({r["plan"] for r in rows})
    n_orig = sum(1 for r in rows if r.get("original") is None)
    print(f"pairs (plan, VAL verdict): {counts['pairs']}; plans: {n_plans} "
          f"({n_orig} planner-made, {n_plans - n_orig} mutants) on {len(by_problem)} problems")
    print(f"agree: {counts['agree']} (metric values compared and equal: "
          f"{counts['metric agree']}); disagree: {counts['disagree']} "
          f"({counts['settled']} of them a known VAL defect); "
          f"veriplan refused: {counts['refused']}; veriplan error: {counts['veriplan error']}; "
          f"VAL error (not compared): {counts['VAL error']}")
    if refused:
        print("\nrefused (task not loaded), plans: reason [variants]")
        for why, n in refused.most_common():
            print(f"  {n:5d}  {why}  [{', '.join(sorted(refused_variants[why]))}]")
    if errors:
        print("\nveriplan raised while judging:")
        for why, n in errors.most_common(10):
            print(f"  {n:5d}  {why}")
    if disagree:
        print(f"\ndisagreements ({len(disagree)}; first {args.show}):")
        for d in disagree[:args.show]:
            print("  " + d)
    if step_differs:
        print(f"\nboth invalid, another first failing step ({len(step_differs)}):")
        for d in step_differs[:args.show]:
            print("  " + d)
    print("\nper variant:")
    for v, pv in sorted(per_variant.items()):
        print(f"  {v}: " + ", ".join(f"{k} {n}" for k, n in sorted(pv.items())))
    print(f"\nspeed: VAL batched per problem, all {len(by_problem)} problems: "
          f"wall {t_val_all[0]:.3f} s, CPU {t_val_all[1]:.3f} s")
    if n_timed:
        print(f"on the {n_timed} problems veriplan reads: VAL wall {t_val[0]:.3f} s, CPU "
              f"{t_val[1]:.3f} s; veriplan wall {t_ours[0]:.3f} s, CPU {t_ours[1]:.3f} s; "
              f"VAL/veriplan: wall {t_val[0] / max(t_ours[0], 1e-9):.2f}x, "
              f"CPU {t_val[1] / max(t_ours[1], 1e-9):.2f}x")
        for kind, (vw, vc, ow, oc) in sorted(by_kind.items()):
            print(f"  {kind}: VAL wall {vw:.3f} s, CPU {vc:.3f} s; veriplan wall {ow:.3f} s, "
                  f"CPU {oc:.3f} s; VAL/veriplan: wall {vw / max(ow, 1e-9):.2f}x, "
                  f"CPU {vc / max(oc, 1e-9):.2f}x")
    else:
        print("veriplan read none of the problems: no speed ratio")
    return 1 if counts["disagree"] > counts["settled"] else 0


if __name__ == "__main__":
    sys.exit(main())
