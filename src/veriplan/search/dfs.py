"""Depth-first search (graph search with a closed set, optional depth limit)."""

from __future__ import annotations

from veriplan.core.system import TransitionSystem
from veriplan.search.result import Budget, SearchResult, SearchStatus
from veriplan.search.trace import backtrack


def dfs(system: TransitionSystem, *, budget: Budget = Budget(),
        max_depth: int | None = None) -> SearchResult:
    clock = budget.clock()
    start = system.initial_state()
    parent: dict = {start: None}
    stack = [(start, 0)]
    expanded = 0
    cut = False
    while stack:
        if clock.out(expanded):
            return SearchResult(SearchStatus.BUDGET, None, expanded, len(parent), clock.elapsed())
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
