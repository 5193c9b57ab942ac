"""Table 3: yearly accuracy and average year-over-year (YoY) change.

The paper (Daily Oracle, ICML 2025, section 4.1 and Table 3) names the quantities; the
shipped definitions are those that reproduce its Table 3 from the authors' monthly
results, and the tests check them on hand-computed tables:

* Monthly accuracy ``acc(m)`` is correct / scored in month m (refusals count as wrong).
* A year's accuracy (``analysis.table3.yearly``) is ``pooled``: correct / scored over all
  of the year's questions (the paper's); or ``mean_of_months``: the unweighted mean of
  ``acc(m)`` over the year's months with questions. ``n_months`` and ``n_questions`` say
  what entered it.
* The YoY change at month m is the relative change from the same month one year
  earlier, in percent: ``yoy(m) = 100 * (acc(m) - acc(m - 12)) / acc(m - 12)``, defined
  only when both months have questions and ``acc(m - 12) > 0``.
* The YoY range is the months from 12 months after the calendar's first month (the
  period's, ``analysis.date_start``, else the first scored month) to its last; an
  "average YoY change" of a set S of months is the mean of ``yoy(m)`` over the months m
  of S inside that range where it is defined (``n_pairs`` says how many). With c the
  month of the knowledge cutoff, S is
  - Avg: every month of the range;
  - ``analysis.table3.windows: paper`` (the paper's): Pre-cutoff the ``pre_months``
    months before the cutoff month, ``[c - pre_months, c)``, Post-cutoff the
    ``post_months`` months from it, ``[c, c + post_months)`` (the paper: 24 and 7);
  - ``all_months``: Pre-cutoff every month up to and including c (the model saw at least
    part of it), Post-cutoff every month after c.
  A month is classified by its later month m; its comparison month m - 12 may lie on the
  other side of the cutoff. A model without a cutoff has no Pre/Post figures.
* A floor (beyond the paper, which states none): an average whose pairs include a month
  of fewer than ``analysis.table3.min_month_n`` questions is left out, with the reason
  in ``yoy_<r>_status``, rather than printed from a handful of answers (a month of one
  question turns a single answer into a change of -100% or more). The paper's months hold
  hundreds of questions, so its Table 3 is untouched.
* Confidence intervals (beyond the paper: extra columns beside the paper's estimates,
  which they never change): bootstrap. Each replicate resamples the
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
from prescient.benchmarks.daily_oracle.analysis.settings import (
    Table3Settings,
    WindowRule,
    YearlyRule,
)
from prescient.seeds import derive_seed

REGIMES = ("pre", "post", "all")


def yearly_averages(monthly: pd.DataFrame, rule: YearlyRule) -> pd.DataFrame:
    """Per series and calendar year: accuracy by ``rule`` (module docstring), months with
    questions, questions and correct answers.

    Years inside the calendar whose months all lack questions appear with NaN accuracy
    and ``n_months = 0``.
    """
    cols = [*SERIES_KEYS, "year", "n_months", "n_questions", "n_correct", "accuracy"]
    if monthly.empty:
        return pd.DataFrame(columns=cols)
    df = monthly.assign(
        year=monthly["month_index"] // 12,
        has=monthly["n"] > 0,
        acc=monthly["accuracy"].where(monthly["n"] > 0),
    )
    out = df.groupby([*SERIES_KEYS, "year"], sort=False, as_index=False).agg(
        n_months=("has", "sum"),
        n_questions=("n", "sum"),
        n_correct=("n_correct", "sum"),
        mean_of_months=("acc", "mean"),
    )
    for col in ("n_months", "n_questions", "n_correct"):
        out[col] = out[col].astype(int)
    if rule == "pooled":
        n = out["n_questions"].where(out["n_questions"] > 0)
        out["accuracy"] = out["n_correct"] / n
    elif rule == "mean_of_months":
        out["accuracy"] = out["mean_of_months"]
    else:
        raise ValueError(f"unknown yearly rule {rule!r}; expected pooled or mean_of_months")
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


@dataclass(frozen=True)
class YoYWindows:
    """Which months each average YoY change covers (module docstring).

    Attributes:
        rule: ``paper`` or ``all_months`` (:data:`WindowRule`).
        pre_months: months before the cutoff month in Pre-cutoff (``paper``).
        post_months: months from the cutoff month on in Post-cutoff (``paper``).
        first: the first month index of the YoY range (None: unbounded).
        last: the last month index of the YoY range (None: unbounded).
    """

    rule: WindowRule
    pre_months: int
    post_months: int
    first: int | None = None
    last: int | None = None

    def bounds(self, regime: str, cutoff_month: int | None) -> tuple[int, int] | None:
        """Inclusive first and last month of a regime's window, clipped to the range
        (None: the window is empty or the regime needs a cutoff the model lacks)."""
        lo = self.first if self.first is not None else -(2**62)
        hi = self.last if self.last is not None else 2**62
        if regime != "all":
            if cutoff_month is None:
                return None
            c = cutoff_month
            if self.rule == "paper":
                own = (
                    (c - self.pre_months, c - 1)
                    if regime == "pre"
                    else (c, c + self.post_months - 1)
                )
            elif regime == "pre":
                own = (lo, c)
            else:
                own = (c + 1, hi)
            lo, hi = max(lo, own[0]), min(hi, own[1])
        return (lo, hi) if lo <= hi else None


def _regime_masks(
    months: npt.NDArray[np.int64],
    cur: npt.NDArray[np.int64],
    cutoff_month: int | None,
    windows: YoYWindows,
) -> dict[str, npt.NDArray[np.bool_]]:
    later = months[cur]
    masks = {}
    for regime in REGIMES:
        bounds = windows.bounds(regime, cutoff_month)
        if bounds is None:
            masks[regime] = np.zeros(cur.size, dtype=bool)
        else:
            masks[regime] = (later >= bounds[0]) & (later <= bounds[1])
    return masks


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
    fewest: int = 0
    """The fewest questions in any month of the pairs averaged (0: no pair)."""

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
    windows: YoYWindows,
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
        windows: the months each figure averages over.
    """
    m = np.asarray(months, dtype=np.int64)
    nn = np.asarray(n, dtype=float)
    kk = np.asarray(n_correct, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    prev, cur = yoy_pairs(m, nn)
    masks = _regime_masks(m, cur, cutoff_month, windows)
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
        fewest = _fewest(acc, nn, prev, cur, mask)
        low = high = math.nan
        if boot is not None and count[0] > 0:
            reps, _ = _mean_yoy(boot, prev, cur, mask)
            low, high = INTERVALS[bootstrap.interval](
                reps[np.isfinite(reps)], float(value[0]), confidence
            )
        out[regime] = YoYSummary(float(value[0]), int(count[0]), low, high, fewest)
    return out


def _fewest(
    acc: npt.NDArray[np.float64],
    n: npt.NDArray[np.float64],
    prev: npt.NDArray[np.int64],
    cur: npt.NDArray[np.int64],
    mask: npt.NDArray[np.bool_],
) -> int:
    """The fewest questions in any month of the masked pairs with a YoY value (0: none)."""
    defined = mask & (np.nan_to_num(acc[prev], nan=0.0) > 0)
    months = np.concatenate([n[prev[defined]], n[cur[defined]]])
    return int(months.min()) if months.size else 0


def floor_status(fewest: int, n_pairs: int, min_month_n: int) -> str:
    """Why an average YoY change is left out, or "" when it stands: a month of its pairs
    holds fewer than ``min_month_n`` questions (``analysis.table3.min_month_n``)."""
    if n_pairs > 0 and fewest < min_month_n:
        noun = "question" if fewest == 1 else "questions"
        return f"too few: a month of {fewest} {noun} (< {min_month_n})"
    return ""


def yoy_windows(monthly: pd.DataFrame, settings: Table3Settings) -> YoYWindows:
    """The YoY range of a monthly table: from 12 months after its calendar's first month
    (the period's first month when one is set) to its last month."""
    if monthly.empty:
        return YoYWindows(settings.windows, settings.pre_months, settings.post_months)
    first, last = int(monthly["month_index"].min()), int(monthly["month_index"].max())
    return YoYWindows(settings.windows, settings.pre_months, settings.post_months, first + 12, last)


def _label(month: int | None) -> str:
    return dates.month_label(month) if month is not None else ""


def table3(
    monthly: pd.DataFrame,
    models: Mapping[str, ModelInfo],
    settings: Table3Settings,
    bootstrap: BootstrapSettings,
    seed: int,
) -> pd.DataFrame:
    """Table 3 for every series: yearly accuracy (%) and average YoY changes (%).

    Columns: the series keys, ``knowledge_cutoff``, one ``acc_<year>`` (percent),
    ``months_<year>`` and ``n_<year>`` (questions) per calendar year of the monthly
    table's calendar, and for each of pre / post / all: ``yoy_<r>``, ``yoy_<r>_low``,
    ``yoy_<r>_high``, ``yoy_<r>_pairs`` (months averaged), ``yoy_<r>_ci_excludes`` (the
    interval does not contain the estimate), ``yoy_<r>_from`` and ``yoy_<r>_to``
    (``YYYY-MM``, the window's first and last month; empty when it has none),
    ``yoy_<r>_fewest`` (the fewest questions in a month of its pairs) and
    ``yoy_<r>_status``: empty, or why the figure is left out (a month below
    ``settings.min_month_n``: the figure and its interval are empty then).
    """
    yearly = yearly_averages(monthly, settings.yearly)
    years = sorted(int(y) for y in yearly["year"].unique())
    windows = yoy_windows(monthly, settings)
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
            row[f"n_{y}"] = int(ys["n_questions"].get(y, 0))
        cutoff_month = dates.month_index(cutoff) if cutoff is not None else None
        summary = average_yoy(
            series["month_index"].to_numpy(),
            series["n"].to_numpy(),
            series["n_correct"].to_numpy(),
            cutoff_month,
            bootstrap,
            derive_seed(seed, "yoy", row["model"], row["cell"], row["qtype"]),
            windows,
        )
        for regime, s in summary.items():
            status = floor_status(s.fewest, s.n_pairs, settings.min_month_n)
            row[f"yoy_{regime}"] = math.nan if status else s.value
            row[f"yoy_{regime}_low"] = math.nan if status else s.ci_low
            row[f"yoy_{regime}_high"] = math.nan if status else s.ci_high
            row[f"yoy_{regime}_pairs"] = s.n_pairs
            row[f"yoy_{regime}_ci_excludes"] = False if status else s.ci_excludes
            row[f"yoy_{regime}_fewest"] = s.fewest
            row[f"yoy_{regime}_status"] = status
            bounds = windows.bounds(regime, cutoff_month)
            row[f"yoy_{regime}_from"] = _label(bounds[0] if bounds else None)
            row[f"yoy_{regime}_to"] = _label(bounds[1] if bounds else None)
        rows.append(row)
    suffixes = ("", "_low", "_high", "_pairs", "_ci_excludes", "_from", "_to", "_fewest", "_status")
    columns = [
        *SERIES_KEYS,
        "knowledge_cutoff",
        *[f"acc_{y}" for y in years],
        *[f"months_{y}" for y in years],
        *[f"n_{y}" for y in years],
        *[f"yoy_{r}{s}" for r in REGIMES for s in suffixes],
    ]
    return pd.DataFrame(rows, columns=columns)
