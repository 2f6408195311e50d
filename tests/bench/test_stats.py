"""Statistics against values computed by hand or by standard references."""

from __future__ import annotations

import math

import pytest

from veriplan.bench.stats import (
    bootstrap_mean_interval,
    cohens_h,
    mcnemar,
    two_proportion_z,
    wilson_interval,
)


def test_wilson_interval_reference_values():
    # 8 of 10: the Wilson 95% interval is (0.490, 0.943).
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-3)


def test_two_proportion_z():
    t = two_proportion_z(45, 100, 30, 100)
    # pooled p = 0.375, se = sqrt(.375*.625*.02) = 0.06847, z = 0.15/0.06847 = 2.191
    assert t.z == pytest.approx(2.1909, abs=1e-3)
    assert t.p_value == pytest.approx(0.02846, abs=1e-3)
    assert two_proportion_z(0, 0, 1, 2).p_value == 1.0


def test_cohens_h():
    assert cohens_h(0.5, 0.5) == 0
    assert cohens_h(0.45, 0.30) == pytest.approx(
        2 * math.asin(math.sqrt(0.45)) - 2 * math.asin(math.sqrt(0.30)))


def test_bootstrap_contains_mean_and_is_reproducible():
    values = [float(i) for i in range(1, 101)]
    lo, hi = bootstrap_mean_interval(values, seed=1)
    assert lo < 50.5 < hi and (lo, hi) == bootstrap_mean_interval(values, seed=1)
    assert math.isnan(bootstrap_mean_interval([])[0])


def test_mcnemar_exact():
    a = {f"i{k}": k < 8 for k in range(10)}
    b = {f"i{k}": k < 2 for k in range(10)}
    r = mcnemar(a, b)
    # 6 discordant pairs all favour A: p = 2 * (1/2)^6 = 0.03125
    assert (r.shared, r.only_a, r.only_b, r.both) == (10, 6, 0, 2)
    assert r.p_value == pytest.approx(0.03125)
    assert mcnemar({"x": True}, {"y": True}).shared == 0
