"""IntervalBM25 against rank-bm25's BM25Okapi rebuilt on exactly the window's documents,
and the evidence window against the visibility rule."""

from __future__ import annotations

import datetime as dt

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from prescient.plumbing import params as project_params
from prescient.retrieval.bm25 import BM25Params, average_idf_at, log_half_table
from prescient.retrieval.interval import IntervalBM25
from prescient.retrieval.visibility import evidence_window, visible_window
from prescient.settings import load_settings
from tests.conftest import ROOT

WORDS = [f"w{i}" for i in range(10)]

corpora = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=35
)
SHIPPED = load_settings(BM25Params, project_params.compose(ROOT), "retrieval.bm25")
"""The shipped BM25 parameters (rank-bm25's defaults)."""

queries = st.lists(st.sampled_from([*WORDS, "unseen"]), min_size=0, max_size=6)
bm25_params = st.builds(
    BM25Params,
    k1=st.sampled_from([1.5, 1.2, 0.5]),
    b=st.sampled_from([0.75, 0.0, 1.0]),
    epsilon=st.sampled_from([0.25, 0.0, 0.5]),
)


def reference(
    docs: list[list[str]], lo: int, hi: int, query: list[str], params: BM25Params
) -> tuple[list[int], list[float], BM25Okapi]:
    ref = BM25Okapi(docs[lo:hi], k1=params.k1, b=params.b, epsilon=params.epsilon)
    scores = ref.get_scores(query)
    cand = [i for i in range(hi - lo) if any(t in ref.doc_freqs[i] for t in query)]
    cand.sort(key=lambda i: (-scores[i], -i))
    return [lo + i for i in cand], [float(scores[i]) for i in cand], ref


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=corpora, data=st.data(), params=bm25_params, k=st.integers(1, 6))
def test_matches_rank_bm25_rebuilt_on_every_interval(
    docs: list[list[str]], data: st.DataObject, params: BM25Params, k: int
) -> None:
    index = IntervalBM25(docs, params)
    for _ in range(4):
        lo = data.draw(st.integers(0, len(docs) - 1), label="lo")
        hi = data.draw(st.integers(lo + 1, len(docs)), label="hi")
        query = data.draw(queries, label="query")
        ids, scores, ref = reference(docs, lo, hi, query, params)
        hits = index.search(query, lo, hi, k)
        assert [h.doc for h in hits] == ids[:k]
        assert [h.score for h in hits] == scores[:k]  # bit-identical
        assert index.average_idf(lo, hi) == ref.average_idf
        assert all(index.df(t, lo, hi) == sum(t in d for d in ref.doc_freqs) for t in WORDS)
        cand, got = index.scores(query, lo, hi)
        ref_scores = ref.get_scores(query)
        assert got.tolist() == [float(ref_scores[c - lo]) for c in cand]


def test_the_window_vocabulary_order_is_its_own() -> None:
    """rank-bm25 sums idfs in the order terms first appear in the window, which can
    differ from their order in the whole corpus; the floor must use the window's."""
    docs = [["d"], ["e", "c"], ["e", "c", "c", "d"], ["c", "b"]]
    index = IntervalBM25(docs, SHIPPED)
    ref = BM25Okapi(docs[1:4], k1=SHIPPED.k1, b=SHIPPED.b, epsilon=SHIPPED.epsilon)
    # the window's order is e, c, d, b; the corpus's d, e, c, b
    assert index.average_idf(1, 4) == ref.average_idf == -0.3587711313223306
    window_order = np.array([2, 3, 1, 1])  # df of e, c, d, b in [1, 4)
    corpus_order = np.array([1, 2, 3, 1])  # df of d, e, c, b
    log_half = log_half_table(4)
    assert average_idf_at(window_order, 3, log_half) == ref.average_idf
    assert average_idf_at(corpus_order, 3, log_half) != ref.average_idf  # the last bit
    hits = index.search(["c"], 1, 4, 5)
    scores = ref.get_scores(["c"])
    assert [h.score for h in hits] == sorted((float(s) for s in scores), reverse=True)


def test_empty_and_out_of_range_windows_return_nothing() -> None:
    index = IntervalBM25([["a"], ["b"]], SHIPPED)
    assert index.search(["a"], 1, 1, 3) == []
    assert index.search(["a"], 1, 2, 3) == []
    assert [h.doc for h in index.search(["a"], -3, 9, 3)] == [0]
    assert np.isnan(index.average_idf(1, 1))


days = st.dates(dt.date(2019, 1, 1), dt.date(2025, 12, 31))


@settings(max_examples=500, deadline=None)
@given(
    t_k=days,
    gap=st.integers(0, 10),
    cutoff=st.one_of(st.none(), days),
    horizon=st.integers(0, 800),
    article=days,
)
def test_prompt_and_evidence_windows_never_overlap_and_respect_t_k(
    t_k: dt.date, gap: int, cutoff: dt.date | None, horizon: int, article: dt.date
) -> None:
    prompt = visible_window(t_k, cutoff, gap_days=gap)
    evidence = evidence_window(t_k, horizon)
    assert evidence.start == t_k
    assert prompt.end <= t_k <= evidence.start
    assert not (prompt.contains(article) and evidence.contains(article))
    if evidence.contains(article):
        assert t_k <= article <= t_k + dt.timedelta(days=horizon)
    if prompt.contains(article):
        assert article < t_k
    assert evidence.contains(t_k) and evidence.contains(t_k + dt.timedelta(days=horizon))
    assert not evidence.contains(t_k + dt.timedelta(days=horizon + 1))
