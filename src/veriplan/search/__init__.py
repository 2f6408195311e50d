"""Searches over any :class:`~veriplan.core.system.TransitionSystem`."""

from veriplan.search.astar import astar
from veriplan.search.bfs import bfs
from veriplan.search.dfs import dfs
from veriplan.search.heuristics import HEURISTICS, h_add, h_ff, make_heuristic
from veriplan.search.result import Budget, SearchResult, SearchStatus

__all__ = ["HEURISTICS", "Budget", "SearchResult", "SearchStatus", "astar", "bfs", "dfs",
           "h_add", "h_ff", "make_heuristic"]
