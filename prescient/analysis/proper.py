"""Proper scores of the forecasts, their calibration, and paired model comparisons.

Beyond the three papers, which score the label a model picks. Every rule comes from
:mod:`prescient.proper_scores`; this module groups the forecasts of
:func:`~.forecasts.forecast_frame` into the tables of the ``analyze`` stage:

- :func:`proper_scores_table` (``proper_scores``): per model x setting x RAG cutoff x
  elicitation x question type (TF, MC, and ``all`` pooling both): n, accuracy with its
  Wilson interval, the mean Brier and log scores, Brier skill against the uninformed
  forecast (0.5 / uniform over the options) and against the question set's base rate
  (TF: the share of Yes; MC: the options' frequencies by position, over the row's own
  questions, held fixed under resampling), ECE over equal-width and equal-mass bins
  and Murphy's decomposition, with percentile bootstrap intervals of the scores, skills
  and equal-width ECE (questions resampled with replacement,
  ``analysis.proper.bootstrap``, seeded per row).
- :func:`monthly_brier` (``proper_monthly``): the mean Brier score per resolution month
  with its bootstrap interval and moving average (``analysis.moving_average``), the
  probabilistic analogue of Daily Oracle's Fig. 3.
- :func:`reliability_table` (``proper_reliability``): the reliability diagrams' bins.
- :func:`paired_table` (``proper_paired``): two models on the questions both answered.

Calibration quantities (reliability, ECE, Murphy) are binary. A TF row uses P(Yes)
against the answer being Yes. An MC row and an ``all`` row use top-label calibration:
the probability of the chosen answer (the most probable option, the first on a tie)
against the row being correct (``calibration`` names which); Murphy's parts then add up
to that binary forecast's Brier score (``murphy_brier``), not to the row's ``brier``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient.analysis.monthly import (
    month_columns,
    moving_average,
)
from prescient.analysis.schema import CELL_KEYS
from prescient.analysis.settings import MovingAverageSettings
from prescient.evaluation.forecasts import CROWD, UNIFORM_FILL
from prescient.evaluation.settings import ELICITATIONS, KINDS
from prescient.proper_scores import (
    LOG_CLIP,
    Strategy,
    brier_items,
    ece,
    holm,
    log_items,
    mcnemar,
    murphy,
    paired_bootstrap,
    reliability,
    skill,
)
from prescient.seeds import derive_seed
from prescient.settings import Bootstrap
from prescient.stats import wilson_interval
from prescient.vocab import MC, QTYPES, TF

FloatArray = npt.NDArray[np.float64]
ALL = "all"
QTYPE_ORDER = {TF: 0, MC: 1, ALL: 2}
P_YES = "p_yes"
TOP_LABEL = "top_label"
GROUP_KEYS = [*CELL_KEYS, "elicitation", "qtype"]
UNIFORM: Strategy = "uniform"
QUANTILE: Strategy = "quantile"

SCORE_COLUMNS = [
    *GROUP_KEYS,
    "n",
    "n_uniform_fill",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "brier",
    "brier_low",
    "brier_high",
    "log_score",
    "log_low",
    "log_high",
    "brier_uniform",
    "skill_uniform",
    "skill_uniform_low",
    "skill_uniform_high",
    "brier_base",
    "skill_base",
    "skill_base_low",
    "skill_base_high",
    "calibration",
    "ece",
    "ece_low",
    "ece_high",
    "ece_mass",
    "murphy_brier",
    "reliability",
    "resolution",
    "uncertainty",
    "within_bin",
]
"""Columns of ``proper_scores``."""

MONTHLY_COLUMNS = [
    *GROUP_KEYS,
    "month",
    "month_index",
    "month_start",
    "month_end",
    "n",
    "brier",
    "ci_low",
    "ci_high",
    "log_score",
    "brier_ma",
    "ma_months",
]
"""Columns of ``proper_monthly``."""

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
]
"""Columns of ``proper_paired``."""


# --- per-item arrays --------------------------------------------------------------


def _by_width(probs: Sequence[Sequence[float]]) -> list[np.ndarray]:
    """Row positions grouped by number of options (the scoring rules take a matrix)."""
    widths = np.array([len(p) for p in probs])
    return [np.flatnonzero(widths == k) for k in sorted(set(widths.tolist()))]


def _brier(m: FloatArray, y: npt.NDArray[np.int64], mc: bool) -> FloatArray:
    """:func:`~prescient.proper_scores.brier_items` by question type: binary on P(Yes)
    for TF, the sum over the options for MC even of two options (as the score stage)."""
    items = brier_items(m, y)
    return items * 2.0 if mc and m.shape[1] == 2 else items


def item_scores(
    probs: Sequence[Sequence[float]],
    outcome: npt.ArrayLike,
    qtype: npt.ArrayLike,
    clip: float = LOG_CLIP,
) -> tuple[FloatArray, FloatArray]:
    """Each forecast's Brier and log score (:mod:`prescient.proper_scores`), for
    questions with any number of options."""
    n = len(probs)
    brier, log = np.zeros(n), np.zeros(n)
    y = np.asarray(outcome, dtype=np.int64)
    mc = np.asarray(qtype) == MC
    for rows in _by_width(probs):
        m = np.array([probs[i] for i in rows], dtype=float)
        for kind in (False, True):
            at = rows[mc[rows] == kind]
            if at.size:
                brier[at] = _brier(m[mc[rows] == kind], y[at], kind)
        log[rows] = log_items(m, y[rows], clip)
    return brier, log


def _reference_brier(
    probs: Sequence[Sequence[float]], outcome: npt.ArrayLike, qtype: npt.ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Each question's Brier score under the uninformed forecast (uniform over its
    options) and under the base rate of the given questions (TF: the share of Yes; MC:
    each position's share of answers among the MC questions, renormalised over a
    question's own options)."""
    y = np.asarray(outcome, dtype=np.int64)
    types = np.asarray(qtype)
    width = np.array([len(p) for p in probs])
    uniform, base = np.zeros(y.size), np.zeros(y.size)
    for kind in (TF, MC):
        rows = np.flatnonzero(types == kind)
        if not rows.size:
            continue
        freq = np.bincount(y[rows], minlength=int(width[rows].max())) / rows.size
        for k in sorted(set(width[rows].tolist())):
            at = rows[width[rows] == k]
            uniform[at] = _brier(np.full((at.size, k), 1.0 / k), y[at], kind == MC)
            f = freq[:k]
            f = f / f.sum() if f.sum() > 0 else np.full(k, 1.0 / k)
            base[at] = _brier(np.tile(f, (at.size, 1)), y[at], kind == MC)
    return uniform, base


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


