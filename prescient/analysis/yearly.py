"""Table 3: yearly average accuracy and average year-over-year (YoY) change.

Definitions (the paper gives the names, not the formulas; these are ours, and the tests
check them on hand-computed tables):

* Monthly accuracy ``acc(m)`` is correct / scored in month m (refusals count as wrong).
* Yearly average accuracy of year y is the unweighted mean of ``acc(m)`` over the months
  of y that have at least one question (``n_months`` says how many).
* The YoY change at month m is the relative change from the same month one year
  earlier, in percent: ``yoy(m) = 100 * (acc(m) - acc(m - 12)) / acc(m - 12)``, defined
  only when both months have questions and ``acc(m - 12) > 0``.
* "Average YoY change over months" of a set S of months is the mean of ``yoy(m)`` over
  the months m in S where it is defined (``n_pairs`` says how many). S is
  - Avg: every month;
  - Pre-cutoff: months whose first day is on or before the knowledge cutoff (the month
    containing the cutoff is pre-cutoff: the model saw at least part of it);
  - Post-cutoff: months starting after the knowledge cutoff.
  A month is classified by its later month m; its comparison month m - 12 may lie on the
  other side of the cutoff (otherwise a model would need 13 post-cutoff months before
  any post-cutoff figure existed).
* Confidence intervals (beyond the paper): bootstrap. Each replicate resamples the
  questions of every month with replacement, which for 0/1 outcomes is exactly drawing
  the month's correct count from Binomial(n_m, acc(m)); the average YoY figures are
  recomputed by the same rules on each replicate. The interval is either the percentile
  interval (the replicates' alpha/2 and 1 - alpha/2 quantiles) or Efron's bias-corrected
  one (BC: with ``z0 = Phi^-1(share of replicates below the estimate)``, the quantiles
  ``Phi(2 z0 -+ z_{1-alpha/2})``). A mean of ratios is strongly biased under resampling
  when months hold few questions (a resampled month near zero makes a huge ratio), so
  the replicates can lie almost all on one side of the estimate; BC then reaches for an
  extreme quantile and the interval can exclude the estimate itself (e.g.
  ``-0.99 [-4.41, -1.68]``). Neither interval is trustworthy there: every interval that
  does not contain its estimate is flagged (``yoy_<r>_ci_excludes``) and marked in the
  tables and the report, never shown as if it were fine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient import dates
from prescient.analysis.monthly import SERIES_KEYS
from prescient.analysis.schema import ModelInfo, iso
from prescient.analysis.settings import BootstrapSettings
from prescient.seeds import derive_seed

REGIMES = ("pre", "post", "all")


def yearly_averages(monthly: pd.DataFrame) -> pd.DataFrame:
    """Per series and calendar year: mean monthly accuracy, months and questions used.

    Years inside the calendar whose months all lack questions appear with NaN accuracy
    and ``n_months = 0``.
    """
    cols = [*SERIES_KEYS, "year", "n_months", "n_questions", "accuracy"]
    if monthly.empty:
        return pd.DataFrame(columns=cols)
    df = monthly.assign(
        year=monthly["month_index"] // 12,
        has=monthly["n"] > 0,
        acc=monthly["accuracy"].where(monthly["n"] > 0),
    )
    out = df.groupby([*SERIES_KEYS, "year"], sort=False, as_index=False).agg(
        n_months=("has", "sum"), n_questions=("n", "sum"), accuracy=("acc", "mean")
    )
    out["n_months"] = out["n_months"].astype(int)
    out["n_questions"] = out["n_questions"].astype(int)
    return out[cols]


def yoy_pairs(months: npt.ArrayLike, n: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], ...]:
    """Positions (previous, current) of month pairs twelve months apart, both with data."""
    m = np.asarray(months, dtype=np.int64)
    has = np.asarray(n) > 0
    pos = {int(mi): i for i, mi in enumerate(m) if has[i]}
    prev, cur = [], []
    for i, mi in enumerate(m):
        j = pos.get(int(mi) - 12)
        if has[i] and j is not None:
            prev.append(j)
            cur.append(i)
    return np.asarray(prev, dtype=np.int64), np.asarray(cur, dtype=np.int64)


def _regime_masks(
    months: npt.NDArray[np.int64], cur: npt.NDArray[np.int64], cutoff_month: int | None
) -> dict[str, npt.NDArray[np.bool_]]:
    all_mask = np.ones(cur.size, dtype=bool)
    if cutoff_month is None:
        none = np.zeros(cur.size, dtype=bool)
        return {"pre": none, "post": none, "all": all_mask}
    pre = months[cur] <= cutoff_month
    return {"pre": pre, "post": ~pre, "all": all_mask}


def _mean_yoy(
    acc: npt.NDArray[np.float64],
    prev: npt.NDArray[np.int64],
    cur: npt.NDArray[np.int64],
    mask: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Mean YoY (%) over the masked pairs, for each row of ``acc`` (reps x months)."""
    base = acc[:, prev[mask]]
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(base > 0, 100.0 * (acc[:, cur[mask]] - base) / base, np.nan)
    count = np.sum(np.isfinite(rel), axis=1)
    with np.errstate(invalid="ignore"):
        mean = np.where(count > 0, np.nansum(rel, axis=1) / np.maximum(count, 1), np.nan)
    return mean, count


