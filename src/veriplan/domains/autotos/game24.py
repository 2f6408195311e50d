"""The 24 Game: four numbers, combine two at a time with + - * / until one
number is left; the goal is 24. States are lists of numbers."""

from __future__ import annotations

from pathlib import Path

from veriplan.domains.autotos import game24_reference
from veriplan.domains.autotos.base import (
    DomainData,
    Instance,
    SearchDomain,
    data_folder,
    read_records,
)

_TOL = 1e-6


def _canon(state) -> tuple:
    return tuple(sorted(round(float(x), 6) for x in state))


def key(state) -> tuple:
    return tuple(sorted(state))


WRONG_LENGTH = ("Invalid transition: wrong length. A successor must hold exactly one number "
                "fewer than its parent.")
ADVICE = ("Let's think step by step. First, explain in words why the successor function "
          "produced a successor whose length is not exactly one less than its parent's. "
          "Then write the complete Python code of the revised successor function, making "
          "sure that every successor holds exactly one number fewer than its parent. "
          "Remember how you fixed earlier mistakes, if any. Keep the same function "
          "signature.")


def partial_check(parent, child) -> str | None:
    """The paper's check (Appendix A.1): one number fewer than the parent."""
    if len(child) != len(parent) - 1:
        return WRONG_LENGTH
    return None


def check_all(parent, children) -> tuple | None:
    """The partial check over all successors (C-level loops when all is well)."""
    if set(map(len, children)) <= {len(parent) - 1}:
        return None
    for child in children:
        msg = partial_check(parent, child)
        if msg:
            return child, msg
    return None


def true_goal(instance: Instance, state) -> bool:
    return isinstance(state, list | tuple) and len(state) == 1 and abs(state[0] - 24) < _TOL


def _numbers(state) -> list[float]:
    return [float(x) for x in state]


def _one_step(parent: list[float], child: list[float]) -> bool:
    """``child`` is ``parent`` with two numbers replaced by one result of them."""
    n = len(parent)
    target = _canon(child)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            a, b = parent[i], parent[j]
            rest = [parent[k] for k in range(n) if k not in (i, j)]
            results = [a + b, a - b, a * b] + ([a / b] if b != 0 else [])
            for v in results:
                if _canon(rest + [v]) == target:
                    return True
    return False


def validate(instance: Instance, path: list, strict: bool = False) -> str | None:
    """The paper's check: a solution is the state sequence from the four
    numbers to [24], each step one valid move (checked here, not by the
    generated code; the same with ``strict``)."""
    if not path or _canon(path[0]) != _canon(instance.init):
        return "the solution does not start at the instance's numbers"
    for s, t in zip(path, path[1:]):
        if len(t) != len(s) - 1 or not _one_step(_numbers(s), _numbers(t)):
            return f"{t} does not follow from {s} by one move"
    if not true_goal(instance, path[-1]):
        return f"the last state {path[-1]} is not [24]"
    return None


def load(root: Path) -> DomainData:
    """All puzzles but the held-out ones (``unittests.csv``: the first 10, whose
    states the unit tests use and which Step 3 searches) are evaluated: 1352 of
    1362, the paper's count."""
    import csv  # here: the sandbox child never reads the data
    d = data_folder(root, "twentyfourgame", "24.csv", "24 Game")
    with open(d / "24.csv", newline="") as f:
        puzzles = [row["Puzzles"] for row in csv.DictReader(f)]
    with open(d / "unittests.csv", newline="") as f:
        held_out = [row["Puzzles"] for row in csv.DictReader(f)]
    instances = [Instance(f"24-{i + 1}", _puzzle(p)) for i, p in enumerate(puzzles)
                 if p not in held_out]
    examples = [Instance(f"unit-{i + 1}", _puzzle(p)) for i, p in enumerate(held_out)]
    goals = read_records(d / "24game_goals.jsonl", lines=True)
    non_goals = read_records(d / "24game_non_goals.jsonl", lines=True)
    succs = read_records(d / "24game_successors.jsonl", lines=True)
    return DomainData(
        evaluation=instances, examples=examples,
        goals=[Instance(f"goal-{i}", s) for i, s in enumerate(goals)],
        non_goals=[Instance(f"non-goal-{i}", s) for i, s in enumerate(non_goals)],
        successors=[(p, list(s)) for p, s in succs])


def _puzzle(text: str) -> list[int]:
    return [int(x) for x in text.split()]


DOMAIN = SearchDomain(
    name="24game", algorithm="bfs", load=load, reference=game24_reference, key=key,
    partial_check=partial_check, true_goal=true_goal, same=_canon, validate=validate,
    check_all=check_all, partial_advice=ADVICE)