def _uniform_bins(p: FloatArray, bins: int) -> npt.NDArray[np.int64]:
    """Equal-width bin of each forecast, as :func:`prescient.proper_scores.reliability`."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    return np.searchsorted(edges[1:-1], p, side="left").astype(np.int64)


# --- proper_scores ----------------------------------------------------------------


def _interval(replicates: FloatArray, confidence: float) -> tuple[float, float]:
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def _group_row(
    part: pd.DataFrame, bins: int, bootstrap: Bootstrap, seed: int
) -> dict[str, float | int | str]:
    """One row of ``proper_scores`` from one group's forecasts."""
    probs, outcome = list(part["probs"]), part["outcome"].to_numpy(int)
    correct = part["correct"].to_numpy(bool)
    qtypes = part["_type"].to_numpy(str)
    kind = P_YES if set(part["qtype"]) == {TF} else TOP_LABEL
    brier, log = item_scores(probs, outcome, qtypes)
    ref_u, ref_b = _reference_brier(probs, outcome, qtypes)
    p, y = calibration_pairs(probs, outcome, correct, kind)
    n = len(part)
    parts = murphy(p, y, bins)
    row: dict[str, float | int | str] = {
        "n": n,
        "n_uniform_fill": int((part["prob_source"] == UNIFORM_FILL).sum()),
        "accuracy": float(correct.mean()),
        "brier": float(brier.mean()),
        "log_score": float(log.mean()),
        "brier_uniform": float(ref_u.mean()),
        "skill_uniform": skill(float(brier.mean()), float(ref_u.mean())),
        "brier_base": float(ref_b.mean()),
        "skill_base": skill(float(brier.mean()), float(ref_b.mean())),
        "calibration": kind,
        "ece": _ece(p, y, bins, UNIFORM),
        "ece_mass": _ece(p, y, bins, QUANTILE),
        "murphy_brier": parts.brier,
        "reliability": parts.reliability,
        "resolution": parts.resolution,
        "uncertainty": parts.uncertainty,
        # what rounding leaves of an exact 0 (forecasts on a grid) reads as 0
        "within_bin": round(parts.within_bin, 12) + 0.0,
    }
    low, high = wilson_interval([int(correct.sum())], [n])
    row["accuracy_low"], row["accuracy_high"] = float(low[0]), float(high[0])
    names = ("brier", "log", "skill_uniform", "skill_base", "ece")
    for name in names:
        row[f"{name}_low"] = row[f"{name}_high"] = math.nan
    if bootstrap.reps > 0 and n >= 2:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(bootstrap.reps, n))
        b_rep = brier[idx].mean(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            reps = {
                "brier": b_rep,
                "log": log[idx].mean(axis=1),
                "skill_uniform": 1.0 - b_rep / ref_u[idx].mean(axis=1),
                "skill_base": 1.0 - b_rep / ref_b[idx].mean(axis=1),
                "ece": _ece_replicates(p, y, idx, bins),
            }
        for name in names:
            row[f"{name}_low"], row[f"{name}_high"] = _interval(reps[name], bootstrap.confidence)
    return row


def _ece(p: FloatArray, y: FloatArray, bins: int, strategy: Strategy) -> float:
    return ece(p, y, bins, strategy)


def _ece_replicates(p: FloatArray, y: FloatArray, idx: np.ndarray, bins: int) -> FloatArray:
    """Equal-width ECE of each resample (rows of ``idx``): the bins do not move, so
    ``ECE = sum_b |sum y - sum p| / n`` over the resampled questions in each bin."""
    reps, n = idx.shape
    flat = (np.arange(reps)[:, None] * bins + _uniform_bins(p, bins)[idx]).ravel()
    sum_p = np.bincount(flat, weights=p[idx].ravel(), minlength=reps * bins)
    sum_y = np.bincount(flat, weights=y[idx].ravel(), minlength=reps * bins)
    gap: FloatArray = np.abs(sum_y - sum_p).reshape(reps, bins).sum(axis=1) / n
    return gap


def _with_all(forecasts: pd.DataFrame) -> pd.DataFrame:
    """The forecasts once per question type and once more under ``all`` (``_type``
    keeps each question's own type)."""
    typed = forecasts.assign(_type=forecasts["qtype"])
    return pd.concat([typed, typed.assign(qtype=ALL)], ignore_index=True)


def _ordered(table: pd.DataFrame, extra: Sequence[str] = ()) -> pd.DataFrame:
    """Rows in cell order (model, setting as in the paper, cutoff), then elicitation,
    then question type (TF, MC, all), then ``extra``."""
    out = table.assign(
        _s=table["setting"].map({s: i for i, s in enumerate(KINDS)}).fillna(len(KINDS)),
        _e=table["elicitation"].map({e: i for i, e in enumerate(ELICITATIONS)}),
        _q=table["qtype"].map(QTYPE_ORDER),
    )
    keys = ["model", "_s", "rag_cutoff", "_e", "_q", *extra]
    return out.sort_values(keys, kind="stable").drop(columns=["_s", "_e", "_q"])


def proper_scores_table(
    forecasts: pd.DataFrame, bins: int, bootstrap: Bootstrap, seed: int
) -> pd.DataFrame:
    """The ``proper_scores`` table (module doc); :data:`SCORE_COLUMNS`.

    Args:
        forecasts: :func:`~.forecasts.forecast_frame` rows.
        bins: bins of ECE, Murphy and the reliability diagrams.
        bootstrap: replicates and confidence of the intervals (0 reps: none).
        seed: ``base.seed``; each row's draws derive from it and the row's keys.
    """
    if forecasts.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    rows = []
    for keys, part in _with_all(forecasts).groupby(GROUP_KEYS, sort=False):
        key = dict(zip(GROUP_KEYS, keys, strict=True))
        s = derive_seed(seed, "proper", *(str(v) for v in keys))
        rows.append({**key, **_group_row(part, bins, bootstrap, s)})
    return _ordered(pd.DataFrame(rows))[SCORE_COLUMNS].reset_index(drop=True)


# --- proper_monthly ---------------------------------------------------------------


def monthly_brier(
    forecasts: pd.DataFrame,
    ma: MovingAverageSettings,
    months: tuple[int, int] | None,
    bootstrap: Bootstrap,
    seed: int,
) -> pd.DataFrame:
    """Mean Brier (and log) score per series (model, cell, elicitation, question type)
    and calendar month, with the bootstrap interval of the month's mean and the moving
    average of the monthly means; a month without questions is a row with ``n = 0`` and
    NaN scores (a gap), as in the monthly accuracy table."""
    if forecasts.empty or months is None:
        return pd.DataFrame(columns=MONTHLY_COLUMNS)
    brier, log = item_scores(
        list(forecasts["probs"]), forecasts["outcome"].to_numpy(int), forecasts["qtype"]
    )
    scored = forecasts.assign(_brier=brier, _log=log)
    calendar = np.arange(months[0], months[1] + 1)
    types = [q for q in QTYPES if q in set(scored["qtype"])]
    out = []
    series_keys = [*CELL_KEYS, "elicitation"]
    for keys, part in scored.groupby(series_keys, sort=False):
        for qtype in types:
            rows = part.loc[part["qtype"] == qtype]
            by_month = {int(str(m)): g for m, g in rows.groupby("month")}
            values = []
            for m in calendar:
                g = by_month.get(int(m), part.iloc[:0])
                n = len(g)
                mean = float(g["_brier"].mean()) if n else math.nan
                low = high = math.nan
                if n >= 2 and bootstrap.reps > 0:
                    s = derive_seed(seed, "proper_month", *(str(k) for k in keys), qtype, int(m))
                    x = g["_brier"].to_numpy(float)
                    idx = np.random.default_rng(s).integers(0, n, size=(bootstrap.reps, n))
                    low, high = _interval(x[idx].mean(axis=1), bootstrap.confidence)
                values.append(
                    {
                        **dict(zip(series_keys, keys, strict=True)),
                        "qtype": qtype,
                        "month_index": int(m),
                        "n": n,
                        "brier": mean,
                        "ci_low": low,
                        "ci_high": high,
                        "log_score": float(g["_log"].mean()) if n else math.nan,
                    }
                )
            frame = pd.DataFrame(values)
            frame["brier_ma"], frame["ma_months"] = moving_average(frame["brier"].to_numpy(), ma)
            out.append(frame)
    table = pd.concat(out, ignore_index=True)
    table = table.assign(**month_columns(table["month_index"]))
    return _ordered(table, ["month_index"])[MONTHLY_COLUMNS].reset_index(drop=True)


# --- proper_reliability -----------------------------------------------------------


def reliability_table(forecasts: pd.DataFrame, bins: int) -> pd.DataFrame:
    """The bins of every group's reliability diagram (equal width and equal mass; empty
    bins left out), on the binary forecast its calibration reads (module doc)."""
    if forecasts.empty:
        return pd.DataFrame(columns=RELIABILITY_COLUMNS)
    rows = []
    for keys, part in _with_all(forecasts).groupby(GROUP_KEYS, sort=False):
        key = dict(zip(GROUP_KEYS, keys, strict=True))
        kind = P_YES if set(part["qtype"]) == {TF} else TOP_LABEL
        p, y = calibration_pairs(
            list(part["probs"]), part["outcome"].to_numpy(int), part["correct"], kind
        )
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
    table = pd.DataFrame(rows, columns=RELIABILITY_COLUMNS)
    order = {UNIFORM: 0, QUANTILE: 1}
    table = table.assign(_st=table["strategy"].map(order))
    return (
        _ordered(table, ["_st", "bin"])
        .drop(columns="_st")[RELIABILITY_COLUMNS]
        .reset_index(drop=True)
    )


# --- proper_paired ----------------------------------------------------------------


def model_pairs(models: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of models once, in name order; ``crowd`` is always model B (the
    reference each model is compared with)."""
    named = sorted(m for m in set(models) if m != CROWD)
    pairs = list(itertools.combinations(named, 2))
    if CROWD in set(models):
        pairs += [(m, CROWD) for m in named]
    return pairs


def paired_table(
    forecasts: pd.DataFrame, bootstrap: Bootstrap, seed: int, alpha: float
) -> pd.DataFrame:
    """Two models on the same questions: per setting x RAG cutoff x elicitation, over
    all questions (``qtype`` all), each pair of :func:`model_pairs` on the questions
    both answered. McNemar's exact test on correctness and a paired bootstrap of the
    accuracy and Brier differences (A - B: a positive accuracy difference and a negative
    Brier difference favour A; the Brier p-value is at least ``1 / reps``); Holm's adjustment over the whole table, McNemar's
    p-values and the Brier p-values each as one family. ``accuracy_better`` /
    ``brier_better`` name the better model where its Holm-adjusted p is below ``alpha``.
    """
    if forecasts.empty:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    brier, _ = item_scores(
        list(forecasts["probs"]), forecasts["outcome"].to_numpy(int), forecasts["qtype"]
    )
    scored = forecasts.assign(_brier=brier)
    rows = []
    keys = ["setting", "rag_cutoff", "cell", "elicitation"]
    for values, part in scored.groupby(keys, sort=False):
        by_model = {str(m): g.set_index("question_id") for m, g in part.groupby("model")}
        for a, b in model_pairs(list(by_model)):
            common = by_model[a].index.intersection(by_model[b].index).sort_values()
            ga, gb = by_model[a].loc[common], by_model[b].loc[common]
            ca, cb = ga["correct"].to_numpy(bool), gb["correct"].to_numpy(bool)
            ba, bb = ga["_brier"].to_numpy(float), gb["_brier"].to_numpy(float)
            s = derive_seed(seed, "proper_paired", *(str(v) for v in values), a, b)
            acc = paired_bootstrap(ca, cb, bootstrap.reps, s, bootstrap.confidence)
            br = paired_bootstrap(ba, bb, bootstrap.reps, s, bootstrap.confidence)
            test = mcnemar(ca, cb)
            rows.append(
                {
                    **dict(zip(keys, values, strict=True)),
                    "qtype": ALL,
                    "model_a": a,
                    "model_b": b,
                    "n": len(common),
                    "accuracy_a": float(ca.mean()) if len(common) else math.nan,
                    "accuracy_b": float(cb.mean()) if len(common) else math.nan,
                    "accuracy_diff": acc.mean,
                    "accuracy_diff_low": acc.low,
                    "accuracy_diff_high": acc.high,
                    "only_a": test.only_a,
                    "only_b": test.only_b,
                    "mcnemar_p": test.p if len(common) else math.nan,
                    "brier_a": float(ba.mean()) if len(common) else math.nan,
                    "brier_b": float(bb.mean()) if len(common) else math.nan,
                    "brier_diff": br.mean,
                    "brier_diff_low": br.low,
                    "brier_diff_high": br.high,
                    "brier_p": _bounded(br.p, bootstrap.reps),
                }
            )
    if not rows:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    table = pd.DataFrame(rows)
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
    return table[PAIRED_COLUMNS]


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
