"""KCL's VAL for the oracle, feature and fuzzing tests: found once per session;
without it the tests skip with the reason, except under CI, which installs it. The
batch tests' fresh caches."""

from __future__ import annotations

import pytest

from veriplan.pddl.task import clear_domain_cache
from veriplan.verify import batch, task_cache


@pytest.fixture
def fresh_batch_caches():
    """The batch's task caches and the domain cache empty before and after a
    test (the batch tests count parses and swap files under the same names)."""
    batch.clear_caches()
    clear_domain_cache()
    yield
    batch.clear_caches()


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
