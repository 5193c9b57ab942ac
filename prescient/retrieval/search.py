"""Leakage-free retrieval of news articles for forecasting questions.

:class:`ArticleIndex` indexes the ingested corpus once, in date order, and answers each
(question, RAG cutoff) with BM25 statistics of exactly the articles the visibility rule
(:mod:`prescient.retrieval.visibility`) lets that question see, applied to the day each
article is known from (its date, or its later arrival: :mod:`prescient.arrival`). Because
the corpus is sorted by that day and the visible window always ends at a day, the visible
articles are a prefix of the index, which :class:`~prescient.retrieval.bm25.PrefixBM25`
scores exactly.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import AfterValidator, Field
from tqdm import tqdm

from prescient import dates, io
from prescient.arrival import day_array, known_days
from prescient.corpus.normalize import TEXT_DIGEST, text_hash
from prescient.dates import format_rag_cutoff
from prescient.kept import KeptStore
from prescient.retrieval.bm25 import BM25Params, Hit, PrefixBM25
from prescient.retrieval.ray_queries import Query, RetrievalRay, answer, answer_on_ray
from prescient.retrieval.reuse import (
    QueryMemo,
    answered,
    article_key,
    query_config,
    token_config,
    tokenize_with_store,
)
from prescient.retrieval.tokenize import Tokenizer, TokenizerSettings
from prescient.retrieval.visibility import VisibleWindow, visible_window
from prescient.settings import Day, Settings

logger = logging.getLogger(__name__)

RETRIEVAL_SCHEMA: dict[str, str] = {
    "question_id": "string",
    "rag_cutoff": "string",
    "rank": "int32",
    "article_id": "string",
    "score": "float64",
    "article_date": "date32[pyarrow]",
    "window_end": "date32[pyarrow]",
}
RETRIEVAL_COLUMNS: tuple[str, ...] = tuple(RETRIEVAL_SCHEMA)


def _gap(days: int) -> int:
    if days < 0:
        raise ValueError(
            "must be 0 or more: a negative gap would show articles published on or after "
            "the resolution date"
        )
    return days


class RetrievalSettings(Settings):
    """Params section ``retrieval`` (see conf/retrieval/default.yaml for the meaning of each).

    Attributes:
        top_k: articles retrieved per question.
        max_words: words kept of each retrieved article in prompts (None: all).
        gold_max_words: words kept of the gold article (None: all).
        gap_days: days between the visibility window's exclusive end and the resolution
            date (see :mod:`prescient.retrieval.visibility`).
        exclude_gold: never retrieve a question's own gold article, even when it is
            visible by date (False: exactly BM25 over the visible articles).
        corpus_start: first day of the retrieval corpus (None: its first article).
        fields: article columns indexed, joined by a newline.
        bm25: BM25Okapi parameters.
        tokenizer: how articles and queries become tokens.
        engine: where the queries are answered: ``local`` (this process) or ``ray``
            (Ray tasks, :mod:`prescient.retrieval.ray_queries`; the same table).
        ray: the Ray cluster and chunk size of the ``ray`` engine.
        reuse: keep finished months of tokens and answered queries in DVC's cache
            between runs (:mod:`prescient.retrieval.reuse`; the same tables).
    """

    top_k: Annotated[int, Field(ge=1)]
    max_words: Annotated[int, Field(ge=1)] | None
    gold_max_words: Annotated[int, Field(ge=1)] | None
    gap_days: Annotated[int, AfterValidator(_gap)]
    exclude_gold: bool
    corpus_start: Day | None
    fields: Annotated[tuple[Annotated[str, Field(min_length=1)], ...], Field(min_length=1)]
    bm25: BM25Params
    tokenizer: TokenizerSettings
    engine: Literal["local", "ray"]
    ray: RetrievalRay
    reuse: bool


@dataclass(frozen=True)
class Retrieved:
    """One retrieved article."""

    article_id: str
    date: dt.date
    score: float


def excluded_articles(gold: Any, exclude_gold: bool) -> tuple[str, ...]:
    """The articles a question's retrieval never returns: its gold article when
    ``retrieval.exclude_gold`` is set and it has one, else none (retrieval is then
    exactly BM25 over the articles visible by date)."""
    if exclude_gold and isinstance(gold, str) and gold:
        return (gold,)
    return ()


META_COLUMNS: tuple[str, ...] = ("article_id", "date", "arrived", "url")
"""The article columns retrieval needs besides the texts (``arrived`` and ``url`` where the
table has them)."""


def read_meta(path: str | Path, fields: Sequence[str] = ()) -> pd.DataFrame:
    """:data:`META_COLUMNS` of an article table, in file order, with the indexed
    ``fields`` other than ``text`` and the texts' digests (:data:`TEXT_DIGEST`) where the
    table has them (no texts)."""
    names = set(io.table_columns(path))
    wanted = [*META_COLUMNS, *(f for f in fields if f != "text"), TEXT_DIGEST]
    return io.read_table(path, columns=[c for c in dict.fromkeys(wanted) if c in names])


def article_keys(articles: pd.DataFrame, fields: Sequence[str], order: np.ndarray) -> list[bytes]:
    """:func:`~prescient.retrieval.reuse.article_key` of the articles at rows ``order``:
    the ``text`` field by :data:`TEXT_DIGEST` (computed from ``text`` when the table has
    no digests), every other field by its value."""
    ids = articles["article_id"].astype(str).to_numpy()[order]
    columns: list[list[str]] = []
    for f in fields:
        if f == "text" and TEXT_DIGEST in articles.columns:
            values = articles[TEXT_DIGEST].to_numpy()[order]
            columns.append([v if isinstance(v, str) else "" for v in values])
        elif f == "text":
            values = articles["text"].to_numpy()[order]
            columns.append([text_hash(v) if isinstance(v, str) else "" for v in values])
        else:
            values = articles[f].to_numpy()[order]
            columns.append([v if isinstance(v, str) else "" for v in values])
    return [
        article_key(str(a), parts) for a, parts in zip(ids, zip(*columns, strict=True), strict=True)
    ]


def _join(parts: Iterable[Any]) -> str:
    """An article's indexed fields as one text (missing and empty fields left out)."""
    return "\n".join(str(p) for p in parts if isinstance(p, str) and p)


