"""Sokoban (AutoToS): IPC 2008 problems in PDDL, read into a grid and
dictionary states; BFS solutions are translated into the PDDL actions and
checked by veriplan's validator, and must be optimal."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from veriplan.domains.autotos import sokoban_reference
from veriplan.domains.autotos.base import (
    DomainData,
    Instance,
    SearchDomain,
    data_folder,
    read_records,
)

_POS = re.compile(r"pos-(\d+)-(\d+)$")


def key(state) -> tuple:
    return (tuple(state["at-player"]), tuple(sorted(map(tuple, state["at-stone"]))))


STONES = "Invalid transition: two or more stones are on the same cell."
PLAYER = "Invalid transition: the player and a stone are on the same cell."
ADVICE = ("Let's think step by step. First, explain in words why the successor function "
          "produced such a successor. Then write the complete Python code of the revised "
          "successor function, making sure that in every successor the stones are on "
          "different cells and the player is on none of them. Remember how you fixed "
          "earlier mistakes, if any. Keep the same function signature.")


def partial_check(parent, child) -> str | None:
    """The paper's check (Appendix A.5): the stones are on different cells, and
    the player is on none of them."""
    stones = [tuple(s) for s in child["at-stone"]]
    if len(set(stones)) < len(stones):
        return STONES
    if tuple(child["at-player"]) in stones:
        return PLAYER
    return None


def check_all(parent, children) -> tuple | None:
    """:func:`partial_check` over all successors of a state at once."""
    for child in children:
        stones = list(map(tuple, child["at-stone"]))
        if len(set(stones)) < len(stones):
            return child, STONES
        if tuple(child["at-player"]) in stones:
            return child, PLAYER
    return None


def true_goal(instance: Instance, state) -> bool:
    grid = instance.meta["grid"]
    try:
        return all(grid[r][c] == 2 for r, c in state["at-stone"])
    except (KeyError, TypeError, IndexError):
        return False


def _cell(loc: str) -> tuple[int, int] | None:
    m = _POS.match(loc)
    return (int(m.group(1)) - 1, int(m.group(2)) - 1) if m else None


@cache
def _task(domain_file: str, problem_file: str):
    from veriplan.pddl.task import load_task

    return load_task(domain_file, problem_file)


def _read(domain_file: Path, problem_file: Path) -> tuple[dict, list, dict]:
    """(state, grid, meta) from a PDDL problem: grid[r][c] for pos-(r+1)-(c+1)."""
    task = _task(str(domain_file), str(problem_file))
    atoms = task.atoms(task.init)
    cells = [c for c in (_cell(o) for o in task.objects) if c]
    rows, cols = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    grid = [[1] * cols for _ in range(rows)]
    player, stones, names = None, [], {}
    for a in atoms:
        if a.pred == "clear":
            r, c = _cell(a.args[0])
            grid[r][c] = 0
        elif a.pred == "at":
            r, c = _cell(a.args[1])
            grid[r][c] = 0
            if a.args[0].startswith("player"):
                player = [r, c]
            else:
                stones.append([r, c])
                names[(r, c)] = a.args[0]
    for a in atoms:
        if a.pred == "is-goal":
            r, c = _cell(a.args[0])
            grid[r][c] = 2
    dirs = {}
    for a in atoms:
        if a.pred == "move-dir":
            (r1, c1), (r2, c2) = _cell(a.args[0]), _cell(a.args[1])
            dirs[(r2 - r1, c2 - c1)] = a.args[2]
    player_name = next(o for o in task.objects if o.startswith("player"))
    meta = {"grid": grid, "stones": {f"{r},{c}": n for (r, c), n in names.items()},
            "dirs": {f"{dr},{dc}": d for (dr, dc), d in dirs.items()}, "player": player_name,
            "domain_file": str(domain_file), "problem_file": str(problem_file)}
    return {"at-player": player, "at-stone": sorted(stones)}, grid, meta


def _actions(instance: Instance, path: list) -> list[str] | str:
    meta = instance.meta
    names = {tuple(map(int, k.split(","))): v for k, v in meta["stones"].items()}
    dirs = {tuple(map(int, k.split(","))): v for k, v in meta["dirs"].items()}
    grid = meta["grid"]
    out = []
    for s, t in zip(path, path[1:]):
        (r1, c1), (r2, c2) = s["at-player"], t["at-player"]
        d = dirs.get((r2 - r1, c2 - c1))
        if d is None:
            return f"the player cannot get from {s['at-player']} to {t['at-player']} in one step"
        loc = _loc_namer(meta)
        if (r2, c2) in names:  # a push
            stone = names.pop((r2, c2))
            r3, c3 = 2 * r2 - r1, 2 * c2 - c1
            names[(r3, c3)] = stone
            kind = "push-to-goal" if grid[r3][c3] == 2 else "push-to-nongoal"
            out.append(f"({kind} {meta['player']} {stone} {loc(r1, c1)} {loc(r2, c2)} "
                       f"{loc(r3, c3)} {d})")
        else:
            out.append(f"(move {meta['player']} {loc(r1, c1)} {loc(r2, c2)} {d})")
    return out


def _loc_namer(meta: dict):
    names = meta["locations"]
    return lambda r, c: names[f"{r},{c}"]


def validate(instance: Instance, path: list, strict: bool = False) -> str | None:
    """The paper's check: translate into PDDL actions, which the validator
    checks on the task (the same with ``strict``)."""
    from veriplan.verify import validate_plan

    try:
        actions = _actions(instance, path)
    except (KeyError, TypeError, IndexError, ValueError):
        return "the solution's states are not Sokoban states of this grid"
    if isinstance(actions, str):
        return actions
    task = _task(instance.meta["domain_file"], instance.meta["problem_file"])
    result = validate_plan(task, actions)
    return None if result.valid else result.feedback()


def _instance(d: Path, folder: str, name: str, optimal: dict) -> Instance:
    state, grid, meta = _read(d / "domain.pddl", d / folder / name)
    task = _task(str(d / "domain.pddl"), str(d / folder / name))
    meta["locations"] = {f"{c[0]},{c[1]}": o for o in task.objects if (c := _cell(o))}
    meta["optimal"] = optimal.get(name)
    return Instance(Path(name).stem, state, meta)


def load(root: Path) -> DomainData:
    d = data_folder(root, "sokoban", "sokoban_optimal_costs.json", "Sokoban")
    optimal = json.loads((d / "sokoban_optimal_costs.json").read_text())

    def folder(name: str) -> list[Instance]:
        files = sorted(p.name for p in (d / name).glob("*.pddl"))
        return [_instance(d, name, f, optimal) for f in files]

    def units(name: str) -> list[Instance]:
        items = read_records(d / name, lines=True)
        return [Instance(f"{name}-{i}", x["state"], {"grid": x["grid"]})
                for i, x in enumerate(items)]

    succs = read_records(d / "sokoban_successors.jsonl", lines=True)
    return DomainData(
        evaluation=folder("test_instances"), examples=folder("unittests_instances"),
        goals=units("sokoban_goals.jsonl"), non_goals=units("sokoban_non_goals.jsonl"),
        successors=[(x["state"], x["successors"], {"grid": x["grid"]}) for x in succs])


def _grid(inst: Instance) -> tuple:
    return (inst.meta["grid"],)


DOMAIN = SearchDomain(
    name="sokoban", algorithm="bfs", load=load, reference=sokoban_reference, key=key,
    partial_check=partial_check, check_all=check_all, true_goal=true_goal, same=key,
    validate=validate,
    optimal=True, succ_args=_grid, goal_args=_grid, succ_params=("grid",),
    goal_params=("grid",), partial_advice=ADVICE)
