"""ArticleIndex: dated retrieval equals rank-bm25 on exactly the visible articles and
never shows an article dated on or after the resolution date; the gold article only
under retrieval.exclude_gold=false, when it is visible."""

from __future__ import annotations

import datetime as dt
import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from prescient.plumbing import params
from prescient.retrieval.search import (
    RETRIEVAL_COLUMNS,
    ArticleIndex,
    RetrievalSettings,
    excluded_articles,
    window_violations,
)
from prescient.retrieval.tokenize import Tokenizer
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT


@functools.cache
def shipped(*overrides: str) -> RetrievalSettings:
    """The shipped `retrieval` section, with Hydra overrides."""
    return load_settings(RetrievalSettings, params.compose(ROOT, list(overrides)), "retrieval")


WORDS = ["tariff", "storm", "vote", "merger", "river", "rates", "strike", "summit"]
DAY0 = dt.date(2024, 1, 1)


@st.composite
def corpora(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 30))
    rows = []
    for i in range(n):
        rows.append(
            {
                "article_id": f"a{i:03d}",
                "date": DAY0 + dt.timedelta(days=draw(st.integers(0, 12))),
                "title": " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=3))),
                "text": " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=10))),
            }
        )
    df = pd.DataFrame(rows)
    # Any input order: the index sorts by (date, article_id) itself.
    return df.sample(frac=1.0, random_state=draw(st.integers(0, 1000))).reset_index(drop=True)


def reference(
    articles: pd.DataFrame, visible: pd.Series, query: str, exclude: set[str], k: int
) -> list[tuple[str, float]]:
    """rank-bm25 built on exactly the visible articles; ties: later (date, id) first."""
    tok = Tokenizer.from_settings(shipped().tokenizer)
    vis = articles.loc[visible].sort_values(["date", "article_id"]).reset_index(drop=True)
    docs = [
        tok(f"{t}\n{x}") if t else tok(x) for t, x in zip(vis["title"], vis["text"], strict=True)
    ]
    try:
        ref = BM25Okapi(docs)
    except ZeroDivisionError:
        return []
    q = tok(query)
    scores = ref.get_scores(q)
    cand = [
        i
        for i in range(len(docs))
        if any(t in ref.doc_freqs[i] for t in q) and vis["article_id"][i] not in exclude
    ]
    cand.sort(key=lambda i: (-scores[i], -i))
    return [(vis["article_id"][i], float(scores[i])) for i in cand[:k]]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(articles=corpora(), data=st.data())
def test_search_is_rank_bm25_on_the_visible_articles_and_never_leaks(
    articles: pd.DataFrame, data: st.DataObject
) -> None:
    gap = data.draw(st.integers(0, 2), label="gap")
    index = ArticleIndex(articles, shipped(f"retrieval.gap_days={gap}"))
    for _ in range(3):
        res = DAY0 + dt.timedelta(days=data.draw(st.integers(0, 14), label="res"))
        cutoff = data.draw(
            st.none() | st.integers(0, 14).map(lambda d: DAY0 + dt.timedelta(days=d)),
            label="cutoff",
        )
        # A gold article: usually one published on the resolution day, as in Daily Oracle;
        # sometimes an older one (imported benchmarks), which must be excluded explicitly.
        gold = data.draw(st.sampled_from(sorted(articles["article_id"])), label="gold")
        query = " ".join(data.draw(st.lists(st.sampled_from([*WORDS, "unseen"]), max_size=5)))
        ahead = data.draw(st.none() | st.integers(0, 14), label="days ahead")
        forecast = None if ahead is None else res - dt.timedelta(days=ahead)
        window = index.window(res, cutoff, forecast)
        hits = index.search(query, window, k=5, exclude_ids=[gold])

        assert all(h.date < res for h in hits)
        assert all(forecast is None or h.date < forecast for h in hits)
        assert all(h.date < window.end for h in hits)
        assert all(cutoff is None or h.date < cutoff for h in hits)
        assert gold not in {h.article_id for h in hits}
        visible = articles["date"].map(window.contains)
        expected = reference(articles, visible, query, {gold}, 5)
        assert [(h.article_id, h.score) for h in hits] == expected


def test_boundary_days_reach_or_miss_the_index() -> None:
    """Articles dated res-2, res-1, res and the cutoff day, one query that matches all."""
    res = dt.date(2024, 6, 10)
    dates = {
        "before": res - dt.timedelta(days=2),
        "day_before": res - dt.timedelta(days=1),
        "same_day": res,
        "after": res + dt.timedelta(days=1),
    }
    articles = pd.DataFrame(
        {
            "article_id": list(dates),
            "date": list(dates.values()),
            "title": ["storm"] * 4,
            "text": ["river storm"] * 4,
        }
    )
    index = ArticleIndex(articles, shipped())
    got = {h.article_id for h in index.search("storm", index.window(res, None))}
    assert got == {"before"}
    index0 = ArticleIndex(articles, shipped("retrieval.gap_days=0"))
    assert {h.article_id for h in index0.search("storm", index0.window(res, None))} == {
        "before",
        "day_before",
    }
    # A cutoff on res - 2 hides the article of that day too.
    assert index.search("storm", index.window(res, res - dt.timedelta(days=2))) == []


