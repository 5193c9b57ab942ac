"""Dataset statistics: question counts, MC question types and categories (Fig. 1, 8),
and the Anderson-Schooler analysis of word recurrence (Fig. 2).

Anderson-Schooler, as computed here: documents (article titles, TF questions or MC
questions) are grouped by day; only days with at least one document of that source
count, so a day missing from the data is not read as "no word appeared". For every day
d after the first ``W`` such days and every word seen in the previous ``W`` days, the
past frequency is the number of those days on which the word appeared (1..W) and the
outcome is whether it appears on day d. The probability for frequency f is hits / pairs
over all (word, day) pairs with frequency f; a least-squares line of probability on f
gives the slope and R^2 (the paper reports R^2 = 0.843, 0.982, 0.990 on its data).
Words are maximal runs of ASCII letters after lowercasing.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd
from tqdm import tqdm

from prescient import dates
from prescient.analysis.schema import day_column
from prescient.retrieval.tokenize import english_stopwords
from prescient.stats import linear_fit
from prescient.vocab import MC, QTYPES, TF

logger = logging.getLogger(__name__)

WORD_RE = re.compile(r"[a-z]+")
UNKNOWN = "(missing)"
AS_COLUMNS = ["source", "frequency", "n_pairs", "n_hits", "probability"]
AS_FIT_COLUMNS = [
    "source",
    "n_days",
    "n_target_days",
    "vocabulary",
    "n_bins",
    "slope",
    "intercept",
    "r2",
    "status",
]


def _labels(values: pd.Series) -> pd.Series:
    return values.astype("object").where(values.notna(), UNKNOWN).astype(str)


def _qtypes(questions: pd.DataFrame) -> pd.Series:
    return questions["qtype"].astype(str).str.lower()


def _resolution_days(questions: pd.DataFrame) -> pd.Series:
    return day_column(questions["resolution_date"], "questions.resolution_date")


def question_counts(questions: pd.DataFrame) -> dict[str, object]:
    """Totals of the questions table: counts per type, date span, questions per day."""
    if questions.empty:
        return {"n_questions": 0, "n_tf": 0, "n_mc": 0, "first_date": "", "last_date": ""}
    resolved = _resolution_days(questions)
    days = int(resolved.nunique())
    qtype = _qtypes(questions)
    return {
        "n_questions": len(questions),
        "n_tf": int((qtype == TF).sum()),
        "n_mc": int((qtype == MC).sum()),
        "first_date": resolved.min().date().isoformat(),
        "last_date": resolved.max().date().isoformat(),
        "n_days": days,
        "questions_per_day": len(questions) / days if days else 0.0,
    }


def share_table(labels: pd.Series, name: str) -> pd.DataFrame:
    """Counts and shares (percent) of each label, largest first (ties by name)."""
    counts = _labels(labels).value_counts()
    out = pd.DataFrame({name: counts.index.astype(str), "n": counts.to_numpy(dtype=int)})
    out = out.sort_values(["n", name], ascending=[False, True], kind="stable")
    total = int(out["n"].sum())
    out["share_pct"] = 100.0 * out["n"] / total if total else np.nan
    return out.reset_index(drop=True)


def mc_type_table(questions: pd.DataFrame) -> pd.DataFrame:
    """Fig. 1(a): the leading phrase of MC questions (``mc_type``)."""
    if questions.empty or "mc_type" not in questions.columns:
        return pd.DataFrame(columns=["mc_type", "n", "share_pct"])
    mc = questions.loc[_qtypes(questions) == MC, "mc_type"]
    return share_table(mc, "mc_type")


def category_table(questions: pd.DataFrame) -> pd.DataFrame:
    """Fig. 1(b): categories of all questions, with the TF / MC split."""
    cols = ["category", "n", "share_pct", "n_tf", "n_mc"]
    if questions.empty or "category" not in questions.columns:
        return pd.DataFrame(columns=cols)
    out = share_table(questions["category"], "category")
    by_type = (
        questions.assign(category=_labels(questions["category"]), qtype=_qtypes(questions))
        .groupby(["category", "qtype"])
        .size()
        .unstack(fill_value=0)
    )
    for q in QTYPES:
        series = by_type[q] if q in by_type.columns else pd.Series(dtype=int)
        out[f"n_{q}"] = out["category"].map(series).fillna(0).astype(int)
    return out[cols]


def categories_by_month(questions: pd.DataFrame) -> pd.DataFrame:
    """Fig. 8: questions per category and calendar month (months without questions kept)."""
    cols = ["month", "month_index", "category", "n", "share_pct"]
    if questions.empty or "category" not in questions.columns:
        return pd.DataFrame(columns=cols)
    m = dates.month_indices(_resolution_days(questions))
    df = pd.DataFrame({"month_index": m.astype(int), "category": _labels(questions["category"])})
    months = np.arange(int(m.min()), int(m.max()) + 1)
    cats = share_table(df["category"], "category")["category"]
    grid = pd.MultiIndex.from_product([months, cats], names=["month_index", "category"])
    counts = df.groupby(["month_index", "category"]).size().reindex(grid, fill_value=0)
    out = counts.rename("n").reset_index()
    totals = out.groupby("month_index")["n"].transform("sum")
    out["share_pct"] = np.where(totals > 0, 100.0 * out["n"] / totals.where(totals > 0, 1), np.nan)
    out["month"] = [dates.month_label(int(x)) for x in out["month_index"]]
    return out[cols]


def questions_by_month(questions: pd.DataFrame) -> pd.DataFrame:
    """TF and MC questions per calendar month (months without questions kept as 0)."""
    cols = ["month", "month_index", "n_tf", "n_mc", "n"]
    if questions.empty:
        return pd.DataFrame(columns=cols)
    m = dates.month_indices(_resolution_days(questions)).astype(int)
    qtype = _qtypes(questions)
    months = np.arange(int(m.min()), int(m.max()) + 1)
    out = pd.DataFrame({"month_index": months})
    for q in QTYPES:
        out[f"n_{q}"] = out["month_index"].map(m[qtype == q].value_counts()).fillna(0).astype(int)
    out["n"] = out["n_tf"] + out["n_mc"]
    out["month"] = [dates.month_label(int(x)) for x in out["month_index"]]
    return out[cols]


def tokenize(text: str) -> list[str]:
    """Lowercased runs of ASCII letters."""
    return WORD_RE.findall(text.lower())


def daily_word_sets(
    days: Iterable[object], texts: Iterable[str], stopwords: frozenset[str] = frozenset()
) -> list[frozenset[str]]:
    """The set of words that appeared on each day with documents, in date order."""
    by_day: dict[dt.date, set[str]] = {}
    for d, text in zip(days, texts, strict=True):
        if text is None or (isinstance(text, float) and np.isnan(text)):
            continue
        day = dates.as_date(d)
        by_day.setdefault(day, set()).update(w for w in tokenize(str(text)) if w not in stopwords)
    return [frozenset(by_day[d]) for d in sorted(by_day)]


def recurrence_counts(day_sets: list[frozenset[str]], window: int) -> pd.DataFrame:
    """Pairs and hits per past frequency 1..window (see the module docstring).

    Returns:
        Columns ``frequency``, ``n_pairs``, ``n_hits``, ``probability`` for the
        frequencies that occur (probability = hits / pairs).
    """
    vocab: dict[str, int] = {}
    ids = [
        np.fromiter((vocab.setdefault(w, len(vocab)) for w in s), dtype=np.int64) for s in day_sets
    ]
    pairs = np.zeros(window + 1, dtype=np.int64)
    hits = np.zeros(window + 1, dtype=np.int64)
    counts = np.zeros(len(vocab), dtype=np.int64)
    present = np.zeros(len(vocab), dtype=bool)
    for day in ids[:window]:
        counts[day] += 1
    for i in tqdm(
        range(window, len(ids)), desc="anderson-schooler", unit="day", disable=len(ids) < 2000
    ):
        seen = np.flatnonzero(counts)
        freq = counts[seen]
        present[ids[i]] = True
        pairs += np.bincount(freq, minlength=window + 1)
        hits += np.bincount(freq[present[seen]], minlength=window + 1)
        present[ids[i]] = False
        counts[ids[i]] += 1
        counts[ids[i - window]] -= 1
    freq_axis = np.arange(window + 1)
    keep = (freq_axis >= 1) & (pairs > 0)
    return pd.DataFrame(
        {
            "frequency": freq_axis[keep],
            "n_pairs": pairs[keep],
            "n_hits": hits[keep],
            "probability": hits[keep] / pairs[keep],
        }
    )


def _fit_status(n_bins: int, r2: float) -> str:
    if n_bins < 2:
        return f"{n_bins} past-frequency value(s) observed: a line needs two"
    if not np.isfinite(r2):
        return "the next-day probability is the same at every frequency: R^2 undefined"
    return "ok"


def anderson_schooler(
    sources: dict[str, tuple[Iterable[object], Iterable[str]]],
    window: int,
    drop_stopwords: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 2 for each named source of (dates, texts).

    Returns:
        The per-frequency points (:data:`AS_COLUMNS`) and one fit row per source
        (:data:`AS_FIT_COLUMNS`); a source with no more than ``window`` days of documents
        gets NaN fit values and a status saying so.
    """
    stop: frozenset[str] = frozenset()
    if drop_stopwords:
        stop = english_stopwords()
    points, fits = [], []
    for name, (days, texts) in sources.items():
        day_sets = daily_word_sets(days, texts, stop)
        vocab = len(set().union(*day_sets)) if day_sets else 0
        if len(day_sets) <= window:
            status = f"needs more than {window} days with documents, has {len(day_sets)}"
            fits.append(
                {"source": name, "n_days": len(day_sets), "n_target_days": 0, "vocabulary": vocab}
                | {"n_bins": 0, "slope": np.nan, "intercept": np.nan, "r2": np.nan}
                | {"status": status}
            )
            continue
        counts = recurrence_counts(day_sets, window)
        fit = linear_fit(counts["frequency"], counts["probability"])
        points.append(counts.assign(source=name))
        fits.append(
            {
                "source": name,
                "n_days": len(day_sets),
                "n_target_days": len(day_sets) - window,
                "vocabulary": vocab,
                "n_bins": fit.n,
                "slope": fit.slope,
                "intercept": fit.intercept,
                "r2": fit.r2,
                "status": _fit_status(fit.n, fit.r2),
            }
        )
    pts = (
        pd.concat(points, ignore_index=True)[AS_COLUMNS]
        if points
        else pd.DataFrame(columns=AS_COLUMNS)
    )
    return pts, pd.DataFrame(fits, columns=AS_FIT_COLUMNS)
