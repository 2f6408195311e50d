"""Blocksworld (AutoToS): the four PDDL actions on dictionary states, the
502 PlanBench-style instances; solutions are translated into PDDL actions and
checked by veriplan's validator, and BFS solutions must be optimal."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from veriplan.domains.autotos import blocksworld_reference
from veriplan.domains.autotos.base import (
    DomainData,
    Instance,
    SearchDomain,
    data_folder,
    read_records,
)


def key(state) -> tuple:
    return (tuple(sorted(state["clear"])), tuple(sorted(state["on-table"])),
            bool(state["arm-empty"]), state["holding"],
            tuple(sorted(map(tuple, state["on"]))))


TOWERS = ("Invalid transition: every tower has its bottom block on the table and its top "
          "block clear, so a state has as many clear blocks as blocks on the table. In this "
          "successor, the list of clear blocks and the list of blocks on the table differ "
          "in length.")
ADVICE = ("Reminders. After the arm picks up a block, it holds the block, which is then "
          "neither clear nor on the table. After the arm unstacks a block from another "
          "block, it holds the block, which is then not clear, and the block that was under "
          "it becomes clear. After the arm puts a block down, the arm is empty and the block "
          "is clear and on the table. After the arm stacks a block on another block, the "
          "block on top is clear and the block under it is no longer clear. "
          "Let's think step by step. First, think about how each action changes which "
          "blocks are clear. Then, think about how each action changes which blocks are on "
          "the table. Then write the complete Python code of the revised successor "
          "function, which returns a list of successor states. Remember how you fixed "
          "earlier mistakes, if any. Keep the same function signature.")


def partial_check(parent, child) -> str | None:
    """The paper's check (Appendix A.2): as many clear blocks as blocks on the
    table."""
    if len(child["clear"]) != len(child["on-table"]):
        return TOWERS
    return None


def true_goal(instance: Instance, state) -> bool:
    goal = instance.meta["goal"]
    try:
        on = {tuple(p) for p in state["on"]}
        return (all(tuple(p) in on for p in goal["on"])
                and all(b in state["clear"] for b in goal["clear"])
                and all(b in state["on-table"] for b in goal["on-table"]))
    except (KeyError, TypeError):
        return False


def _action(s: dict, t: dict) -> str | None:
    """The PDDL action between two consecutive states, or None."""
    if s["arm-empty"] and not t["arm-empty"]:
        x = t["holding"]
        if x in s["on-table"]:
            return f"(pick-up {x})"
        under = [b for a, b in s["on"] if a == x]
        return f"(unstack {x} {under[0]})" if under else None
    if not s["arm-empty"] and t["arm-empty"]:
        x = s["holding"]
        if x in t["on-table"] and x not in s["on-table"]:
            return f"(put-down {x})"
        under = [b for a, b in t["on"] if a == x]
        return f"(stack {x} {under[0]})" if under else None
    return None


@cache
def _task(domain_file: str, problem_file: str):
    from veriplan.pddl.task import load_task

    return load_task(domain_file, problem_file)


def validate(instance: Instance, path: list, strict: bool = False) -> str | None:
    """The paper's check: translate the state path into PDDL actions and
    validate them on the instance's PDDL task. ``strict`` also checks every
    state of the path against the simulation."""
    from veriplan.verify import validate_plan

    try:
        actions = [_action(s, t) for s, t in zip(path, path[1:])]
    except (KeyError, TypeError, IndexError):
        return "the solution's states are not Blocksworld states"
    if None in actions:
        i = actions.index(None)
        return f"no single action leads from {path[i]} to {path[i + 1]}"
    task = _task(instance.meta["domain_file"], instance.meta["problem_file"])
    result = validate_plan(task, actions, trace=strict)
    if not result.valid:
        return result.feedback()
    for state, facts in zip(path, result.trace or ()) if strict else ():
        if key(state) != key(_dict_state(set(facts))):
            return f"the state {state} differs from the simulation"
    return None


def _dict_state(facts: set[str]) -> dict:
    words = [f.strip("()").split() for f in facts]
    return {"clear": [w[1] for w in words if w[0] == "clear"],
            "on-table": [w[1] for w in words if w[0] == "ontable"],
            "arm-empty": any(w[0] == "handempty" for w in words),
            "holding": next((w[1] for w in words if w[0] == "holding"), None),
            "on": [[w[1], w[2]] for w in words if w[0] == "on"]}


def _instance(d: Path, name: str, optimal: int | None) -> Instance:
    task = _task(str(d / "domain.pddl"), str(d / name))
    init = _dict_state({str(a) for a in task.atoms(task.init)})
    goal_state = _dict_state({str(a) for a in task.atoms(task.goal.pos)})
    goal = {"clear": goal_state["clear"], "on-table": goal_state["on-table"],
            "on": goal_state["on"]}
    return Instance(Path(name).stem, init, {"goal": goal, "optimal": optimal,
                                            "domain_file": str(d / "domain.pddl"),
                                            "problem_file": str(d / name)})


def load(root: Path) -> DomainData:
    d = data_folder(root, "blocksworld", "solutions.csv", "Blocksworld")
    with open(d / "solutions.csv", newline="") as f:
        optimal = {row[0].strip(): int(row[1]) for row in csv.reader(f) if len(row) == 2}
    names = sorted(optimal, key=lambda n: int(Path(n).stem.split("-")[1]))
    evaluation = [_instance(d, n, optimal[n]) for n in names]
    with open(d / "unittests.csv", newline="") as f:
        units = [row[0].strip() for row in csv.reader(f) if len(row) == 2]
    examples = [_instance(d, n, None) for n in units]
    goals = read_records(d / "blocks_goals.jsonl", lines=False)
    non_goals = read_records(d / "blocks_non_goals.jsonl", lines=False)
    succs = read_records(d / "blocks_successors.jsonl", lines=False)
    return DomainData(
        evaluation=evaluation, examples=examples,
        goals=[Instance(f"goal-{i}", g["state"], {"goal": g["goal"]})
               for i, g in enumerate(goals)],
        non_goals=[Instance(f"non-goal-{i}", g["state"], {"goal": g["goal"]})
                   for i, g in enumerate(non_goals)],
        successors=[(s["state"], s["successors"]) for s in succs])


DOMAIN = SearchDomain(
    name="blocksworld", algorithm="bfs", load=load, reference=blocksworld_reference, key=key,
    partial_check=partial_check, true_goal=true_goal, same=key, validate=validate,
    optimal=True, goal_args=lambda inst: (inst.meta["goal"],), goal_params=("goal",),
    partial_advice=ADVICE)
