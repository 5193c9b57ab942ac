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
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient.analysis.proper import item_column, with_items
from prescient.analysis.proper_groups import ALL
from prescient.evaluation.forecasts import CROWD, UNIFORM_FILL
from prescient.proper_metrics import BRIER
from prescient.proper_scores import (
    DrawJob,
    holm,
    mcnemar,
    means_into,
    on_resamples,
    paired_difference,
)
from prescient.seeds import derive_seed
from prescient.settings import Bootstrap

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


@dataclass(frozen=True)
class _Side:
    """One model's rows of a pair, on the questions both answered (in id order)."""

    correct: npt.NDArray[np.bool_]
    brier: FloatArray
    unreadable: npt.NDArray[np.bool_]


def _pair_row(
    a: _Side, b: _Side, means: dict[int, dict[str, FloatArray]], ia: int, ib: int, boot: Bootstrap
) -> dict[str, Any]:
    """The comparison of two models on the same questions, the bootstrap read off
    each one's means on the same resamples (``means[ia]``, ``means[ib]``; empty without
    replicates)."""
    ca, cb, ba, bb = a.correct, b.correct, a.brier, b.brier
    n = ca.size
    none = np.empty(0)
    ma, mb = means.get(ia, {}), means.get(ib, {})
    confidence = boot.confidence
    acc = paired_difference(ca, cb, ma.get("correct", none), mb.get("correct", none), confidence)
    br = paired_difference(ba, bb, ma.get("brier", none), mb.get("brier", none), confidence)
    test = mcnemar(ca, cb)
    ua, ub = a.unreadable, b.unreadable
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
        "brier_p": _bounded(br.p, boot.reps),
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

    Pairs over the same questions read the same resamples, drawn once from a seed of
    the questions' ids (as the ``proper_scores`` intervals are), and a replicate's
    difference is the difference of the two models' means on it: each model's means
    are computed once per set of questions, not once per pair.
    """
    if forecasts.empty:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    brier = with_items(forecasts)[item_column(BRIER.name)]
    read = [*PAIR_KEYS, "model", "question_id", "correct", "prob_source"]
    scored = forecasts[read].assign(_brier=brier)  # what a pair reads, nothing else
    sides: list[_Side] = []
    side_of: dict[tuple[Any, ...], int] = {}  # (pair keys, model, questions) -> side
    sets: dict[tuple[str, ...], list[int]] = {}  # questions -> their sides
    work = []
    for values, part in scored.groupby(PAIR_KEYS, sort=False):
        by_model = {str(m): _by_id(g) for m, g in part.groupby("model")}
        for a, b in model_pairs(list(by_model)):
            (ids_a, ga), (ids_b, gb) = by_model[a], by_model[b]
            common, at_a, at_b = np.intersect1d(ids_a, ids_b, return_indices=True)
            ids = tuple(common.tolist())
            found = []
            for model, g, at in ((a, ga, at_a), (b, gb, at_b)):
                key = (values, model, ids)
                if key not in side_of:
                    side_of[key] = len(sides)
                    sides.append(_Side(g[0][at], g[1][at], g[2][at]))
                    sets.setdefault(ids, []).append(side_of[key])
                found.append(side_of[key])
            head = {**dict(zip(PAIR_KEYS, values, strict=True)), "qtype": ALL}
            work.append(({**head, "model_a": a, "model_b": b}, found[0], found[1]))
    means = _side_means(sides, sets, bootstrap.reps, seed)
    rows = [
        {**head, **_pair_row(sides[ia], sides[ib], means, ia, ib, bootstrap)}
        for head, ia, ib in work
    ]
    if not rows:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    return _adjusted(pd.DataFrame(rows), alpha)[PAIRED_COLUMNS]


def _by_id(
    g: pd.DataFrame,
) -> tuple[npt.NDArray[Any], tuple[npt.NDArray[np.bool_], FloatArray, npt.NDArray[np.bool_]]]:
    """One model's question ids and (correct, Brier, unreadable) per row."""
    return g["question_id"].astype(str).to_numpy(str), (
        g["correct"].to_numpy(bool),
        g["_brier"].to_numpy(float),
        g["prob_source"].to_numpy(str) == UNIFORM_FILL,
    )


def _side_means(
    sides: Sequence[_Side], sets: dict[tuple[str, ...], list[int]], reps: int, seed: int
) -> dict[int, dict[str, FloatArray]]:
    """Each side's mean correctness and Brier score on ``reps`` resamples of its
    questions, every side over the same questions on the same draws (none without
    replicates)."""
    if reps < 1:
        return {}
    means: dict[int, dict[str, FloatArray]] = {}
    jobs = []
    for ids, members in sets.items():
        if not ids:
            continue
        consumers = []
        for i in members:
            means[i] = {"correct": np.empty(reps), "brier": np.empty(reps)}
            values = {"correct": sides[i].correct.astype(float), "brier": sides[i].brier}
            consumers.append(means_into(values, means[i]))
        jobs.append(DrawJob(len(ids), derive_seed(seed, "proper", *ids), consumers))
    on_resamples(jobs, reps)
    return means


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
