"""Limits the child cannot reach (issue 46): the time of a call is kept in the
parent, whatever the child writes on its heartbeat, and the answer pipe is read
into a bounded buffer, the child killed at the cap. Checked by outcome (which
category, which function), not by a stopwatch."""

from __future__ import annotations

import tracemalloc

import pytest

from tests.sandbox import hostile
from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos import Config, judge
from veriplan.methods.autotos.method import check
from veriplan.sandbox import Category, Limits, run_code

DOMAIN = get_domain("24game")
SUCC, GOAL = DOMAIN.reference_code("succ"), DOMAIN.reference_code("goal")
EXAMPLES = [{"id": "u", "init": [1, 1, 4, 6], "meta": {}}]
UNITS = [{"id": "g", "init": [24], "meta": {"expected": True}}]
# Before, a job like these ran to its wall clock (call_limit + 60 s for the goal
# tests, search_limit + 60 s for a search) and ended as search_timeout of succ
FAST = Config(search_limit=2)


def deep(body: str) -> str:
    """Run ``body`` on the search's last level (states of one number)."""
    return "if len(state) == 1:\n" + hostile.indent(body)


@pytest.mark.parametrize("role, mode", [("goal", "goal_tests"), ("goal", "soundness"),
                                        ("succ", "soundness")])
def test_a_zeroed_heartbeat_does_not_stop_the_clock(role, mode):
    body = deep(hostile.ZERO_HEARTBEAT) if role == "goal" else hostile.ZERO_HEARTBEAT
    code = hostile.function(role, body, "False" if role == "goal" else "[]")
    succ, goal = (SUCC, code) if role == "goal" else (code, GOAL)
    out = check(DOMAIN, mode, succ, goal, FAST,
                instances=UNITS if mode == "goal_tests" else EXAMPLES)
    failure = out["failure"]
    assert failure["category"] == f"{role}_too_slow", failure
    assert "stopped from outside" in failure["message"]
    if mode == "soundness":  # the call that ran, named from the parent's side
        state = failure["evidence"]["state"]
        assert len(state) == 1 if role == "goal" else state == [1, 1, 4, 6]


@pytest.mark.parametrize("mode", ["goal_tests", "soundness"])
def test_a_forged_heartbeat_is_stopped_at_the_instances_deadline(mode, monkeypatch):
    # the forger keeps the heartbeat moving: the per-instance deadline, kept here
    # from the instance's first line, stops it (its slack made small to run fast)
    monkeypatch.setattr(judge, "SLACK", 0.2)
    goal = hostile.function("goal", deep(hostile.FORGE_HEARTBEAT), "False")
    out = check(DOMAIN, mode, SUCC, goal, Config(search_limit=1, call_limit=0.5),
                instances=UNITS if mode == "goal_tests" else EXAMPLES)
    failure = out["failure"]
    if mode == "goal_tests":  # one call per instance: the goal test's
        assert failure["category"] == "goal_too_slow", failure
    else:
        assert failure["category"] == "search_timeout", failure
        assert "stopped from outside" in failure["message"]


def test_a_flood_without_a_newline_is_killed_at_the_cap():
    # 48 MB offered, one line: killed once the line passes 1 MB; the parent never
    # holds much more than that (before: the whole flood, copied on every read,
    # and the outcome was not one of its own)
    tracemalloc.start()
    try:
        out = run_code(hostile.FLOOD_ANSWER.format(mb=48),
                       Limits(wall_seconds=60, cpu_seconds=60, answer_mb=64, line_mb=1))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.category == Category.TOO_LARGE, (out.category, out.detail)
    assert "line longer than 1 MB" in out.detail
    assert peak < 8 * 1024 * 1024, peak


def test_an_answer_past_its_cap_is_killed_with_its_own_outcome():
    out = run_code(hostile.FLOOD_ANSWER.format(mb=8) + "result = 1",
                   Limits(wall_seconds=60, cpu_seconds=60, answer_mb=2, line_mb=64))
    assert out.category == Category.TOO_LARGE and out.category != Category.TIMEOUT
    assert "more than 2 MB" in out.detail


def test_lines_under_the_caps_come_back_whole():
    out = run_code("result = 'y' * (1 << 20)", Limits(wall_seconds=60, cpu_seconds=60,
                                                        answer_mb=4, line_mb=2))
    assert out.ok and out.result == "y" * (1 << 20)
