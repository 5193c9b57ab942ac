"""Agreement statistics: Fleiss' kappa, Krippendorff's alpha, consensus, bootstrap CIs.

Pure numpy on small arrays; no I/O. The conventions follow the sources the tests check
against: Fleiss (1971) for kappa (identical to ``statsmodels.stats.inter_rater.fleiss_kappa``)
and Krippendorff's coincidence-matrix formulation for alpha, which allows missing ratings.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]
Rounding = Literal["half_up", "half_down"]


def fleiss_kappa(table: ArrayLike) -> float:
    """Fleiss' kappa of a subjects x categories table of rating counts.

    Every row must sum to the same number of raters (at least 2), as Fleiss' statistic
    assumes. Returns NaN when chance agreement is 1 (every rating in one category), where
    kappa is undefined rather than 0 or 1.

    Args:
        table: ``table[i, j]`` = how many raters put subject ``i`` in category ``j``.
    """
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError(f"expected a non-empty 2-D subjects x categories table, got {t.shape}")
    if (t < 0).any():
        raise ValueError("counts must be non-negative")
    n_per_subject = t.sum(axis=1)
    n = float(n_per_subject[0])
    if not np.allclose(n_per_subject, n):
        raise ValueError("every subject must have the same number of ratings")
    if n < 2:
        raise ValueError("Fleiss' kappa needs at least 2 ratings per subject")
    p_cat = t.sum(axis=0) / t.sum()
    p_subject = ((t * t).sum(axis=1) - n) / (n * (n - 1.0))
    p_bar = float(p_subject.mean())
    p_e = float((p_cat * p_cat).sum())
    if np.count_nonzero(p_cat) <= 1:
        return math.nan
    return (p_bar - p_e) / (1.0 - p_e)


def fleiss_kappa_batch(tables: ArrayLike) -> NDArray[np.float64]:
    """Fleiss' kappa of many tables at once: ``tables`` has shape (..., subjects, categories).

    Used by the bootstrap, where thousands of resampled tables are scored. Same formula
    and NaN convention as :func:`fleiss_kappa`.
    """
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=-1)[..., :1]  # raters per subject, checked constant by the caller
    total = t.sum(axis=(-2, -1))
    p_cat = t.sum(axis=-2) / total[..., None]
    p_subject = ((t * t).sum(axis=-1) - n) / (n * (n - 1.0))
    p_bar = p_subject.mean(axis=-1)
    p_e = (p_cat * p_cat).sum(axis=-1)
    degenerate = np.count_nonzero(p_cat, axis=-1) <= 1
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (p_bar - p_e) / (1.0 - p_e)
    return np.where(degenerate, np.nan, kappa)


def category_counts(ratings: ArrayLike, categories: tuple[int, ...]) -> NDArray[np.int64]:
    """Turn a subjects x raters matrix of category values into Fleiss' count table.

    NaN entries (missing ratings) are not counted.
    """
    r = np.asarray(ratings, dtype=float)
    return np.stack([(r == c).sum(axis=1) for c in categories], axis=1).astype(np.int64)


def krippendorff_alpha(ratings: ArrayLike, level: AlphaLevel = "interval") -> float:
    """Krippendorff's alpha of a units x coders matrix with NaN for missing ratings.

    Built on the coincidence matrix: each unit with m >= 2 ratings contributes its
    m(m-1) ordered pairs of values, weighted 1/(m-1); units with fewer ratings are not
    pairable and are ignored. Returns NaN when there is no pairable variation (expected
    disagreement 0).

    Args:
        ratings: ``ratings[u, c]`` = coder ``c``'s value for unit ``u``, NaN if missing.
        level: the metric of the values: ``nominal`` (categories), ``ordinal`` (ranks, the
            distance grows with the number of values in between), ``interval`` (squared
            differences) or ``ratio``.
    """
    r = np.asarray(ratings, dtype=float)
    if r.ndim != 2:
        raise ValueError("expected a 2-D units x coders matrix")
    values = np.unique(r[~np.isnan(r)])
    if values.size == 0:
        return math.nan
    index = {v: i for i, v in enumerate(values.tolist())}
    k = values.size
    coincidence = np.zeros((k, k))
    for row in r:
        present = row[~np.isnan(row)]
        m = present.size
        if m < 2:
            continue
        counts = np.zeros(k)
        for v in present.tolist():
            counts[index[v]] += 1
        # ordered pairs of different raters: counts_c * counts_k, minus the self-pairs
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if n <= 1:
        return math.nan
    delta = _delta_squared(values, n_c, level)
    observed = float((coincidence * delta).sum())
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n - 1.0)
    if expected == 0.0:
        return math.nan
    return float(1.0 - observed / expected)


def _delta_squared(
    values: NDArray[np.float64], n_c: NDArray[np.float64], level: AlphaLevel
) -> NDArray[np.float64]:
    c = values[:, None]
    k = values[None, :]
    if level == "nominal":
        return np.asarray(c != k, dtype=float)
    if level == "interval":
        return np.asarray((c - k) ** 2, dtype=float)
    if level == "ratio":
        with np.errstate(divide="ignore", invalid="ignore"):
            d = ((c - k) / (c + k)) ** 2
        return np.asarray(np.nan_to_num(np.asarray(d, dtype=float)), dtype=float)
    if level == "ordinal":
        cum = np.cumsum(n_c)
        size = values.size
        d = np.zeros((size, size))
        for i in range(size):
            for j in range(size):
                lo, hi = min(i, j), max(i, j)
                between = cum[hi] - (cum[lo - 1] if lo > 0 else 0.0)
                d[i, j] = (between - (n_c[i] + n_c[j]) / 2.0) ** 2
        return d
    raise ValueError(f"unknown level of measurement {level!r}")


def round_mean(total: int, count: int, rule: Rounding = "half_up") -> int:
    """Round the mean ``total / count`` to an integer, exactly (no float ties).

    ``half_up`` sends a mean of 0.5 to 1 and 1.5 to 2 (a tied panel gives the item the
    benefit of the doubt); ``half_down`` sends them to 0 and 1. Python's ``round`` is
    avoided on purpose: it rounds halves to even, so 0.5 -> 0 but 1.5 -> 2.
    """
    if count <= 0:
        raise ValueError("the mean of no scores is undefined")
    if rule == "half_up":
        return (2 * total + count) // (2 * count)
    if rule == "half_down":
        return -((count - 2 * total) // (2 * count))
    raise ValueError(f"unknown rounding rule {rule!r}")


@dataclass(frozen=True)
class Interval:
    """A bootstrap percentile interval.

    Attributes:
        low: lower bound, NaN when no resample gave a defined value.
        high: upper bound.
        n_valid: resamples whose statistic was defined (kappa is NaN on a resample in
            which every rating fell in one category).
    """

    low: float
    high: float
    n_valid: int


def percentile_interval(samples: ArrayLike, level: float = 0.95) -> Interval:
    """The equal-tailed percentile interval of bootstrap replicates, ignoring NaNs."""
    s = np.asarray(samples, dtype=float)
    s = s[~np.isnan(s)]
    if s.size == 0:
        return Interval(math.nan, math.nan, 0)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(s, [alpha, 1.0 - alpha])
    return Interval(float(low), float(high), int(s.size))


def bootstrap_indices(n_items: int, reps: int, seed: int) -> NDArray[np.int64]:
    """``reps`` resamples of ``n_items`` item indices with replacement (seeded)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_items, size=(reps, n_items))


def bootstrap(
    statistic: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    indices: NDArray[np.int64],
    level: float = 0.95,
) -> list[Interval]:
    """Percentile intervals of a vector statistic over item resamples.

    Args:
        statistic: maps a (reps, n_items) array of resampled indices to a (reps, k)
            array of statistics, so all resamples are scored in one vectorised call.
        indices: from :func:`bootstrap_indices`; reuse the same indices for statistics
            that are reported together (per-principle kappas and their average).
        level: coverage of the interval.
    """
    values = np.asarray(statistic(indices), dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    return [percentile_interval(values[:, j], level) for j in range(values.shape[1])]
