"""VAL's verdicts on the corpus: every planner-made plan and every mutant.

One ``Validate -v DOMAIN PROBLEM PLAN...`` a problem, with the original plan and all its
mutants (VAL judges several plan files in one call); the plans a call left without a
report (VAL stops a batch at some errors) are judged again one by one. Writes
``tests/data/ipc_plans/val_verdicts.jsonl``, one line a plan:

A key with no value (null) is left out of a line.

- ``domain``, ``problem``: the ipc-dev files, relative to the data folder
  (``ipc-2002/<variant>/...``); ``plan``, ``original``: relative to the repository;
  ``mutation``: how the mutant was made (null for an original; ``mutants.jsonl`` says
  what exactly);
- ``verdict``: ``valid``, ``invalid`` (VAL lists the plan under "Failed plans": a
  precondition, the goal, another execution failure, or a step VAL cannot read, e.g.
  an argument of the wrong type) or ``error`` (VAL judged nothing: domain/problem
  refused, crash, no report);
- ``outcome``: the finer class (valid, precondition, goal, execution, bad-plan,
  bad-operator, domain-error, crash, no-report); ``final_value``: VAL's "Final value"
  (a number) where printed; ``reason``: VAL's first failure line (with the step it
  names); ``advice``: its repair advice, what would make the step or goal true (e.g.
  ``(Set (holding c) to true)``); ``failed_time``: the
  happening VAL names (step N of a sequential plan is time N); ``val_input``, where
  present: VAL judged a copy of the files, and how it differs (``retry_renamed``).

    python benchmarks/ipc_plans/val_verdicts.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import ipc_common as c

FAIL = re.compile(r"Plan failed|unsatisfied precondition|Goal not satisfied|Mutex violation|"
                  r"Bad plan description|Bad operator|Type problem|undefined|"
                  r"Division by zero|Error|error|invalid|not satisfied|violat", re.I)


def parse_section(lines: list[str]) -> dict:
    """One plan's part of VAL's ``-v`` report -> verdict, outcome, value, reasons."""
    text = "\n".join(lines)
    out = {"verdict": "error", "outcome": "no-report", "final_value": None,
           "reason": None, "advice": None, "failed_time": None}
    m = re.search(r"^Final value:\s*(\S+)", text, re.M)
    if m:
        try:
            out["final_value"] = float(m.group(1))
        except ValueError:
            out["final_value"] = m.group(1)
    body = lines
    if "Plan Validation details" in text:
        body = lines[next(i for i, s in enumerate(lines) if s.startswith("Plan Validation"))
                     :]
    if re.search(r"^Plan valid\s*$", text, re.M):
        out["verdict"], out["outcome"] = "valid", "valid"
        return out
    if "Bad operator in plan" in text:
        out["outcome"] = "bad-operator"
    elif "Type problem in action" in text or "Bad plan description" in text:
        out["outcome"] = "bad-plan"
    elif "unsatisfied precondition" in text:
        out["outcome"] = "precondition"
    elif "Goal not satisfied" in text:
        out["outcome"] = "goal"
    elif re.search(r"Plan failed|Plan invalid|Mutex violation", text):
        out["outcome"] = "execution"
    if out["outcome"] in ("bad-plan", "precondition", "goal", "execution"):
        out["verdict"] = "invalid"
    if "Type problem in action" in text:
        name = next((m.group(1) for s in lines if (m := re.match(r"^   name: (\S+)$", s))), "?")
        args = [m.group(1) for s in lines if (m := re.match(r"^      name: ([^\[\s]+)", s))]
        out["reason"] = f"Type problem in action ({' '.join([name, *args])}): " \
                        "Bad plan description!"
        return out
    for i, s in enumerate(body):
        s = s.strip()
        if FAIL.search(s) and not s.startswith("Plan Repair Advice"):
            if s.endswith(":") and i + 1 < len(body):
                s = f"{s} {body[i + 1].strip()}"
            out["reason"] = s[:300]
            break
    if "Plan Repair Advice:" in text:
        k = lines.index(next(s for s in lines if s.startswith("Plan Repair Advice:")))
        rest = [s.strip() for s in lines[k + 1:] if s.strip()]
        if rest:
            t = re.search(r"at time ([0-9.]+)", rest[0])
            if t:
                out["failed_time"] = float(t.group(1))
            # the first line names the step or the goal again; the next says what to fix
            out["advice"] = " ".join(rest[1:3] if len(rest) > 1 else rest[:1])[:200]
    return out


def split_report(output: str, plans: list[str]) -> tuple[dict[str, dict], list[str]]:
    """The sections of one run by plan (as named on the command line), and the
    lines before the first ``Checking plan:`` (VAL's reading of domain and problem)."""
    lines = output.splitlines()
    starts = [i for i, s in enumerate(lines) if s.startswith("Checking plan: ")]
    pre = lines[:starts[0]] if starts else lines
    got: dict[str, dict] = {}
    for j, i in enumerate(starts):
        name = lines[i][len("Checking plan: "):].strip()
        end = starts[j + 1] if j + 1 < len(starts) else len(lines)
        sec = lines[i + 1:end]
        # the summary VAL prints after the last plan is not part of its section
        for k, s in enumerate(sec):
            if s.startswith(("Successful plans:", "Failed plans:")):
                sec = sec[:k]
                break
        if name in plans:
            got[name] = parse_section(sec)
    return got, pre


def validate(dom: Path, prob: Path, plans: list[str]) -> c.Run:
    cmd = [str(c.val_bin() / "Validate"), "-v", str(dom), str(prob), *plans]
    return c.run(cmd, timeout=300, cwd=c.REPO, env=c.val_env())


def judge(dom: Path, prob: Path, plans: list[str]) -> dict[str, dict]:
    r = validate(dom, prob, plans)
    got, pre = split_report(r.output, plans)
    for p in got.values():
        p["batched"] = True
    missing = [p for p in plans if p not in got]
    for p in missing:
        r1 = validate(dom, prob, [p])
        one, pre1 = split_report(r1.output, [p])
        if p in one:
            got[p] = one[p] | {"batched": False}
            continue
        lines = [s for s in r1.output.splitlines() if s.strip()]
        reason = next((s for s in lines if FAIL.search(s)), lines[-1] if lines else "")
        outcome = "crash" if r1.returncode is None or (r1.returncode or 0) < 0 else \
            "domain-error" if not any(s.startswith("Checking plan") for s in lines) else \
            "no-report"
        got[p] = {"verdict": "error", "outcome": outcome, "final_value": None,
                  "reason": reason[:300] + f" (exit {r1.returncode})", "advice": None,
                  "failed_time": None, "batched": False}
    return got


def retry_renamed(dom: Path, prob: Path, got: dict[str, dict]) -> dict[str, dict]:
    """VAL refuses a domain that declares a type ``number`` ("Problem in domain
    definition!"; promela's ADL domains do): its plans are judged again on copies with
    the type renamed ``number-type`` (no type is named in a plan), marked ``val_input``."""
    text = dom.read_text(errors="replace")
    if not all(g["outcome"] == "domain-error" for g in got.values()) or \
            not re.search(r"\bnumber\b", c.strip_comments(text), re.I) or \
            ":functions" in text.lower():
        return got
    with tempfile.TemporaryDirectory() as tmp:
        d, p = Path(tmp) / "domain.pddl", Path(tmp) / "problem.pddl"
        d.write_text(re.sub(r"\bnumber\b", "number-type", text, flags=re.I))
        p.write_text(re.sub(r"\bnumber\b", "number-type", prob.read_text(errors="replace"),
                            flags=re.I))
        again = judge(d, p, list(got))
    note = ("type number renamed number-type (VAL refuses the original domain: "
            "Problem in domain definition!)")
    return {k: v | {"val_input": note} for k, v in again.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=c.DEFAULT_DATA)
    args = ap.parse_args()
    ipc = args.data_dir / "ipc-dev"
    mutants: dict[str, list[dict]] = {}
    mfile = c.OUT / "mutants.jsonl"
    if mfile.exists():
        for line in mfile.read_text().splitlines():
            m = json.loads(line)
            mutants.setdefault(m["original"], []).append(m)
    rows = []
    for rec in c.load_manifest()["plans"]:
        if not rec["plan"]:
            continue
        entries = [{"plan": rec["plan"], "original": None, "mutation": None}]
        entries += [{"plan": m["plan"], "original": rec["plan"], "mutation": m["mutation"]}
                    for m in mutants.get(rec["plan"], [])]
        got = judge(ipc / rec["domain"], ipc / rec["problem"], [e["plan"] for e in entries])
        got = retry_renamed(ipc / rec["domain"], ipc / rec["problem"], got)
        for e in entries:
            rows.append({"variant": rec["variant"], "domain": rec["domain"],
                         "problem": rec["problem"], **e, **got[e["plan"]]})
        ok = sum(1 for e in entries if got[e["plan"]]["verdict"] == "valid")
        print(f"{rec['plan']}: {len(entries)} plans, {ok} valid, original "
              f"{got[rec['plan']]['verdict']} (value {got[rec['plan']]['final_value']})",
              flush=True)
    out = c.OUT / "val_verdicts.jsonl"
    # keys with no value are left out (null), to keep the file small
    out.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n"
                           for r in rows))
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{len(rows)} plans -> {c.repo_rel(out)}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