def bc_interval(
    replicates: npt.NDArray[np.float64], estimate: float, confidence: float
) -> tuple[float, float]:
    """Bias-corrected percentile bootstrap interval (module docstring); NaN without replicates.

    The share of replicates below the estimate is clipped to [1/(2R), 1 - 1/(2R)] so a
    degenerate bootstrap distribution gives a finite correction.
    """
    r = replicates.size
    if r == 0 or not math.isfinite(estimate):
        return math.nan, math.nan
    normal = NormalDist()
    below = float(np.mean(replicates < estimate) + 0.5 * np.mean(replicates == estimate))
    z0 = normal.inv_cdf(min(max(below, 0.5 / r), 1.0 - 0.5 / r))
    z = normal.inv_cdf(0.5 + confidence / 2.0)
    q_low, q_high = normal.cdf(2 * z0 - z), normal.cdf(2 * z0 + z)
    low, high = np.quantile(replicates, [q_low, q_high])
    return float(low), float(high)


def percentile_interval(
    replicates: npt.NDArray[np.float64], estimate: float, confidence: float
) -> tuple[float, float]:
    """The replicates' (1 - confidence)/2 and (1 + confidence)/2 quantiles; NaN without
    replicates or without an estimate."""
    if replicates.size == 0 or not math.isfinite(estimate):
        return math.nan, math.nan
    low, high = np.quantile(replicates, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0])
    return float(low), float(high)


INTERVALS = {"percentile": percentile_interval, "bc": bc_interval}
"""``analysis.bootstrap.interval`` -> the function computing it."""


@dataclass(frozen=True)
class YoYSummary:
    """Average YoY change (%) of one regime with its bootstrap interval.

    ``ci_excludes`` is True when the interval exists and does not contain ``value``.
    """

    value: float
    n_pairs: int
    ci_low: float
    ci_high: float

    @property
    def ci_excludes(self) -> bool:
        if not (math.isfinite(self.ci_low) and math.isfinite(self.ci_high)):
            return False
        return not self.ci_low <= self.value <= self.ci_high


