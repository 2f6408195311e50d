"""Statistics for comparing methods: Wilson intervals, the two-proportion
z-test, Cohen's h, bootstrap intervals for means, and an exact McNemar test
for paired comparisons on shared instances. Standard library only."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass


def _normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class ZTest:
    z: float
    p_value: float  # two-sided


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> ZTest:
    """Pooled two-proportion z-test of p1 == p2 (two-sided)."""
    if n1 == 0 or n2 == 0:
        return ZTest(0.0, 1.0)
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return ZTest(0.0, 1.0)
    z = (k1 / n1 - k2 / n2) / se
    return ZTest(z, 2 * (1 - _normal_cdf(abs(z))))


def cohens_h(p1: float, p2: float) -> float:
    """Effect size between two proportions: 2 asin(sqrt p1) - 2 asin(sqrt p2)."""
    return 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))


def bootstrap_mean_interval(values: Sequence[float], *, reps: int = 2000,
                            confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean, a function of the values as
    a multiset: the resamples are drawn from the values sorted, so the same
    values in any order (units read from a store in another order) give the
    same interval. A NaN among the values gives (nan, nan), as its mean is."""
    if not values or any(math.isnan(v) for v in values):
        return (math.nan, math.nan)
    pool = sorted(values)
    rng = random.Random(seed)
    n = len(pool)
    means = sorted(sum(rng.choices(pool, k=n)) / n for _ in range(reps))
    lo = means[int((1 - confidence) / 2 * reps)]
    hi = means[min(reps - 1, int((1 + confidence) / 2 * reps))]
    return (lo, hi)


@dataclass(frozen=True)
class PairedComparison:
    shared: int  # instances both configurations ran
    only_a: int  # solved by A, not by B
    only_b: int
    both: int
    p_value: float  # exact two-sided McNemar (binomial on the discordant pairs)


def mcnemar(a: dict[str, bool], b: dict[str, bool]) -> PairedComparison:
    """Compare two configurations on the instances both ran."""
    shared = sorted(set(a) & set(b))
    only_a = sum(1 for i in shared if a[i] and not b[i])
    only_b = sum(1 for i in shared if b[i] and not a[i])
    both = sum(1 for i in shared if a[i] and b[i])
    n = only_a + only_b
    if n == 0:
        p = 1.0
    else:
        k = min(only_a, only_b)
        p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)
    return PairedComparison(len(shared), only_a, only_b, both, p)


