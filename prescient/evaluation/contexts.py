"""What each setting shows the model besides the question: its *context* articles.

One context table per setting (:data:`CONTEXT_COLUMNS`, ranked articles per question),
built once by the ``retrieve`` stage, so that an evaluation cell depends only on its own
setting's table: adding a RAG cutoff adds a table and leaves the others byte-identical.

- ``closed_book``: no rows.
- ``gold``: the question's source article: its ``article_id`` in the corpus, else its
  ``gold_url`` matched against the corpus URLs, else the inline ``gold_title`` /
  ``gold_text`` of an imported question. A question with none of these has no row (the
  evaluation records it as an error instead of silently asking closed-book).
- ``rag_<cutoff>``: the retrieval results of that cutoff, best first.

Article text is cut to its first ``max_words`` words (the paper: 512 for retrieved
articles) and whitespace is collapsed to single spaces, so an article occupies one line
of the prompt and cannot imitate the prompt's own layout (a line starting "(a)" is how
an answer option is presented).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from prescient import dates, io
from prescient.evaluation.settings import CLOSED_BOOK, GOLD, RAG, Setting

CONTEXT_SCHEMA: dict[str, str] = {
    "question_id": "string",
    "rank": "int32",
    "article_id": "string",
    "date": "date32[pyarrow]",
    "title": "string",
    "text": "string",
}
CONTEXT_COLUMNS: tuple[str, ...] = tuple(CONTEXT_SCHEMA)


def truncate_words(text: str | None, max_words: int | None) -> str:
    """The first ``max_words`` whitespace-separated words, joined by single spaces."""
    words = str(text or "").split()
    if max_words is not None:
        words = words[:max_words]
    return " ".join(words)


def context_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A context table with the canonical column types (also when empty)."""
    return io.typed_frame(CONTEXT_SCHEMA, rows)


def _str(value: Any) -> str | None:
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return None
    text = str(value)
    return text if text.strip() else None


def build_contexts(
    setting: Setting,
    questions: pd.DataFrame,
    articles: pd.DataFrame,
    retrieval: pd.DataFrame,
    *,
    max_words: int | None,
    gold_max_words: int | None,
) -> pd.DataFrame:
    """The context table of one setting.

    Args:
        setting: the setting.
        questions: the normalised question table.
        articles: the ingested corpus (article_id, date, title, text, url).
        retrieval: the retrieval table (question_id, rag_cutoff, rank, article_id, ...).
        max_words: words kept per retrieved article (None: all).
        gold_max_words: words kept of the gold article (None: all).
    """
    rows: dict[str, list[Any]] = {c: [] for c in CONTEXT_COLUMNS}

    def add(
        qid: str, rank: int, aid: str | None, date: Any, title: Any, text: Any, n: int | None
    ) -> None:
        rows["question_id"].append(qid)
        rows["rank"].append(rank)
        rows["article_id"].append(aid)
        rows["date"].append(dates.optional_date(date))
        rows["title"].append(truncate_words(_str(title), None))
        rows["text"].append(truncate_words(_str(text), n))

    if setting.kind == CLOSED_BOOK:
        return context_frame(rows)
    by_id = articles.set_index(articles["article_id"].astype(str), drop=False)
    if setting.kind == GOLD:
        by_url: dict[str, str] = {}
        if "url" in articles.columns:
            for aid, url in zip(articles["article_id"], articles["url"], strict=True):
                if _str(url) is not None:
                    by_url.setdefault(str(url), str(aid))
        for q in questions.to_dict("records"):
            qid = str(q["question_id"])
            aid = _str(q.get("article_id"))
            if aid is None or aid not in by_id.index:
                url = _str(q.get("gold_url"))
                aid = by_url.get(url) if url is not None else None
            if aid is not None and aid in by_id.index:
                a = by_id.loc[aid]
                add(qid, 1, aid, a["date"], a["title"], a["text"], gold_max_words)
            elif _str(q.get("gold_text")) is not None:
                add(qid, 1, None, None, q.get("gold_title"), q.get("gold_text"), gold_max_words)
        return context_frame(rows)
    if setting.kind == RAG:
        label = setting.cutoff_label
        hits = retrieval.loc[retrieval["rag_cutoff"] == label].sort_values(
            ["question_id", "rank"], kind="stable"
        )
        wanted = set(questions["question_id"].astype(str))
        for qid, rank, aid in zip(
            hits["question_id"], hits["rank"], hits["article_id"], strict=True
        ):
            if str(qid) not in wanted:
                continue
            a = by_id.loc[str(aid)]
            add(str(qid), int(rank), str(aid), a["date"], a["title"], a["text"], max_words)
        return context_frame(rows)
    raise ValueError(f"unknown setting kind {setting.kind!r}")


def context_summary(contexts: pd.DataFrame, questions: pd.DataFrame) -> dict[str, Any]:
    """How many questions a setting's context table gives articles, and how many on
    average (questions without any count as 0)."""
    shown = contexts.groupby("question_id").size()
    mean = shown.reindex(questions["question_id"]).fillna(0).mean() if len(questions) else 0.0
    return {
        "questions_with_context": int(len(shown)),
        "questions_without_context": int(len(questions) - len(shown)),
        "mean_articles": round(float(mean), 4),
    }
