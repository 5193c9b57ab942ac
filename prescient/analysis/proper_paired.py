"""The ``proper_paired`` table: two models on the questions both answered.

Beyond the three papers: is model A better than model B on this question set? Per
setting x RAG cutoff x elicitation, over all questions (``qtype`` all), each pair of
:func:`model_pairs`: McNemar's exact test on correctness and a paired bootstrap of the
accuracy and Brier differences (:mod:`prescient.proper_scores`), with Holm's adjustment
over the whole table.

Each row also says how many of each model's replies could not be read (scored as the
uniform forecast and counted wrong: ``unreadable_a``, ``unreadable_b``), the accuracy
difference over the questions both models' replies were read on
(``accuracy_diff_readable``), and marks the row ``unreadable_driven`` when the
unreadable replies make the difference: some reply was unreadable and over the
readable questions the difference is less than half of the whole one, or of the
other sign (a gap that is parsing, not forecasting).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient.analysis.proper import item_values
from prescient.analysis.proper_groups import ALL
from prescient.evaluation.forecasts import CROWD, UNIFORM_FILL
from prescient.proper_metrics import BRIER
from prescient.proper_scores import holm, mcnemar, paired_bootstraps
from prescient.seeds import derive_seed
from prescient.settings import Bootstrap
from prescient.threads import ordered_map

FloatArray = npt.NDArray[np.float64]
PAIR_KEYS = ["setting", "rag_cutoff", "cell", "elicitation"]

PAIRED_COLUMNS = [
    "setting",
    "rag_cutoff",
    "cell",
    "elicitation",
    "qtype",
    "model_a",
    "model_b",
    "n",
    "accuracy_a",
    "accuracy_b",
    "accuracy_diff",
    "accuracy_diff_low",
    "accuracy_diff_high",
    "only_a",
    "only_b",
    "mcnemar_p",
    "mcnemar_p_holm",
    "brier_a",
    "brier_b",
    "brier_diff",
    "brier_diff_low",
    "brier_diff_high",
    "brier_p",
    "brier_p_holm",
    "accuracy_better",
    "brier_better",
    "unreadable_a",
    "unreadable_b",
    "accuracy_diff_readable",
    "unreadable_driven",
]
"""Columns of ``proper_paired``."""


def model_pairs(models: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of models once, in name order; ``crowd`` is always model B (the
    reference each model is compared with)."""
    named = sorted(m for m in set(models) if m != CROWD)
    pairs = list(itertools.combinations(named, 2))
    if CROWD in set(models):
        pairs += [(m, CROWD) for m in named]
    return pairs


def _pair_row(
    ga: pd.DataFrame, gb: pd.DataFrame, bootstrap: Bootstrap, seed: int
) -> dict[str, Any]:
    """The comparison of two models' rows on the same questions (same order)."""
    n = len(ga)
    ca, cb = ga["correct"].to_numpy(bool), gb["correct"].to_numpy(bool)
    ba, bb = ga["_brier"].to_numpy(float), gb["_brier"].to_numpy(float)
    acc, br = paired_bootstraps([(ca, cb), (ba, bb)], bootstrap.reps, seed, bootstrap.confidence)
    test = mcnemar(ca, cb)
    ua = ga["prob_source"].to_numpy(str) == UNIFORM_FILL
    ub = gb["prob_source"].to_numpy(str) == UNIFORM_FILL
    read = ~(ua | ub)
    readable = float(ca[read].mean() - cb[read].mean()) if read.any() else math.nan
    whole = float(ca.mean() - cb.mean()) if n else math.nan
    return {
        "unreadable_a": int(ua.sum()),
        "unreadable_b": int(ub.sum()),
        "accuracy_diff_readable": readable,
        "unreadable_driven": bool(
            (ua.any() or ub.any()) and whole != 0 and _driven(whole, readable)
        ),
        "n": n,
        "accuracy_a": float(ca.mean()) if n else math.nan,
        "accuracy_b": float(cb.mean()) if n else math.nan,
        "accuracy_diff": acc.mean,
        "accuracy_diff_low": acc.low,
        "accuracy_diff_high": acc.high,
        "only_a": test.only_a,
        "only_b": test.only_b,
        "mcnemar_p": test.p if n else math.nan,
        "brier_a": float(ba.mean()) if n else math.nan,
        "brier_b": float(bb.mean()) if n else math.nan,
        "brier_diff": br.mean,
        "brier_diff_low": br.low,
        "brier_diff_high": br.high,
        "brier_p": _bounded(br.p, bootstrap.reps),
    }


