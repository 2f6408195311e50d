"""KCL's VAL for the oracle, feature and fuzzing tests: found once per session;
without it the tests skip with the reason, except under CI, which installs it."""

from __future__ import annotations

import os

import pytest

from veriplan.verify.val import ValTool, ValUnavailable, find_val


@pytest.fixture(scope="session")
def val() -> ValTool:
    try:
        return find_val()
    except ValUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI installs VAL (the dev extra): {exc}")
        pytest.skip(f"VAL cannot be used here: {exc}")