def _frame_texts(columns: Sequence[np.ndarray], order: np.ndarray) -> Iterator[str]:
    for i in order:
        yield _join(c[i] for c in columns)


def texts_in_order(path: str | Path, fields: Sequence[str], rows: np.ndarray) -> Iterator[str]:
    """The joined ``fields`` of an article table's rows ``rows`` (file positions), in that
    order.

    Row groups are read in file order as far as the next row asks, and only rows read
    but not yet yielded are held: for a table written in date order, which the index
    order follows except for late arrivals, that is about one row group's texts plus the
    late articles, not the corpus.
    """
    with io.ParquetTable(path) as table:
        wanted = np.zeros(table.num_rows, dtype=bool)
        wanted[rows] = True
        pending: dict[int, str] = {}
        loaded = group = 0
        for row in rows.tolist():
            while row >= loaded:
                part = table.read_row_group(group, columns=list(fields))
                cols = [part.column(f).to_pylist() for f in fields]
                for j, parts in enumerate(zip(*cols, strict=True)):
                    if wanted[loaded + j]:
                        pending[loaded + j] = _join(parts)
                loaded += part.num_rows
                group += 1
            yield pending.pop(row)


class _ParquetTexts:
    """The indexed texts of an article table's rows: all of them streamed in file order
    (:func:`texts_in_order`), or a few read from the row groups that hold them."""

    def __init__(self, path: str | Path, fields: Sequence[str]) -> None:
        self.path, self.fields = path, tuple(fields)
        with io.ParquetTable(path) as table:
            self.rows = table.num_rows
        self._reader: io.RowReader | None = None

    def __call__(self, rows: np.ndarray) -> Iterator[str]:
        if len(rows) * 2 >= self.rows:
            return texts_in_order(self.path, self.fields, rows)
        if self._reader is None:
            self._reader = io.RowReader(self.path, self.fields, keep_groups=3)
        return (_join(r) for r in self._reader.rows(rows.tolist()))