def test_corpus_start_drops_older_articles_from_the_statistics() -> None:
    articles = pd.DataFrame(
        {
            "article_id": ["old", "new1", "new2"],
            "date": [dt.date(2018, 12, 31), dt.date(2019, 1, 1), dt.date(2019, 1, 2)],
            "title": ["", "", ""],
            "text": ["storm river", "storm", "vote"],
        }
    )
    index = ArticleIndex(articles, shipped("retrieval.corpus_start=2019-01-01"))
    assert len(index) == 2 and index.start == dt.date(2019, 1, 1)
    hits = index.search("storm", index.window(dt.date(2019, 2, 1), None))
    (expected,) = reference(articles, articles["article_id"] != "old", "storm", set(), 5)
    assert [(h.article_id, h.score) for h in hits] == [expected]


def test_retrieve_table_schema_and_rows() -> None:
    articles = pd.DataFrame(
        {
            "article_id": ["a", "b", "c"],
            "date": [dt.date(2024, 1, 1), dt.date(2024, 1, 5), dt.date(2024, 1, 9)],
            "title": ["storm hits river", "vote on tariff", "storm again"],
            "text": ["storm", "tariff vote", "storm river"],
        }
    )
    questions = pd.DataFrame(
        {
            "question_id": ["q1", "q2"],
            "question": ["Will the storm flood the river?", "Will the tariff vote pass?"],
            "resolution_date": [dt.date(2024, 1, 9), dt.date(2024, 1, 9)],
            "article_id": ["c", "c"],
        }
    )
    index = ArticleIndex(articles, shipped())
    table = index.retrieve_table(questions, [None, dt.date(2024, 1, 3)])
    assert list(table.columns) == list(RETRIEVAL_COLUMNS)
    assert table[["question_id", "rag_cutoff", "rank", "article_id"]].values.tolist() == [
        ["q1", "dynamic", 1, "a"],
        ["q2", "dynamic", 1, "b"],
        ["q1", "2024-01-03", 1, "a"],
    ]
    assert table["window_end"].tolist() == [dt.date(2024, 1, 8)] * 2 + [dt.date(2024, 1, 3)]
    assert (np.array(table["article_date"].tolist()) < np.array(table["window_end"].tolist())).all()
    assert str(table["article_date"].dtype) == "date32[day][pyarrow]"
    assert window_violations(table, questions) == 0
    # The audit counts a row dated on its window's end, or on its resolution date.
    late = table.copy()
    late.loc[0, "article_date"] = late.loc[0, "window_end"]
    assert window_violations(late, questions) == 1
    questions.loc[1, "resolution_date"] = dt.date(2024, 1, 5)  # q2 retrieved b (5 Jan)
    assert window_violations(table, questions) == 1


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "retrieval.gap_days=-1",
            "retrieval.gap_days: must be 0 or more: a negative gap would show articles "
            "published on or after the resolution date (got -1)",
        ),
        (
            "retrieval.tokenizer.pattern='[a-z'",
            "retrieval.tokenizer.pattern: not a regular expression (unterminated character set",
        ),
        ("retrieval.tokenizer.pattern='[a-z]*'", "retrieval.tokenizer.pattern: matches the empty"),
        ("retrieval.tokenizer.pattern='([a-z]+)'", "retrieval.tokenizer.pattern: has a capturing"),
        ("retrieval.max_words='eight hundred'", "retrieval.max_words: Input should be a valid"),
        ("retrieval.top_k=0", "retrieval.top_k: "),
        ("retrieval.bm25.b=1.5", "retrieval.bm25.b: "),
        ("retrieval.tokenizer.stopwords=french", "retrieval.tokenizer.stopwords"),
        ("retrieval.fields=[]", "retrieval.fields: "),
    ],
)
def test_bad_settings_are_one_line_naming_the_parameter(override: str, message: str) -> None:
    with pytest.raises(ParamsError) as err:
        load_settings(RetrievalSettings, params.compose(ROOT, [override]), "retrieval")
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text
    assert f"-S '{override.split('=')[0]}=...'" in text


