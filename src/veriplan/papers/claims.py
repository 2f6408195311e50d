"""A paper's claims, what was measured for each, and the one rule that turns
the numbers into a verdict (:func:`judge`).

A :class:`Claim` is one statement of a paper with the paper's number as the
paper gives it (``paper_number``, words) and as the rule compares it
(``paper_value``, in the claim's :class:`Scale`), its setting and its source
(a table, figure or section). A :class:`Measured` is what a store gave for it:
the value on model-solved units (fallback-solved counted apart), a 95%
interval, the units it counts, which kind of model answered and the command
that measured it. :func:`judge` is the only place a verdict is decided:

- :attr:`Comparison.WITHIN`: the claim is a number; it HOLDS when the paper's
  number lies inside the measured interval, else DOES_NOT_HOLD.
- :attr:`Comparison.OVERLAPS`: the claim is a range (the paper gives an
  interval, "3.2-4.5 pp": ``paper_range``, its bounds included); it HOLDS when
  the paper's range and the measured interval share a value (the range's low
  bound at or below the interval's high bound, and its high bound at or above
  the interval's low bound), else DOES_NOT_HOLD (the reason says whether the
  range lies above or below the interval). A number is the range from it to
  itself, so this is the WITHIN rule for a range: the measurement is
  consistent with some value the paper allows.
- :attr:`Comparison.BELOW` / :attr:`Comparison.ABOVE`: the claim is a direction
  (a rate below a baseline's: the measured value is then the difference, and
  ``threshold`` 0); it HOLDS when the whole interval is on the claim's side of
  ``threshold`` (the direction holds at the interval's bound), else
  DOES_NOT_HOLD (the reason says whether the opposite direction holds or the
  interval straddles the threshold).
- nothing measured (the available models cannot measure it, e.g. a backbone
  table with one model) or no units: NOT_MEASURABLE, with the reason.

A reason states its comparison in the claim's scale (:meth:`Scale.show`); a
strict one (above, below, wholly above or below) is shown with as many more
digits as tell its two numbers apart (:meth:`Scale.apart`), so what the reader
sees is true as written ("1.767 is below the interval [1.772, 1.828]", never
"1.77 is below [1.77, 1.83]").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    HOLDS = "holds"
    DOES_NOT_HOLD = "does not hold"
    NOT_MEASURABLE = "not measurable"


class ModelKind(StrEnum):
    """Who answered: veriplan's embedded model, a controlled test model (a
    seeded stand-in whose errors are set), recorded answers (another run's
    outputs replayed or counted), or the user's own endpoint."""

    EMBEDDED = "embedded"
    CONTROLLED = "controlled"
    RECORDED = "recorded"
    USER = "user"


class Comparison(StrEnum):
    """How the rule compares a measurement with the claim (see :func:`judge`)."""

    WITHIN = "within"  # the paper's number inside the measured interval
    OVERLAPS = "overlaps"  # the paper's range and the measured interval share a value
    BELOW = "below"    # the measured interval wholly below the threshold
    ABOVE = "above"    # the measured interval wholly above the threshold


