"""A few questions shown whole: what was asked, each model's answer in every setting,
and the articles each setting put in the prompt.

The questions are a seeded draw (``analysis.examples.per_type`` of each type, the order
of :func:`prescient.seeds.derive_seed` over their ids, from ``base.seed``) among the
questions of the accuracy tables, those scored by the most (model, cell) rows first, so
the rows of an example are as full as the run allows. The same inputs and seed give the same examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from prescient import dates
from prescient.analysis.schema import (
    cell_order,
    failed_calls,
    no_gold_rows,
    setting_columns,
)
from prescient.seeds import derive_seed
from prescient.vocab import QTYPES, TF

EXAMPLE_COLUMNS = [
    "example",
    "question_id",
    "qtype",
    "resolution_date",
    "source",
    "question",
    "options",
    "answer",
    "row",
    "model",
    "cell",
    "setting",
    "rag_cutoff",
    "shown",
    "correct",
]
"""Columns of ``examples``: one row per (example, model, cell) with ``row`` ``answer``
(``shown``: the option the model chose, or why there is none) and one per (example,
cell) with ``row`` ``articles`` (``shown``: the titles of the articles in the prompt, in
rank order; ``model`` empty). The question's columns repeat on every row."""

ANSWER_ROW = "answer"
ARTICLES_ROW = "articles"
SEED_NAME = "report_examples"
RESPONSE_CHARS = 60
"""The most characters of an unreadable reply the table quotes."""


def _items(value: object) -> list[object] | None:
    if value is None or isinstance(value, str | bytes):
        return None
    if isinstance(value, Sequence | np.ndarray | pd.Series):
        return list(value)
    return None


def _letter(i: int) -> str:
    return f"({chr(ord('a') + i)})" if i < 26 else f"({i + 1})"


def pick_examples(scores: pd.DataFrame, per_type: int, seed: int) -> list[str]:
    """The ids of the examples: per type, the first ``per_type`` questions by the number
    of (model, cell) rows scoring them (most first), then in seeded order
    (:func:`derive_seed` of ``seed`` and the id)."""
    picked: list[str] = []
    if scores.empty or per_type <= 0:
        return picked
    for qtype in QTYPES:
        part = scores.loc[scores["qtype"] == qtype]
        if part.empty:
            continue
        rows = part.assign(_qid=part["question_id"].astype(str))
        rows = rows.drop_duplicates(["_qid", "model", "cell"])
        count = rows.groupby("_qid").size()
        order = sorted(count.index, key=lambda q: (-int(count[q]), derive_seed(seed, SEED_NAME, q)))
        picked += order[:per_type]
    return picked


def _option(i: int, options: list[str] | None, lettered: bool) -> str:
    """Option ``i`` as shown: its text, after its letter for MC."""
    if options is None or not 0 <= i < len(options):
        return _letter(i)
    return f"{_letter(i)} {options[i]}" if lettered else options[i]


def _reply(row: pd.Series, options: list[str] | None, lettered: bool) -> tuple[str, object]:
    """What a scored row shows: the chosen option, or why there is none."""
    if bool(row["_failed"]):
        return f"call failed: {row['error']}", None
    correct = bool(row["correct"])
    if bool(row.get("refused", False)):
        return "refused", correct
    if bool(row.get("parse_failed", False)):
        text = " ".join(str(row.get("raw_response") or "").split())
        if len(text) > RESPONSE_CHARS:
            text = text[: RESPONSE_CHARS - 1] + "…"
        return f"unreadable: “{text}”", correct
    index = row.get("parsed_answer")
    if index is None or pd.isna(index):
        return "no answer", correct
    return _option(int(index), options, lettered), correct


