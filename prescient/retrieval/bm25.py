"""Exact BM25Okapi over any prefix of a corpus, from one index built once.

Why: a question resolved on day d may only use statistics of the articles it is allowed
to see. Masking one global index would leak the future through document frequencies
and the average document length; the paper's code therefore rebuilds a rank-bm25 index
for every cutoff, which is slow. Here the corpus is indexed once, in date order, and any
*prefix* (the first ``n`` documents, which is what a date cutoff selects in a
date-sorted corpus) is scored with the statistics of that prefix alone:

- df of a term at prefix ``n`` = number of its postings with document index < ``n``:
  postings are sorted by document, so it is one ``searchsorted``;
- the total length of the prefix is a cumulative sum, so ``avgdl`` is exact;
- rank-bm25 floors negative idfs at ``epsilon * average_idf``, where the average runs
  over the *whole visible vocabulary*. It is precomputed for every checkpoint (every
  date boundary, in practice) by one sweep over the corpus that updates document
  frequencies between checkpoints; term ids are numbered by first occurrence, which is
  rank-bm25's dictionary order, so the same left-to-right sum can be redone exactly.

Scores reproduce ``rank_bm25.BM25Okapi(visible_docs, k1, b, epsilon).get_scores(query)``
operation for operation (same ``math.log`` values, same formula and evaluation order,
same per-token accumulation, same summation order for the average idf), so they are
bit-identical, and rankings can be compared exactly. This matters: a near-zero average
idf summed in another order can change sign and reorder documents.

Results: documents sharing at least one token with the query, best first; ties broken by
corpus position, later first (in a date-sorted corpus: the most recent article wins a
tie). Documents with no query token are never returned (rank-bm25's ``get_top_n`` would
pad with arbitrary zero-score documents).
"""

from __future__ import annotations

import logging
import math
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import Field
from tqdm import tqdm

from prescient.settings import Settings

logger = logging.getLogger(__name__)


class BM25Params(Settings):
    """BM25Okapi parameters (params ``retrieval.bm25``; the shipped values are rank-bm25's
    defaults, as in the paper's code).

    Attributes:
        k1: term-frequency saturation (> 0: rank-bm25 divides 0 by 0 at 0).
        b: document-length normalisation, 0 (none) to 1 (full).
        epsilon: the floor of negative idfs, as a share of the average idf.
    """

    k1: Annotated[float, Field(gt=0)]
    b: Annotated[float, Field(ge=0, le=1)]
    epsilon: Annotated[float, Field(ge=0)]


@dataclass(frozen=True)
class Hit:
    """One retrieved document: its position in the indexed corpus and its score."""

    doc: int
    score: float


class TokenBuffers:
    """A tokenized corpus as the index is built from it: the vocabulary numbered by first
    occurrence, and per document its distinct term ids (in first-occurrence order), their
    frequencies, its length and its number of distinct terms, appended document by
    document (or a stored stretch at a time, :mod:`prescient.retrieval.reuse`)."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.terms_in_order: list[str] = []
        self.terms: array[int] = array("i")
        self.tfs: array[int] = array("i")
        self.lengths: array[int] = array("q")
        self.nnz: array[int] = array("q")

    def add(self, tokens: Sequence[str]) -> None:
        """Append one document's tokens."""
        counts = Counter(tokens)
        self.lengths.append(len(tokens))
        self.nnz.append(len(counts))
        vocab = self.vocab
        before = len(vocab)
        setdefault = vocab.setdefault
        ids = [setdefault(w, len(vocab)) for w in counts]
        if len(vocab) > before:  # ids are given in this loop's order: the new ones ascend
            self.terms_in_order.extend(w for w, i in zip(counts, ids, strict=True) if i >= before)
        self.terms.extend(ids)
        self.tfs.extend(counts.values())

    def add_terms(self, terms: Iterable[str]) -> None:
        """Number ``terms`` next in the vocabulary (a stored stretch's new terms)."""
        for w in terms:
            if w in self.vocab:
                raise ValueError(f"term {w!r} is in the vocabulary already")
            self.vocab[w] = len(self.terms_in_order)
            self.terms_in_order.append(w)

    def release(self) -> None:
        """Drop the buffers once the index holds its own arrays (the vocabulary stays)."""
        self.terms_in_order = []
        self.terms, self.tfs = array("i"), array("i")
        self.lengths, self.nnz = array("q"), array("q")


