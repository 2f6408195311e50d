"""Depth-first search (graph search with a closed set, optional depth limit)."""

from __future__ import annotations

from veriplan.core.system import TransitionSystem
from veriplan.search.result import Budget, SearchResult, SearchStatus, stopped
from veriplan.search.trace import backtrack


def dfs(system: TransitionSystem, *, budget: Budget = Budget(),
        max_depth: int | None = None) -> SearchResult:
    clock = budget.clock()
    over, cap = clock.over, clock.cap
    start = system.initial_state()
    parent: dict = {start: None}
    stack = [(start, 0)]
    expanded = 0
    cut = False
    while stack:
        if expanded >= cap or not expanded & 7:  # (the clock is read every 8th)
            limit = over(expanded, len(parent))
            if limit is not None:
                return stopped(clock, limit, expanded, len(parent))
        state, depth = stack.pop()
        if system.is_goal(state):
            plan = backtrack(parent, state)
            return SearchResult(SearchStatus.SOLVED, plan, expanded, len(parent),
                                clock.elapsed(), len(plan))
        if max_depth is not None and depth >= max_depth:
            cut = True
            continue
        expanded += 1
        for action, nxt in system.successors(state):
            if nxt not in parent:
                parent[nxt] = (state, action)
                stack.append((nxt, depth + 1))
    status = SearchStatus.BUDGET if cut else SearchStatus.EXHAUSTED
    return SearchResult(status, None, expanded, len(parent), clock.elapsed())
