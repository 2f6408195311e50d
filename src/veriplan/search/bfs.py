"""Breadth-first search: shortest plans in number of steps."""

from __future__ import annotations

from collections import deque

from veriplan.core.system import TransitionSystem
from veriplan.search.result import Budget, SearchResult, SearchStatus, stopped
from veriplan.search.trace import backtrack


def bfs(system: TransitionSystem, *, budget: Budget = Budget()) -> SearchResult:
    clock = budget.clock()
    over, cap = clock.over, clock.cap
    start = system.initial_state()
    parent: dict = {start: None}
    if system.is_goal(start):
        return SearchResult(SearchStatus.SOLVED, (), 0, 1, clock.elapsed(), 0)
    queue = deque([start])
    expanded = 0
    while queue:
        if expanded >= cap or not expanded & 7:  # (the clock is read every 8th)
            limit = over(expanded, len(parent))
            if limit is not None:
                return stopped(clock, limit, expanded, len(parent))
        state = queue.popleft()
        expanded += 1
        for action, nxt in system.successors(state):
            if nxt in parent:
                continue
            parent[nxt] = (state, action)
            if system.is_goal(nxt):
                plan = backtrack(parent, nxt)
                return SearchResult(SearchStatus.SOLVED, plan, expanded, len(parent),
                                    clock.elapsed(), len(plan))
            queue.append(nxt)
    return SearchResult(SearchStatus.EXHAUSTED, None, expanded, len(parent), clock.elapsed())
