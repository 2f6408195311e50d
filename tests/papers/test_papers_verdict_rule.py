"""The one verdict rule (veriplan.papers.claims.judge): a number holds when the
paper's number is inside the measured interval; a range holds when it shares a
value with the measured interval (a number being the range from it to itself);
a direction holds when the whole interval is on the claimed side of the
threshold; nothing measured, or no units, is not measurable with the reason."""

from __future__ import annotations

import math
import re

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


_NUMBER = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")


def _shown(reason: str) -> list[float]:
    """The numbers a reason shows, as a reader reads them."""
    return [float(x.replace(",", "")) for x in _NUMBER.findall(reason)]


@pytest.mark.parametrize("scale, comparison, paper, lo, hi, holds", [
    # the paper's 1.767 against [1.7716, 1.8283]: once shown "1.77 is below [1.77, 1.83]"
    (Scale.NUMBER, Comparison.WITHIN, 1.767, 1.7716, 1.8283, False),
    (Scale.NUMBER, Comparison.WITHIN, 1500.0, 1500.4, 1600.0, False),
    (Scale.RATE, Comparison.WITHIN, 0.462, 0.4625, 0.50, False),
    (Scale.RATE, Comparison.WITHIN, 0.48004, 0.40, 0.48, False),
    (Scale.POINTS, Comparison.BELOW, 0.0, -0.05, -0.0004, True),
    (Scale.NUMBER, Comparison.ABOVE, 10.0, 10.004, 12.0, True),
    (Scale.POINTS, Comparison.OVERLAPS, (0.032, 0.045), 0.0452, 0.08, False),
    (Scale.RATE, Comparison.OVERLAPS, (0.358, 0.448), 0.20, 0.35799, False)])
def test_a_strict_comparison_reads_true_as_shown(scale: Scale, comparison: Comparison,
                                                 paper: float | tuple[float, float],
                                                 lo: float, hi: float, holds: bool) -> None:
    if comparison is Comparison.OVERLAPS:
        assert isinstance(paper, tuple)
        claim = Claim("p", "x", "s", "n", "set", "src", comparison, scale=scale,
                      paper_range=paper)
    elif comparison is Comparison.WITHIN:
        claim = Claim("p", "x", "s", "n", "set", "src", comparison, paper_value=paper,
                      scale=scale)
    else:
        claim = Claim("p", "x", "s", "n", "set", "src", comparison, threshold=paper,
                      scale=scale)
    r = judge(claim, _measured((lo + hi) / 2, lo, hi))
    assert (r.verdict is Verdict.HOLDS) == holds
    shown = _shown(r.reason)
    if comparison is Comparison.WITHIN:  # "the paper's X is above/below the interval [L, H]"
        x, low, high = shown
        assert x > high if "above" in r.reason else x < low, r.reason
    elif comparison is Comparison.OVERLAPS:  # "the paper's range [A, B] is wholly ... [L, H]"
        a, b, low, high = shown
        assert a > high if "wholly above" in r.reason else b < low, r.reason
    else:  # "the interval [L, H] is wholly below/above T"
        low, high, t = shown
        assert high < t if comparison is Comparison.BELOW else low > t, r.reason


def test_digits_are_added_only_where_the_numbers_read_the_same() -> None:
    assert Scale.RATE.apart(0.462, 0.139) == 0
    assert Scale.NUMBER.apart(1.767, 1.7716) == 1
    assert Scale.NUMBER.apart(2.0, 2.0) == 0  # equal: nothing tells them apart
    r = judge(_claim(value=0.462), _measured(0.11, 0.089, 0.139))
    assert r.reason == "the paper's 46.2% is above the interval [8.9%, 13.9%]"
