"""What was evaluated: one row per question with its source, dates and category.

The analysis describes the question table that was actually evaluated (the evaluated
table ``retrieve`` writes, with ``source``, ``source_path``, ``source_checksum``,
``category``, ``mc_type``, ``forecast_date`` and ``visibility_gap_days``), or, when a
scores table produced elsewhere is analysed alone, whatever of those columns the scores
table itself carries. :func:`question_info` reduces either to one frame;
:func:`source_table` and :func:`source_categories` describe each source.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from prescient import dates
from prescient.analysis.schema import TableError, day_column
from prescient.report.tables import fmt_count
from prescient.retrieval.visibility import describe_rule
from prescient.vocab import MC, TF

UNNAMED = "unnamed"
"""The source of questions whose table names none."""
OPTIONAL_TEXT = ("category", "mc_type", "question", "article_id", "source_path", "source_checksum")
SOURCE_COLUMNS = [
    "source",
    "path",
    "checksum",
    "n",
    "n_tf",
    "n_mc",
    "first_date",
    "last_date",
    "n_categories",
    "n_with_forecast_date",
    "horizon_min_days",
    "horizon_median_days",
    "horizon_max_days",
]


def _text_column(frame: pd.DataFrame, column: str) -> pd.Series:
    if column not in frame.columns:
        return pd.Series([None] * len(frame), index=frame.index, dtype=object)
    values = frame[column].astype(object)
    present = pd.Series([not dates.is_missing(v) for v in values], index=frame.index)
    return values.where(present, other=None)


def _optional_days(frame: pd.DataFrame, column: str, what: str) -> pd.Series:
    if column not in frame.columns:
        return pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns]")
    present = [not dates.is_missing(v) for v in frame[column].astype(object)]
    out = pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns]")
    if any(present):
        out[present] = day_column(frame.loc[present, column], what)
    return out


def question_info(raw_scores: pd.DataFrame, questions: pd.DataFrame | None) -> pd.DataFrame:
    """One row per evaluated question: question_id, qtype, resolution_date, forecast_date,
    source, category, mc_type, question, article_id, source_path, source_checksum,
    visibility_gap_days and horizon_days (days from forecast to resolution date).

    Args:
        raw_scores: the scores table (its questions are described when ``questions`` is
            None: the first row of each question_id gives its columns).
        questions: the question table, or None.

    Raises:
        TableError: the question table lacks question_id, qtype or resolution_date, has
            an id twice, or misses questions the scores table scored.
    """
    described = "scores" if questions is None else "questions"
    frame = raw_scores if questions is None else questions
    missing = [c for c in ("question_id", "qtype", "resolution_date") if c not in frame.columns]
    if missing:
        raise TableError(f"the {described} table lacks columns {missing}")
    frame = frame.drop_duplicates("question_id", keep="first") if questions is None else frame
    ids = frame["question_id"].astype(str)
    if questions is not None and ids.duplicated().any():
        raise TableError(
            f"the questions table has question ids twice, e.g. {ids[ids.duplicated()].head(3).tolist()}"
        )
    if questions is not None and "question_id" in raw_scores.columns:
        unknown = sorted(set(raw_scores["question_id"].astype(str).unique()) - set(ids))
        if unknown:
            raise TableError(
                f"{len(unknown)} scored questions are not in the questions table, e.g. "
                f"{unknown[:3]}: analyse the scores with the question table they were made from"
            )
    frame = frame.reset_index(drop=True)
    info = pd.DataFrame(
        {
            "question_id": ids.reset_index(drop=True),
            "qtype": frame["qtype"].astype(str).str.lower(),
            "resolution_date": day_column(frame["resolution_date"], f"{described}.resolution_date"),
            "forecast_date": _optional_days(frame, "forecast_date", f"{described}.forecast_date"),
        }
    )
    source = _text_column(frame, "source")
    info["source"] = source.where(source.notna(), UNNAMED).astype(str)
    for column in OPTIONAL_TEXT:
        info[column] = _text_column(frame, column)
    gap = frame.get("visibility_gap_days", None)
    info["visibility_gap_days"] = (
        pd.to_numeric(gap, errors="coerce").astype("Int64") if gap is not None else pd.NA
    )
    late = info["forecast_date"] > info["resolution_date"]
    if late.any():
        raise TableError(
            f"{int(late.sum())} questions have a forecast date after their resolution date, "
            f"e.g. {info.loc[late, 'question_id'].head(3).tolist()}"
        )
    info["horizon_days"] = (info["resolution_date"] - info["forecast_date"]).dt.days
    return info


def with_questions(scores: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Normalised scores with each question's ``source`` and ``horizon_days`` (NaN when
    it has no forecast date)."""
    by_id = info.set_index("question_id")
    return scores.assign(
        source=scores["question_id"].map(by_id["source"]).fillna(UNNAMED).astype(str),
        horizon_days=scores["question_id"].map(by_id["horizon_days"]).astype(float),
    )


