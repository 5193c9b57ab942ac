"""The groups every proper-score table reports on, and their order.

Beyond the three papers: the tables of :mod:`.proper`, :mod:`.proper_calibration` and
:mod:`.proper_paired` group the forecasts of :func:`~.forecasts.forecast_frame` by model,
cell, elicitation and question type (TF, MC, and ``all`` pooling both), and list them in
one order, so that one table's rows line up with another's; this module holds that
grouping, the order and the percentile interval they all read off bootstrap replicates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient.analysis.schema import CELL_KEYS
from prescient.evaluation.settings import ELICITATIONS, KINDS
from prescient.vocab import MC, TF

FloatArray = npt.NDArray[np.float64]
ALL = "all"
QTYPE_ORDER = {TF: 0, MC: 1, ALL: 2}
GROUP_KEYS = [*CELL_KEYS, "elicitation", "qtype"]


def with_all(forecasts: pd.DataFrame) -> pd.DataFrame:
    """The forecasts once per question type and once more under ``all`` (``_type``
    keeps each question's own type)."""
    typed = forecasts.assign(_type=forecasts["qtype"])
    return pd.concat([typed, typed.assign(qtype=ALL)], ignore_index=True)


def ordered(table: pd.DataFrame, extra: Sequence[str] = ()) -> pd.DataFrame:
    """Rows in cell order (model, setting as in the paper, cutoff), then elicitation,
    then question type (TF, MC, all), then ``extra``."""
    out = table.assign(
        _s=table["setting"].map({s: i for i, s in enumerate(KINDS)}).fillna(len(KINDS)),
        _e=table["elicitation"].map({e: i for i, e in enumerate(ELICITATIONS)}),
        _q=table["qtype"].map(QTYPE_ORDER),
    )
    keys = ["model", "_s", "rag_cutoff", "_e", "_q", *extra]
    return out.sort_values(keys, kind="stable").drop(columns=["_s", "_e", "_q"])


def interval(replicates: FloatArray, confidence: float) -> tuple[float, float]:
    """The percentile interval of the finite replicates (NaN when there are none)."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)
