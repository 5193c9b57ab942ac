"""The binary forecast a group's calibration reads, and the ``proper_reliability`` table.

Beyond the three papers. Calibration quantities (reliability, ECE, Murphy) are binary.
A TF row uses P(Yes) against the answer being Yes. An MC row and an ``all`` row use
top-label calibration: the probability of the chosen answer (the most probable option;
the label's rule on a tie, :func:`prescient.evaluation.forecasts.most_probable`) against the row being correct (``calibration`` names which); the
measures :mod:`prescient.proper_metrics` declares read that pair, and the reliability
diagrams (:func:`reliability_table`) draw its bins.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient.analysis.proper_groups import GROUP_KEYS, ordered, with_all
from prescient.proper_scores import Strategy, reliability
from prescient.vocab import TF

FloatArray = npt.NDArray[np.float64]
P_YES = "p_yes"
TOP_LABEL = "top_label"
UNIFORM: Strategy = "uniform"
QUANTILE: Strategy = "quantile"

RELIABILITY_COLUMNS = [
    *GROUP_KEYS,
    "calibration",
    "strategy",
    "bin",
    "bin_low",
    "bin_high",
    "forecast",
    "observed",
    "count",
]
"""Columns of ``proper_reliability``: one row per non-empty bin."""


def calibration_kind(part: pd.DataFrame) -> str:
    """``p_yes`` for a group of TF questions only, ``top_label`` otherwise."""
    return P_YES if set(part["qtype"].unique()) == {TF} else TOP_LABEL


def calibration_pairs(
    probs: Sequence[Sequence[float]], outcome: npt.ArrayLike, correct: npt.ArrayLike, kind: str
) -> tuple[FloatArray, FloatArray]:
    """The binary forecast and outcome the calibration quantities read (module doc):
    ``p_yes``: P(Yes) against the answer being Yes; ``top_label``: the most probable
    option's probability against the row being correct."""
    if kind == P_YES:
        p = np.array([q[0] for q in probs], dtype=float)
        return p, (np.asarray(outcome, dtype=int) == 0).astype(float)
    p = np.array([max(q) if len(q) else math.nan for q in probs], dtype=float)
    return p, np.asarray(correct, dtype=float)


def _bins_of(
    key: dict[str, object], kind: str, p: FloatArray, y: FloatArray, bins: int
) -> list[dict[str, object]]:
    """One group's rows: its non-empty bins of equal width, then of equal mass."""
    rows: list[dict[str, object]] = []
    for strategy in (UNIFORM, QUANTILE):
        r = reliability(p, y, bins, strategy)
        which = np.searchsorted(r.edges[1:-1], p, side="left")
        used = np.unique(which)
        for i, b in enumerate(used):
            rows.append(
                {
                    **key,
                    "calibration": kind,
                    "strategy": strategy,
                    "bin": int(b),
                    "bin_low": float(r.edges[b]),
                    "bin_high": float(r.edges[b + 1]),
                    "forecast": float(r.forecast[i]),
                    "observed": float(r.observed[i]),
                    "count": int(r.count[i]),
                }
            )
    return rows


def reliability_table(forecasts: pd.DataFrame, bins: int) -> pd.DataFrame:
    """The bins of every group's reliability diagram (equal width and equal mass; empty
    bins left out), on the binary forecast its calibration reads (module doc)."""
    if forecasts.empty:
        return pd.DataFrame(columns=RELIABILITY_COLUMNS)
    rows = []
    for keys, part in with_all(forecasts).groupby(GROUP_KEYS, sort=False):
        key = dict(zip(GROUP_KEYS, keys, strict=True))
        kind = calibration_kind(part)
        p, y = calibration_pairs(
            list(part["probs"]), part["outcome"].to_numpy(int), part["correct"], kind
        )
        rows += _bins_of(key, kind, p, y, bins)
    table = pd.DataFrame(rows, columns=RELIABILITY_COLUMNS)
    order = {UNIFORM: 0, QUANTILE: 1}
    table = table.assign(_st=table["strategy"].map(order))
    return (
        ordered(table, ["_st", "bin"])
        .drop(columns="_st")[RELIABILITY_COLUMNS]
        .reset_index(drop=True)
    )
