"""Everything the evaluation cells read, prepared once: retrieval and every setting's context.

:func:`prepare_contexts` indexes the corpus, retrieves for every question under every
RAG cutoff of the grid (exact per-cutoff BM25, :mod:`prescient.retrieval.search`),
audits the result against the visibility rule, and builds one context table per
setting (:mod:`prescient.evaluation.contexts`), with the metrics of all of it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from prescient import dates
from prescient.evaluation.contexts import (
    articles_shown,
    build_contexts,
    context_summary,
    match_gold,
)
from prescient.evaluation.kept_contexts import KeptContexts, PartitionWriter, write_partitioned
from prescient.evaluation.settings import EvalSettings
from prescient.kept import KeptStore
from prescient.retrieval.search import (
    ArticleIndex,
    RetrievalSettings,
    read_meta,
    window_violations,
)
from prescient.retrieval.visibility import describe_rule
from prescient.vocab import MC, TF

logger = logging.getLogger(__name__)


class VisibilityError(RuntimeError):
    """A retrieved article lies outside its question's visibility window."""


@dataclass(frozen=True)
class PreparedContexts:
    """The evaluated questions (gold articles matched), the retrieval table, each
    setting's context table (by setting name; empty when written a partition at a time)
    and metrics."""

    questions: pd.DataFrame
    retrieval: pd.DataFrame
    contexts: dict[str, pd.DataFrame]
    metrics: dict[str, Any]


def _counts(questions: pd.DataFrame) -> dict[str, int]:
    return {
        "n": len(questions),
        TF: int((questions["qtype"] == TF).sum()),
        MC: int((questions["qtype"] == MC).sum()),
    }


def source_metrics(questions: pd.DataFrame) -> dict[str, Any]:
    """Per source: counts by type, forecast dates, path and file checksum."""
    out: dict[str, Any] = {}
    for name, part in questions.groupby("source", sort=True):
        out[str(name)] = {
            **_counts(part),
            "with_forecast_date": int(part["forecast_date"].notna().sum()),
            "path": str(part["source_path"].iloc[0]),
            "checksum": str(part["source_checksum"].iloc[0]),
        }
    return out


def visibility_metrics(questions: pd.DataFrame, gap_days: int) -> dict[str, Any]:
    """The rule the run used, and how many windows the forecast date ends (it binds when
    it comes before the resolution date minus the gap)."""
    forecast = [dates.optional_date(d) for d in questions["forecast_date"]]
    res = [dates.as_date(d) for d in questions["resolution_date"]]
    binding = sum(
        1 for f, r in zip(forecast, res, strict=True) if f is not None and (r - f).days > gap_days
    )
    return {
        "rule": describe_rule(gap_days),
        "gap_days": gap_days,
        "questions_with_forecast_date": sum(f is not None for f in forecast),
        "forecast_date_ends_window": binding,
    }


def prepare_contexts(
    questions: pd.DataFrame,
    articles: pd.DataFrame | str | Path,
    retrieval: RetrievalSettings,
    grid: EvalSettings,
    *,
    progress: bool = False,
    store: KeptStore | None = None,
    partitions: Mapping[str, np.ndarray] | None = None,
    writer: PartitionWriter | None = None,
    kept: KeptContexts | None = None,
) -> PreparedContexts:
    """Retrieval and contexts for every setting of the grid.

    Args:
        questions: the evaluated question table (normalised, sampled).
        articles: the ingested corpus, as a frame or as its parquet file. From the file
            only the columns retrieval needs are held (:func:`read_meta`); the texts are
            streamed into the index and read back only for the articles a context shows,
            those of retrieved-only articles cut to ``retrieval.max_words`` on the way,
            so the corpus is never in memory. The tables are the same either way.
        retrieval: params ``retrieval``.
        grid: params ``eval`` (its settings; the models play no part here).
        progress: progress bars while indexing and retrieving.
        store: where retrieval keeps tokens and answers between runs
            (:mod:`prescient.retrieval.reuse`; None: all computed). The tables are the
            same either way.
        partitions: the evaluation's partitions (label -> positions of their questions);
            with ``writer``, each setting's table is written a partition at a time
            as soon as it is built (instead of being returned in ``contexts``).
        writer: writes the partitions' tables (with ``partitions``).
        kept: partitions' tables kept from earlier runs
            (:mod:`prescient.evaluation.kept_contexts`; with ``partitions`` and
            ``writer``, on an article table with ``text_sha256``): a kept partition's
            files are written as they are and its articles are not read. The files are
            the same either way.

    Raises:
        VisibilityError: a retrieved article is dated on or after its question's
            resolution date, forecast date or window end. The index cannot produce one; the audit makes
            sure no table that shows one is ever written.
    """
    start = time.perf_counter()
    meta = (
        read_meta(articles, retrieval.fields)
        if not isinstance(articles, pd.DataFrame)
        else articles
    )
    gold, gold_counts = match_gold(questions, meta)
    questions = questions.assign(
        article_id=pd.Series(
            [g if g is not None else a for g, a in zip(gold, questions["article_id"], strict=True)],
            index=questions.index,
            dtype="string",
        )
    )
    index = (
        ArticleIndex(articles, retrieval, progress=progress, store=store)
        if isinstance(articles, pd.DataFrame)
        else ArticleIndex.from_parquet(
            articles, retrieval, meta=meta, progress=progress, store=store
        )
    )
    built = time.perf_counter()
    table = index.retrieve_table(questions, grid.rag_cutoffs, progress=progress)
    logger.info(
        "indexed %d articles in %.1fs; %d queries in %.1fs",
        len(index),
        built - start,
        len(questions) * len(grid.rag_cutoffs),
        time.perf_counter() - built,
    )
    violations = window_violations(table, questions)
    if violations:
        raise VisibilityError(
            f"{violations} retrieved articles are not before their visibility window's end"
        )
    contexts: dict[str, pd.DataFrame] = {}
    summaries: dict[str, Any] = {}
    if partitions is not None and writer is not None:
        summaries = write_partitioned(
            questions, articles, meta, gold, table, retrieval, grid, partitions, writer, kept
        )
        metrics = _metrics(
            questions, index, table, grid, retrieval, violations, summaries, gold_counts
        )
        return PreparedContexts(questions, table, contexts, metrics)
    del meta
    shown = articles_shown(articles, gold, table, retrieval.max_words)
    for setting in grid.settings:
        ctx = build_contexts(
            setting,
            questions,
            shown,
            table,
            max_words=retrieval.max_words,
            gold_max_words=retrieval.gold_max_words,
            gold_ids=gold,
        )
        summaries[setting.name] = context_summary(ctx, questions)
        contexts[setting.name] = ctx
    metrics = _metrics(questions, index, table, grid, retrieval, violations, summaries, gold_counts)
    return PreparedContexts(questions, table, contexts, metrics)


def _metrics(
    questions: pd.DataFrame,
    index: ArticleIndex,
    table: pd.DataFrame,
    grid: EvalSettings,
    retrieval: RetrievalSettings,
    violations: int,
    summaries: dict[str, Any],
    gold_counts: dict[str, Any],
) -> dict[str, Any]:
    return {
        "questions": _counts(questions),
        "sources": source_metrics(questions),
        "gold": gold_counts,
        "visibility": {
            **visibility_metrics(questions, retrieval.gap_days),
            **index.gold_visibility(questions, grid.rag_cutoffs, table),
        },
        "index": {
            "articles": len(index),
            "terms": index.bm25.n_terms,
            "postings": int(len(index.bm25.post_docs)),
        },
        "retrieval_rows": len(table),
        "leakage_violations": violations,
        "settings": summaries,
    }
