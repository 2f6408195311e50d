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
from veriplan.npmi import npmi_pairs


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
    """Against the arcsine transformation phi = 2 arcsin sqrt(P) as tabulated
    by Cohen (Statistical Power Analysis for the Behavioral Sciences, 2nd ed.,
    1988, Table 6.2.1): phi(.10) = .6435, phi(.25) = 1.0472, phi(.50) = 1.5708,
    phi(.75) = 2.0944, phi(.90) = 2.4981; h = phi1 - phi2."""
    assert cohens_h(0.5, 0.5) == 0
    assert cohens_h(0.75, 0.25) == pytest.approx(2.0944 - 1.0472, abs=1e-4)
    assert cohens_h(0.90, 0.10) == pytest.approx(2.4981 - 0.6435, abs=1e-4)
    assert cohens_h(0.50, 0.10) == pytest.approx(1.5708 - 0.6435, abs=1e-4)
    assert cohens_h(0.25, 0.50) == pytest.approx(1.0472 - 1.5708, abs=1e-4)
    assert cohens_h(1.0, 0.0) == pytest.approx(math.pi)  # phi(1) - phi(0) = pi - 0


def test_npmi_pairs_by_hand():
    # Five events; p(stack) = 3/5, p(pick-up) = 2/5, p(holding) = p(clear) = 2/5,
    # p(handempty) = 1/5. NPMI = ln(p(x,y) / (p(x) p(y))) / -ln p(x,y):
    # (stack, holding): ln(.4 / .24) / -ln .4 = .5108 / .9163 = .5575
    # (stack, clear): ln(.2 / .24) / -ln .2 = -.1823 / 1.6094 = -.1133
    # (pick-up, clear): ln(.2 / .16) / 1.6094 = .1386
    # (pick-up, handempty): ln(.2 / .08) / 1.6094 = .5693
    events = [("stack", ["holding"]), ("stack", ["holding"]), ("stack", ["clear"]),
              ("pick-up", ["clear"]), ("pick-up", ["handempty"])]
    got = npmi_pairs(events)
    want = {("stack", "holding"): (0.5575, 2), ("stack", "clear"): (-0.1133, 1),
            ("pick-up", "clear"): (0.1386, 1), ("pick-up", "handempty"): (0.5693, 1)}
    assert set(got) == set(want)
    for k, (v, c) in want.items():
        assert got[k][0] == pytest.approx(v, abs=1e-4) and got[k][1] == c
    assert npmi_pairs([("a", ["p"])]) == {("a", "p"): (1.0, 1)}  # in every event
    assert npmi_pairs([]) == {}


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