class PrefixBM25:
    """BM25Okapi that scores any prefix of the corpus as if indexed alone.

    Args:
        corpus: tokenized documents, in the order that defines prefixes (date order), or
            their :class:`TokenBuffers` already filled.
        params: k1, b, epsilon.
        checkpoints: prefix lengths that will be queried (e.g. the index of the first
            document of every date). Their average idf is precomputed in one sweep;
            other prefixes work too, at O(postings) each (cached). None: every prefix
            0..N (fine for small corpora only).
        progress: show a progress bar while tokenized documents are consumed.
    """

    def __init__(
        self,
        corpus: Iterable[Sequence[str]] | TokenBuffers,
        params: BM25Params,
        checkpoints: Iterable[int] | None = None,
        *,
        progress: bool = False,
    ) -> None:
        self.params = params
        if isinstance(corpus, TokenBuffers):
            buffers = corpus
        else:
            buffers = TokenBuffers()
            for tokens in tqdm(corpus, desc="bm25 index", unit="doc", disable=not progress):
                buffers.add(tokens)
        vocab, term_buf, tf_buf = buffers.vocab, buffers.terms, buffers.tfs
        lengths, nnz = buffers.lengths, buffers.nnz
        self.vocab = vocab
        self.n_docs = len(lengths)
        n_postings = len(term_buf)
        idx_dtype = np.int32 if n_postings < np.iinfo(np.int32).max else np.int64
        doc_ptr = np.zeros(self.n_docs + 1, dtype=idx_dtype)
        np.cumsum(_as_numpy(nnz, np.int64), out=doc_ptr[1:])
        del nnz
        terms = _as_numpy(term_buf, np.int32)
        raw_tf = _as_numpy(tf_buf, np.int32)
        max_tf = int(raw_tf.max()) if n_postings else 0
        tfs = raw_tf.astype(np.uint16 if max_tf <= np.iinfo(np.uint16).max else np.int32)
        del raw_tf, tf_buf
        self.doc_len = _as_numpy(lengths, np.int64).copy()
        del lengths
        buffers.release()
        self.cum_len = np.zeros(self.n_docs + 1, dtype=np.int64)
        np.cumsum(self.doc_len, out=self.cum_len[1:])

        cps = range(self.n_docs + 1) if checkpoints is None else checkpoints
        self._log_half = log_half_table(self.n_docs)
        self._avg_idf = _average_idf_sweep(
            terms, doc_ptr, len(vocab), self.n_docs, cps, self._log_half
        )

        # Term-major postings (documents ascending within each term): a CSR -> CSC
        # conversion, done by scipy in compiled code with O(postings) memory.
        from scipy.sparse import csr_matrix

        m = csr_matrix(
            (tfs, terms, doc_ptr), shape=(self.n_docs, max(len(vocab), 1)), copy=False
        ).tocsc()
        del terms, term_buf, tfs, doc_ptr
        if not m.has_sorted_indices:  # scipy's csr->csc keeps rows in order; be sure
            m.sort_indices()
        self.term_ptr: np.ndarray = m.indptr
        self.post_docs: np.ndarray = m.indices
        self.post_tf: np.ndarray = m.data
        logger.info(
            "bm25 index: %d docs, %d terms, %d postings, %d checkpoints",
            self.n_docs,
            len(vocab),
            n_postings,
            len(self._avg_idf),
        )

    @property
    def n_terms(self) -> int:
        return len(self.vocab)

    def average_idf(self, n: int) -> float:
        """rank-bm25's ``average_idf`` for the first ``n`` documents (NaN: no terms)."""
        if n not in self._avg_idf:
            self._avg_idf[n] = self._average_idf_direct(n)
        return self._avg_idf[n]

    def _average_idf_direct(self, n: int) -> float:
        """The average idf of a prefix that is not a checkpoint: O(postings), cached."""
        n = min(n, self.n_docs)
        if n <= 0 or len(self.post_docs) == 0:
            return math.nan
        visible = (self.post_docs < n).astype(np.int64)
        df = np.add.reduceat(visible, self.term_ptr[:-1])
        return average_idf_at(df[: int(np.count_nonzero(df))], n, self._log_half)

    def df(self, term: str, n: int) -> int:
        """Documents among the first ``n`` that contain ``term``."""
        tid = self.vocab.get(term)
        if tid is None:
            return 0
        lo, hi = int(self.term_ptr[tid]), int(self.term_ptr[tid + 1])
        return int(np.searchsorted(self.post_docs[lo:hi], n))

    def scores(self, query: Sequence[str], n: int) -> tuple[np.ndarray, np.ndarray]:
        """BM25 scores of the documents among the first ``n`` that match ``query``.

        Returns:
            (documents ascending, their scores). Documents without any query token are
            left out; their rank-bm25 score is 0.
        """
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        if n <= 0 or not query:
            return empty
        n = min(n, self.n_docs)

        def visible(tid: int) -> tuple[np.ndarray, np.ndarray]:
            lo, hi = int(self.term_ptr[tid]), int(self.term_ptr[tid + 1])
            df = int(np.searchsorted(self.post_docs[lo:hi], n))
            return self.post_docs[lo : lo + df], self.post_tf[lo : lo + df]

        parts_docs, parts_vals = token_scores(
            query,
            self.vocab,
            visible,
            n,
            int(self.cum_len[n]) / n,
            self.doc_len,
            self.params,
            lambda: self.average_idf(n),
        )
        if not parts_docs:
            return empty
        if len(parts_docs) == 1:
            return parts_docs[0].astype(np.int64), parts_vals[0]
        all_docs = np.concatenate(parts_docs)
        all_vals = np.concatenate(parts_vals)
        # bincount adds weights in array order, i.e. token by token like rank-bm25.
        if all_docs.size * 16 >= n:
            total = np.bincount(all_docs, weights=all_vals, minlength=n)
            cand = np.flatnonzero(np.bincount(all_docs, minlength=n))
            return cand, total[cand]
        cand, inverse = np.unique(all_docs, return_inverse=True)
        return cand.astype(np.int64), np.bincount(inverse, weights=all_vals)

    def search(
        self, query: Sequence[str], n: int, k: int, exclude: Collection[int] = ()
    ) -> list[Hit]:
        """The top ``k`` documents among the first ``n`` for a tokenized query.

        Args:
            query: query tokens (repeats count, as in rank-bm25).
            n: prefix length: only documents ``0..n-1`` exist for this search.
            k: number of results.
            exclude: document positions never to return (statistics are unaffected).

        Returns:
            Hits by score descending, ties broken by position descending.
        """
        if k <= 0:
            return []
        cand, score = self.scores(query, n)
        if exclude and cand.size:
            allowed = ~np.isin(cand, np.fromiter(exclude, dtype=np.int64))
            cand, score = cand[allowed], score[allowed]
        if cand.size > k:
            top = np.argpartition(-score, k - 1)[:k]
            keep = np.flatnonzero(score >= score[top].min())  # every tie at the k-th score
            cand, score = cand[keep], score[keep]
        order = np.lexsort((-cand, -score))[:k]
        return [Hit(int(cand[i]), float(score[i])) for i in order]