def test_retrieve_table_ends_each_window_at_its_forecast_date() -> None:
    articles = pd.DataFrame(
        {
            "article_id": ["a", "b", "c"],
            "date": [dt.date(2024, 1, 1), dt.date(2024, 1, 5), dt.date(2024, 1, 9)],
            "title": ["storm", "storm", "storm"],
            "text": ["storm river", "storm river", "storm river"],
        }
    )
    questions = pd.DataFrame(
        {
            "question_id": ["asked", "plain"],
            "question": ["Will the storm flood the river?"] * 2,
            "resolution_date": [dt.date(2024, 1, 20), dt.date(2024, 1, 20)],
            "forecast_date": [dt.date(2024, 1, 5), None],
            "article_id": [None, None],
        }
    )
    index = ArticleIndex(articles, shipped())
    table = index.retrieve_table(questions, [None])
    got = table.groupby("question_id")["article_id"].agg(sorted).to_dict()
    assert got == {"asked": ["a"], "plain": ["a", "b", "c"]}
    ends = dict(zip(table["question_id"], table["window_end"], strict=False))
    assert ends == {"asked": dt.date(2024, 1, 5), "plain": dt.date(2024, 1, 19)}
    assert window_violations(table, questions) == 0
    # The audit counts an article dated on or after the forecast date.
    moved = questions.assign(forecast_date=[dt.date(2024, 1, 1), None])
    assert window_violations(table, moved) == 1


def gold_visible_corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    """An imported question whose evidence article (gold) predates its resolution by
    ten days and is the best BM25 match; a Daily Oracle question whose gold article is
    dated on its resolution day."""
    articles = pd.DataFrame(
        {
            "article_id": ["evidence", "other", "markets", "debate", "resolution_day"],
            "date": [
                dt.date(2024, 3, 1),
                dt.date(2024, 3, 2),
                dt.date(2024, 3, 3),
                dt.date(2024, 3, 4),
                dt.date(2024, 3, 11),
            ],
            "title": ["storm river", "tariff vote", "markets", "debate", "storm river again"],
            "text": [
                "the storm will flood the river",
                "storm talk at the tariff vote",
                "markets rally",
                "a debate on rates",
                "river",
            ],
        }
    )
    questions = pd.DataFrame(
        {
            "question_id": ["imported", "daily_oracle"],
            "question": ["Will the storm flood the river?"] * 2,
            "resolution_date": [dt.date(2024, 3, 11), dt.date(2024, 3, 11)],
            "article_id": ["evidence", "resolution_day"],
        }
    )
    return articles, questions


def test_excluded_articles_is_the_gold_article_only_when_asked() -> None:
    assert excluded_articles("evidence", False) == ()
    assert excluded_articles("evidence", True) == ("evidence",)
    assert excluded_articles(None, True) == ()
    assert excluded_articles(pd.NA, True) == ()
    assert shipped().exclude_gold is False


def test_by_default_a_visible_gold_article_is_retrieved_like_any_other() -> None:
    articles, questions = gold_visible_corpus()
    index = ArticleIndex(articles, shipped())
    table = index.retrieve_table(questions, [None])
    got = table.groupby("question_id")["article_id"].agg(list).to_dict()
    # Both windows end on 10 March: "evidence" (1 March) ranks first for both questions;
    # the resolution-day article is never visible.
    assert got == {"imported": ["evidence", "other"], "daily_oracle": ["evidence", "other"]}
    hits = index.search("Will the storm flood the river?", index.window(dt.date(2024, 3, 11), None))
    visible = articles["date"] < dt.date(2024, 3, 10)
    expected = reference(articles, visible, "Will the storm flood the river?", set(), 3)
    assert [a for a, _ in expected] == ["evidence", "other"]
    assert [(h.article_id, h.score) for h in hits] == expected
    assert index.gold_visibility(questions, [None], table) == {
        "exclude_gold": False,
        "gold_visible": 1,
        "gold_retrieved": 1,
    }
    # A cutoff before 1 March hides the evidence: visible in one of four pairs.
    early = index.retrieve_table(questions, [None, dt.date(2024, 3, 1)])
    assert index.gold_visibility(questions, [None, dt.date(2024, 3, 1)], early) == {
        "exclude_gold": False,
        "gold_visible": 1,
        "gold_retrieved": 1,
    }


def test_exclude_gold_never_retrieves_the_questions_own_gold_article() -> None:
    articles, questions = gold_visible_corpus()
    index = ArticleIndex(articles, shipped("retrieval.exclude_gold=true"))
    table = index.retrieve_table(questions, [None])
    got = table.groupby("question_id")["article_id"].agg(list).to_dict()
    # Only the imported question loses its gold article; the other question's gold
    # article is not visible, so "evidence" is an ordinary article to it.
    assert got == {"imported": ["other"], "daily_oracle": ["evidence", "other"]}
    assert index.gold_visibility(questions, [None], table) == {
        "exclude_gold": True,
        "gold_visible": 1,
        "gold_retrieved": 0,
    }
