"""A* (and greedy best-first with ``weight=None``) over any transition system."""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from itertools import count

from veriplan.core.system import TransitionSystem
from veriplan.search.result import Budget, SearchResult, SearchStatus, stopped
from veriplan.search.trace import backtrack

INF = float("inf")


def astar(system: TransitionSystem, heuristic: Callable[[object], float], *,
          budget: Budget = Budget(), weight: float | None = 1.0) -> SearchResult:
    """A* with f = g + weight * h; ``weight=None`` orders by h alone (GBFS).

    Action costs come from ``system.action_cost(action)`` when the system has
    it, else 1. With an admissible heuristic and ``weight=1`` plans are optimal.
    """
    cost_of = getattr(system, "action_cost", None) or (lambda _a: 1)
    clock = budget.clock()
    over, cap = clock.over, clock.cap
    start = system.initial_state()
    g: dict = {start: 0}
    parent: dict = {start: None}
    tie = count()
    h0 = heuristic(start)
    if h0 == INF:
        return SearchResult(SearchStatus.EXHAUSTED, None, 0, 1, clock.elapsed())
    heap = [(_f(0, h0, weight), h0, next(tie), start)]
    closed: set = set()
    expanded = 0
    while heap:
        if expanded >= cap or not expanded & 7:  # (the clock is read every 8th)
            limit = over(expanded, len(g))
            if limit is not None:
                return stopped(clock, limit, expanded, len(g))
        _, _, _, state = heappop(heap)
        if state in closed:
            continue
        if system.is_goal(state):
            plan = backtrack(parent, state)
            return SearchResult(SearchStatus.SOLVED, plan, expanded, len(g), clock.elapsed(),
                                g[state])
        closed.add(state)
        expanded += 1
        gs = g[state]
        for action, nxt in system.successors(state):
            ng = gs + cost_of(action)
            if nxt in closed or ng >= g.get(nxt, INF):
                continue
            h = heuristic(nxt)
            if h == INF:
                continue
            g[nxt] = ng
            parent[nxt] = (state, action)
            heappush(heap, (_f(ng, h, weight), h, next(tie), nxt))
    return SearchResult(SearchStatus.EXHAUSTED, None, expanded, len(g), clock.elapsed())


def _f(g: float, h: float, weight: float | None) -> float:
    return h if weight is None else g + weight * h
