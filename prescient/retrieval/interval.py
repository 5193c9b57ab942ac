"""Exact BM25Okapi over any contiguous interval of a date-sorted corpus.

LRAE's evidence for a forecast made at T_k comes from the articles dated in
``[T_k, T_k + H]`` (:func:`prescient.retrieval.visibility.evidence_window`). As for the
forecasting prompts (:mod:`prescient.retrieval.bm25`), the scores must be those of an
index built on the window alone: rank-bm25's ``BM25Okapi`` rebuilt on exactly the
window's documents. In a date-sorted corpus a date window is an interval of positions
``[lo, hi)``, and every statistic is a difference of prefixes:

- df of a term = its postings in ``[lo, hi)``: two ``searchsorted`` on its sorted postings;
- the window's total length is a difference of cumulative sums (``avgdl`` exact);
- rank-bm25's floor for negative idfs, ``epsilon * average_idf``, averages the raw idfs
  of the window's vocabulary in rank-bm25's dictionary order, which is the order of first
  occurrence *within the window* (not in the whole corpus); the document-major term list
  of the window gives that order, and the same left-to-right sum is redone, per window
  (cached), in O(postings of the window).

Scores are bit-identical to ``rank_bm25.BM25Okapi(corpus[lo:hi]).get_scores(query)``
(same ``math.log`` values, formula, per-token accumulation and summation order).
Results: documents sharing a token with the query, best first, ties broken by position,
later first; positions are those of the whole corpus.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.sparse import csr_matrix

from prescient.retrieval.bm25 import (
    BM25Params,
    Hit,
    average_idf_at,
    log_half_table,
    token_scores,
)

logger = logging.getLogger(__name__)


class IntervalBM25:
    """BM25Okapi that scores any interval ``[lo, hi)`` of the corpus as if indexed alone.

    Args:
        corpus: tokenized documents, in the order that defines intervals (date order).
        params: k1, b, epsilon.
    """

    def __init__(self, corpus: Iterable[Sequence[str]], params: BM25Params) -> None:
        self.params = params
        vocab: dict[str, int] = {}
        terms: list[int] = []
        tfs: list[int] = []
        lengths: list[int] = []
        ptr = [0]
        for tokens in corpus:
            counts = Counter(tokens)  # insertion order: first occurrence in the document
            lengths.append(len(tokens))
            terms.extend(vocab.setdefault(w, len(vocab)) for w in counts)
            tfs.extend(counts.values())
            ptr.append(len(terms))
        self.vocab = vocab
        self.n_docs = len(lengths)
        self.doc_ptr = np.asarray(ptr, dtype=np.int64)
        self.doc_terms = np.asarray(terms, dtype=np.int64)
        self.doc_len = np.asarray(lengths, dtype=np.int64)
        self.cum_len = np.zeros(self.n_docs + 1, dtype=np.int64)
        np.cumsum(self.doc_len, out=self.cum_len[1:])
        self._log_half = log_half_table(self.n_docs)
        self._avg_idf: dict[tuple[int, int], float] = {}
        # Term-major postings, documents ascending within each term.
        m = csr_matrix(
            (np.asarray(tfs, dtype=np.int64), self.doc_terms, self.doc_ptr),
            shape=(self.n_docs, max(len(vocab), 1)),
        ).tocsc()
        m.sort_indices()
        self.term_ptr = m.indptr
        self.post_docs = m.indices
        self.post_tf = m.data
        logger.info("interval bm25 index: %d docs, %d terms", self.n_docs, len(vocab))

    def average_idf(self, lo: int, hi: int) -> float:
        """rank-bm25's ``average_idf`` of the documents ``lo..hi-1`` (NaN: no terms)."""
        key = (lo, hi)
        if key not in self._avg_idf:
            window = self.doc_terms[self.doc_ptr[lo] : self.doc_ptr[hi]]
            if window.size == 0:
                self._avg_idf[key] = math.nan
            else:
                # Each document lists a term once, so occurrences in the window are its df;
                # rank-bm25's dictionary order is the order of first occurrence.
                _, first, df = np.unique(window, return_index=True, return_counts=True)
                df = df[np.argsort(first, kind="stable")]
                self._avg_idf[key] = average_idf_at(df, hi - lo, self._log_half)
        return self._avg_idf[key]

    def df(self, term: str, lo: int, hi: int) -> int:
        """Documents of ``lo..hi-1`` that contain ``term``."""
        tid = self.vocab.get(term)
        if tid is None:
            return 0
        docs = self.post_docs[self.term_ptr[tid] : self.term_ptr[tid + 1]]
        return int(np.searchsorted(docs, hi) - np.searchsorted(docs, lo))

    def scores(self, query: Sequence[str], lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """BM25 scores of the documents of ``[lo, hi)`` that match ``query``.

        Returns:
            (corpus positions ascending, their scores); documents without a query token
            are left out (their rank-bm25 score is 0).
        """
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        lo, hi = max(0, lo), min(hi, self.n_docs)
        n = hi - lo
        if n <= 0 or not query:
            return empty

        def visible(tid: int) -> tuple[np.ndarray, np.ndarray]:
            start = int(self.term_ptr[tid])
            docs = self.post_docs[start : int(self.term_ptr[tid + 1])]
            a, z = int(np.searchsorted(docs, lo)), int(np.searchsorted(docs, hi))
            return docs[a:z], self.post_tf[start + a : start + z]

        parts_docs, parts_vals = token_scores(
            query,
            self.vocab,
            visible,
            n,
            int(self.cum_len[hi] - self.cum_len[lo]) / n,
            self.doc_len,
            self.params,
            lambda: self.average_idf(lo, hi),
        )
        if not parts_docs:
            return empty
        all_docs = np.concatenate([d.astype(np.int64) for d in parts_docs])
        all_vals = np.concatenate(parts_vals)
        # bincount adds weights in array order, i.e. token by token like rank-bm25.
        cand, inverse = np.unique(all_docs, return_inverse=True)
        return cand, np.bincount(inverse, weights=all_vals)

    def search(self, query: Sequence[str], lo: int, hi: int, k: int) -> list[Hit]:
        """The top ``k`` documents of ``[lo, hi)``: score descending, ties later first."""
        if k <= 0:
            return []
        cand, score = self.scores(query, lo, hi)
        order = np.lexsort((-cand, -score))[:k]
        return [Hit(int(cand[i]), float(score[i])) for i in order]
