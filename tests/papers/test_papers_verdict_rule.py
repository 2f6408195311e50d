"""The one verdict rule (veriplan.papers.claims.judge): a number holds when the
paper's number is inside the measured interval; a range holds when it shares a
value with the measured interval (a number being the range from it to itself);
a direction holds when the whole interval is on the claimed side of the
threshold; nothing measured, or no units, is not measurable with the reason."""

from __future__ import annotations

import math

import pytest

from veriplan.papers.claims import Claim, Comparison, Measured, ModelKind, Scale, Verdict, judge
from veriplan.papers.measure import newcombe_interval


def _claim(comparison: Comparison = Comparison.WITHIN, value: float | None = 0.149,
           threshold: float | None = None) -> Claim:
    return Claim("sqbcp", "x", "a claim", "14.9%", "GPT-4o", "Table 1", comparison,
                 paper_value=value, threshold=threshold)


def _measured(value: float, lo: float, hi: float, n: int = 50) -> Measured:
    return Measured(value, (lo, hi), n, ModelKind.CONTROLLED, "veriplan paper sqbcp")


@pytest.mark.parametrize("lo, hi, verdict", [
    (0.10, 0.20, Verdict.HOLDS), (0.149, 0.30, Verdict.HOLDS), (0.0, 0.149, Verdict.HOLDS),
    (0.16, 0.30, Verdict.DOES_NOT_HOLD), (0.0, 0.14, Verdict.DOES_NOT_HOLD)])
def test_a_number_holds_inside_the_interval(lo: float, hi: float, verdict: Verdict) -> None:
    r = judge(_claim(), _measured((lo + hi) / 2, lo, hi))
    assert r.verdict is verdict
    assert ("inside" in r.reason) == (verdict is Verdict.HOLDS)


def _range(low: float, high: float) -> Claim:
    return Claim("closed-loop", "r", "a range", "10-20 pp", "GPT-4", "Section 5.8",
                 Comparison.OVERLAPS, scale=Scale.POINTS, paper_range=(low, high))


@pytest.mark.parametrize("lo, hi, verdict, words", [
    (0.15, 0.30, Verdict.HOLDS, "overlaps"),        # the interval's low end in the range
    (0.00, 0.12, Verdict.HOLDS, "overlaps"),        # its high end in the range
    (0.12, 0.18, Verdict.HOLDS, "overlaps"),        # wholly in the range
    (0.00, 0.50, Verdict.HOLDS, "overlaps"),        # the range wholly in the interval
    (0.20, 0.40, Verdict.HOLDS, "overlaps"),        # the bounds are included
    (0.00, 0.10, Verdict.HOLDS, "overlaps"),
    (0.00, 0.09, Verdict.DOES_NOT_HOLD, "wholly above"),
    (0.21, 0.40, Verdict.DOES_NOT_HOLD, "wholly below")])
def test_a_range_holds_when_it_overlaps_the_interval(lo: float, hi: float, verdict: Verdict,
                                                     words: str) -> None:
    r = judge(_range(0.10, 0.20), _measured((lo + hi) / 2, lo, hi))
    assert r.verdict is verdict and words in r.reason
    assert "[+10.0 pp, +20.0 pp]" in r.reason  # the paper's range, as the claim reads


@pytest.mark.parametrize("lo, hi", [(0.10, 0.20), (0.149, 0.30), (0.0, 0.149), (0.16, 0.30),
                                    (0.0, 0.14), (0.149, 0.149)])
def test_a_number_is_the_range_from_it_to_itself(lo: float, hi: float) -> None:
    m = _measured((lo + hi) / 2, lo, hi)
    assert judge(_range(0.149, 0.149), m).verdict is judge(_claim(), m).verdict


def test_a_range_claim_says_what_its_rule_needs() -> None:
    with pytest.raises(ValueError, match="paper_range"):
        Claim("p", "i", "s", "n", "set", "src", Comparison.OVERLAPS)
    with pytest.raises(ValueError, match="low <= high"):
        _range(0.2, 0.1)
    with pytest.raises(ValueError, match="OVERLAPS"):
        Claim("p", "i", "s", "n", "set", "src", paper_value=0.1, paper_range=(0.1, 0.2))


@pytest.mark.parametrize("comparison, lo, hi, verdict, words", [
    (Comparison.BELOW, -0.3, -0.01, Verdict.HOLDS, "wholly below"),
    (Comparison.BELOW, -0.3, 0.05, Verdict.DOES_NOT_HOLD, "contains"),
    (Comparison.BELOW, 0.0, 0.2, Verdict.DOES_NOT_HOLD, "not the claimed direction"),
    (Comparison.ABOVE, 0.01, 0.3, Verdict.HOLDS, "wholly above"),
    (Comparison.ABOVE, -0.05, 0.3, Verdict.DOES_NOT_HOLD, "contains"),
    (Comparison.ABOVE, 0.0, 0.0, Verdict.DOES_NOT_HOLD, "not the claimed direction")])
def test_a_direction_holds_at_the_intervals_bound(comparison: Comparison, lo: float, hi: float,
                                                  verdict: Verdict, words: str) -> None:
    claim = _claim(comparison, None, 0.0)
    r = judge(claim, _measured((lo + hi) / 2, lo, hi))
    assert r.verdict is verdict and words in r.reason


def test_nothing_measured_is_not_measurable_with_the_reason() -> None:
    claim = Claim("aec", "F2.GPT-4", "backbone", "98%", "GPT-4", "Figure 2", paper_value=0.98,
                  needs="GPT-4 at the user's endpoint")
    assert judge(claim, None).verdict is Verdict.NOT_MEASURABLE
    assert judge(claim, None).reason == "GPT-4 at the user's endpoint"
    assert judge(claim, None, "only one model").reason == "only one model"
    empty = Measured(math.nan, None, 0, ModelKind.EMBEDDED, "cmd")
    assert judge(claim, empty).verdict is Verdict.NOT_MEASURABLE


def test_a_claim_says_what_its_rule_needs() -> None:
    with pytest.raises(ValueError, match="paper_value"):
        Claim("p", "i", "s", "n", "set", "src")
    with pytest.raises(ValueError, match="threshold"):
        Claim("p", "i", "s", "n", "set", "src", Comparison.BELOW, paper_value=-0.1)


def test_scales_render_their_numbers() -> None:
    assert Scale.RATE.show(0.149) == "14.9%"
    assert Scale.POINTS.show(-0.111) == "-11.1 pp"
    assert Scale.NUMBER.show(5.98) == "5.98"


def test_newcombes_interval_contains_the_difference() -> None:
    lo, hi = newcombe_interval(3, 80, 20, 80)
    assert lo < (3 - 20) / 80 < hi < 0
    lo, hi = newcombe_interval(5, 10, 5, 10)
    assert lo < 0 < hi and math.isclose(-lo, hi)
