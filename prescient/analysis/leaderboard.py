"""The forecasting leaderboard (beyond the three papers): per model, setting and
elicitation, the proper scores a forecasting researcher ranks by, beside accuracy and
the failures.

One row of ``leaderboard.csv`` per model, cell and elicitation, read off the
``proper_scores`` table (nothing is computed here that it did not compute): the Brier
score on TF questions and, on its own scale, on MC questions (never pooled: TF runs from
0 to 1, MC from 0 to 2), the log score and accuracy over all questions, each with its
interval, the questions scored, and how many forecasts were unreadable (a refusal or a
parse failure, scored as the uniform forecast). Within a cell, rows are ranked by the TF
Brier score (rows without TF questions last), then by the MC Brier score, then by model
and elicitation, so the first row of a setting is its best forecaster on TF questions;
rows most of whose forecasts were unreadable come after all the others (their scores
are mostly the uniform forecast's: they rank parsing, not forecasting).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from prescient.analysis.proper_groups import ALL
from prescient.vocab import MC, TF

_KEY = ["model", "setting", "rag_cutoff", "cell", "elicitation"]
_POOLED = [
    "log_score",
    "log_low",
    "log_high",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "n",
    "n_uniform_fill",
]
"""What the leaderboard reads off a cell's ``all`` row (the Brier score it never does)."""


def _by_type(qtype: str) -> list[str]:
    """What the leaderboard reads off a cell's row of one question type."""
    return [f"brier_{qtype}", f"brier_{qtype}_low", f"brier_{qtype}_high", f"n_{qtype}"]


LEADERBOARD_COLUMNS = [*_KEY, *_by_type(TF), *_by_type(MC), *_POOLED]
"""Columns of ``leaderboard.csv``."""


def leaderboard_table(proper: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard of a ``proper_scores`` table (module docstring)."""
    if proper.empty:
        return pd.DataFrame(columns=LEADERBOARD_COLUMNS)
    frame = proper.assign(rag_cutoff=proper["rag_cutoff"].astype(object).fillna(""))
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rec in frame.to_dict("records"):
        key = tuple(rec[k] for k in _KEY)
        row = rows.setdefault(key, dict(zip(_KEY, key, strict=True)))
        qtype = rec["qtype"]
        if qtype in (TF, MC):
            values = (rec["brier"], rec["brier_low"], rec["brier_high"], rec["n"])
            row.update(zip(_by_type(qtype), values, strict=True))
        elif qtype == ALL:
            row.update({column: rec[column] for column in _POOLED})
    out = pd.DataFrame(list(rows.values())).reindex(columns=LEADERBOARD_COLUMNS)
    for column in ("n_tf", "n_mc", "n", "n_uniform_fill"):
        out[column] = out[column].fillna(0).astype(int)
    cells = {c: i for i, c in enumerate(dict.fromkeys(out["cell"]))}
    asked = {e: i for i, e in enumerate(dict.fromkeys(out["elicitation"]))}
    order = out.assign(
        _cell=out["cell"].map(cells),
        _unread=2 * out["n_uniform_fill"] > out["n"],
        _tf=out["brier_tf"].fillna(math.inf),
        _mc=out["brier_mc"].fillna(math.inf),
        _asked=out["elicitation"].map(asked),
    ).sort_values(["_cell", "_unread", "_tf", "_mc", "model", "_asked"], kind="stable")
    out = out.loc[order.index].reset_index(drop=True)
    out["rag_cutoff"] = out["rag_cutoff"].replace("", pd.NA)
    return out
