"""Grounding under a budget (issue 46): each grounding bomb stops at its
deadline, at its cap on ground actions or when cancelled, with a
BudgetExceeded that names the schema; nothing of the partial grounding is kept."""

from __future__ import annotations

import threading

import pytest

from tests.helpers import blocks_task
from tests.pddl.bombs import BOMBS, bomb_task
from veriplan.core.budget import Budget, BudgetExceeded, BudgetLimit, InvalidBudgetError


@pytest.mark.parametrize("kind", sorted(BOMBS))
def test_every_bomb_stops_at_its_deadline_and_keeps_nothing(kind: str) -> None:
    task = bomb_task(kind)
    held = len(task._shared_ops), len(task._ops)
    with pytest.raises(BudgetExceeded, match="over its budget: its time limit of 0.2 s") as e:
        task.ground(Budget.within(0.2))
    assert e.value.limit is BudgetLimit.TIME
    assert "action a has up to" in str(e.value)
    assert task._ground is None  # nothing cached: the next call starts afresh
    assert (len(task._shared_ops), len(task._ops)) == held  # its operators dropped again


def test_a_cap_on_ground_actions_stops_a_bomb_without_any_deadline() -> None:
    with pytest.raises(BudgetExceeded, match="limit of 2,000 ground actions") as e:
        bomb_task().ground(Budget(max_ground_actions=2000))
    assert e.value.limit is BudgetLimit.GROUND_ACTIONS
    assert "2.8e+12 bindings" in str(e.value) and "60 objects" in str(e.value)


def test_a_cancel_from_another_thread_stops_grounding() -> None:
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    with pytest.raises(BudgetExceeded, match="cancel") as e:
        bomb_task("join").ground(Budget(cancel=cancel))
    assert e.value.limit is BudgetLimit.CANCELLED


def test_honest_tasks_ground_as_before_within_a_budget() -> None:
    within = blocks_task(4).ground(Budget.within(60, max_ground_actions=40))
    assert within == blocks_task(4).ground() and len(within) == 40


@pytest.mark.parametrize("bad", [{"max_seconds": float("nan")}, {"max_seconds": -1},
                                 {"max_ground_actions": 1.5}, {"max_states": -3}])
def test_a_budget_that_is_not_a_number_of_its_kind_is_refused(bad: dict) -> None:
    with pytest.raises(InvalidBudgetError, match=next(iter(bad)).replace("max_seconds",
                                                                         "time limit")):
        Budget(**bad)
