"""5x5 mini crosswords (AutoToS): 20 puzzles, each with ten candidate answers
per row and per column; DFS. A solution is checked here: every row and column
is one of its candidates, and each step only wrote letters into empty cells."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from veriplan.domains.autotos import crossword_reference
from veriplan.domains.autotos.base import (
    DomainData,
    Instance,
    SearchDomain,
    data_folder,
    read_records,
)


def key(state) -> tuple:
    return tuple(tuple(row) for row in state)


def _empty(state) -> int:
    return sum(c is None for row in state for c in row)


def _is_grid(state) -> bool:
    return (isinstance(state, list | tuple) and len(state) == 5
            and all(isinstance(r, list | tuple) and len(r) == 5 for r in state))


FEWER = "Invalid transition: the successor has fewer filled cells than its parent."
SAME = "Invalid transition: the successor has as many filled cells as its parent."
TOO_MANY = ("Invalid transition: the successor has more than 5 filled cells more than its "
            "parent.")
ADVICE = ("Let's think step by step. First, think about what you did wrong. Then, think "
          "about how a successor state should differ from its parent state. Then write the "
          "complete Python code of the revised successor function, which returns a list of "
          "successor states. Remember how you fixed earlier mistakes, if any. Keep the same "
          "function signature.")


def partial_check(parent, child) -> str | None:
    """The paper's check (Appendix A.3): each transition fills between 1 and 5
    more cells, and never empties one."""
    before, after = _empty(parent), _empty(child)
    if after > before:
        return FEWER
    if after == before:
        return SAME
    if before - after > 5:
        return TOO_MANY
    return None


def check_all(parent, children) -> tuple | None:
    """:func:`partial_check` over a parent's successors at once: the first
    failing successor and its message. Rows are counted with ``list.count``; a
    state it cannot read (a row that is not a list) raises, and the caller then
    checks the successors one by one."""
    before = sum([row.count(None) for row in parent])
    for child in children:
        after = sum([row.count(None) for row in child])
        if not 0 < before - after <= 5:
            return child, partial_check(parent, child)
    return None


def _solved(grid, h, v) -> bool:
    if not _is_grid(grid) or any(c is None for row in grid for c in row):
        return False
    rows = ["".join(map(str, r)) for r in grid]
    cols = ["".join(str(grid[i][j]) for i in range(5)) for j in range(5)]
    return all(rows[i] in h[i] for i in range(5)) and all(cols[j] in v[j] for j in range(5))


def true_goal(instance: Instance, state) -> bool:
    return _solved(state, instance.meta["horizontal"], instance.meta["vertical"])


def validate(instance: Instance, path: list, strict: bool = False) -> str | None:
    """The paper's check: the final grid is filled, and every row and every
    column is one of its candidates. ``strict`` also checks the way there: the
    solution starts from the empty grid and no step overwrites a letter."""
    if strict:
        if not path or _empty(path[0]) != 25:
            return "the solution does not start from the empty grid"
        for s, t in zip(path, path[1:]):
            if not _is_grid(t):
                return f"{t} is not a 5x5 grid"
            for i in range(5):
                for j in range(5):
                    if s[i][j] is not None and s[i][j] != t[i][j]:
                        return (f"a step overwrote the letter {s[i][j]!r} at row {i}, "
                                f"column {j}")
    if not path or not true_goal(instance, path[-1]):
        return "the final grid is not a solution: some row or column is not a candidate"
    return None


def _puzzles(path: Path, prefix: str) -> list[Instance]:
    out = []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) >= 2 and row[0].startswith("[["):
                h, v = json.loads(row[0]), json.loads(row[1])
                out.append(Instance(f"{prefix}-{len(out) + 1}", [[None] * 5 for _ in range(5)],
                                    {"horizontal": h, "vertical": v}))
    return out


def load(root: Path) -> DomainData:
    d = data_folder(root, "crossword5by5", "crossworld.csv", "crossword")

    def units(name: str, prefix: str) -> list[Instance]:
        return [Instance(f"{prefix}-{i}", x["state"], {"horizontal": x["horizontal_clues"],
                                                       "vertical": x["vertical_clues"]})
                for i, x in enumerate(read_records(d / name, lines=False))]

    succs = read_records(d / "crosswords_successors.jsonl", lines=False)
    return DomainData(
        evaluation=_puzzles(d / "crossworld.csv", "crossword"),
        examples=_puzzles(d / "unittests.csv", "unit"),
        goals=units("crosswords_goal.jsonl", "goal"),
        non_goals=units("crosswords_nongoal.jsonl", "non-goal"),
        successors=[(x["state"], x["successors"], {"horizontal": x["horizontal_clues"],
                                                    "vertical": x["vertical_clues"]})
                    for x in succs])


_PARAMS = ("horizontal_answers", "vertical_answers")


def _args(inst: Instance) -> tuple:
    return (inst.meta["horizontal"], inst.meta["vertical"])


DOMAIN = SearchDomain(
    name="crossword", algorithm="dfs", load=load, reference=crossword_reference, key=key,
    partial_check=partial_check, check_all=check_all, true_goal=true_goal, same=key,
    validate=validate,
    succ_args=_args, goal_args=_args, succ_params=_PARAMS, goal_params=_PARAMS,
    partial_advice=ADVICE)
