"""PrefixBM25 against rank-bm25's BM25Okapi rebuilt on exactly the visible documents."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from prescient.plumbing import params
from prescient.retrieval.bm25 import BM25Params, PrefixBM25
from prescient.settings import load_settings
from tests.conftest import ROOT

WORDS = [f"w{i}" for i in range(12)]
RANK_BM25 = BM25Params(k1=1.5, b=0.75, epsilon=0.25)
"""rank-bm25's own defaults (``BM25Okapi(corpus)``), which the hand-computed cases use."""


def reference_top(
    docs: list[list[str]], n: int, query: list[str], k: int, params: BM25Params
) -> tuple[list[int], list[float], BM25Okapi | None]:
    """rank-bm25 on docs[:n]; documents with a query token, by (-score, -position)."""
    try:
        ref = BM25Okapi(docs[:n], k1=params.k1, b=params.b, epsilon=params.epsilon)
    except ZeroDivisionError:  # no visible document, or no visible token at all
        return [], [], None
    with np.errstate(invalid="ignore"):  # 0/0 for empty documents when b = 1
        scores = ref.get_scores(query)
    cand = [i for i in range(n) if any(t in ref.doc_freqs[i] for t in query)]
    cand.sort(key=lambda i: (-scores[i], -i))
    return cand[:k], [float(scores[i]) for i in cand[:k]], ref


corpora = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=0, max_size=14), min_size=1, max_size=40
)
queries = st.lists(st.sampled_from([*WORDS, "unseen"]), min_size=0, max_size=6)
bm25_params = st.builds(
    BM25Params,
    k1=st.sampled_from([1.5, 1.2, 0.5, 2.0]),  # k1 = 0 makes rank-bm25 divide 0 by 0
    b=st.sampled_from([0.75, 0.0, 1.0, 0.3]),
    epsilon=st.sampled_from([0.25, 0.0, 0.5]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=corpora,
    data=st.data(),
    params=bm25_params,
    k=st.integers(1, 8),
)
def test_matches_rank_bm25_rebuilt_on_every_prefix(
    docs: list[list[str]], data: st.DataObject, params: BM25Params, k: int
) -> None:
    index = PrefixBM25(docs, params)
    for _ in range(4):
        n = data.draw(st.integers(0, len(docs)), label="n")
        query = data.draw(queries, label="query")
        ids, scores, ref = reference_top(docs, n, query, k, params)
        hits = index.search(query, n, k)
        assert [h.doc for h in hits] == ids
        assert [h.score for h in hits] == scores  # bit-identical, not just close
        if ref is not None:
            assert index.average_idf(n) == ref.average_idf
            assert all(index.df(t, n) == sum(t in d for d in ref.doc_freqs) for t in WORDS)


@settings(max_examples=150, deadline=None)
@given(docs=corpora, data=st.data(), params=bm25_params)
def test_every_matching_document_scores_bit_identically(
    docs: list[list[str]], data: st.DataObject, params: BM25Params
) -> None:
    """Not only the top k: the whole score vector over matching documents."""
    index = PrefixBM25(docs, params)
    n = data.draw(st.integers(1, len(docs)))
    query = data.draw(queries)
    ids, _, ref = reference_top(docs, n, query, 10_000, params)
    cand, got = index.scores(query, n)
    assert cand.tolist() == sorted(ids)
    if ref is not None:
        with np.errstate(invalid="ignore"):
            ref_scores = ref.get_scores(query)
        assert got.tolist() == [float(ref_scores[i]) for i in cand]


@settings(max_examples=100, deadline=None)
@given(docs=corpora, data=st.data())
def test_checkpoints_and_on_demand_prefixes_agree(
    docs: list[list[str]], data: st.DataObject
) -> None:
    """Prefixes outside the precomputed checkpoints are computed on demand, identically."""
    cps = sorted(set(data.draw(st.lists(st.integers(0, len(docs)), max_size=4))))
    sparse = PrefixBM25(docs, RANK_BM25, checkpoints=cps)
    full = PrefixBM25(docs, RANK_BM25)
    for n in range(len(docs) + 1):
        a, b = sparse.average_idf(n), full.average_idf(n)
        assert (math.isnan(a) and math.isnan(b)) or a == b


def test_idfs_that_cancel_leave_rank_bm25s_rounding_residue() -> None:
    """Idfs cancel exactly in real arithmetic, so the average idf is 0 up to rounding.

    Hypothesis found this corner: rank-bm25's left-to-right sum leaves -3.7e-17, a
    negative floor that ranks the shortest document last; summing in another order gave
    a positive residue and the opposite ranking. Reproducing the summation order exactly
    is what makes the rankings identical.
    """
    docs = [["w1"], ["w1", "w2", "w4"], ["w1", "w2", "w4"], ["w0", "w2", "w3", "w4", "w5"]]
    ids, scores, ref = reference_top(docs, 4, ["w1"], 3, RANK_BM25)
    # -3.7e-17 with glibc's log; the exact residue depends on the C library, the point
    # is that ours is the same number and so gives the same ranking.
    assert ref is not None and abs(ref.average_idf) < 1e-15
    index = PrefixBM25(docs, RANK_BM25)
    assert index.average_idf(4) == ref.average_idf
    hits = index.search(["w1"], 4, 3)
    assert [h.doc for h in hits] == ids
    assert [h.score for h in hits] == scores


def test_hand_computed_scores() -> None:
    """Three documents, query "apple": the numbers below are worked out by hand."""
    docs = [["apple", "pie"], ["apple", "apple", "tart", "x"], ["plum"]]
    index = PrefixBM25(docs, RANK_BM25)
    # n = 3: df(apple) = 2 -> idf = ln(1.5) - ln(2.5) < 0 -> floored at eps * average idf.
    # idfs: apple ln(1.5/2.5), pie/tart/x/plum ln(2.5/1.5); average = 3/5 * ln(5/3).
    avg = (4 * math.log(2.5 / 1.5) + math.log(1.5 / 2.5)) / 5
    eps = 0.25 * avg
    avgdl = 7 / 3
    s0 = eps * (1 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 2 / avgdl)))
    s1 = eps * (2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * 4 / avgdl)))
    hits = index.search(["apple"], 3, 5)
    assert [h.doc for h in hits] == ([1, 0] if s1 > s0 else [0, 1])
    assert {h.doc: h.score for h in hits} == pytest.approx({0: s0, 1: s1}, rel=1e-12)
    # n = 1: only document 0 exists; apple and pie are in every visible document, so
    # both idfs are ln(0.5/1.5) < 0, the floor eps = 0.25 * ln(1/3) is negative too, and
    # the document (of average length: tf part (1 * 2.5) / (1 + 1.5) = 1) scores eps.
    (only,) = index.search(["apple"], 1, 5)
    assert only.doc == 0
    assert only.score == pytest.approx(0.25 * math.log(1 / 3), rel=1e-12)
    # Documents without a query token are never returned.
    assert index.search(["plum"], 2, 5) == []
    assert [h.doc for h in index.search(["plum"], 3, 5)] == [2]