def _as_numpy(buf: array[int], dtype: type[np.generic]) -> np.ndarray:
    """A zero-copy view of an ``array.array`` (numpy refuses empty buffers)."""
    if len(buf) == 0:
        return np.zeros(0, dtype=dtype)
    view = np.frombuffer(buf, dtype=dtype)
    if view.itemsize != buf.itemsize:
        raise TypeError(f"array item size {buf.itemsize} does not match {dtype}")
    return view


def log_half_table(n_max: int) -> np.ndarray:
    """``math.log(m + 0.5)`` for m = 0..n_max, computed by ``math.log`` itself.

    numpy's vectorised log differs from the C library's in the last bit for a few
    arguments; rank-bm25 uses ``math.log``, and every argument of its idf is an integer
    plus 0.5, so a table of exact ``math.log`` values makes vectorised idfs bit-identical.
    """
    return np.array([math.log(m + 0.5) for m in range(n_max + 1)], dtype=np.float64)


def average_idf_at(df: np.ndarray, n: int, log_half: np.ndarray) -> float:
    """rank-bm25's ``average_idf`` for a prefix of ``n`` documents, bit for bit.

    Args:
        df: document frequency of every visible term, in rank-bm25's insertion order
            (first occurrence in the corpus, which is the order of our term ids).
        n: number of visible documents.
        log_half: :func:`log_half_table` of at least ``n``.

    rank-bm25 adds the raw idfs (negative ones included) one by one in that order and
    divides by the vocabulary size; ``np.cumsum`` is that same left-to-right sum.
    """
    if df.size == 0:
        return math.nan
    idf = log_half[n - df] - log_half[df]
    return float(np.cumsum(idf)[-1]) / df.size