def _first(values: pd.Series) -> str:
    present = values.dropna()
    return str(present.iloc[0]) if len(present) else ""


def source_table(info: pd.DataFrame) -> pd.DataFrame:
    """Each question source: where its file is, its checksum, counts and date span."""
    rows = []
    for name, part in info.groupby("source", sort=True):
        horizon = part["horizon_days"].dropna()
        rows.append(
            {
                "source": str(name),
                "path": _first(part["source_path"]),
                "checksum": _first(part["source_checksum"]),
                "n": len(part),
                "n_tf": int((part["qtype"] == TF).sum()),
                "n_mc": int((part["qtype"] == MC).sum()),
                "first_date": part["resolution_date"].min().date().isoformat(),
                "last_date": part["resolution_date"].max().date().isoformat(),
                "n_categories": int(part["category"].dropna().nunique()),
                "n_with_forecast_date": len(horizon),
                "horizon_min_days": float(horizon.min()) if len(horizon) else np.nan,
                "horizon_median_days": float(horizon.median()) if len(horizon) else np.nan,
                "horizon_max_days": float(horizon.max()) if len(horizon) else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=SOURCE_COLUMNS)


def source_categories(info: pd.DataFrame) -> pd.DataFrame:
    """Questions per source and category (a missing category is ``(missing)``)."""
    cols = ["source", "category", "n", "share_pct"]
    if info.empty:
        return pd.DataFrame(columns=cols)
    labels = info["category"].where(info["category"].notna(), "(missing)").astype(str)
    counts = (
        info.assign(category=labels)
        .groupby(["source", "category"])
        .size()
        .rename("n")
        .reset_index()
    )
    counts = counts.sort_values(["source", "n", "category"], ascending=[True, False, True])
    totals = counts.groupby("source")["n"].transform("sum")
    counts["share_pct"] = 100.0 * counts["n"] / totals
    return counts[cols].reset_index(drop=True)


def visibility_summary(info: pd.DataFrame) -> dict[str, Any]:
    """The retrieval window rule the evaluated table records, in words.

    Returns:
        ``rule`` (the window, or a sentence saying the table does not record it),
        ``gap_days`` (the gaps the table records, comma-separated; empty: none) and
        ``forecast_dates`` (how many questions have one).
    """
    gaps = sorted({int(g) for g in info["visibility_gap_days"].dropna()})
    n_forecast = int(info["forecast_date"].notna().sum())
    if not gaps:
        rule = "not recorded in the question table (scores evaluated elsewhere)"
    else:
        rule = " / ".join(describe_rule(g) for g in gaps)
    return {
        "rule": rule,
        "gap_days": ", ".join(str(g) for g in gaps),
        "forecast_dates": f"{fmt_count(n_forecast)} of {fmt_count(len(info))} questions",
    }
