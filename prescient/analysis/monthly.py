"""Monthly accuracy, refusal rates and their moving averages (Fig. 3-5, 9-11).

The unit of every curve is one (model, setting, RAG cutoff, question type) series over a
shared calendar of months, so a month without questions is an explicit row with
``n = 0`` and NaN rates: plots show it as a gap and tables as an empty cell, never as a
zero or an interpolated value.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient import dates
from prescient.analysis.schema import cells_of
from prescient.analysis.settings import MovingAverageSettings
from prescient.report.tables import fmt_count
from prescient.stats import wilson_interval
from prescient.vocab import QTYPES

SERIES_KEYS = ["model", "setting", "rag_cutoff", "cell", "qtype"]
MONTHLY_COLUMNS = [
    *SERIES_KEYS,
    "month",
    "month_index",
    "month_start",
    "month_end",
    "n",
    "n_correct",
    "accuracy",
    "ci_low",
    "ci_high",
    "n_refused",
    "refusal_rate",
    "refusal_ci_low",
    "refusal_ci_high",
    "n_answered",
    "accuracy_excl_refusals",
    "excl_ci_low",
    "excl_ci_high",
    "n_parse_failed",
    "accuracy_ma",
    "accuracy_excl_refusals_ma",
    "refusal_rate_ma",
    "ma_months",
]


def moving_average(
    values: npt.ArrayLike, settings: MovingAverageSettings
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Moving average of a monthly series whose gaps are NaN.

    The value at month t is the unweighted mean of the defined values among the months of
    its window (``trailing``: t-w+1..t; ``centered``: t-w//2..t+(w-1-w//2)), and NaN when
    fewer than ``min_periods`` of them are defined. Months are consecutive positions in
    ``values``: the caller passes a complete calendar, gaps included.

    Returns:
        The averages and, per month, how many defined months entered the window.
    """
    v = np.asarray(values, dtype=float)
    w = settings.window
    before = w - 1 if settings.kind == "trailing" else w // 2
    after = w - 1 - before
    defined = np.isfinite(v)
    csum = np.concatenate([[0.0], np.cumsum(np.where(defined, v, 0.0))])
    ccount = np.concatenate([[0], np.cumsum(defined.astype(np.int64))])
    idx = np.arange(v.size)
    lo = np.clip(idx - before, 0, v.size)
    hi = np.clip(idx + after + 1, 0, v.size)
    count = ccount[hi] - ccount[lo]
    total = csum[hi] - csum[lo]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count >= settings.min_periods, total / np.maximum(count, 1), np.nan)
    return mean, count


def month_columns(month_index: pd.Series) -> dict[str, list[str]]:
    """``month`` (``YYYY-MM``), ``month_start`` and ``month_end`` (``YYYY-MM-DD``, the end
    exclusive: the first day of the next month) of month indices: the bounds a figure
    draws a month between."""
    indices = [int(m) for m in month_index]
    return {
        "month": [dates.month_label(m) for m in indices],
        "month_start": [dates.month_start(m).isoformat() for m in indices],
        "month_end": [dates.month_start(m + 1).isoformat() for m in indices],
    }


def question_types(scores: pd.DataFrame) -> list[str]:
    """The question types the table holds, in the vocabulary's order."""
    present = set(scores["qtype"].unique())
    return [q for q in QTYPES if q in present]


def month_range(scores: pd.DataFrame) -> tuple[int, int] | None:
    """First and last month index with any score, or None for an empty table."""
    if scores.empty:
        return None
    return int(scores["month"].min()), int(scores["month"].max())


def monthly_accuracy(
    scores: pd.DataFrame,
    ma: MovingAverageSettings,
    months: tuple[int, int] | None = None,
) -> pd.DataFrame:
    """The tidy monthly table: one row per series and calendar month.

    Args:
        scores: output of :func:`prescient.analysis.schema.normalize_scores`.
        ma: moving-average settings applied to accuracy, accuracy excluding refusals and
            refusal rate (each smoothed on its own monthly values).
        months: inclusive month-index range of the calendar; by default the span of the
            whole table, so every series shares the same months.

    Returns:
        Columns :data:`MONTHLY_COLUMNS`. ``accuracy`` counts refusals and parse failures
        as incorrect (the paper's choice, for comparability across models);
        ``accuracy_excl_refusals`` is correct / (n - refused). Every cell has a series
        for each question type the table holds, so a cell without MC questions where
        other cells have some shows as a gap, not as absent; a table without any MC
        question (a True/False benchmark) has no MC series at all.
    """
    if months is None:
        months = month_range(scores)
    if months is None:
        return pd.DataFrame(columns=MONTHLY_COLUMNS)
    cells = cells_of(scores)
    df = _rates(_monthly_counts(scores, cells, months))
    df = df.assign(**month_columns(df["month_index"]))
    # rows in cell order (model, setting as in the paper, cutoff), then type, then month
    order = {c: i for i, c in enumerate(cells["model"] + "\0" + cells["cell"])}
    df["_o"] = (df["model"] + "\0" + df["cell"]).map(order)
    df["_q"] = df["qtype"].map({q: i for i, q in enumerate(QTYPES)})
    df = df.sort_values(["_o", "_q", "month_index"], kind="stable").drop(columns=["_o", "_q"])
    parts = [_smoothed(series, ma) for _, series in df.groupby(SERIES_KEYS, sort=False)]
    out = pd.concat(parts, ignore_index=True) if parts else df.assign(ma_months=0)
    return out[MONTHLY_COLUMNS].reset_index(drop=True)