def paired_table(
    forecasts: pd.DataFrame, bootstrap: Bootstrap, seed: int, alpha: float
) -> pd.DataFrame:
    """Two models on the same questions: per setting x RAG cutoff x elicitation, over
    all questions (``qtype`` all), each pair of :func:`model_pairs` on the questions
    both answered. McNemar's exact test on correctness and a paired bootstrap of the
    accuracy and Brier differences (A - B: a positive accuracy difference and a negative
    Brier difference favour A; the Brier p-value is at least ``1 / reps``); Holm's
    adjustment over the whole table, McNemar's p-values and the Brier p-values each as
    one family. ``accuracy_better`` / ``brier_better`` name the better model where its
    Holm-adjusted p is below ``alpha``.
    """
    if forecasts.empty:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    brier = item_values(
        list(forecasts["probs"]), forecasts["outcome"].to_numpy(int), forecasts["qtype"]
    )[BRIER.name]
    read = [*PAIR_KEYS, "model", "question_id", "correct", "prob_source"]
    scored = forecasts[read].assign(_brier=brier)  # what a pair reads, nothing else
    work = []
    for values, part in scored.groupby(PAIR_KEYS, sort=False):
        by_model = {str(m): g.set_index("question_id") for m, g in part.groupby("model")}
        for a, b in model_pairs(list(by_model)):
            common = by_model[a].index.intersection(by_model[b].index).sort_values()
            s = derive_seed(seed, "proper_paired", *(str(v) for v in values), a, b)
            head = {**dict(zip(PAIR_KEYS, values, strict=True)), "qtype": ALL}
            work.append(
                (
                    {**head, "model_a": a, "model_b": b},
                    by_model[a].loc[common],
                    by_model[b].loc[common],
                    s,
                )
            )
    rows = ordered_map(lambda w: {**w[0], **_pair_row(w[1], w[2], bootstrap, w[3])}, work)
    if not rows:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    return _adjusted(pd.DataFrame(rows), alpha)[PAIRED_COLUMNS]


def _adjusted(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Holm's adjustment of both families and the model each significant test favours."""
    table["mcnemar_p_holm"] = _holm(table["mcnemar_p"].to_numpy(float))
    table["brier_p_holm"] = _holm(table["brier_p"].to_numpy(float))
    table["accuracy_better"] = [
        _better(a, b, d > 0, p, alpha)
        for a, b, d, p in zip(
            table["model_a"],
            table["model_b"],
            table["accuracy_diff"],
            table["mcnemar_p_holm"],
            strict=True,
        )
    ]
    table["brier_better"] = [
        _better(a, b, d < 0, p, alpha)
        for a, b, d, p in zip(
            table["model_a"],
            table["model_b"],
            table["brier_diff"],
            table["brier_p_holm"],
            strict=True,
        )
    ]
    return table


def _driven(whole: float, readable: float) -> bool:
    """Over the readable questions the difference is less than half the whole one, or
    of the other sign (or there is none)."""
    if not math.isfinite(readable):
        return True
    return readable * whole <= 0 or abs(readable) < abs(whole) / 2


def _bounded(p: float, reps: int) -> float:
    """A bootstrap p-value no smaller than ``1 / reps``: with no replicate on the other
    side of 0 the replicates bound p, they do not make it 0."""
    return max(p, 1.0 / reps) if reps > 0 and math.isfinite(p) else p


def _holm(p: FloatArray) -> FloatArray:
    """Holm's adjustment over the defined p-values (NaN stays NaN)."""
    out = np.full(p.size, math.nan)
    ok = np.isfinite(p)
    out[ok] = holm(p[ok])
    return out


def _better(a: str, b: str, a_ahead: bool, p: float, alpha: float) -> str:
    """The model ahead when the difference is significant at ``alpha``, else ''."""
    if not math.isfinite(p) or p >= alpha:
        return ""
    return a if a_ahead else b
