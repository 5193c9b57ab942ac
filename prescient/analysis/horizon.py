"""Accuracy by forecast horizon: days from the forecast date to the resolution date.

A standard cut in forecasting evaluation: a question asked a week before it resolves is
easier than one asked a year before. Only questions with a forecast date have a horizon
(imported forecasting questions; Daily Oracle's own questions are written from the
resolution day's article and have none). Buckets are half-open day ranges from
``analysis.horizon.buckets_days``: edges ``[0, 7, 30]`` make ``0-6 days``, ``7-29 days``
and ``30+ days``. Refusals and parse failures count as wrong, as in every accuracy of the
analysis; intervals are Wilson 95%.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from prescient.analysis.schema import cell_order
from prescient.stats import wilson_interval
from prescient.vocab import QTYPES

ALL = "all"
HORIZON_COLUMNS = [
    "model",
    "setting",
    "rag_cutoff",
    "cell",
    "source",
    "qtype",
    "bucket",
    "bucket_low_days",
    "bucket_high_days",
    "n",
    "n_correct",
    "accuracy",
    "ci_low",
    "ci_high",
]
COUNT_COLUMNS = ["source", "bucket", "bucket_low_days", "bucket_high_days", "n"]


def bucket_label(low: int, high: float) -> str:
    """``7-29 days`` for [7, 30), ``365+ days`` for the last, open bucket."""
    return f"{low}+ days" if not np.isfinite(high) else f"{low}-{int(high) - 1} days"


def buckets(horizon_days: pd.Series, edges: Sequence[int]) -> pd.DataFrame:
    """The bucket of each horizon: ``bucket``, ``bucket_low_days``, ``bucket_high_days``
    (exclusive; inf for the last). Rows without a horizon get NaN."""
    lows = np.asarray(edges, dtype=float)
    highs = np.append(lows[1:], np.inf)
    days = horizon_days.to_numpy(dtype=float)
    pos = np.searchsorted(lows, days, side="right") - 1
    known = np.isfinite(days) & (pos >= 0)
    safe = np.where(known, pos, 0)
    return pd.DataFrame(
        {
            "bucket": [
                bucket_label(int(lows[i]), highs[i]) if k else None
                for i, k in zip(safe, known, strict=True)
            ],
            "bucket_low_days": np.where(known, lows[safe], np.nan),
            "bucket_high_days": np.where(known, highs[safe], np.nan),
        },
        index=horizon_days.index,
    )


def horizon_accuracy(scores: pd.DataFrame, edges: Sequence[int]) -> pd.DataFrame:
    """Accuracy per cell, source, question type (and ``all``) and horizon bucket.

    Args:
        scores: normalised scores with ``source`` and ``horizon_days``
            (:func:`prescient.analysis.sources.with_questions`).
        edges: the buckets' left edges in days, from 0.
    """
    dated = scores.loc[scores["horizon_days"].notna()]
    if dated.empty:
        return pd.DataFrame(columns=HORIZON_COLUMNS)
    dated = pd.concat([dated, buckets(dated["horizon_days"], edges)], axis=1)
    pooled = pd.concat([dated.assign(qtype=ALL), dated], ignore_index=True)
    keys = ["model", "setting", "rag_cutoff", "cell", "source", "qtype", "bucket"]
    g = pooled.groupby(keys, as_index=False, sort=False).agg(
        bucket_low_days=("bucket_low_days", "first"),
        bucket_high_days=("bucket_high_days", "first"),
        n=("correct", "size"),
        n_correct=("correct", "sum"),
    )
    g["n_correct"] = g["n_correct"].astype(int)
    g["accuracy"] = g["n_correct"] / g["n"]
    g["ci_low"], g["ci_high"] = wilson_interval(g["n_correct"], g["n"])
    rank = {q: i for i, q in enumerate((ALL, *QTYPES))}
    g = cell_order(
        g.assign(_q=g["qtype"].map(rank)).sort_values(
            ["source", "_q", "bucket_low_days"], kind="stable"
        )
    )
    return g[HORIZON_COLUMNS].reset_index(drop=True)


def horizon_counts(info: pd.DataFrame, edges: Sequence[int]) -> pd.DataFrame:
    """Questions per source and horizon bucket (questions with a forecast date)."""
    dated = info.loc[info["horizon_days"].notna()]
    if dated.empty:
        return pd.DataFrame(columns=COUNT_COLUMNS)
    dated = pd.concat([dated, buckets(dated["horizon_days"].astype(float), edges)], axis=1)
    g = dated.groupby(["source", "bucket"], as_index=False, sort=False).agg(
        bucket_low_days=("bucket_low_days", "first"),
        bucket_high_days=("bucket_high_days", "first"),
        n=("question_id", "size"),
    )
    return g.sort_values(["source", "bucket_low_days"], kind="stable")[COUNT_COLUMNS].reset_index(
        drop=True
    )
