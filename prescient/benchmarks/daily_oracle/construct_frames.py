"""The candidates and questions tables of question construction, from its records.

Every selected article has one ``kind="article"`` row and every generated question one
``kind="question"`` row in the candidates table, in a stable order (day, article, the
article before its questions, slot), with nullable integer and boolean columns so a
question that stopped early reads as missing rather than as zero. The questions table is
the accepted rows with their columns made plain again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.benchmarks.daily_oracle.construct_records import Article, Question
from prescient.benchmarks.daily_oracle.construct_settings import (
    CANDIDATE_COLUMNS,
    QUESTION_COLUMNS,
)
from prescient.vocab import MC, PRINCIPLES, mc_type


def candidates_frame(
    arts: list[Article], questions: list[Question], provenance: Mapping[str, str]
) -> pd.DataFrame:
    """The candidates table: every article and question with its fate and provenance."""
    rows: list[dict[str, Any]] = []
    for a in arts:
        rows.append(
            {
                "kind": "article",
                "article_id": a.article_id,
                "resolution_date": a.date,
                "selection": a.selection,
                "status": a.status,
                "step": a.step,
                "reason": a.reason,
                "summary": a.summary,
                "keypoint": a.keypoint,
                "raw_response": a.raw_response,
                **provenance,
            }
        )
    for q in questions:
        row: dict[str, Any] = {
            "kind": "question",
            "article_id": q.article.article_id,
            "resolution_date": q.article.date,
            "selection": q.article.selection,
            "question_id": q.question_id,
            "slot": q.slot,
            "qtype": q.qtype,
            "question": q.question,
            "answer": q.answer,
            "choices": q.choices,
            "answer_index": q.answer_index,
            "status": q.status,
            "step": q.step,
            "reason": q.reason,
            **{k: q.scores.get(k) for k in PRINCIPLES},
            "filter_total": q.filter_total,
            "category": q.category,
            "mc_type": mc_type(q.question) if q.qtype == MC else None,
            "distractor_source": q.distractor_source,
            **q.audit,
            "raw_response": q.raw_response,
            **provenance,
        }
        if q.qtype != MC:
            row["distract_model"] = row["distract_template"] = None
        rows.append(row)
    df = pd.DataFrame.from_records(rows, columns=list(CANDIDATE_COLUMNS))
    df["_kind"] = (df["kind"] == "question").astype(int)
    df = df.sort_values(
        ["resolution_date", "article_id", "_kind", "slot"], kind="stable", na_position="first"
    ).drop(columns="_kind")
    for c in ("slot", "answer_index", "filter_total", *PRINCIPLES):
        df[c] = df[c].astype("Int64")
    for c in (
        "leak_answer_in_article_sibling",
        "leak_answer_in_day_sibling",
        "leak_near_duplicate",
        "leak_exact_duplicate",
        "leak_contradictory_duplicate",
        "leak_phrase",
        "leakage_flagged",
    ):
        df[c] = df[c].astype("boolean")
    df["leak_near_duplicate_similarity"] = df["leak_near_duplicate_similarity"].astype("Float64")
    return df.reset_index(drop=True)


def questions_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """The questions table: the accepted candidate rows, integer and boolean columns plain."""
    out = rows.loc[:, list(QUESTION_COLUMNS)].copy()
    for c in ("slot", "answer_index", "filter_total", *PRINCIPLES):
        out[c] = out[c].astype("int64")
    out["leakage_flagged"] = out["leakage_flagged"].astype(bool)
    return out.reset_index(drop=True)