class Scale(StrEnum):
    """How a claim's numbers read: a rate (a fraction, shown as %), a
    difference of rates (shown in percentage points), or a plain number."""

    RATE = "rate"
    POINTS = "points"
    NUMBER = "number"

    def show(self, value: float | None, extra: int = 0) -> str:
        """``value`` as the scale reads (1 decimal of a percentage, 3
        significant digits of a number), with ``extra`` digits more."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        if self is Scale.RATE:
            return f"{100 * value:.{1 + extra}f}%"
        if self is Scale.POINTS:
            return f"{100 * value:+.{1 + extra}f} pp"
        return f"{value:.{3 + extra}g}" if abs(value) < 1000 else f"{value:,.{extra}f}"

    def apart(self, a: float, b: float) -> int:
        """The fewest extra digits (:meth:`show`) at which ``a`` and ``b`` read as
        different numbers (0 when they already do, or are equal), so that a
        strict comparison of the two, shown, reads true."""
        for extra in range(_MAX_EXTRA + 1):
            if _read(self.show(a, extra)) != _read(self.show(b, extra)):
                return extra
        return 0


_MAX_EXTRA = 15  # digits past the scale's own: more than a double holds


def _read(text: str) -> float:
    """The number :meth:`Scale.show` wrote (what a reader sees)."""
    return float(text.removesuffix("%").removesuffix(" pp").replace(",", ""))


@dataclass(frozen=True)
class Claim:
    """One claim of a paper. ``paper_value`` is the number the rule compares
    (in ``scale``; None for a claim the paper states without a number, which
    a direction can still test), ``threshold`` the bound of a direction claim
    (:attr:`Comparison.BELOW` / :attr:`Comparison.ABOVE`; 0 for a difference),
    ``paper_range`` the (low, high) bounds of a range claim
    (:attr:`Comparison.OVERLAPS`, in ``scale``; the only comparison that takes it).
    ``needs`` says what measuring it takes, when not every model can (several
    real models for a backbone table)."""

    paper: str           # the paper's registry name (sqbcp, aec, ...)
    id: str              # unique within the paper: "T1.wikihow.violation"
    statement: str       # the claim in our words
    paper_number: str    # the paper's number as it gives it ("14.9% vs 26.0%")
    setting: str         # the paper's setting (model, data, sizes)
    source: str          # "Table 1", "Figure 2", "Section 5.3", "Abstract"
    comparison: Comparison = Comparison.WITHIN
    paper_value: float | None = None
    threshold: float | None = None
    scale: Scale = Scale.RATE
    needs: str = ""
    paper_range: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        name = f"claim {self.paper}:{self.id}"
        if self.comparison is Comparison.OVERLAPS:
            if self.paper_range is None:
                raise ValueError(f"{name}: an OVERLAPS claim needs its paper_range "
                                 "(low, high)")
            lo, hi = self.paper_range
            if any(math.isnan(x) for x in (lo, hi)) or lo > hi:
                raise ValueError(f"{name}: paper_range {self.paper_range} is not a range: "
                                 "give (low, high) with low <= high")
            return
        if self.paper_range is not None:
            raise ValueError(f"{name}: paper_range is for an OVERLAPS claim, not a "
                             f"{self.comparison} one: set comparison=Comparison.OVERLAPS")
        if self.comparison is Comparison.WITHIN and self.paper_value is None:
            raise ValueError(f"{name}: a WITHIN claim needs its paper_value")
        if self.comparison is not Comparison.WITHIN and self.threshold is None:
            raise ValueError(f"{name}: a {self.comparison} claim needs its threshold")


@dataclass(frozen=True)
class Measured:
    """What was measured for a claim. ``value`` and ``interval`` (95%) are
    computed on model-solved units only; ``fallback_solved`` counts units a
    fallback (a search, a planner) solved, shown apart and never in the rate.
    ``n`` is the number of units (or paired units, or values) the value is
    computed on; ``detail`` says how in words ("43 of 50", "SQ-BCP 3/80 against
    Self-Ask 20/80")."""

    value: float
    interval: tuple[float, float] | None
    n: int
    model_kind: ModelKind
    command: str
    model: str = ""
    model_solved: int | None = None
    fallback_solved: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    measured: Measured | None
    verdict: Verdict
    reason: str


_EPS = 1e-12


def judge(claim: Claim, measured: Measured | None, reason: str = "") -> ClaimResult:
    """The verdict the numbers give (the module's rule; ``reason``: why nothing
    was measured, when ``measured`` is None)."""
    if measured is None:
        why = reason or claim.needs or "no unit in the stores read measures it"
        return ClaimResult(claim, None, Verdict.NOT_MEASURABLE, why)
    if measured.n == 0 or measured.interval is None or any(
            math.isnan(x) for x in (measured.value, *measured.interval)):
        return ClaimResult(claim, measured, Verdict.NOT_MEASURABLE,
                           reason or "no units measured it")
    lo, hi = measured.interval
    scale = claim.scale

    def span(extra: int = 0) -> str:
        return f"[{scale.show(lo, extra)}, {scale.show(hi, extra)}]"

    # A strict comparison (above, below, wholly below, ...) is shown with the digits
    # that tell its two numbers apart (Scale.apart): never "1.77 is below [1.77, 1.83]".
    if claim.comparison is Comparison.WITHIN:
        target = claim.paper_value
        assert target is not None  # checked by Claim
        if lo - _EPS <= target <= hi + _EPS:
            return ClaimResult(claim, measured, Verdict.HOLDS,
                               f"the paper's {scale.show(target)} is inside the interval "
                               f"{span()}")
        side, near = ("above", hi) if target > hi else ("below", lo)
        x = scale.apart(target, near)
        return ClaimResult(claim, measured, Verdict.DOES_NOT_HOLD,
                           f"the paper's {scale.show(target, x)} is {side} the interval "
                           f"{span(x)}")
    if claim.comparison is Comparison.OVERLAPS:
        assert claim.paper_range is not None  # checked by Claim
        low, high = claim.paper_range

        def paper(extra: int = 0) -> str:
            return f"[{scale.show(low, extra)}, {scale.show(high, extra)}]"

        if low <= hi + _EPS and high >= lo - _EPS:
            return ClaimResult(claim, measured, Verdict.HOLDS,
                               f"the paper's range {paper()} overlaps the interval {span()}")
        side, x = ("above", scale.apart(low, hi)) if low > hi else \
            ("below", scale.apart(high, lo))
        return ClaimResult(claim, measured, Verdict.DOES_NOT_HOLD,
                           f"the paper's range {paper(x)} is wholly {side} the interval "
                           f"{span(x)}")
    bound = claim.threshold
    assert bound is not None  # checked by Claim
    want_below = claim.comparison is Comparison.BELOW
    if (hi < bound - _EPS) if want_below else (lo > bound + _EPS):
        x = scale.apart(hi if want_below else lo, bound)
        return ClaimResult(claim, measured, Verdict.HOLDS,
                           f"the interval {span(x)} is wholly {claim.comparison} "
                           f"{scale.show(bound, x)}")
    show = scale.show
    if (lo >= bound) if want_below else (hi <= bound):
        other = "above" if want_below else "below"
        why = f"the interval {span()} is at or {other} {show(bound)}: not the claimed direction"
    else:
        why = f"the interval {span()} contains {show(bound)}: the direction is not shown"
    return ClaimResult(claim, measured, Verdict.DOES_NOT_HOLD, why)

@dataclass(frozen=True)
class PaperReport:
    """One paper's results as rendered: every claim, once or once a model kind
    and model measured it (never pooled). ``available`` is False for a paper
    registered whose module is not there yet (``note`` says so)."""

    name: str
    title: str
    quick: str
    results: tuple[ClaimResult, ...] = ()
    stores: tuple[str, ...] = ()
    available: bool = True
    note: str = ""
    claims: tuple[Claim, ...] = field(default=())


__all__ = ["Claim", "ClaimResult", "Comparison", "Measured", "ModelKind", "PaperReport",
           "Scale", "Verdict", "judge"]