def example_table(
    raw: pd.DataFrame,
    scores: pd.DataFrame,
    questions: pd.DataFrame | None,
    articles: pd.DataFrame | None,
    per_type: int,
    seed: int,
) -> pd.DataFrame:
    """The ``examples`` table.

    Args:
        raw: the scores table as read (parsed_answer, raw_response, context_article_ids).
        scores: the normalised scores of the accuracy tables (the examples come from them).
        questions: the question table (question text, choices, answer), or None: the
            scores table's own columns then give whatever of them it has.
        articles: the corpus (titles by article id), or None: ids are shown instead.
        per_type: examples of each question type.
        seed: ``base.seed``.
    """
    ids = pick_examples(scores, per_type, seed)
    if not ids:
        return pd.DataFrame(columns=EXAMPLE_COLUMNS)
    frame = questions if questions is not None else raw
    described = frame.drop_duplicates("question_id").set_index(
        frame.drop_duplicates("question_id")["question_id"].astype(str)
    )
    titles: dict[str, str] = {}
    if articles is not None and {"article_id", "title"} <= set(articles.columns):
        titles = dict(
            zip(articles["article_id"].astype(str), articles["title"].astype(str), strict=True)
        )
    rows_of = raw.loc[~no_gold_rows(raw)].copy()
    rows_of["_cell"] = setting_columns(rows_of)["cell"] if not rows_of.empty else []
    rows_of["_qid"] = rows_of["question_id"].astype(str)
    rows_of["_failed"] = failed_calls(rows_of)
    out: list[dict[str, object]] = []
    cells = cell_order(scores[["setting", "rag_cutoff", "cell"]].drop_duplicates().assign(model=""))
    cells = cells.set_index("cell")
    for number, qid in enumerate(ids, start=1):
        base, options, lettered = _question_columns(number, qid, described.loc[qid])
        mine = rows_of.loc[rows_of["_qid"] == qid].sort_values(["model", "_cell"])
        for cell in cells.index:
            in_cell = mine.loc[mine["_cell"] == cell]
            where = {
                "cell": cell,
                "setting": cells.loc[cell, "setting"],
                "rag_cutoff": cells.loc[cell, "rag_cutoff"],
            }
            out += _cell_rows(base, where, in_cell, titles, options, lettered)
    return pd.DataFrame(out, columns=EXAMPLE_COLUMNS)


def _question_columns(
    number: int, qid: str, q: pd.Series[Any] | pd.DataFrame
) -> tuple[dict[str, object], list[str] | None, bool]:
    """The columns every row of one example repeats (the question as shown, its options
    and answer), the options (None: the question table has none) and whether they are
    lettered (MC) rather than read out (TF)."""
    items = _items(q.get("choices"))
    options = [str(o) for o in items] if items else None
    qtype = str(q["qtype"]).lower()
    lettered = qtype != TF
    answer_index = q.get("answer_index")
    if options is not None and answer_index is not None and not pd.isna(answer_index):
        answer = _option(int(answer_index), options, lettered)
    else:
        answer = str(q.get("answer") or "")
    shown_options = [_option(i, options, lettered) for i in range(len(options or []))]
    base: dict[str, object] = {
        "example": number,
        "question_id": qid,
        "qtype": qtype,
        "resolution_date": dates.as_date(q["resolution_date"]).isoformat(),
        "source": str(q.get("source") or ""),
        "question": str(q.get("question") or ""),
        "options": (" " if lettered else " / ").join(shown_options),
        "answer": answer,
    }
    return base, options, lettered


def _cell_rows(
    base: dict[str, object],
    where: dict[str, object],
    in_cell: pd.DataFrame,
    titles: dict[str, str],
    options: list[str] | None,
    lettered: bool,
) -> list[dict[str, object]]:
    """One example's rows in one cell: the articles its prompt held, then each model's
    reply, so a reader sees what every model was shown beside what it answered."""
    rows: list[dict[str, object]] = [
        {
            **base,
            "row": ARTICLES_ROW,
            "model": "",
            **where,
            "shown": _context(in_cell, titles),
            "correct": None,
        }
    ]
    for _, r in in_cell.iterrows():
        shown, correct = _reply(r, options, lettered)
        rows.append(
            {
                **base,
                "row": ANSWER_ROW,
                "model": str(r["model"]),
                **where,
                "shown": shown,
                "correct": correct,
            }
        )
    return rows


def _context(rows: pd.DataFrame, titles: dict[str, str]) -> str:
    """The titles of the articles the cell's prompt held (the first model's row: the
    retrieval is per question and cell, the same for every model), numbered by rank."""
    if rows.empty or "context_article_ids" not in rows.columns:
        return ""
    for value in rows["context_article_ids"]:
        items = _items(value)
        if items:
            return "; ".join(
                f"{i}. {titles.get(str(a), str(a))}" for i, a in enumerate(items, start=1)
            )
    return ""
