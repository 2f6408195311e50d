"""The environments as benchmark datasets, unknown task ids, and simulators
that die mid-episode."""

from __future__ import annotations

import os
import signal
import time

import pytest

from veriplan.envs.base import EnvTask, UnknownTaskError
from veriplan.errors import ConfigError, DataError, EnvironmentDied

TASK_TYPES = {"pick_and_place", "pick_clean_then_place", "pick_heat_then_place",
              "pick_cool_then_place", "look_at_obj_in_light", "pick_two_obj_and_place"}


def test_env_datasets_list_fast_and_hand_out_env_tasks(monkeypatch, tmp_path):
    from veriplan.bench.datasets import load_dataset
    from veriplan.envs import scienceworld

    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path))  # listing generates no game
    monkeypatch.setattr(scienceworld.ScienceWorld, "__init__", None)  # nor starts Java
    start = time.perf_counter()
    sets = {n: load_dataset(n) for n in ("household_eval", "household_train", "household_valid",
                                         "scienceworld_seen", "scienceworld_unseen",
                                         "scienceworld_train", "scienceworld_valid")}
    assert time.perf_counter() - start < 2
    assert not any(tmp_path.iterdir())
    sizes = {n: len(d.instances) for n, d in sets.items()}
    assert sizes == {"household_eval": 134, "household_train": 90, "household_valid": 30,
                     "scienceworld_seen": 1796, "scienceworld_unseen": 1819,
                     "scienceworld_train": 3532, "scienceworld_valid": 60}
    ev = sets["household_eval"]
    assert {i.task_type for i in ev.instances} == TASK_TYPES
    assert sorted(i.task_type for i in ev.take(30)).count("pick_and_place") == 5  # round-robin
    train = {i.id for i in sets["household_train"].instances}
    valid = {i.id for i in sets["household_valid"].instances}
    assert not train & valid and all(i.startswith("train/") for i in train | valid)
    assert len({i.task_type for i in sets["scienceworld_unseen"].take(30)}) == 30
    sw_train = {i.id for i in sets["scienceworld_train"].instances}
    assert not sw_train & {i.id for i in sets["scienceworld_valid"].instances}
    inst = sets["scienceworld_unseen"].instances[0]
    assert inst.problem("env") == EnvTask("scienceworld", "boil:21", "unseen", "boil")
    assert ev.instances[0].problem("env").task_id == "eval/pick_and_place/0"
    with pytest.raises(DataError, match="holds 'env' problems"):
        ev.instances[0].problem("pddl")
    assert ev.version.startswith("household-v1-") and \
        sets["scienceworld_seen"].version.startswith("scienceworld-1.2.3-")
    assert load_dataset("household_eval").version == ev.version


def test_unknown_task_ids_are_clear_errors():
    from veriplan.envs.household.games import load_game
    from veriplan.envs.scienceworld import check_task_id

    for bad, says in (("eval/pick_and_place/99", "0..23"), ("valid/pick_and_place/0", "SPLIT"),
                      ("eval/juggle/0", "task types")):
        with pytest.raises(UnknownTaskError, match="game_ids") as e:
            load_game(bad)
        assert bad in str(e.value) and says in str(e.value)
    with pytest.raises(UnknownTaskError, match=r"0\.\.29.*split_ids"):
        check_task_id("boil:30")
    with pytest.raises(UnknownTaskError, match="TASK:VARIATION"):
        check_task_id("juggling:0")
    assert issubclass(UnknownTaskError, ConfigError)


def test_the_split_table_is_scienceworlds(sciworld):
    from veriplan.envs.scienceworld import VARIATIONS, variations

    engine = sciworld._env
    assert set(VARIATIONS) == set(engine.get_task_names())
    for task in ("boil", "find-animal", "identify-life-stages-2"):
        engine.load(task, 0, "")
        assert list(variations(task, "train")) == sorted(engine.get_variations_train())
        assert list(variations(task, "seen")) == sorted(engine.get_variations_dev())
        assert list(variations(task, "unseen")) == sorted(engine.get_variations_test())


def test_a_textworld_process_that_dies_mid_episode_is_an_environment_error(textworld_python,
                                                                           games_cache):
    from veriplan.bench.execute import error_category
    from veriplan.envs import make_env

    with make_env("household") as env:
        env.reset("eval/pick_and_place/0")
        env.step("look")
        os.kill(env._proc.pid, signal.SIGKILL)
        env._proc.wait()
        with pytest.raises(EnvironmentDied, match="TextWorld process") as e:
            env.step("inventory")
        assert error_category(e.value) == "veriplan:EnvironmentDied"
        with pytest.raises(EnvironmentDied):
            env.query("in", "apple 1", "fridge 1")
        with pytest.raises(EnvironmentDied):
            env.reset("eval/pick_and_place/1")


JAVA_DIES = """
from veriplan.envs import make_env
from veriplan.errors import EnvironmentDied
with make_env("scienceworld") as env:
    env.reset("find-non-living-thing:225")
    env._env._gateway.java_process.kill()
    env._env._gateway.java_process.wait()
    try:
        env.step("look around")
    except EnvironmentDied as e:
        print("EnvironmentDied:", e)
"""


def test_a_java_process_that_dies_mid_episode_is_an_environment_error():
    """In a child Python: after py4j failed to reach the dead Java in pytest's
    process, pytest's own later import of hypothesis failed (CPython 3.11.7,
    SystemError "AST constructor recursion depth mismatch"), so the episode runs
    apart."""
    import shutil
    import subprocess
    import sys

    if shutil.which("java") is None:
        pytest.skip("Java is missing")
    out = subprocess.run([sys.executable, "-c", JAVA_DIES], capture_output=True, text=True,
                         timeout=120)
    assert "EnvironmentDied: ScienceWorld's Java process stopped answering" in out.stdout, \
        out.stderr[-2000:]
