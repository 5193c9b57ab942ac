"""Leakage-free BM25 retrieval: the visibility rule, the tokenizer and an exact per-cutoff index."""

from prescient.retrieval.bm25 import BM25Params, Hit, PrefixBM25
from prescient.retrieval.search import ArticleIndex, RetrievalSettings, Retrieved
from prescient.retrieval.tokenize import Tokenizer
from prescient.retrieval.visibility import (
    DYNAMIC,
    VisibleWindow,
    format_rag_cutoff,
    parse_rag_cutoff,
    visible_window,
)

__all__ = [
    "DYNAMIC",
    "ArticleIndex",
    "BM25Params",
    "Hit",
    "PrefixBM25",
    "Retrieved",
    "RetrievalSettings",
    "Tokenizer",
    "VisibleWindow",
    "format_rag_cutoff",
    "parse_rag_cutoff",
    "visible_window",
]