def _monthly_counts(
    scores: pd.DataFrame, cells: pd.DataFrame, months: tuple[int, int]
) -> pd.DataFrame:
    """Counts per series and calendar month; months without questions count 0."""
    calendar = np.arange(months[0], months[1] + 1)
    grid = cells.merge(pd.DataFrame({"qtype": question_types(scores)}), how="cross").merge(
        pd.DataFrame({"month_index": calendar}), how="cross"
    )
    grouped = (
        scores.assign(
            month_index=scores["month"],
            n_answered=~scores["refused"],
            correct_answered=scores["correct"] & ~scores["refused"],
        )
        .groupby([*SERIES_KEYS, "month_index"], as_index=False)
        .agg(
            n=("question_id", "size"),
            n_correct=("correct", "sum"),
            n_refused=("refused", "sum"),
            n_answered=("n_answered", "sum"),
            n_correct_answered=("correct_answered", "sum"),
            n_parse_failed=("parse_failed", "sum"),
        )
    )
    df = grid.merge(grouped, on=[*SERIES_KEYS, "month_index"], how="left")
    counts = ["n", "n_correct", "n_refused", "n_answered", "n_correct_answered", "n_parse_failed"]
    for col in counts:
        df[col] = df[col].fillna(0).astype(int)
    return df


def _rates(df: pd.DataFrame) -> pd.DataFrame:
    """Accuracy, refusal rate and accuracy excluding refusals with Wilson intervals
    (NaN where the month has nothing to divide by)."""
    n = df["n"].to_numpy(dtype=float)
    answered = df["n_answered"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        df["accuracy"] = np.where(n > 0, df["n_correct"] / np.where(n > 0, n, 1), np.nan)
        df["refusal_rate"] = np.where(n > 0, df["n_refused"] / np.where(n > 0, n, 1), np.nan)
        df["accuracy_excl_refusals"] = np.where(
            answered > 0, df["n_correct_answered"] / np.where(answered > 0, answered, 1), np.nan
        )
    df["ci_low"], df["ci_high"] = wilson_interval(df["n_correct"], df["n"])
    df["refusal_ci_low"], df["refusal_ci_high"] = wilson_interval(df["n_refused"], df["n"])
    df["excl_ci_low"], df["excl_ci_high"] = wilson_interval(
        df["n_correct_answered"], df["n_answered"]
    )
    return df


def _smoothed(series: pd.DataFrame, ma: MovingAverageSettings) -> pd.DataFrame:
    """One series with the moving averages of its three rates."""
    series = series.copy()
    series["accuracy_ma"], count = moving_average(series["accuracy"].to_numpy(), ma)
    series["accuracy_excl_refusals_ma"], _ = moving_average(
        series["accuracy_excl_refusals"].to_numpy(), ma
    )
    series["refusal_rate_ma"], _ = moving_average(series["refusal_rate"].to_numpy(), ma)
    series["ma_months"] = count
    return series


def series_notes(monthly: pd.DataFrame, ma: MovingAverageSettings) -> list[str]:
    """What the monthly curves could not show, in words."""
    if monthly.empty:
        return []
    notes = []
    gaps = monthly.loc[monthly["n"] == 0]
    if not gaps.empty:
        notes.append(
            f"{fmt_count(len(gaps))} of {fmt_count(len(monthly))} series-months have no "
            "questions; they are gaps (empty cells, breaks in curves), not zeros."
        )
    if monthly["accuracy_ma"].isna().all():
        notes.append(
            f"No series has {ma.min_periods} months with data in a {ma.window}-month "
            f"window ({monthly['month_index'].nunique()} calendar months in the data): "
            "moving averages are empty."
        )
    return notes
