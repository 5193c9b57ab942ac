"""Fig. 6: how the trend of the smoothed accuracy changes as months accumulate.

For a series of moving-average accuracies on a calendar of consecutive months, the first
window is the ``start_months`` calendar months beginning at the first month whose moving
average is defined; each next window adds ``step_months`` months at the end. A window of
k months is fitted by weighted least squares of accuracy (percent) on the month position
t = 1..k with weight ``decay ** (k - t)``, so the newest month weighs 1 and older months
fade. The slope is in percentage points per month, reported at the window's last month.
Months with an undefined moving average inside a window are left out of its fit; a
window with fewer than ``min_points`` defined months gets a NaN slope (a labelled gap).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient import dates
from prescient.analysis.monthly import SERIES_KEYS
from prescient.benchmarks.daily_oracle.analysis.settings import SlopeSettings
from prescient.stats import weighted_slope

SLOPE_COLUMNS = [
    *SERIES_KEYS,
    "window_start",
    "window_end",
    "window_end_index",
    "end_month_start",
    "end_month_end",
    "n_months",
    "n_points",
    "slope_pp_per_month",
]


def expanding_slopes(
    month_indices: npt.ArrayLike, ma_accuracy: npt.ArrayLike, settings: SlopeSettings
) -> pd.DataFrame:
    """Slopes of one series (module docstring).

    Args:
        month_indices: consecutive calendar month indices.
        ma_accuracy: moving-average accuracy (fraction, NaN where undefined), aligned.
        settings: window start, step, decay and minimum defined months.

    Returns:
        Columns ``window_start``, ``window_end`` (``YYYY-MM``), ``window_end_index``,
        ``end_month_start`` / ``end_month_end`` (the last month's first day and the next
        month's, where a figure draws the slope), ``n_months`` (k), ``n_points`` and
        ``slope_pp_per_month``; empty when the series is shorter than the first window.
    """
    months = np.asarray(month_indices, dtype=np.int64)
    y = 100.0 * np.asarray(ma_accuracy, dtype=float)
    if months.size and np.any(np.diff(months) != 1):
        raise ValueError("expanding_slopes needs a calendar of consecutive months")
    defined = np.flatnonzero(np.isfinite(y))
    rows = []
    if defined.size:
        start = int(defined[0])
        k = settings.start_months
        while start + k <= months.size:
            window = y[start : start + k]
            t = np.arange(1, k + 1, dtype=float)
            weights = settings.decay ** (k - t)
            n_points = int(np.isfinite(window).sum())
            slope = (
                weighted_slope(t, window, weights) if n_points >= settings.min_points else np.nan
            )
            end = int(months[start + k - 1])
            rows.append(
                {
                    "window_start": dates.month_label(int(months[start])),
                    "window_end": dates.month_label(end),
                    "window_end_index": end,
                    "end_month_start": dates.month_start(end).isoformat(),
                    "end_month_end": dates.month_start(end + 1).isoformat(),
                    "n_months": k,
                    "n_points": n_points,
                    "slope_pp_per_month": slope,
                }
            )
            k += settings.step_months
    return pd.DataFrame(rows, columns=SLOPE_COLUMNS[len(SERIES_KEYS) :])


def slopes_table(monthly: pd.DataFrame, settings: SlopeSettings) -> pd.DataFrame:
    """Fig. 6 slopes of every series of the monthly table (both question types)."""
    parts = []
    for key, series in monthly.groupby(SERIES_KEYS, sort=False):
        s = expanding_slopes(series["month_index"], series["accuracy_ma"], settings)
        if s.empty:
            continue
        parts.append(s.assign(**dict(zip(SERIES_KEYS, map(str, key), strict=True))))
    if not parts:
        return pd.DataFrame(columns=SLOPE_COLUMNS)
    return pd.concat(parts, ignore_index=True)[SLOPE_COLUMNS]
