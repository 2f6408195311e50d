"""What makes ``veriplan aec check-store`` fast, without Java (issue 30, part
4): a ScienceWorld step reads what the engine's Python wrapper's step reads
for the observation, reward, completion and score, and nothing else; a reset
loads the task once, and the gold path replayed is the one of that load; the
check's worker processes report every task, in order, even when one of them
dies. (The same replay on the real engine: tests/envs/test_aec_store.py.)"""

from __future__ import annotations

import os

import pytest

from veriplan.envs.base import Env
from veriplan.errors import ConfigError, VeriplanError


class FakeServer:
    """The engine's side of the gateway, scripted: each step's observation and
    the score (0..1) the engine holds after it; ``completed`` after the last."""

    def __init__(self, script: list[tuple[str, float]]) -> None:
        self.script = list(script)
        self.score = 0.0
        self.done = False
        self.moves = 0
        self.extras = 0  # calls only the wrapper's info dict makes

    def step(self, action: str) -> str:
        obs, self.score = self.script.pop(0)
        self.moves += 1
        self.done = not self.script
        return f"{obs} ({action})"

    def getScore(self) -> float:  # noqa: N802 - the engine's names
        return self.score

    def getCompleted(self) -> bool:  # noqa: N802
        return self.done

    def getNumMoves(self) -> int:  # noqa: N802
        return self.moves

    def freeActionLook(self) -> str:  # noqa: N802
        self.extras += 1
        return "look"

    def freeActionInventory(self) -> str:  # noqa: N802
        self.extras += 1
        return "inventory"

    def freeActionTaskDesc(self) -> str:  # noqa: N802
        self.extras += 1
        return "task"

    def getValidActionObjectCombinations(self) -> list[str]:  # noqa: N802
        self.extras += 1
        return ["look around"]


def _wrapper(server: FakeServer):
    from scienceworld import ScienceWorldEnv

    w = object.__new__(ScienceWorldEnv)
    w.server, w.lastStepScore, w.envStepLimit = server, 0, 10**6
    w.variationIdx, w.taskName, w.simplificationStr = 0, "boil", ""
    w.close = lambda: None  # no gateway to shut down
    return w


def _sciworld(wrapper):
    from veriplan.envs.scienceworld import ScienceWorld

    env = object.__new__(ScienceWorld)
    Env.__init__(env, 100)
    env._env, env.simplifications, env._choosing, env._gold_of = wrapper, "", False, None
    env._room, env._shared, env._names, env._names_at, env.score = None, set(), set(), -1, 0.0
    return env


@pytest.mark.parametrize("scores", [(0.0, 0.25, 0.25, 1.0), (0.5, 0.5, -1.0), (1.0,)])
def test_an_engine_step_reads_what_the_wrappers_step_reads(scores):
    script = [(f"obs {i}", s) for i, s in enumerate(scores)]
    theirs, ours = FakeServer(script), FakeServer(script)
    wrapper, env = _wrapper(theirs), _sciworld(_wrapper(ours))
    for i in range(len(script)):
        obs, reward, done, info = wrapper.step(f"act {i}")
        assert env._engine_step(f"act {i}") == (obs, reward, done, info["score"])
    assert theirs.extras > 0 and ours.extras == 0


class FakeEngine:
    """ScienceWorldEnv as the environment uses it: every load (the engine's
    reset is one too) draws a new world, with its own gold path."""

    def __init__(self) -> None:
        self.server = FakeServer([("This room is called the kitchen.", 0.0)] * 5)
        self.lastStepScore = 0
        self.loads = 0

    def load(self, task: str, var: int, simplifications: str, generateGoldPath: bool) -> None:  # noqa: N803
        self.loads += 1

    def reset(self) -> None:
        self.load("", 0, "", True)
        self.server.step("look around")

    def get_gold_action_sequence(self) -> list[str]:
        return [f"the path of world {self.loads}"]

    def get_task_description(self) -> str:
        return "Your task is to boil water."

    def get_all_object_ids_types_referents_LUTJSON(self) -> dict:  # noqa: N802
        return {}

    def getObjectTree(self) -> dict:  # noqa: N802
        return {"contents": {}}

    def look(self) -> str:
        return "This room is called the kitchen. In it, you see:\n\tthe agent\n"


def test_a_reset_loads_once_and_the_loaded_gold_path_is_that_worlds():
    engine = FakeEngine()
    env = _sciworld(engine)
    env.reset("boil:21")
    assert engine.loads == 1
    assert env.gold_path("boil:21", loaded=True) == ["the path of world 1"]
    assert engine.loads == 1
    with pytest.raises(VeriplanError, match="reset"):
        env.gold_path("boil:22", loaded=True)
    assert env.gold_path("boil:21") == ["the path of world 2"]  # a fresh load, as before


# ----- worker processes ----------------------------------------------------------------------
class Broken(Env):
    """Every reset fails (a ValueError), but a task named die:N ends its process."""

    name = "scienceworld"

    def _reset(self, task_id: str, seed: int) -> str:
        if task_id.startswith("die:"):
            os._exit(3)
        raise ValueError(f"no world for {task_id}")


def broken() -> Env:
    return Broken()


def unmakeable() -> Env:
    raise VeriplanError("no simulator here")


def _problems(results) -> list[tuple[str, str]]:
    return [(r.task_id, r.problem) for r in results]


def test_workers_report_every_task_in_order_even_when_one_dies():
    from veriplan.methods.aec.storecheck import check_stores_in

    tasks = ["a:0", "die:1", "b:2", "c:3"]
    seen = []
    two = check_stores_in(broken, tasks, seen.append, workers=2)
    assert [r.task_id for r in two] == tasks and sorted(r.task_id for r in seen) == sorted(tasks)
    one = check_stores_in(broken, ["a:0", "b:2"], workers=1)
    assert _problems([two[0], two[2]]) == _problems(one) == [
        (t, f"EnvFailure: ValueError: no world for {t}") for t in ("a:0", "b:2")]
    for r in (two[1], two[3]):  # task i goes to process i mod 2
        assert r.problem == "worker process 2 stopped (exit status 3) before this task"
    assert not any(r.won for r in two)


def test_a_worker_without_a_simulator_says_so_for_each_task_and_one_process_raises():
    from veriplan.methods.aec.storecheck import check_stores_in

    results = check_stores_in(unmakeable, ["a:0", "b:1", "c:2"], workers=2)
    assert [r.problem for r in results] == [
        "the environment could not start: VeriplanError: no simulator here"] * 3
    with pytest.raises(VeriplanError, match="no simulator"):
        check_stores_in(unmakeable, ["a:0"], workers=1)
    with pytest.raises(ConfigError, match="workers"):
        check_stores_in(broken, ["a:0"], workers=0)
