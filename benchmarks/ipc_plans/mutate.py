"""Seeded mutants of the corpus's planner-made plans.

For each plan ``tests/data/ipc_plans/<year>/<variant>/instance-N.plan`` (listed in
``manifest.json``), about ten mutants, the same ones on every run for one seed:

- ``drop``: one step left out (two positions);
- ``swap``: two adjacent, different steps exchanged (two positions);
- ``repeat``: one step done twice in a row (two positions);
- ``object``: one argument replaced by another object of the same declared type
  (two), and one by an object of another type (``object-type``, where there is one);
- ``truncate``: the last step left out.

A numeric perturbation is not applicable: these are sequential plans, with no number in
the plan file. Mutants equal to their original or to an earlier mutant are not kept.
They go to ``.../<variant>/mutants/instance-N.mNN.plan``, and ``mutants.jsonl`` lists
each with its original and what was done.

    python benchmarks/ipc_plans/mutate.py [--data-dir ../shared/data] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from pathlib import Path

import ipc_common as c


def _tokens(text: str) -> list[str]:
    return re.findall(r"\(|\)|[^\s()]+", c.strip_comments(text).lower())


def _section(tokens: list[str], key: str) -> list[str]:
    """The flat contents of ``(key ...)`` (first occurrence), or []."""
    for i in range(len(tokens) - 1):
        if tokens[i] == "(" and tokens[i + 1] == key:
            out, depth = [], 0
            for t in tokens[i + 2:]:
                if t == "(":
                    depth += 1
                elif t == ")":
                    if depth == 0:
                        return out
                    depth -= 1
                out.append(t)
    return []


def _typed(items: list[str]) -> dict[str, str]:
    """``a b - t c`` -> {a: t, b: t, c: object}; an ``(either ...)`` type as written."""
    out: dict[str, str] = {}
    pending: list[str] = []
    i = 0
    while i < len(items):
        t = items[i]
        if t == "-":
            if items[i + 1] == "(":
                j = items.index(")", i + 1)
                typ = " ".join(items[i + 1:j + 1])
                i = j + 1
            else:
                typ = items[i + 1]
                i += 2
            out.update(dict.fromkeys(pending, typ))
            pending = []
            continue
        if t not in "()":
            pending.append(t)
        i += 1
    out.update(dict.fromkeys(pending, "object"))
    return out


def objects_of(domain: Path, problem: Path) -> dict[str, str]:
    """Every object and constant of a task with its declared type."""
    objs = _typed(_section(_tokens(domain.read_text(errors="replace")), ":constants"))
    objs.update(_typed(_section(_tokens(problem.read_text(errors="replace")), ":objects")))
    return objs


def _split(step: str) -> list[str]:
    return step.strip("()").split()


def _join(parts: list[str]) -> str:
    return "(" + " ".join(parts) + ")"


def mutants(steps: list[str], objects: dict[str, str], rng: random.Random
            ) -> list[tuple[str, str, list[str]]]:
    """(mutation, what, steps) for one plan."""
    n = len(steps)
    out: list[tuple[str, str, list[str]]] = []
    for i in rng.sample(range(n), min(2, n)):
        out.append(("drop", f"step {i + 1} dropped", steps[:i] + steps[i + 1:]))
    pairs = [i for i in range(n - 1) if steps[i] != steps[i + 1]]
    for i in rng.sample(pairs, min(2, len(pairs))):
        s = list(steps)
        s[i], s[i + 1] = s[i + 1], s[i]
        out.append(("swap", f"steps {i + 1} and {i + 2} swapped", s))
    for i in rng.sample(range(n), min(2, n)):
        out.append(("repeat", f"step {i + 1} repeated", steps[:i + 1] + steps[i:]))
    slots = [(i, k) for i, st in enumerate(steps) for k in range(1, len(_split(st)))]
    by_type: dict[str, list[str]] = {}
    for o, t in objects.items():
        by_type.setdefault(t, []).append(o)
    same = [(i, k) for i, k in slots
            if len(by_type.get(objects.get(_split(steps[i])[k], "?"), [])) > 1]
    for i, k in rng.sample(same, min(2, len(same))):
        parts = _split(steps[i])
        old = parts[k]
        parts[k] = rng.choice(sorted(o for o in by_type[objects[old]] if o != old))
        s = list(steps)
        s[i] = _join(parts)
        out.append(("object", f"step {i + 1} argument {k}: {old} -> {parts[k]} (same type)", s))
    other = [(i, k) for i, k in slots
             if any(t != objects.get(_split(steps[i])[k]) for t in by_type)]
    if other:
        i, k = rng.choice(other)
        parts = _split(steps[i])
        old = parts[k]
        parts[k] = rng.choice(sorted(o for o, t in objects.items() if t != objects.get(old)))
        s = list(steps)
        s[i] = _join(parts)
        out.append(("object-type", f"step {i + 1} argument {k}: {old} -> {parts[k]} "
                    f"({objects.get(old)} -> {objects[parts[k]]})", s))
    if n:
        out.append(("truncate", f"last step (step {n}) cut", steps[:-1]))
    seen = {tuple(steps)}
    kept = []
    for m in out:
        if tuple(m[2]) not in seen:
            seen.add(tuple(m[2]))
            kept.append(m)
    return kept


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=c.DEFAULT_DATA)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ipc = args.data_dir / "ipc-dev"
    index = []
    for old in c.OUT.glob("*/*/mutants"):
        shutil.rmtree(old)
    for rec in c.load_manifest()["plans"]:
        if not rec["plan"]:
            continue
        plan = c.REPO / rec["plan"]
        steps = c.read_plan(plan)
        objects = objects_of(ipc / rec["domain"], ipc / rec["problem"])
        rng = random.Random(f"{args.seed}:{rec['plan']}")
        mdir = plan.parent / "mutants"
        for j, (kind, what, ms) in enumerate(mutants(steps, objects, rng), 1):
            target = mdir / f"{plan.stem}.m{j:02d}.plan"
            c.write_plan(target, ms)
            index.append({"plan": c.repo_rel(target), "original": rec["plan"],
                          "mutation": kind, "what": what})
    (c.OUT / "mutants.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index))
    n_plans = len({r["original"] for r in index})
    print(f"{len(index)} mutants of {n_plans} plans -> {c.repo_rel(c.OUT / 'mutants.jsonl')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