def token_scores(
    query: Sequence[str],
    vocab: Mapping[str, int],
    visible: Callable[[int], tuple[np.ndarray, np.ndarray]],
    n: int,
    avgdl: float,
    doc_len: np.ndarray,
    params: BM25Params,
    average_idf: Callable[[], float],
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """rank-bm25's per-token scores over the ``n`` documents an index lets a query see.

    For every query token in query order, repeats included (as
    ``rank_bm25.BM25Okapi.get_scores`` loops), the documents that hold it and their term
    score, with the same operations in the same order, so sums are bit-identical: idf is
    ``log(n - df + 0.5) - log(df + 0.5)``, and a negative idf is replaced by the floor
    ``epsilon * average_idf``, computed once per query and only when needed.

    Args:
        query: query tokens.
        vocab: term -> term id.
        visible: term id -> (its visible documents ascending, their term frequencies).
        n: visible documents.
        avgdl: their mean length.
        doc_len: length of every indexed document, by position.
        params: k1, b, epsilon.
        average_idf: rank-bm25's average idf over the visible documents.

    Returns:
        (documents, scores) per token that occurs in a visible document; a document's
        BM25 score is the sum of its entries in token order.
    """
    k1, b = params.k1, params.b
    eps: float | None = None
    parts_docs: list[np.ndarray] = []
    parts_vals: list[np.ndarray] = []
    for token in query:
        tid = vocab.get(token)
        if tid is None:
            continue
        docs, tf = visible(tid)
        df = len(docs)
        if df == 0:
            continue
        idf = math.log(n - df + 0.5) - math.log(df + 0.5)
        if idf < 0:
            if eps is None:
                eps = params.epsilon * average_idf()
            idf = eps
        q_freq = tf.astype(np.float64)
        length = doc_len[docs]
        parts_vals.append(idf * (q_freq * (k1 + 1) / (q_freq + k1 * (1 - b + b * length / avgdl))))
        parts_docs.append(docs)
    return parts_docs, parts_vals


def _average_idf_sweep(
    terms: np.ndarray,
    doc_ptr: np.ndarray,
    n_terms: int,
    n_docs: int,
    checkpoints: Iterable[int],
    log_half: np.ndarray,
) -> dict[int, float]:
    """rank-bm25's average idf at every checkpoint prefix, in one pass over the corpus.

    df is updated chunk by chunk between checkpoints; since term ids are numbered by
    first occurrence, the terms visible at prefix ``n`` are exactly ids ``0..V_n-1``.
    """
    cps = sorted({int(c) for c in checkpoints if 0 <= int(c) <= n_docs})
    out: dict[int, float] = {}
    df = np.zeros(max(n_terms, 1), dtype=np.int64)
    n_visible_terms = 0
    prev = 0
    for n in cps:
        if n > prev:
            chunk = terms[int(doc_ptr[prev]) : int(doc_ptr[n])]
            if chunk.size:
                if chunk.size * 8 < n_terms:
                    uniq, cnt = np.unique(chunk, return_counts=True)
                    df[uniq] += cnt
                else:
                    df += np.bincount(chunk, minlength=df.size)
                n_visible_terms = max(n_visible_terms, int(chunk.max()) + 1)
            prev = n
        out[n] = math.nan if n == 0 else average_idf_at(df[:n_visible_terms], n, log_half)
    return out