def average_yoy(
    months: npt.ArrayLike,
    n: npt.ArrayLike,
    n_correct: npt.ArrayLike,
    cutoff_month: int | None,
    bootstrap: BootstrapSettings,
    seed: int,
) -> dict[str, YoYSummary]:
    """Average YoY change before/after the cutoff and over all months (module docstring).

    Args:
        months: month indices of the series (any order, gaps allowed).
        n: questions per month.
        n_correct: correct answers per month.
        cutoff_month: month index of the knowledge cutoff, or None when unknown (then
            pre and post are NaN and only ``all`` is computed).
        bootstrap: replicates and confidence level; ``reps = 0`` skips the intervals.
        seed: seed of this series' bootstrap.
    """
    m = np.asarray(months, dtype=np.int64)
    nn = np.asarray(n, dtype=float)
    kk = np.asarray(n_correct, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    prev, cur = yoy_pairs(m, nn)
    masks = _regime_masks(m, cur, cutoff_month)
    boot: npt.NDArray[np.float64] | None = None
    if bootstrap.reps > 0 and cur.size:
        rng = np.random.default_rng(seed)
        p = np.nan_to_num(acc, nan=0.0)
        draws = rng.binomial(nn.astype(np.int64), p, size=(bootstrap.reps, m.size))
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = np.where(nn > 0, draws / np.where(nn > 0, nn, 1), np.nan)
    confidence = bootstrap.confidence
    out = {}
    for regime in REGIMES:
        mask = masks[regime]
        if regime != "all" and cutoff_month is None:
            out[regime] = YoYSummary(math.nan, 0, math.nan, math.nan)
            continue
        value, count = _mean_yoy(acc[None, :], prev, cur, mask)
        low = high = math.nan
        if boot is not None and count[0] > 0:
            reps, _ = _mean_yoy(boot, prev, cur, mask)
            low, high = INTERVALS[bootstrap.interval](
                reps[np.isfinite(reps)], float(value[0]), confidence
            )
        out[regime] = YoYSummary(float(value[0]), int(count[0]), low, high)
    return out


def table3(
    monthly: pd.DataFrame,
    models: Mapping[str, ModelInfo],
    bootstrap: BootstrapSettings,
    seed: int,
) -> pd.DataFrame:
    """Table 3 for every series: yearly averages (%) and average YoY changes (%).

    Columns: the series keys, ``knowledge_cutoff``, one ``acc_<year>`` (percent) and one
    ``months_<year>`` per calendar year, and for each of pre / post / all: ``yoy_<r>``,
    ``yoy_<r>_low``, ``yoy_<r>_high``, ``yoy_<r>_pairs`` and ``yoy_<r>_ci_excludes``
    (the interval does not contain the estimate).
    """
    yearly = yearly_averages(monthly)
    years = sorted(int(y) for y in yearly["year"].unique())
    rows = []
    for key, series in monthly.groupby(SERIES_KEYS, sort=False):
        row = dict(zip(SERIES_KEYS, key, strict=True))
        info = models.get(str(row["model"]))
        cutoff = info.knowledge_cutoff if info else None
        row["knowledge_cutoff"] = iso(cutoff)
        ys = yearly.loc[
            (yearly["model"] == row["model"])
            & (yearly["cell"] == row["cell"])
            & (yearly["qtype"] == row["qtype"])
        ].set_index("year")
        for y in years:
            row[f"acc_{y}"] = 100.0 * float(ys["accuracy"].get(y, math.nan))
            row[f"months_{y}"] = int(ys["n_months"].get(y, 0))
        cutoff_month = dates.month_index(cutoff) if cutoff is not None else None
        summary = average_yoy(
            series["month_index"].to_numpy(),
            series["n"].to_numpy(),
            series["n_correct"].to_numpy(),
            cutoff_month,
            bootstrap,
            derive_seed(seed, "yoy", row["model"], row["cell"], row["qtype"]),
        )
        for regime, s in summary.items():
            row[f"yoy_{regime}"] = s.value
            row[f"yoy_{regime}_low"] = s.ci_low
            row[f"yoy_{regime}_high"] = s.ci_high
            row[f"yoy_{regime}_pairs"] = s.n_pairs
            row[f"yoy_{regime}_ci_excludes"] = s.ci_excludes
        rows.append(row)
    columns = [
        *SERIES_KEYS,
        "knowledge_cutoff",
        *[f"acc_{y}" for y in years],
        *[f"months_{y}" for y in years],
        *[f"yoy_{r}{s}" for r in REGIMES for s in ("", "_low", "_high", "_pairs", "_ci_excludes")],
    ]
    return pd.DataFrame(rows, columns=columns)
