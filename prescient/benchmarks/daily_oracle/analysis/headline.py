"""The paper's headline decline (Daily Oracle, ICML 2025, section 4.2), per question type.

The paper's abstract-level figure: closed-book accuracy falls from the first month of
the calendar to the last. Averaged over models, the comparison is only fair when every
model's accuracy enters both means, so a model enters when it has questions in both
months and every model left out is named with the reason; baselines can be kept out
(:class:`~.settings.HeadlineSettings`), since a reference floor is not an evaluated model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from prescient import dates
from prescient.analysis.schema import ModelInfo
from prescient.benchmarks.daily_oracle.analysis.settings import HeadlineSettings
from prescient.evaluation.settings import CLOSED_BOOK
from prescient.vocab import QTYPES

HEADLINE_COLUMNS = [
    "setting",
    "qtype",
    "first_month",
    "last_month",
    "n_models",
    "models",
    "first_accuracy",
    "last_accuracy",
    "change_pct",
    "n_first",
    "n_last",
    "fewest",
    "change_status",
    "left_out",
]
"""Columns of the headline table (:func:`headline_table`)."""


def headline_table(
    monthly: pd.DataFrame,
    models: Mapping[str, ModelInfo],
    settings: HeadlineSettings,
) -> pd.DataFrame:
    """The paper's headline decline (Daily Oracle, ICML 2025, section 4.2), per type.

    In the closed-book setting, the mean over models of the monthly accuracy (%) in the
    first and in the last month of the monthly table's calendar (the period's, when one
    is set), and the relative change ``100 * (last - first) / first``. A model enters when
    it has questions in both months, so both means are over the same models; the others,
    and baselines under ``exclude_baselines``, are named in ``left_out``. ``n_first`` and
    ``n_last`` count the questions behind the accuracies that entered the means,
    ``fewest`` the fewest one model had in either month. Below ``settings.min_month_n``
    the change is left out (a month of one question makes any change look like +100%),
    with the reason in ``change_status``; the two means stay, with their counts.
    """
    if monthly.empty:
        return pd.DataFrame(columns=HEADLINE_COLUMNS)
    first = int(monthly["month_index"].min())
    last = int(monthly["month_index"].max())
    closed = monthly.loc[monthly["setting"] == CLOSED_BOOK]
    rows = []
    for qtype in [q for q in QTYPES if q in set(closed["qtype"])]:
        series = closed.loc[closed["qtype"] == qtype]
        kept: list[str] = []
        left_out: list[str] = []
        accs: dict[str, tuple[float, float]] = {}
        counts = [0, 0]
        fewest: int | None = None
        for model, grp in series.groupby("model", sort=True):
            name = str(model)
            info = models.get(name)
            if settings.exclude_baselines and info is not None and info.baseline:
                left_out.append(f"{name} (baseline)")
                continue
            by_month = grp.set_index("month_index")
            n_first = int(by_month["n"].get(first, 0))
            n_last = int(by_month["n"].get(last, 0))
            if n_first == 0 or n_last == 0:
                missing = [
                    dates.month_label(m) for m, k in ((first, n_first), (last, n_last)) if k == 0
                ]
                left_out.append(f"{name} (no questions in {' and '.join(missing)})")
                continue
            kept.append(name)
            correct = by_month["n_correct"]
            accs[name] = (
                int(correct.get(first, 0)) / n_first,
                int(correct.get(last, 0)) / n_last,
            )
            counts[0] += n_first
            counts[1] += n_last
            least = min(n_first, n_last)
            fewest = least if fewest is None else min(fewest, least)
        a = 100.0 * float(np.mean([v[0] for v in accs.values()])) if accs else math.nan
        b = 100.0 * float(np.mean([v[1] for v in accs.values()])) if accs else math.nan
        change = 100.0 * (b - a) / a if accs and a > 0 else math.nan
        status = ""
        if fewest is not None and fewest < settings.min_month_n:
            noun = "question" if fewest == 1 else "questions"
            status = f"too few: a model's month of {fewest} {noun} (< {settings.min_month_n})"
            change = math.nan
        rows.append(
            {
                "setting": CLOSED_BOOK,
                "qtype": qtype,
                "first_month": dates.month_label(first),
                "last_month": dates.month_label(last),
                "n_models": len(kept),
                "models": ", ".join(kept),
                "first_accuracy": a,
                "last_accuracy": b,
                "change_pct": change,
                "n_first": counts[0],
                "n_last": counts[1],
                "fewest": fewest if fewest is not None else 0,
                "change_status": status,
                "left_out": ", ".join(left_out),
            }
        )
    return pd.DataFrame(rows, columns=HEADLINE_COLUMNS)
