"""Why states are int bitsets: breadth-first search over the same grounded
operators with int bitset states (veriplan's representation) and with
frozensets of atoms, on PlanBench Blocksworld problems.

    python benchmarks/state_representation.py [--data-dir ../shared/data] [--problems 30]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import common
from veriplan.core.condition import bits
from veriplan.pddl.task import load_task
from veriplan.search import bfs


class FrozensetSystem:
    """The task's ground STRIPS operators over frozenset-of-atom states."""

    def __init__(self, task) -> None:
        atoms = task.facts.atoms
        self.ops = [(op, frozenset(atoms[b] for b in bits(op.pre_pos)),
                     frozenset(atoms[b] for b in bits(op.add)),
                     frozenset(atoms[b] for b in bits(op.delete))) for op in task.ground()]
        self.init = frozenset(atoms[b] for b in bits(task.init))
        self.goal = frozenset(atoms[b] for b in bits(task.goal.pos))

    def initial_state(self):
        return self.init

    def successors(self, state):
        for op, pre, add, delete in self.ops:
            if pre <= state:
                yield op, (state - delete) | add

    def is_goal(self, state) -> bool:
        return self.goal <= state


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--problems", type=int, default=30)
    args = ap.parse_args()
    bw = Path(args.data_dir) / "planbench" / "instances" / "blocksworld"
    problems = sorted((bw / "generated_basic").glob("*.pddl"))[: args.problems]
    t_int = t_set = 0.0
    expanded = 0
    size_int = size_set = 0
    for p in problems:
        task = load_task(bw / "generated_domain.pddl", p)
        task.ground()
        sets = FrozensetSystem(task)
        start = time.perf_counter()
        a = bfs(task)
        t_int += time.perf_counter() - start
        start = time.perf_counter()
        b = bfs(sets)
        t_set += time.perf_counter() - start
        assert len(a.plan) == len(b.plan)
        expanded += a.expanded
        size_int += sys.getsizeof(task.init)
        size_set += sys.getsizeof(sets.init)
    print(f"problems: {len(problems)}, states expanded (each): {expanded}")
    print(f"int bitsets : {t_int * 1e3:8.1f} ms")
    print(f"frozensets  : {t_set * 1e3:8.1f} ms")
    print(f"ratio (frozensets / bitsets): {t_set / t_int:5.2f}x")
    n = len(problems)
    print(f"bytes per initial state (container only): int {size_int / n:.0f}, "
          f"frozenset {size_set / n:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
