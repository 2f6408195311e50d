"""Depth-first search (graph search with a closed set, optional depth limit)."""

from __future__ import annotations

from veriplan.core.system import TransitionSystem
from veriplan.search.result import Budget, SearchResult, SearchStatus, stopped
from veriplan.search.trace import backtrack


def dfs(system: TransitionSystem, *, budget: Budget = Budget(),
        max_depth: int | None = None) -> SearchResult:
    """Depth-first graph search; with ``max_depth``, a plan of at most ``max_depth``
    steps whenever one exists (not always the shortest one).

    Without a depth limit a state is closed once generated. With one, a state
    first reached deep (on the branch searched first) may be reached again
    shallower on a later branch, and only from there can the goal be within the
    limit: so each state keeps the shallowest depth it was reached at, and is
    opened again (its parent link moved to the shallower route) whenever it is
    reached shallower. A state is expanded at most ``max_depth + 1`` times.
    ``generated`` counts distinct states, as without a limit."""
    if max_depth is None:
        return _unbounded(system, budget)
    return _bounded(system, budget, max_depth)


def _unbounded(system: TransitionSystem, budget: Budget) -> SearchResult:
    clock = budget.clock()
    over, cap = clock.over, clock.cap
    start = system.initial_state()
    parent: dict = {start: None}
    stack = [start]
    expanded = 0
    while stack:
        if expanded >= cap or not expanded & 7:  # (the clock is read every 8th)
            limit = over(expanded, len(parent))
            if limit is not None:
                return stopped(clock, limit, expanded, len(parent))
        state = stack.pop()
        if system.is_goal(state):
            plan = backtrack(parent, state)
            return SearchResult(SearchStatus.SOLVED, plan, expanded, len(parent),
                                clock.elapsed(), len(plan))
        expanded += 1
        for action, nxt in system.successors(state):
            if nxt not in parent:
                parent[nxt] = (state, action)
                stack.append(nxt)
    return SearchResult(SearchStatus.EXHAUSTED, None, expanded, len(parent), clock.elapsed())


def _bounded(system: TransitionSystem, budget: Budget, max_depth: int) -> SearchResult:
    clock = budget.clock()
    over, cap = clock.over, clock.cap
    start = system.initial_state()
    parent: dict = {start: None}
    # the shallowest depth each state was reached at; along parent links it falls
    # by at least one a step, so a plan read back is acyclic and <= max_depth long
    depth_of: dict = {start: 0}
    stack = [(start, 0)]
    expanded = 0
    cut = False
    while stack:
        if expanded >= cap or not expanded & 7:  # (the clock is read every 8th)
            limit = over(expanded, len(parent))
            if limit is not None:
                return stopped(clock, limit, expanded, len(parent))
        state, depth = stack.pop()
        if depth > depth_of[state]:
            continue  # reached shallower since it was pushed: that entry opens it
        if system.is_goal(state):
            plan = backtrack(parent, state)
            return SearchResult(SearchStatus.SOLVED, plan, expanded, len(parent),
                                clock.elapsed(), len(plan))
        if depth >= max_depth:
            cut = True
            continue
        expanded += 1
        below = depth + 1
        for action, nxt in system.successors(state):
            seen = depth_of.get(nxt)
            if seen is None or below < seen:
                parent[nxt] = (state, action)
                depth_of[nxt] = below
                stack.append((nxt, below))
    status = SearchStatus.BUDGET if cut else SearchStatus.EXHAUSTED
    return SearchResult(status, None, expanded, len(parent), clock.elapsed())
