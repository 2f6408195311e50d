"""Searches over the transition-system protocol: a toy system and PDDL tasks."""

from __future__ import annotations

from tests.helpers import adl_task, blocks_task
from veriplan.pddl.task import load_task
from veriplan.search import Budget, SearchStatus, astar, bfs, dfs, h_add, h_ff
from veriplan.verify import validate_plan


class Counter:
    """States are integers; actions add 1 or double; goal: reach a target."""

    def __init__(self, target: int) -> None:
        self.target = target

    def initial_state(self) -> int:
        return 1

    def successors(self, s: int):
        if s < 10 * self.target:
            yield "+1", s + 1
            yield "*2", s * 2

    def is_goal(self, s: int) -> bool:
        return s == self.target


def test_bfs_finds_shortest_on_toy_system():
    r = bfs(Counter(10))
    assert r.solved and r.plan == ("+1", "*2", "+1", "*2")  # 1->2->4->5->10


def test_dfs_and_depth_limit():
    r = dfs(Counter(10))
    assert r.solved
    assert dfs(Counter(1000), max_depth=3).status == SearchStatus.BUDGET


def test_budget_stops_search():
    r = bfs(Counter(10**6), budget=Budget(max_expansions=50))
    assert r.status == SearchStatus.BUDGET and r.expanded == 50


def test_exhausted_when_no_plan():
    class Dead(Counter):
        def is_goal(self, s: int) -> bool:
            return False
    assert bfs(Dead(5)).status == SearchStatus.EXHAUSTED


def test_bfs_and_uniform_cost_are_optimal_on_autotos_blocksworld(data_dir):
    """Our optimal searches match the optimal plan lengths in AutoToS's data."""
    base = data_dir / "autotos" / "blocksworld"
    rows = [line.split(",") for line in (base / "solutions.csv").read_text().splitlines()
            if line.strip()]
    assert len(rows) >= 40
    for name, length in rows[:40]:
        task = load_task(base / "domain.pddl", base / name.strip())
        r = bfs(task)
        assert r.solved and len(r.plan) == int(length), name
        a = astar(task, lambda s: 0)  # uniform-cost search
        assert a.solved and len(a.plan) == int(length)
        assert validate_plan(task, r.plan).valid and validate_plan(task, a.plan).valid


def test_heuristic_searches_give_valid_plans():
    for task in (blocks_task(5), adl_task()):
        for h in (h_add, h_ff):
            r = astar(task, h(task), weight=None)
            assert r.solved and validate_plan(task, r.plan).valid
        opt = astar(task, lambda s: 0)
        assert opt.cost == bfs(task).cost or task.uses_costs
    assert astar(adl_task(), lambda s: 0).cost == 9


def test_a_cap_on_states_stops_every_search():
    from veriplan.core.budget import BudgetLimit

    for run in (lambda b: bfs(Counter(10**6), budget=b), lambda b: dfs(Counter(10**6), budget=b),
                lambda b: astar(Counter(10**6), lambda s: 0, budget=b)):
        r = run(Budget(max_states=500))
        assert r.status == SearchStatus.BUDGET and r.limit is BudgetLimit.STATES
        assert 500 < r.generated <= 500 + 2 * 8  # (read every 8th expansion)


def test_a_cancelled_or_past_deadline_search_stops():
    import threading

    from veriplan.core.budget import BudgetLimit

    cancel = threading.Event()
    cancel.set()
    r = bfs(Counter(10**6), budget=Budget(cancel=cancel))
    assert r.status == SearchStatus.BUDGET and r.limit is BudgetLimit.CANCELLED
    r = bfs(Counter(10**6), budget=Budget.within(0))
    assert r.status == SearchStatus.BUDGET and r.limit is BudgetLimit.TIME
