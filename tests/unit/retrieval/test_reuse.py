"""What retrieval keeps between runs never changes what it returns: with an empty store,
a full one, one from a shorter or different corpus, or a damaged one, the index and
every retrieval table are those computed from scratch; and a corpus that grew by a day
reuses every finished month and every query it had answered."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prescient.kept import KeptStore
from prescient.retrieval import reuse
from prescient.retrieval.bm25 import Hit
from prescient.retrieval.reuse import month_bounds
from prescient.retrieval.search import ArticleIndex
from tests.support.kept import flip_payload_byte
from tests.unit.retrieval.test_retrieval_search import WORDS, shipped

START = dt.date(2024, 1, 20)
CUTOFFS = [None, dt.date(2024, 2, 10)]


def corpus(
    rng: np.random.Generator, days: int, late_share: float = 0.0, new_words: bool = True
) -> pd.DataFrame:
    """Articles over ``days`` days from START (a day's articles depend on the day alone),
    some arriving after their date; with ``new_words``, each day brings words of its own
    (else a month may add nothing to the vocabulary)."""
    rows = []
    base = int(rng.integers(1 << 30))
    for d in range(days):
        day_rng = np.random.default_rng([base, d])
        for j in range(int(day_rng.integers(1, 4))):
            date = START + dt.timedelta(days=d)
            late = int(day_rng.integers(1, 20)) if day_rng.random() < late_share else 0
            rows.append(
                {
                    "article_id": f"d{d:03d}-{j}",
                    "date": date,
                    "arrived": date + dt.timedelta(days=late),
                    "title": " ".join(day_rng.choice(WORDS, size=2)),
                    "text": " ".join(
                        day_rng.choice(
                            WORDS + ([f"w{d}", f"v{d % 5}"] if new_words else []), size=8
                        )
                    ),
                }
            )
    return pd.DataFrame(rows)


def known_through(df: pd.DataFrame, through: dt.date) -> pd.DataFrame:
    """The articles ingest keeps through ``through`` (known from the later of date and
    arrival)."""
    known = pd.concat([df["date"], df["arrived"]], axis=1).max(axis=1)
    return df.loc[known <= through].reset_index(drop=True)


def questions(days: int) -> pd.DataFrame:
    rows = [
        {
            "question_id": f"q{d:03d}",
            "question": f"Will the {WORDS[d % len(WORDS)]} w{d - 3} v{d % 5} continue?",
            "resolution_date": START + dt.timedelta(days=d),
            "article_id": f"d{d:03d}-0",
        }
        for d in range(3, days, 2)
    ]
    return pd.DataFrame(rows)


def table(index: ArticleIndex, qs: pd.DataFrame) -> pd.DataFrame:
    return index.retrieve_table(qs, CUTOFFS)


def same_index(a: ArticleIndex, b: ArticleIndex) -> None:
    assert a.article_ids.tolist() == b.article_ids.tolist()
    assert a.bm25.vocab == b.bm25.vocab
    assert list(a.bm25.vocab) == list(b.bm25.vocab)  # the numbering, not only the set
    for name in ("term_ptr", "post_docs", "post_tf", "doc_len", "cum_len"):
        assert np.array_equal(getattr(a.bm25, name), getattr(b.bm25, name)), name


def files(store: Path, kind: str) -> list[Path]:
    return sorted(p for p in (store / kind).rglob("*") if p.is_file())


def filled(tmp_path: Path, seed: int, days: int) -> tuple[KeptStore, pd.DataFrame, pd.DataFrame]:
    """A store that has indexed ``days`` days of articles and answered their questions
    (shipped settings), with those articles and questions."""
    store = KeptStore(tmp_path / "store")
    articles, qs = corpus(np.random.default_rng(seed), days), questions(days)
    ArticleIndex(articles, shipped(), store=store).retrieve_table(qs, CUTOFFS)
    return store, articles, qs


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 1000),
    days=st.integers(20, 75),
    late=st.sampled_from([0.0, 0.2]),
    exclude_gold=st.booleans(),
    new_words=st.booleans(),
)
def test_a_growing_corpus_reuses_its_past_and_returns_what_a_cold_index_returns(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    days: int,
    late: float,
    exclude_gold: bool,
    new_words: bool,
) -> None:
    store = KeptStore(tmp_path_factory.mktemp("store"))
    s = shipped(f"retrieval.exclude_gold={str(exclude_gold).lower()}")
    everything = corpus(np.random.default_rng(seed), days + 1, late, new_words)
    qs_all = questions(days + 1)
    for through in (START + dt.timedelta(days=days - 1), START + dt.timedelta(days=days)):
        articles = known_through(everything, through)
        qs = qs_all.loc[qs_all["resolution_date"] <= through].reset_index(drop=True)
        cold = ArticleIndex(articles, s)
        expected = table(cold, qs)
        for _ in range(2):  # the first run fills the store, the second reads it
            warm = ArticleIndex(articles, s, store=store)
            same_index(cold, warm)
            pd.testing.assert_frame_equal(table(warm, qs), expected)
    # The last run found every query and every finished month in the store.
    assert warm.memo is not None
    assert warm.memo.computed == 0 and warm.memo.hits == len(qs) * len(CUTOFFS)
    finished = len(month_bounds(warm.dates)) - 2
    assert len(files(store.root, "tokens")) >= finished


def test_the_day_after_reuses_every_finished_month_and_asks_only_new_queries(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = KeptStore(tmp_path / "store")
    s = shipped()
    everything = corpus(np.random.default_rng(3), 80)
    day = START + dt.timedelta(days=78)
    old, new = known_through(everything, day), known_through(everything, day + dt.timedelta(1))
    qs_all = questions(80)
    old_qs = qs_all.loc[qs_all["resolution_date"] <= day]
    ArticleIndex(old, s, store=store).retrieve_table(old_qs, CUTOFFS)
    caplog.set_level("INFO", logger="prescient.retrieval")
    warm = ArticleIndex(new, s, store=store)
    out = warm.retrieve_table(qs_all, CUTOFFS)
    months = len(month_bounds(warm.dates)) - 1
    assert f"{months - 1} months of tokens reused, 1 tokenized" in caplog.text
    assert warm.memo is not None
    # Only the new question's queries are asked (plus any old one whose prefix grew:
    # none, the prefix of a question ends before its resolution day).
    assert warm.memo.computed == (len(qs_all) - len(old_qs)) * len(CUTOFFS)
    pd.testing.assert_frame_equal(out, ArticleIndex(new, s).retrieve_table(qs_all, CUTOFFS))


def test_an_article_inserted_into_the_past_makes_only_what_follows_it_miss(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    s = shipped()
    store, articles, qs = filled(tmp_path, 5, 80)
    # A source without arrival days brings an article dated in the second month late:
    # every month from there on is another corpus now.
    extra = articles.iloc[[0]].assign(
        article_id="late-1", date=dt.date(2024, 2, 14), arrived=dt.date(2024, 2, 14)
    )
    grown = pd.concat([articles, extra], ignore_index=True)
    caplog.set_level("INFO", logger="prescient.retrieval")
    warm = ArticleIndex(grown, s, store=store)
    assert "1 months of tokens reused, 3 tokenized" in caplog.text  # Jan kept; Feb, Mar, Apr
    pd.testing.assert_frame_equal(
        warm.retrieve_table(qs, CUTOFFS), ArticleIndex(grown, s).retrieve_table(qs, CUTOFFS)
    )
    assert warm.memo is not None
    assert 0 < warm.memo.hits < len(qs) * len(CUTOFFS)  # questions before 14 Feb only


def test_a_damaged_or_foreign_store_is_computed_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    s = shipped()
    store, articles, qs = filled(tmp_path, 9, 100)
    expected = ArticleIndex(articles, s).retrieve_table(qs, CUTOFFS)
    # Jan, Feb, Mar whole; April, not over, as one stretch of its days so far
    assert len(files(store.root, "tokens")) == 4
    # Damaged inside the compression (only the payload's digest can tell), and in it.
    for path in files(store.root, "tokens")[:1] + files(store.root, "queries")[:1]:
        flip_payload_byte(path, -3)
    raw = bytearray(files(store.root, "queries")[1].read_bytes())
    raw[-3] ^= 0xFF
    files(store.root, "queries")[1].write_bytes(bytes(raw))
    files(store.root, "queries")[-1].write_bytes(b"")  # a file cut to nothing
    # Whole, readable files in the wrong place: each month's tokens under another's name.
    months = files(store.root, "tokens")[1:]
    contents = [p.read_bytes() for p in months]
    for path, raw in zip(months, contents[1:] + contents[:1], strict=True):
        path.write_bytes(raw)
    caplog.set_level("INFO", logger="prescient.retrieval")
    warm = ArticleIndex(articles, s, store=store)
    pd.testing.assert_frame_equal(warm.retrieve_table(qs, CUTOFFS), expected)
    assert "fails its digest" in caplog.text and "unreadable" in caplog.text
    assert "0 months of tokens reused, 4 tokenized" in caplog.text
    # Other settings find nothing of these: nothing is reused, all is right.
    other = shipped("retrieval.tokenizer.stopwords=none", "retrieval.bm25.k1=1.2")
    caplog.clear()
    caplog.set_level("INFO", logger="prescient.retrieval")
    index = ArticleIndex(articles, other, store=store)
    assert "0 months of tokens reused" in caplog.text
    pd.testing.assert_frame_equal(
        index.retrieve_table(qs, CUTOFFS), ArticleIndex(articles, other).retrieve_table(qs, CUTOFFS)
    )
    assert index.memo is not None and index.memo.hits == 0


def test_the_streamed_index_reuses_the_same_store(tmp_path: Path) -> None:
    store = KeptStore(tmp_path / "store")
    s = shipped()
    articles = corpus(np.random.default_rng(11), 70)
    path = tmp_path / "articles.parquet"
    articles.to_parquet(path, index=False, row_group_size=7)
    qs = questions(70)
    whole = ArticleIndex(articles, s, store=store)
    expected = whole.retrieve_table(qs, CUTOFFS)
    streamed = ArticleIndex.from_parquet(path, s, store=store)
    same_index(whole, streamed)
    pd.testing.assert_frame_equal(streamed.retrieve_table(qs, CUTOFFS), expected)
    assert streamed.memo is not None and streamed.memo.computed == 0


def test_a_killed_run_keeps_the_answers_it_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reuse, "SAVE_EVERY", 4)
    store = KeptStore(tmp_path / "store")
    s = shipped()
    articles, qs = corpus(np.random.default_rng(13), 60), questions(60)
    index = ArticleIndex(articles, s, store=store)
    asked = index._ask

    def killed(queries: list[reuse.Query]) -> Iterator[list[Hit]]:
        for n, hits in enumerate(asked(queries)):
            if n == 10:
                raise KeyboardInterrupt  # the stage killed while answering
            yield hits

    monkeypatch.setattr(index, "_ask", killed)
    with pytest.raises(KeyboardInterrupt):
        index.retrieve_table(qs, CUTOFFS)
    again = ArticleIndex(articles, s, store=store)
    out = again.retrieve_table(qs, CUTOFFS)
    assert again.memo is not None and again.memo.hits >= 8  # two saves of four
    pd.testing.assert_frame_equal(out, ArticleIndex(articles, s).retrieve_table(qs, CUTOFFS))


def test_a_kept_month_is_named_by_the_texts_digests_and_its_texts_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prescient import io
    from prescient.corpus.normalize import TEXT_DIGEST, text_hash

    s = shipped()
    articles = corpus(np.random.default_rng(17), 70, late_share=0.2)
    articles[TEXT_DIGEST] = [text_hash(t) for t in articles["text"]]
    articles = articles.sort_values(["date", "article_id"]).reset_index(drop=True)
    path = tmp_path / "articles.parquet"
    articles.to_parquet(path, index=False, row_group_size=7)
    store = KeptStore(tmp_path / "store")
    cold = ArticleIndex(articles.drop(columns=[TEXT_DIGEST]), s, store=store)  # the same names
    asked: list[int] = []
    rows = io.RowReader.rows

    def counted(self: io.RowReader, positions: list[int]) -> Iterator[tuple[object, ...]]:
        asked.extend(positions)
        return rows(self, positions)

    monkeypatch.setattr(io.RowReader, "rows", counted)
    warm = ArticleIndex.from_parquet(path, s, store=store)
    same_index(warm, cold)
    known = pd.concat([articles["date"], articles["arrived"]], axis=1).max(axis=1)
    months = known.map(lambda d: (d.year, d.month))
    newest = np.flatnonzero((months == months.max()).to_numpy()).tolist()
    assert newest and asked == []  # the months before are the store's, the newest its stretch


def test_a_month_in_progress_is_tokenized_a_day_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prescient.retrieval.tokenize import Tokenizer

    s = shipped()
    store = KeptStore(tmp_path / "store")
    everything = corpus(np.random.default_rng(19), 80)
    tokenized: list[int] = []
    call = Tokenizer.__call__

    def counted(self: Tokenizer, text: str) -> list[str]:
        tokenized[-1] += 1
        return call(self, text)

    monkeypatch.setattr(Tokenizer, "__call__", counted)
    # Daily updates across the end of March (day 71 is 31 March, day 72 1 April).
    for day in range(66, 76):
        through = START + dt.timedelta(days=day)
        articles = known_through(everything, through)
        tokenized.append(0)
        warm = ArticleIndex(articles, s, store=store)
        if day > 66:  # only the new day's texts (titles and texts of its articles)
            new = len(articles) - len(known_through(everything, through - dt.timedelta(1)))
            assert tokenized[-1] == new, day
        if day in (70, 72, 75):
            same_index(warm, ArticleIndex(articles, s))
    stored = len(files(store.root, "tokens"))
    # Jan, Feb and Mar whole (March's stretches removed once it was over); April's
    # stretches: the run on 1 April and one a day after it.
    assert stored == 3 + 4
    # A run over the same corpus reads everything and writes nothing.
    tokenized.append(0)
    again = ArticleIndex(articles, s, store=store)
    assert tokenized[-1] == 0 and len(files(store.root, "tokens")) == stored
    same_index(again, ArticleIndex(articles, s))
