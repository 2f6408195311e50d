"""Delete-relaxation heuristics over a grounded PDDL task: h_add and h_FF.

Both treat the goal and preconditions by their positive conjunctive part
(``pos`` bits); disjunctive and negative parts are ignored, which keeps h_add
and h_FF informative and the search sound (every plan is validated anyway).
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush

from veriplan.core.condition import Conj, bits
from veriplan.errors import ConfigError
from veriplan.pddl.task import Task
from veriplan.registry import Registry

INF = float("inf")
Heuristic = Callable[[int], float]


class _Relaxed:
    def __init__(self, task: Task) -> None:
        ops = task.ground()
        self.ops = ops
        self.pre = [list(bits(op.pre_pos)) for op in ops]
        adds = []
        for op in ops:
            a = op.add
            for ce in op.cond_effects:
                a |= ce.add
            adds.append(list(bits(a)))
        self.adds = adds
        self.cost = [op.cost if task.uses_costs else 1 for op in ops]
        self.users: dict[int, list[int]] = {}
        for i, pre in enumerate(self.pre):
            for b in pre:
                self.users.setdefault(b, []).append(i)
        self.no_pre = [i for i, pre in enumerate(self.pre) if not pre]
        goal = task.goal
        self.goal = list(bits(goal.pos)) if isinstance(goal, Conj) else []

    def costs(self, state: int, goal_bits: set[int] | None = None
              ) -> tuple[dict[int, float], dict[int, int]]:
        """h_add costs of facts, and the best supporter of each reached fact."""
        cost: dict[int, float] = {b: 0 for b in bits(state)}
        support: dict[int, int] = {}
        waiting = [len(p) for p in self.pre]
        opcost = [0.0] * len(self.ops)
        heap: list[tuple[float, int]] = [(0, b) for b in cost]
        for i in self.no_pre:
            self._fire(i, 0.0, cost, support, heap)
        remaining = set(goal_bits) if goal_bits else None
        while heap:
            c, b = heappop(heap)
            if c > cost.get(b, INF):
                continue
            if remaining is not None:
                remaining.discard(b)
                if not remaining:
                    break
            for i in self.users.get(b, ()):
                opcost[i] += c
                waiting[i] -= 1
                if waiting[i] == 0:
                    self._fire(i, opcost[i], cost, support, heap)
        return cost, support

    def _fire(self, i: int, pre_cost: float, cost, support, heap) -> None:
        c = pre_cost + self.cost[i]
        for b in self.adds[i]:
            if c < cost.get(b, INF):
                cost[b] = c
                support[b] = i
                heappush(heap, (c, b))


def fact_costs(task: Task) -> Callable[[int], dict[int, float]]:
    """h_add's cost of every fact reachable (delete-relaxed) from a state."""
    r = _Relaxed(task)
    return lambda state: r.costs(state)[0]


def h_add(task: Task) -> Heuristic:
    r = _Relaxed(task)

    def h(state: int) -> float:
        cost, _ = r.costs(state, set(r.goal))
        return sum(cost.get(g, INF) for g in r.goal)

    return h


def h_ff(task: Task) -> Heuristic:
    r = _Relaxed(task)

    def h(state: int) -> float:
        cost, support = r.costs(state, set(r.goal))
        if any(g not in cost for g in r.goal):
            return INF
        chosen: set[int] = set()
        stack = [g for g in r.goal if g in support]
        seen = set(stack)
        while stack:
            b = stack.pop()
            i = support.get(b)
            if i is None or i in chosen:
                continue
            chosen.add(i)
            for p in r.pre[i]:
                if p not in seen and p in support:
                    seen.add(p)
                    stack.append(p)
        return sum(r.cost[i] for i in chosen)

    return h


class UnknownHeuristicError(ConfigError, ValueError):
    """A heuristic name that is not registered (names the choices)."""


HEURISTICS: Registry[Callable[[Task], Heuristic]] = Registry(
    "heuristic", {"hadd": h_add, "hff": h_ff}, group="veriplan.heuristics",
    error=UnknownHeuristicError)


def make_heuristic(name: str, task: Task) -> Heuristic:
    """The heuristic ``name`` built for ``task``."""
    return HEURISTICS.get(name)(task)


__all__ = ["HEURISTICS", "UnknownHeuristicError", "h_add", "h_ff", "make_heuristic"]
