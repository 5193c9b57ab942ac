"""What each setting shows the model besides the question: its *context* articles.

One context table per setting (:data:`CONTEXT_COLUMNS`, ranked articles per question),
built once by the ``retrieve`` stage, so that an evaluation cell depends only on its own
setting's table: adding a RAG cutoff adds a table and leaves the others byte-identical.

- ``closed_book``: no rows.
- ``gold``: the question's source article: its ``article_id`` in the corpus, else its
  ``gold_url`` matched against the corpus URLs (both normalised as ingest normalises
  them, :func:`prescient.corpus.normalize.normalize_url`: scheme, ``www.``, tracking
  parameters and a trailing slash do not matter), else the inline ``gold_title`` /
  ``gold_text`` of an imported question. A question with none of these has no row (the
  evaluation records it as an error instead of silently asking closed-book), and
  :func:`match_gold` counts every way a question found, or missed, its gold article.
- ``rag_<cutoff>``: the retrieval results of that cutoff, best first.

Article text is cut to its first ``max_words`` words (the paper: 512 for retrieved
articles) and whitespace is collapsed to single spaces, so an article occupies one line
of the prompt and cannot imitate the prompt's own layout (a line starting "(a)" is how
an answer option is presented).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from prescient import dates, io
from prescient.corpus.normalize import normalize_url
from prescient.evaluation.settings import CLOSED_BOOK, GOLD, RAG, Setting
from prescient.llm.fit import first_words

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
    """The first ``max_words`` whitespace-separated words, joined by single spaces (the
    cut the context-window rule also makes, :func:`prescient.llm.fit.first_words`)."""
    return first_words(text, max_words)


def context_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A context table with the canonical column types (also when empty)."""
    return io.typed_frame(CONTEXT_SCHEMA, rows)


def _str(value: Any) -> str | None:
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return None
    text = str(value)
    return text if text.strip() else None


GOLD_COUNTS = (
    "article_id_in_corpus",
    "article_id_not_in_corpus",
    "gold_url_matched",
    "gold_url_unmatched",
    "gold_text_inline",
    "no_gold_article",
)
"""How questions found their gold article (:func:`match_gold`); a question whose
article_id is not in the corpus also counts under how its gold_url fared."""


def url_index(articles: pd.DataFrame) -> dict[str, str]:
    """Normalised URL -> article_id of the corpus (the first article of each URL)."""
    out: dict[str, str] = {}
    if "url" not in articles.columns:
        return out
    for aid, url in zip(articles["article_id"], articles["url"], strict=True):
        norm = normalize_url(_str(url))
        if norm is not None:
            out.setdefault(norm, str(aid))
    return out


def match_gold(
    questions: pd.DataFrame, articles: pd.DataFrame
) -> tuple[list[str | None], dict[str, dict[str, int]]]:
    """Each question's gold article in the corpus, and the counts per source.

    A question's ``article_id`` wins when the corpus has it; otherwise its ``gold_url``
    is matched on the normalised URL ingest computes. Unmatched URLs are counted (per
    ``source``, :data:`GOLD_COUNTS`), never silently dropped: a question without a gold
    article is asked nothing in the gold setting and its error says why.

    Returns:
        The matched article id per question (None when the corpus has none), and
        ``{source: {count name: n}}``.
    """
    known = set(articles["article_id"].astype(str))
    by_url: dict[str, str] | None = None  # built when a question first needs it
    n = len(questions)
    sources = questions["source"].astype(str).tolist() if "source" in questions else [""] * n
    counts: dict[str, dict[str, int]] = {}
    matched: list[str | None] = []
    for i, q in enumerate(questions.to_dict("records")):
        c = counts.setdefault(sources[i], dict.fromkeys(GOLD_COUNTS, 0))
        aid = _str(q.get("article_id"))
        if aid is not None and aid in known:
            c["article_id_in_corpus"] += 1
            matched.append(aid)
            continue
        if aid is not None:
            c["article_id_not_in_corpus"] += 1
        url = _str(q.get("gold_url"))
        if url is not None and by_url is None:
            by_url = url_index(articles)
        found = by_url.get(normalize_url(url) or "") if url is not None and by_url else None
        if url is not None:
            c["gold_url_matched" if found else "gold_url_unmatched"] += 1
        if found is None and _str(q.get("gold_text")) is not None:
            c["gold_text_inline"] += 1
        elif found is None:
            c["no_gold_article"] += 1
        matched.append(found)
    return matched, counts


SHOWN_COLUMNS: tuple[str, ...] = ("article_id", "date", "title", "text")
"""The article columns a context shows."""


def shown_articles(
    path: str | Path,
    ids: Collection[str],
    whole: Collection[str],
    max_words: int | None,
) -> pd.DataFrame:
    """The articles ``ids`` of an article table on disk (:data:`SHOWN_COLUMNS`), read a
    row group at a time (only the groups that hold one). Texts of articles not in
    ``whole`` (the gold articles, which keep their own cut) are cut to ``max_words``
    words as they are read: the same cut a retrieved article gets in its context, so the
    contexts are unchanged and only what they show is held."""
    wanted = pa.array(sorted(ids), type=pa.string())
    with io.ParquetTable(path) as table:
        parts = []
        for group in range(table.num_row_groups if len(wanted) else 0):
            # the ids first: a row group none of whose articles is shown is not read
            at = table.read_row_group(group, columns=["article_id"]).column("article_id")
            keep = pc.is_in(at.cast(pa.string()), wanted)
            if not pc.any(keep).as_py():
                continue
            part = table.read_row_group(group, columns=list(SHOWN_COLUMNS)).filter(keep)
            frame = part.to_pandas()
            if max_words is not None:
                cut = ~frame["article_id"].astype(str).isin(whole)
                frame.loc[cut, "text"] = [
                    truncate_words(_str(t), max_words) for t in frame.loc[cut, "text"]
                ]
            parts.append(frame)
        if not parts:
            empty: pd.DataFrame = (
                table.schema_arrow.empty_table().select(list(SHOWN_COLUMNS)).to_pandas()
            )
            return empty
    shown: pd.DataFrame = pd.concat(parts, ignore_index=True)
    return shown