class ArticleIndex:
    """The corpus, indexed once, searchable under any visibility window.

    Args:
        articles: the ingested corpus (``article_id``, ``date`` and the text fields).
        settings: retrieval settings (fields, tokenizer, BM25 parameters, corpus start,
            gap).
        progress: show a progress bar while indexing.
        texts: the indexed texts of given rows of ``articles``, in that order (see
            :meth:`from_parquet`); None: joined from ``articles``' own ``fields``. With a
            store, only the texts of the months it does not hold are asked for, and the
            articles are named by :func:`article_keys`.
        store: where finished months of tokens and answered queries are kept between
            runs (:mod:`prescient.retrieval.reuse`); None: everything is computed. The
            index and every answer are the same either way.
    """

    def __init__(
        self,
        articles: pd.DataFrame,
        settings: RetrievalSettings,
        *,
        progress: bool = False,
        texts: Callable[[np.ndarray], Iterable[str]] | None = None,
        store: KeptStore | None = None,
    ) -> None:
        self.settings = s = settings
        self.tokenizer = Tokenizer.from_settings(s.tokenizer)
        needed = ("article_id", "date") if texts is not None else ("article_id", "date", *s.fields)
        missing = [c for c in needed if c not in articles.columns]
        if missing:
            raise ValueError(f"articles table lacks columns {missing}")
        days = day_array(articles["date"])
        known = known_days(articles)
        keep = np.ones(len(articles), dtype=bool)
        if s.corpus_start is not None:
            keep = days >= np.datetime64(s.corpus_start, "D")
        ids = articles["article_id"].astype(str).to_numpy()
        # The day each article is known from defines the prefixes (an article that
        # arrived late is visible from its arrival, prescient/arrival.py); its date, then
        # article_id make the order total.
        order = np.lexsort((ids, days, known))
        order = order[keep[order]]
        self.article_ids = ids[order]
        self.dates = known[order]
        self.article_dates = days[order]
        self.start: dt.date | None = (
            s.corpus_start
            if s.corpus_start is not None
            else (dates.as_date(self.article_dates.min()) if len(self.dates) else None)
        )
        self.position = {a: i for i, a in enumerate(self.article_ids)}
        if len(self.position) != len(self.article_ids):
            raise ValueError("articles table has duplicate article_id values")
        if texts is None:
            columns = [articles[f].to_numpy() for f in s.fields]

            def texts(rows: np.ndarray) -> Iterator[str]:
                return _frame_texts(columns, rows)

        checkpoints = np.searchsorted(self.dates, np.unique(self.dates), side="left")
        cps = [*checkpoints.tolist(), len(self.dates)]
        self.memo: QueryMemo | None = None
        if store is None:
            self.bm25 = PrefixBM25(
                map(self.tokenizer, texts(order)), s.bm25, checkpoints=cps, progress=progress
            )
        else:
            tokens = token_config(s.fields, s.tokenizer)
            read = texts

            def month_texts(lo: int, hi: int) -> list[str]:
                return list(read(order[lo:hi]))

            buffers, build = tokenize_with_store(
                article_keys(articles, s.fields, order),
                month_texts,
                self.dates,
                self.tokenizer,
                tokens,
                store,
                progress=progress,
            )
            logger.info(
                "retrieval store: %d months of tokens reused, %d tokenized",
                build.months_reused,
                build.months_tokenized,
            )
            self.bm25 = PrefixBM25(buffers, s.bm25, checkpoints=cps)
            self.memo = QueryMemo(store, query_config(tokens, s.bm25), build.prefix)

    @classmethod
    def from_parquet(
        cls,
        path: str | Path,
        settings: RetrievalSettings,
        *,
        meta: pd.DataFrame | None = None,
        progress: bool = False,
        store: KeptStore | None = None,
    ) -> ArticleIndex:
        """The index of an article table on disk, its texts streamed a row group at a time
        (:func:`texts_in_order`) rather than held: the same index as from the whole frame.

        Args:
            path: the ingested articles (parquet).
            settings: retrieval settings.
            meta: the table's own :func:`read_meta` when the caller has it already.
            progress: show a progress bar while indexing.
            store: as for the constructor.
        """
        fields = settings.fields
        meta = read_meta(path, fields) if meta is None else meta
        missing = sorted(set(fields) - set(io.table_columns(path)))
        if missing:
            raise ValueError(f"{path}: the article table lacks the indexed columns {missing}")
        absent = [f for f in fields if f != "text" and f not in meta.columns]
        if absent:
            meta = meta.assign(**io.read_table(path, columns=absent))
        if store is not None and "text" in fields and TEXT_DIGEST not in meta.columns:
            # a table without the digests: every text is read once to name the articles
            rows = np.arange(len(meta))
            meta = meta.assign(
                **{TEXT_DIGEST: [text_hash(t) for t in texts_in_order(path, ("text",), rows)]}
            )
        return cls(
            meta, settings, progress=progress, texts=_ParquetTexts(path, fields), store=store
        )

    def __len__(self) -> int:
        return len(self.article_ids)

    def window(
        self,
        resolution_date: dt.date,
        rag_cutoff: dt.date | None,
        forecast_date: dt.date | None = None,
    ) -> VisibleWindow:
        """The visibility window of a question (the one rule, with this index's start)."""
        return visible_window(
            resolution_date,
            rag_cutoff,
            gap_days=self.settings.gap_days,
            corpus_start=self.start,
            forecast_date=forecast_date,
        )

    def visible_count(self, window: VisibleWindow) -> int:
        """How many indexed articles the window shows: they are the first that many."""
        if window.start is not None and window.start != self.start:
            raise ValueError(f"window starts {window.start}, the index starts {self.start}")
        return int(np.searchsorted(self.dates, np.datetime64(window.end, "D"), side="left"))

    def search(
        self,
        query: str,
        window: VisibleWindow,
        k: int | None = None,
        exclude_ids: Iterable[str] = (),
    ) -> list[Retrieved]:
        """Top ``k`` articles for ``query`` among those ``window`` shows.

        Args:
            query: the question text (tokenized like the articles).
            window: from :meth:`window`.
            k: number of results (default ``settings.top_k``).
            exclude_ids: articles never to return (see :func:`excluded_articles`).
        """
        n = self.visible_count(window)
        exclude = {self.position[a] for a in exclude_ids if a in self.position}
        hits = self.bm25.search(
            self.tokenizer(query),
            n,
            self.settings.top_k if k is None else k,
            exclude=exclude,
        )
        return [
            Retrieved(
                str(self.article_ids[h.doc]), dates.as_date(self.article_dates[h.doc]), h.score
            )
            for h in hits
        ]

    def retrieve_table(
        self,
        questions: pd.DataFrame,
        rag_cutoffs: Sequence[dt.date | None],
        *,
        progress: bool = False,
    ) -> pd.DataFrame:
        """Retrieval results for every question under every RAG cutoff.

        Args:
            questions: ``question_id``, ``question``, ``resolution_date`` and optionally
                ``forecast_date`` (the day the forecast is made; its window ends there)
                and ``article_id`` (the gold article: never returned under
                ``exclude_gold``, see :func:`excluded_articles`).
            rag_cutoffs: cutoff dates; None is the ``dynamic`` setting.
            progress: show a progress bar.

        Returns:
            Columns :data:`RETRIEVAL_COLUMNS`: ``rag_cutoff`` is ``dynamic`` or
            ``YYYY-MM-DD``; ``rank`` starts at 1; ``window_end`` is the exclusive end of
            the question's visibility window (every ``article_date`` is before it).
        """
        gold = (
            questions["article_id"].tolist()
            if "article_id" in questions.columns
            else [None] * len(questions)
        )
        res_dates = [dates.as_date(d) for d in questions["resolution_date"]]
        forecast = (
            [dates.optional_date(d) for d in questions["forecast_date"]]
            if "forecast_date" in questions.columns
            else [None] * len(questions)
        )
        # Every query first (its window and the positions it never returns), then the
        # hits of all of them from the configured engine, in the same order.
        asked: list[tuple[str, str, VisibleWindow]] = []
        queries: list[Query] = []
        top_k = self.settings.top_k
        for cutoff in rag_cutoffs:
            label = format_rag_cutoff(cutoff)
            for qid, text, res, fc, g in zip(
                questions["question_id"],
                questions["question"],
                res_dates,
                forecast,
                gold,
                strict=True,
            ):
                win = self.window(res, cutoff, fc)
                excl = excluded_articles(g, self.settings.exclude_gold)
                positions = tuple(self.position[a] for a in excl if a in self.position)
                asked.append((str(qid), label, win))
                queries.append(
                    (self.tokenizer(str(text)), self.visible_count(win), top_k, positions)
                )
        rows: dict[str, list[Any]] = {c: [] for c in RETRIEVAL_COLUMNS}
        with tqdm(total=len(queries), desc="retrieve", unit="query", disable=not progress) as bar:
            for (qid, label, win), hits in zip(asked, self._answers(queries), strict=True):
                for rank, hit in enumerate(hits, 1):
                    rows["question_id"].append(qid)
                    rows["rag_cutoff"].append(label)
                    rows["rank"].append(rank)
                    rows["article_id"].append(str(self.article_ids[hit.doc]))
                    rows["score"].append(hit.score)
                    rows["article_date"].append(dates.as_date(self.article_dates[hit.doc]))
                    rows["window_end"].append(win.end)
                bar.update(1)
        return retrieval_frame(rows)

    def _answers(self, queries: Sequence[Query]) -> Iterator[list[Hit]]:
        """The hits of every query in order: kept answers where the store has them
        (:mod:`prescient.retrieval.reuse`), the others from the configured engine."""
        return answered(queries, self.memo, self._ask)

    def _ask(self, queries: Sequence[Query]) -> Iterator[list[Hit]]:
        if self.settings.engine == "ray" and queries:
            yield from answer_on_ray(self.bm25, queries, self.settings.ray)
        else:
            for query in queries:  # one at a time, so the progress bar moves
                yield from answer(self.bm25, [query])

    def gold_visibility(
        self,
        questions: pd.DataFrame,
        rag_cutoffs: Sequence[dt.date | None],
        table: pd.DataFrame,
    ) -> dict[str, Any]:
        """How often a question's gold article is visible by date, and how often it was
        retrieved, over every (question, RAG cutoff); with ``exclude_gold`` the second
        is 0.

        Args:
            questions: as for :meth:`retrieve_table`.
            rag_cutoffs: as for :meth:`retrieve_table`.
            table: what :meth:`retrieve_table` returned for them.
        """
        visible = 0
        if "article_id" in questions.columns:
            forecast = (
                questions["forecast_date"]
                if "forecast_date" in questions.columns
                else pd.Series([None] * len(questions), index=questions.index)
            )
            for cutoff in rag_cutoffs:
                for g, res, fc in zip(
                    questions["article_id"], questions["resolution_date"], forecast, strict=True
                ):
                    at = self.position.get(g) if isinstance(g, str) else None
                    if at is None:
                        continue
                    win = self.window(dates.as_date(res), cutoff, dates.optional_date(fc))
                    visible += bool(self.dates[at] < np.datetime64(win.end, "D"))
        retrieved = 0
        if not table.empty and "article_id" in questions.columns:
            gold = table["question_id"].map(questions.set_index("question_id")["article_id"])
            retrieved = int((table["article_id"] == gold).fillna(False).astype(bool).sum())
        return {
            "exclude_gold": self.settings.exclude_gold,
            "gold_visible": visible,
            "gold_retrieved": retrieved,
        }


def retrieval_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A retrieval table with the canonical column types (also when empty)."""
    return io.typed_frame(RETRIEVAL_SCHEMA, rows)


def window_violations(table: pd.DataFrame, questions: pd.DataFrame) -> int:
    """Retrieved rows dated on or after their question's resolution date, its forecast
    date or their window's end (or whose question is unknown): an audit of a finished
    retrieval table, which must be 0 by construction."""
    if table.empty:
        return 0
    by_id = questions.set_index("question_id")
    resolution = table["question_id"].map(by_id["resolution_date"])
    late = (table["article_date"] >= resolution) | (table["article_date"] >= table["window_end"])
    late = late.fillna(True)
    if "forecast_date" in questions.columns:
        forecast = table["question_id"].map(by_id["forecast_date"])
        asked = forecast.notna()
        late |= asked & (table["article_date"] >= forecast).fillna(False).astype(bool)
    return int(late.sum())
