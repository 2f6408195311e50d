"""KCL's VAL for the oracle, feature and fuzzing tests: found once per session;
without it the tests skip with the reason, except under CI, which installs it. The
batch tests' fresh caches."""

from __future__ import annotations

import os

import pytest

from veriplan.pddl.task import clear_domain_cache
from veriplan.verify import batch, task_cache
from veriplan.verify.val import ValTool, ValUnavailable, find_val


@pytest.fixture
def fresh_batch_caches():
    """The batch's task caches and the domain cache empty before and after a
    test (the batch tests count parses and swap files under the same names)."""
    batch.clear_caches()
    clear_domain_cache()
    yield
    batch.clear_caches()


@pytest.fixture(scope="session")
def val() -> ValTool:
    try:
        return find_val()
    except ValUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI installs VAL (the dev extra): {exc}")
        pytest.skip(f"VAL cannot be used here: {exc}")


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The problem files a batch parses, in order (the batch's problem parser is
    counted)."""
    calls: list[str] = []
    real = task_cache.parse_problem

    def counting(text, domain, *, file, strict):
        calls.append(file)
        return real(text, domain, file=file, strict=strict)

    monkeypatch.setattr(task_cache, "parse_problem", counting)
    return calls