def articles_shown(
    articles: pd.DataFrame | str | Path,
    gold: Iterable[str | None],
    retrieval: pd.DataFrame,
    max_words: int | None,
) -> pd.DataFrame:
    """The articles some context shows: each question's gold article (``gold``) and every
    article of the retrieval table's rows, from the article frame or its file
    (:func:`shown_articles`: retrieved-only texts cut to ``max_words``)."""
    gold_ids = {g for g in gold if g is not None}
    ids = gold_ids | set(retrieval["article_id"].astype(str))
    if isinstance(articles, pd.DataFrame):
        return articles.loc[articles["article_id"].astype(str).isin(ids)]
    return shown_articles(articles, ids, gold_ids, max_words)


def shown_texts(paths: Iterable[str | os.PathLike[str]]) -> Iterator[str]:
    """Every article text the context tables at ``paths`` show, as a prompt quotes it
    (whitespace collapsed), read a row group at a time: the texts an evaluation ledger's
    lines refer to (:mod:`prescient.llm.text_pool`)."""
    for path in paths:
        table = pq.ParquetFile(path)
        for group in range(table.num_row_groups):
            for text in table.read_row_group(group, columns=["text"]).column("text").to_pylist():
                if text:
                    yield " ".join(text.split())


def build_contexts(
    setting: Setting,
    questions: pd.DataFrame,
    articles: pd.DataFrame,
    retrieval: pd.DataFrame,
    *,
    max_words: int | None,
    gold_max_words: int | None,
    gold_ids: Sequence[str | None] | None = None,
) -> pd.DataFrame:
    """The context table of one setting.

    Args:
        setting: the setting.
        questions: the normalised question table.
        articles: the ingested corpus (article_id, date, title, text, url), or at least
            the articles the setting shows when ``gold_ids`` is given.
        retrieval: the retrieval table (question_id, rag_cutoff, rank, article_id, ...).
        max_words: words kept per retrieved article (None: all).
        gold_max_words: words kept of the gold article (None: all).
        gold_ids: each question's gold article, as :func:`match_gold` found it in the
            whole corpus (None: matched here, against ``articles``).
    """
    rows: dict[str, list[Any]] = {c: [] for c in CONTEXT_COLUMNS}

    def shown(date: Any, title: Any, text: Any, n: int | None) -> tuple[Any, str, str]:
        """An article as a context shows it: its day, title and first ``n`` words."""
        return (
            dates.optional_date(date),
            truncate_words(_str(title), None),
            truncate_words(_str(text), n),
        )

    def add(qid: str, rank: int, aid: str | None, article: tuple[Any, str, str]) -> None:
        for column, value in zip(CONTEXT_COLUMNS, (qid, rank, aid, *article), strict=True):
            rows[column].append(value)

    if setting.kind == CLOSED_BOOK:
        return context_frame(rows)
    by_id = articles.set_index(articles["article_id"].astype(str), drop=False)
    if setting.kind == GOLD:
        if gold_ids is None:
            gold_ids, _ = match_gold(questions, articles)
        for q, aid in zip(questions.to_dict("records"), gold_ids, strict=True):
            qid = str(q["question_id"])
            if aid is not None:
                a = by_id.loc[aid]
                add(qid, 1, aid, shown(a["date"], a["title"], a["text"], gold_max_words))
            elif _str(q.get("gold_text")) is not None:
                text = shown(None, q.get("gold_title"), q.get("gold_text"), gold_max_words)
                add(qid, 1, None, text)
        return context_frame(rows)
    if setting.kind == RAG:
        label = setting.cutoff_label
        hits = retrieval.loc[retrieval["rag_cutoff"] == label].sort_values(
            ["question_id", "rank"], kind="stable"
        )
        wanted = set(questions["question_id"].astype(str))
        hits = hits.loc[hits["question_id"].astype(str).isin(wanted)]
        aids = hits["article_id"].astype(str).tolist()
        distinct = list(dict.fromkeys(aids))
        at = by_id.index.get_indexer(pd.Index(distinct))
        if (at < 0).any():
            raise KeyError(distinct[int(np.flatnonzero(at < 0)[0])])
        found = by_id.iloc[at]
        # each article as shown once, however many questions retrieved it
        as_shown = {
            aid: shown(d, t, x, max_words)
            for aid, d, t, x in zip(
                distinct,
                found["date"].tolist(),
                found["title"].tolist(),
                found["text"].tolist(),
                strict=True,
            )
        }
        for qid, rank, aid in zip(hits["question_id"].astype(str), hits["rank"], aids, strict=True):
            add(qid, int(rank), aid, as_shown[aid])
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