def test_ties_prefer_the_later_document_and_exclusions_do_not_change_statistics() -> None:
    docs = [["a", "b"], ["a", "b"], ["c"], ["a", "b"], ["d"]]
    index = PrefixBM25(docs, RANK_BM25)
    hits = index.search(["a"], 5, 5)
    assert [h.doc for h in hits] == [3, 1, 0]
    assert len({h.score for h in hits}) == 1
    excluded = index.search(["a"], 5, 2, exclude={3})
    assert [h.doc for h in excluded] == [1, 0]
    assert excluded[0].score == hits[1].score


def test_empty_corpus_and_prefix() -> None:
    index = PrefixBM25([], RANK_BM25)
    assert index.search(["a"], 0, 5) == []
    index = PrefixBM25([[], ["a"]], RANK_BM25)
    assert index.search(["a"], 1, 5) == []  # the only visible document is empty
    assert [h.doc for h in index.search(["a"], 2, 5)] == [1]


def test_shipped_parameters_are_rank_bm25s_defaults() -> None:
    """conf/ ships rank-bm25's defaults (the paper's code uses them unchanged)."""
    defaults = inspect.signature(BM25Okapi.__init__).parameters
    assert (
        BM25Params(
            k1=defaults["k1"].default, b=defaults["b"].default, epsilon=defaults["epsilon"].default
        )
        == RANK_BM25
    )
    assert load_settings(BM25Params, params.compose(ROOT), "retrieval.bm25") == RANK_BM25
