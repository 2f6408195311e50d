"""Environment fixtures: ScienceWorld needs Java, the household games need the
TextWorld Python (`make textworld`). Under CI=true a missing one fails."""

from __future__ import annotations

import os
import shutil

import pytest


def _need(ok: bool, what: str) -> None:
    if not ok:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{what} is missing (the Makefile installs it)")
        pytest.skip(f"{what} is missing")


@pytest.fixture(scope="session")
def textworld_python() -> str:
    from veriplan.envs.household.env import textworld_python
    from veriplan.errors import VeriplanError

    try:
        return textworld_python()
    except VeriplanError:
        _need(False, "the TextWorld Python (.venv-textworld)")
    raise AssertionError


@pytest.fixture(scope="session")
def games_cache(tmp_path_factory):
    """Generated games go to a fresh cache (they are made on first use)."""
    path = tmp_path_factory.mktemp("veriplan-cache")
    old = os.environ.get("VERIPLAN_CACHE")
    os.environ["VERIPLAN_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("VERIPLAN_CACHE", None)
    else:
        os.environ["VERIPLAN_CACHE"] = old


@pytest.fixture(scope="module")
def sciworld():
    _need(shutil.which("java") is not None, "Java")
    from veriplan.envs import make_env

    env = make_env("scienceworld")
    yield env
    env.close()


@pytest.fixture(scope="module")
def household(textworld_python, games_cache):
    """One household environment (one TextWorld process) for a test module."""
    from veriplan.envs import make_env

    env = make_env("household")
    yield env
    env.close()
