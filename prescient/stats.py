"""Small statistical building blocks, each owning one rule.

Kept free of pandas so the rules are easy to check by hand: the Wilson interval, the
FreshBench z statistic and its one-sided p-value, significance marks, weighted and
ordinary least-squares lines. Seeds come from :func:`prescient.seeds.derive_seed`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Z_95 = 1.959963984540054  # the 97.5% quantile of the standard normal distribution


def wilson_interval(
    successes: npt.ArrayLike, n: npt.ArrayLike, z: float = Z_95
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Wilson score interval for a binomial proportion (vectorised).

    Chosen over the normal (Wald) interval because monthly counts can be small and
    accuracies near 0 or 1, where Wald collapses to zero width. Where ``n == 0`` both
    bounds are NaN: there is no proportion to bound.
    """
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / m
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = (z / denom) * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m))
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def normal_sf(z: float) -> float:
    """``1 - Phi(z)`` computed without cancellation in the upper tail."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


@dataclass(frozen=True)
class ZTest:
    """A one-sided two-proportion z-test of H1: E[acc1] > E[acc2].

    Attributes:
        z: ``(acc1 - acc2) / sqrt(acc1(1-acc1)/n1 + acc2(1-acc2)/n2)``; NaN when undefined.
        p: ``1 - Phi(z)``; NaN when undefined.
        status: ``ok``, ``no questions`` (a side has n = 0) or ``zero variance`` (both
            accuracies are 0 or 1, so the unpooled standard error is 0).
    """

    z: float
    p: float
    status: str


def one_sided_z_test(acc1: float, n1: int, acc2: float, n2: int) -> ZTest:
    """FreshBench's test (their Eq. 6): unpooled standard error, upper-tail p-value.

    The statistic is undefined, not infinite, when the standard error is zero; reporting
    NaN with a status keeps a degenerate sample from posing as overwhelming evidence.
    """
    if n1 <= 0 or n2 <= 0 or math.isnan(acc1) or math.isnan(acc2):
        return ZTest(math.nan, math.nan, "no questions")
    se = math.sqrt(acc1 * (1.0 - acc1) / n1 + acc2 * (1.0 - acc2) / n2)
    if se == 0.0:
        return ZTest(math.nan, math.nan, "zero variance")
    z = (acc1 - acc2) / se
    return ZTest(z, normal_sf(z), "ok")


def significance_mark(p: float, thresholds: Sequence[float] = (0.05, 0.01, 0.001)) -> str:
    """``*`` per threshold that ``p`` is strictly below (``***`` for p < 0.001); '' else."""
    if math.isnan(p):
        return ""
    return "*" * sum(1 for t in thresholds if p < t)


def weighted_slope(x: npt.ArrayLike, y: npt.ArrayLike, w: npt.ArrayLike) -> float:
    """Slope of the weighted least-squares line ``y = a x + b``.

    ``a = sum w (x - xw)(y - yw) / sum w (x - xw)^2`` with weighted means ``xw``, ``yw``.
    NaN when fewer than two distinct x values carry weight.
    """
    xa, ya, wa = (np.asarray(v, dtype=float) for v in (x, y, w))
    keep = np.isfinite(xa) & np.isfinite(ya) & (wa > 0)
    xa, ya, wa = xa[keep], ya[keep], wa[keep]
    if xa.size < 2 or np.unique(xa).size < 2:
        return math.nan
    xm = float(np.sum(wa * xa) / np.sum(wa))
    ym = float(np.sum(wa * ya) / np.sum(wa))
    sxx = float(np.sum(wa * (xa - xm) ** 2))
    return float(np.sum(wa * (xa - xm) * (ya - ym)) / sxx)


@dataclass(frozen=True)
class LinearFit:
    """An ordinary least-squares line with its coefficient of determination."""

    slope: float
    intercept: float
    r2: float
    n: int


def linear_fit(x: npt.ArrayLike, y: npt.ArrayLike) -> LinearFit:
    """OLS fit ``y = slope x + intercept`` and ``R^2 = 1 - SS_res / SS_tot``.

    NaN coefficients for fewer than two distinct x; R^2 is NaN when y is constant.
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    keep = np.isfinite(xa) & np.isfinite(ya)
    xa, ya = xa[keep], ya[keep]
    n = int(xa.size)
    if n < 2 or np.unique(xa).size < 2:
        return LinearFit(math.nan, math.nan, math.nan, n)
    slope = weighted_slope(xa, ya, np.ones_like(xa))
    intercept = float(ya.mean() - slope * xa.mean())
    ss_tot = float(np.sum((ya - ya.mean()) ** 2))
    ss_res = float(np.sum((ya - (slope * xa + intercept)) ** 2))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else math.nan
    return LinearFit(slope, intercept, r2, n)
