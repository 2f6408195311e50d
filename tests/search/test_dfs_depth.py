"""Depth-limited DFS finds a plan whenever one within the limit exists (a state
first reached deep is opened again when reached shallower)."""

from __future__ import annotations

import random

from veriplan.search import SearchStatus, bfs, dfs


class Graph:
    """A hand-made state space: ``edges`` maps a state to its (action, next) pairs,
    in the order the search is given them."""

    def __init__(self, edges: dict[str, list[tuple[str, str]]], goal: str,
                 start: str = "S") -> None:
        self.edges, self.goal, self.start = edges, goal, start

    def initial_state(self) -> str:
        return self.start

    def successors(self, s: str):
        yield from self.edges.get(s, [])

    def is_goal(self, s: str) -> bool:
        return s == self.goal


# S's last successor is searched first (a stack): the long way S-L1-L2-X reaches X at
# depth 3, where the limit stops it; the short way S-A-X-G (3 steps) meets X again at
# depth 2. The old search had closed X and never expanded it from there.
DETOUR = Graph({"S": [("a", "A"), ("l1", "L1")], "L1": [("l2", "L2")], "L2": [("x", "X")],
                "A": [("ax", "X")], "X": [("g", "G")]}, goal="G")


def _walk(g: Graph, plan) -> str:
    s = g.start
    for action in plan:
        s = dict(g.edges[s])[action]
    return s


def test_a_state_first_met_deep_is_searched_again_when_met_shallower():
    r = dfs(DETOUR, max_depth=3)
    assert r.solved and r.plan == ("a", "ax", "g") and r.cost == 3
    assert r.generated == 6  # distinct states (X once, though it was reached twice)
    assert dfs(DETOUR, max_depth=2).status is SearchStatus.BUDGET  # no plan in 2 steps
    assert dfs(DETOUR).solved  # without a limit: the long way, as before
    assert dfs(DETOUR).plan == ("l1", "l2", "x", "g")


def test_the_plan_read_back_takes_the_shallower_route():
    # X is reached at depth 4 first (its parent L3), then at depth 2 (parent A): the
    # plan to G must follow the moved parent link and stay within the limit
    g = Graph({"S": [("a", "A"), ("l1", "L1")], "L1": [("l2", "L2")], "L2": [("l3", "L3")],
               "L3": [("x", "X")], "A": [("ax", "X")], "X": [("y", "Y")],
               "Y": [("g", "G")]}, goal="G")
    r = dfs(g, max_depth=4)
    assert r.solved and r.plan == ("a", "ax", "y", "g")
    assert dfs(g, max_depth=3).status is SearchStatus.BUDGET


def test_depth_limited_dfs_solves_exactly_when_bfs_finds_a_plan_that_short():
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        n = rng.randint(4, 12)
        names = [f"s{i}" for i in range(n)]
        edges = {s: [(f"{s}>{t}", t) for t in rng.sample(names, rng.randint(0, 3))]
                 for s in names}
        g = Graph(edges, goal=names[-1], start=names[0])
        shortest = bfs(g)
        for limit in range(0, 7):
            r = dfs(g, max_depth=limit)
            if shortest.solved and len(shortest.plan) <= limit:
                assert r.solved, (edges, limit)
                assert len(r.plan) <= limit and _walk(g, r.plan) == g.goal
                checked += 1
            else:
                assert not r.solved, (edges, limit)
                # a longer plan exists: the limit cut it off (not "no plan at all")
                assert r.status is (SearchStatus.BUDGET if shortest.solved
                                    else r.status)
    assert checked > 300
