"""The index of an article table on disk, texts streamed a row group at a time, is the
index of the whole frame; the articles a context shows, read back cut, give the same
context tables."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prescient.evaluation.contexts import build_contexts, match_gold, shown_articles
from prescient.evaluation.settings import GOLD, RAG, Setting
from prescient.retrieval.search import ArticleIndex, read_meta, texts_in_order
from tests.unit.retrieval.test_retrieval_search import DAY0, WORDS, shipped


@st.composite
def tables(draw: st.DrawFn) -> tuple[pd.DataFrame, bool, int]:
    n = draw(st.integers(1, 25))
    rows = []
    for i in range(n):
        date = DAY0 + dt.timedelta(days=draw(st.integers(0, 8)))
        late = draw(st.integers(0, 5)) if draw(st.booleans()) else 0
        rows.append(
            {
                "article_id": f"a{i:03d}",
                "date": date,
                "arrived": date + dt.timedelta(days=late),
                "url": f"https://n.example/{i}",
                "title": draw(st.one_of(st.none(), st.sampled_from(WORDS))),
                "text": " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=12))),
            }
        )
    df = pd.DataFrame(rows)
    in_date_order = draw(st.booleans())  # as ingest writes it, or any order at all
    if in_date_order:
        df = df.sort_values(["date", "article_id"]).reset_index(drop=True)
    else:
        df = df.sample(frac=1.0, random_state=draw(st.integers(0, 99))).reset_index(drop=True)
    return df, in_date_order, draw(st.integers(1, 6))


def write(df: pd.DataFrame, path: Path, group: int) -> Path:
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=group)
    return path


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=tables(), gap=st.integers(0, 2))
def test_the_streamed_index_is_the_index_of_the_whole_frame(
    tmp_path: Path, case: tuple[pd.DataFrame, bool, int], gap: int
) -> None:
    df, _, group = case
    path = write(df, tmp_path / "articles.parquet", group)
    s = shipped(f"retrieval.gap_days={gap}")
    whole, streamed = ArticleIndex(df, s), ArticleIndex.from_parquet(path, s)
    assert whole.article_ids.tolist() == streamed.article_ids.tolist()
    assert (whole.dates == streamed.dates).all()
    a, b = whole.bm25, streamed.bm25
    assert a.vocab == b.vocab
    for name in ("term_ptr", "post_docs", "post_tf", "doc_len"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for res in range(0, 12, 3):
        window = whole.window(DAY0 + dt.timedelta(days=res), None)
        for query in ("storm vote", "tariff river rates", "summit"):
            assert whole.search(query, window) == streamed.search(query, window)


def test_texts_stream_in_any_order_holding_only_what_is_not_yet_yielded(tmp_path: Path) -> None:
    df = pd.DataFrame({"title": [f"t{i}" for i in range(10)], "text": [None, *"bcdefghij"]})
    path = write(df, tmp_path / "a.parquet", 3)
    rows = np.array([1, 0, 2, 9, 4, 3])  # a subset, out of file order
    got = list(texts_in_order(path, ("title", "text"), rows))
    assert got == ["t1\nb", "t0", "t2\nc", "t9\nj", "t4\ne", "t3\nd"]


def test_contexts_from_the_articles_read_back_equal_those_from_the_corpus(
    tmp_path: Path,
) -> None:
    words = [f"w{i}" for i in range(40)]
    df = pd.DataFrame(
        {
            "article_id": ["a", "b", "c", "d"],
            "date": [DAY0, DAY0, DAY0 + dt.timedelta(days=1), DAY0 + dt.timedelta(days=2)],
            "url": [f"https://n.example/{x}" for x in "abcd"],
            "title": ["A", "B", None, "D"],
            "text": [" ".join(words), "  short\n text ", None, " ".join(words[:7])],
        }
    )
    path = write(df, tmp_path / "articles.parquet", 2)
    questions = pd.DataFrame(
        {
            "question_id": ["q1", "q2", "q3"],
            "article_id": pd.array(["a", None, "zz"], dtype="string"),
            "gold_url": [None, "http://www.n.example/b/", None],
            "gold_title": [None, None, "Inline"],
            "gold_text": [None, None, "inline body"],
            "source": ["s", "s", "s"],
        }
    )
    retrieval = pd.DataFrame(
        {
            "question_id": ["q1", "q1", "q2", "q3"],
            "rag_cutoff": ["dynamic"] * 4,
            "rank": [1, 2, 1, 1],
            "article_id": ["b", "a", "a", "d"],
        }
    )
    gold, _ = match_gold(questions, read_meta(path))
    assert gold == ["a", "b", None]
    shown_ids = {g for g in gold if g} | set(retrieval["article_id"])
    shown = shown_articles(path, shown_ids, {g for g in gold if g}, 5)
    assert sorted(shown["article_id"]) == ["a", "b", "d"]
    for setting in (Setting(GOLD), Setting(RAG, None)):
        for max_words, gold_words in ((5, None), (5, 3), (5, 20)):
            kw = {"max_words": max_words, "gold_max_words": gold_words}
            expected = build_contexts(setting, questions, df, retrieval, **kw)
            cut = shown_articles(path, shown_ids, {g for g in gold if g}, max_words)
            got = build_contexts(setting, questions, cut, retrieval, gold_ids=gold, **kw)
            pd.testing.assert_frame_equal(got, expected)
