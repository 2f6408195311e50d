"""The MCP server stays answerable whatever its callers send (issue 46): calls
that ground a bomb come back over their budget (the worker itself stops, its
slot and memory are given back), and a plan is validated normally after them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.mcp.conftest import Server, start, text_of, workspace
from tests.pddl.bombs import BOMB_DOMAIN, BOMB_PROBLEM
from veriplan.mcp import tools as T
from veriplan.mcp.config import Roots, ServerConfig

TASK = {"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl"}
BOMB = {"domain": BOMB_DOMAIN, "problem": BOMB_PROBLEM}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with a short limit and two slots: two workers that went on past
    their time would leave it busy for every later call."""
    s = start(workspace(tmp_path_factory.mktemp("budget")), "--time-limit", "1",
              "--max-calls", "2")
    yield s
    s.close()


def test_twenty_bombs_then_a_plan_is_validated_normally(small: Server) -> None:
    for n in range(20):
        if n % 10 == 9:  # (the server's own limit: a second each)
            r = small.call("applicable_actions", BOMB)
        else:
            r = small.call("solve_classical", {**BOMB, "planner": ("bfs", "astar-hff")[n % 2],
                                               "time_limit": 0.1})
        assert r.is_error, n
        assert "grounding task bomb/b stopped over its budget" in text_of(r), text_of(r)
    r = small.call("validate_plan", {**TASK, "plan_path": "blocks-plan.txt"})
    assert not r.is_error, text_of(r)
    assert r.structured_content["valid"]
    # an invalid plan on the bomb itself: judged, its hints without ground actions
    r = small.call("validate_plan", {**BOMB, "plan": "(a o1 o1 o1 o1 o1 o1 o1)"})
    assert not r.is_error, text_of(r)
    doc = r.structured_content
    assert doc["verdict"] == "invalid" and doc["repair_hints"][0]["ground_actions"] == []


def test_run_call_gives_the_slot_back_after_each_bomb(tmp_path: Path) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from veriplan.mcp.calls import run_call

    cfg = ServerConfig(roots=Roots.of([workspace(tmp_path)]), time_limit=0.3, max_calls=1)

    async def main() -> bool:
        for _ in range(3):
            with pytest.raises(ToolError, match="over its budget"):
                await run_call(cfg, "applicable_actions",
                               lambda d: T.applicable_actions(cfg, d, **BOMB))
        doc = await run_call(cfg, "validate_plan", lambda d: T.validate_plan(
            cfg, d, **TASK, plan_path="blocks-plan.txt"))
        return doc.valid

    assert anyio.run(main)
