"""Chance level of each question type: the accuracy of a uniform random guess.

A question with k options is answered correctly by a uniform guess with probability
1/k, so the chance accuracy over a set of questions is the mean of 1/k over them (TF:
two options, 50%; Daily Oracle's MC: four, 25%; Daily Oracle, ICML 2025, section 3.1).
The options are counted from each question's ``choices`` (the evaluated question table,
or the scores table when it is analysed alone), else from the length of its ``probs``
forecast (one probability per option); a True/False question has the two answers Yes and
No. An MC question whose options no column gives leaves its type without a chance level
(the figures then draw no line) rather than assuming a number.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from prescient.vocab import QTYPES, TF, TF_CHOICES

CHANCE_COLUMNS = [
    "qtype",
    "n_questions",
    "n_options_known",
    "min_options",
    "max_options",
    "chance",
]
"""Columns of ``chance_levels``: per question type, the questions it covers, how many of
them have a known number of options, the fewest and most options, and the chance
accuracy (mean of 1/options; empty when any question's options are unknown)."""


def _length(value: object) -> int | None:
    """The number of items of a list-like cell (None for a missing or scalar value)."""
    if value is None or isinstance(value, str | bytes):
        return None
    if isinstance(value, Sequence | np.ndarray | pd.Series):
        return len(value)
    return None


def option_counts(raw: pd.DataFrame, questions: pd.DataFrame | None) -> pd.Series:
    """The number of options of every question (question_id -> count, ``<NA>`` when no
    column gives it): ``choices`` of the question table (or of the scores table without
    one), else the length of the scores' ``probs``; TF questions have two."""
    frame = questions if questions is not None else raw
    first = frame.drop_duplicates("question_id", keep="first")
    ids = first["question_id"].astype(str)
    counts = pd.Series(pd.NA, index=ids.to_numpy(), dtype="Int64")
    if "choices" in first.columns:
        counts[:] = [_length(v) for v in first["choices"]]
    if "probs" in raw.columns and counts.isna().any():
        known = raw.loc[raw["probs"].notna(), ["question_id", "probs"]]
        lengths = {
            str(q): _length(p)
            for q, p in zip(known["question_id"], known["probs"], strict=True)
            if _length(p)
        }
        fill = pd.Series([lengths.get(i) for i in counts.index], index=counts.index, dtype="Int64")
        counts = counts.fillna(fill)
    tf = first["qtype"].astype(str).str.lower().to_numpy() == TF
    counts[tf & counts.isna().to_numpy()] = len(TF_CHOICES)
    return counts


def chance_levels(scores: pd.DataFrame, options: pd.Series) -> pd.DataFrame:
    """The chance accuracy per question type over the questions of ``scores``.

    Args:
        scores: normalised scores (question_id, qtype): the questions the accuracy
            figures show.
        options: :func:`option_counts`.
    """
    rows = []
    if scores.empty:
        return pd.DataFrame(columns=CHANCE_COLUMNS)
    for qtype in QTYPES:
        ids = sorted(set(scores.loc[scores["qtype"] == qtype, "question_id"].astype(str).unique()))
        if not ids:
            continue
        k = options.reindex(ids)
        known = k.dropna().astype(int)
        known = known[known > 0]
        complete = len(known) == len(ids)
        rows.append(
            {
                "qtype": qtype,
                "n_questions": len(ids),
                "n_options_known": len(known),
                "min_options": int(known.min()) if len(known) else np.nan,
                "max_options": int(known.max()) if len(known) else np.nan,
                "chance": float((1.0 / known).mean()) if complete else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=CHANCE_COLUMNS)
