"""Everything the evaluation cells read, prepared once: retrieval and every setting's context.

:func:`prepare_contexts` indexes the corpus, retrieves for every question under every
RAG cutoff of the grid (exact per-cutoff BM25, :mod:`prescient.retrieval.search`),
audits the result against the visibility rule, and builds one context table per
setting (:mod:`prescient.evaluation.contexts`), with the metrics of all of it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prescient.evaluation.contexts import build_contexts, context_summary
from prescient.evaluation.settings import EvalSettings
from prescient.retrieval.search import ArticleIndex, RetrievalSettings, window_violations
from prescient.vocab import MC, TF

logger = logging.getLogger(__name__)


class VisibilityError(RuntimeError):
    """A retrieved article lies outside its question's visibility window."""


@dataclass(frozen=True)
class PreparedContexts:
    """The retrieval table, each setting's context table (by setting name) and metrics."""

    retrieval: pd.DataFrame
    contexts: dict[str, pd.DataFrame]
    metrics: dict[str, Any]


def prepare_contexts(
    questions: pd.DataFrame,
    articles: pd.DataFrame,
    retrieval: RetrievalSettings,
    grid: EvalSettings,
    *,
    progress: bool = False,
) -> PreparedContexts:
    """Retrieval and contexts for every setting of the grid.

    Args:
        questions: the normalised (and sampled) question table.
        articles: the ingested corpus.
        retrieval: params ``retrieval``.
        grid: params ``eval`` (its settings; the models play no part here).
        progress: progress bars while indexing and retrieving.

    Raises:
        VisibilityError: a retrieved article is dated on or after its question's
            resolution date or window end. The index cannot produce one; the audit makes
            sure no table that shows one is ever written.
    """
    start = time.perf_counter()
    index = ArticleIndex(articles, retrieval, progress=progress)
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
    contexts = {
        setting.name: build_contexts(
            setting,
            questions,
            articles,
            table,
            max_words=retrieval.max_words,
            gold_max_words=retrieval.gold_max_words,
        )
        for setting in grid.settings
    }
    metrics = {
        "questions": {
            "n": len(questions),
            TF: int((questions["qtype"] == TF).sum()),
            MC: int((questions["qtype"] == MC).sum()),
        },
        "index": {
            "articles": len(index),
            "terms": index.bm25.n_terms,
            "postings": int(len(index.bm25.post_docs)),
        },
        "retrieval_rows": len(table),
        "leakage_violations": violations,
        "settings": {name: context_summary(ctx, questions) for name, ctx in contexts.items()},
    }
    return PreparedContexts(table, contexts, metrics)
