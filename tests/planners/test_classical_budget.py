"""solve_classical under one budget (issue 46): veriplan's own planners ground
and search within the time limit (or a given Budget) of the API and the CLI;
a grounding bomb ends with a clear error instead of running forever."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.pddl.bombs import BOMB_DOMAIN, BOMB_PROBLEM, bomb_task
from veriplan import Budget, BudgetExceeded, solve_classical
from veriplan.core.budget import BudgetLimit

VERIPLAN = str(Path(sys.executable).parent / "veriplan")


@pytest.mark.parametrize("planner", ["bfs", "astar-hff", "gbfs-hff"])
def test_a_bomb_is_stopped_at_the_time_limit(planner: str) -> None:
    with pytest.raises(BudgetExceeded, match="over its budget: its time limit of 0.3 s") as e:
        solve_classical(bomb_task(), planner, time_limit=0.3)
    assert e.value.limit is BudgetLimit.TIME


def test_a_given_budget_holds_grounding_and_search() -> None:
    with pytest.raises(BudgetExceeded) as e:
        solve_classical(bomb_task(), "bfs", budget=Budget(max_ground_actions=1000))
    assert e.value.limit is BudgetLimit.GROUND_ACTIONS
    from tests.helpers import blocks_task

    r = solve_classical(blocks_task(6), "bfs", budget=Budget(max_states=50))
    assert r.status == "budget" and not r.solved


def test_solve_classical_command_ends_on_a_bomb_with_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(BOMB_DOMAIN)
    (tmp_path / "p.pddl").write_text(BOMB_PROBLEM)
    out = subprocess.run([VERIPLAN, "solve-classical", str(tmp_path / "d.pddl"),
                          str(tmp_path / "p.pddl"), "--planner", "bfs", "--time-limit", "1"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "over its budget: its time limit of 1 s" in out.stderr
    assert "--time-limit" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("bad", ["nan", "inf", "0", "-1"])
def test_solve_classical_command_refuses_a_time_limit_that_never_ends(
        bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from veriplan.cli import main

    examples = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
    code = main(["solve-classical", str(examples / "blocks-domain.pddl"),
                 str(examples / "blocks-problem.pddl"), "--planner", "bfs",
                 f"--time-limit={bad}"])
    assert code == 2 and "--time-limit must be a positive finite number" in capsys.readouterr().err
