"""Every module of the package imports (a module whose optional dependency is
not installed is skipped), and the import loops opened in issue 12 stay open."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import veriplan


def _optional_missing(exc: BaseException) -> bool:
    """An ImportError for a package outside veriplan (an optional dependency)."""
    name = getattr(exc, "name", None) or ""
    return isinstance(exc, ImportError) and bool(name) and name.split(".")[0] != "veriplan"


def _modules() -> list[str]:
    """Every module file under the package, namespace folders included
    (``veriplan.bench`` has no ``__init__``, so pkgutil's walk would miss it)."""
    names = set()
    for root in map(Path, veriplan.__path__):
        for f in root.rglob("*.py"):
            parts = f.relative_to(root).with_suffix("").parts
            if "__pycache__" in parts or parts[-1] == "__main__":  # __main__ runs on import
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.add(".".join(("veriplan", *parts)))
    return sorted(names)


MODULES = _modules()


def test_the_walk_finds_the_package():
    assert {"veriplan.registry", "veriplan.storage", "veriplan.bench.execute",
            "veriplan.envs.household.planning"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports(name):
    try:
        importlib.import_module(name)
    except ImportError as exc:
        if _optional_missing(exc):
            pytest.skip(f"{name} needs {exc.name}, which is not installed")
        raise


# Imported first in a fresh interpreter, each side of a former loop must not
# import the other through a function-level import (the loop is gone) and must
# import cleanly on its own.
@pytest.mark.parametrize("first", [
    "veriplan.bench.ray_executor", "veriplan.bench.runner",
    "veriplan.envs.household.generator", "veriplan.envs.household.planning",
])
def test_former_loops_import_alone(first):
    code = f"import {first}"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr


def test_loops_point_one_way():
    from veriplan.bench import execute, ray_executor, runner
    from veriplan.envs.household import generator, planning

    assert ray_executor.execute is execute.execute and runner.execute is execute.execute
    for name in ("error_record", "error_category", "make_llm", "version"):
        assert getattr(runner, name) is getattr(execute, name)
    assert generator.game_domain is planning.game_domain
    assert generator.alfworld_data is planning.alfworld_data
    src = importlib.util.find_spec("veriplan.envs.household.planning").origin
    with open(src) as f:
        assert "household.generator" not in f.read()
    src = importlib.util.find_spec("veriplan.bench.ray_executor").origin
    with open(src) as f:
        assert "bench.runner" not in f.read()


def test_cache_dir_lives_in_storage(monkeypatch, tmp_path):
    from veriplan import storage
    from veriplan.envs.household import games
    from veriplan.llm import cache, models

    assert models.cache_dir is storage.cache_dir
    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path))
    assert storage.cache_dir() == tmp_path
    assert cache.default_cache_path() == tmp_path / "llm-cache.sqlite"
    assert games.cache_root().parent == tmp_path / "household"
    monkeypatch.delenv("VERIPLAN_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert storage.cache_dir() == tmp_path / "xdg" / "veriplan"


def test_judging_one_plan_does_without_the_batch_judge():
    """``veriplan.verify`` loads its batch part (judge, windows, workers, the one-pass
    records) only when a batch name is asked for: ``veriplan validate`` of one plan
    pays no start-up for it."""
    code = ("import sys, veriplan.verify as v; "
            "print(sorted(m for m in sys.modules if m.startswith('veriplan.verify.')));"
            "v.validate_many; print('veriplan.verify.batch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    loaded = eval(out[0])  # noqa: S307 (a list of module names this test printed)
    assert not {"veriplan.verify.batch", "veriplan.verify.judge", "veriplan.verify.windows",
                "veriplan.verify.workers", "veriplan.verify.quick"} & set(loaded), loaded
    assert out[1] == "True"
