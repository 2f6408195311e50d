"""Shared fixtures. Tests read the benchmark data beside the checkout
(``../shared/data``) or from ``VERIPLAN_DATA``; under ``CI=true`` missing data
is a failure, not a skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from veriplan.verify.val import ValTool, ValUnavailable, find_val

REPO = Path(__file__).resolve().parents[1]


def data_root() -> Path | None:
    env = os.environ.get("VERIPLAN_DATA")
    path = Path(env) if env else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = data_root()
    if path is None:
        msg = "benchmark data not found: set VERIPLAN_DATA or place it at ../shared/data"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def planbench(data_dir: Path) -> Path:
    return data_dir / "planbench"


@pytest.fixture(scope="session")
def bw(planbench: Path) -> Path:
    return planbench / "instances" / "blocksworld"


EXAMPLES = REPO / "src" / "veriplan" / "examples"


@pytest.fixture(scope="session")
def val() -> ValTool:
    """KCL's VAL (``Validate``, ``Parser``); skipped where it cannot run, a failure
    in CI (which installs it)."""
    try:
        return find_val()
    except ValUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI installs VAL (the dev extra): {exc}")
        pytest.skip(f"VAL cannot be used here: {exc}")
