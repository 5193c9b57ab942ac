"""The arrival rule: an article is used from the later of its date and its arrival, only
on-time articles make their day's questions, and adding later days (however late their
articles) never changes what an earlier day saw: ingest, selection, retrieval and the
repeated-question flags all follow it."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prescient.arrival import (
    day_array,
    known_days,
    known_from,
    on_time,
    on_time_mask,
    settled_through,
)
from prescient.corpus.ingest import ingest_rows
from prescient.corpus.readers import RawRow
from prescient.corpus.titles import strip_title_suffixes
from prescient.duplicates import duplicates
from prescient.kept import KeptStore
from prescient.plumbing import params
from prescient.retrieval.search import ArticleIndex, RetrievalSettings
from prescient.retrieval.tokenize import english_stopwords
from prescient.settings import load_settings
from tests.conftest import ROOT
from tests.support.corpus import BODY, ingest_settings
from tests.support.corpus import article as art

D = dt.date(2024, 5, 10)


def day(n: int) -> dt.date:
    return D + dt.timedelta(days=n)


def test_the_rule() -> None:
    assert known_from(D, None) == D
    assert known_from(D, day(-1)) == D  # fetched before its stated date (time zones)
    assert known_from(D, day(3)) == day(3)
    assert on_time(D, None, 0) and on_time(D, D, 0) and not on_time(D, day(1), 0)
    assert on_time(D, day(1), 1) and not on_time(D, day(2), 1)
    assert settled_through(day(5), 1) == day(4) and settled_through(None, 1) is None
    table = pd.DataFrame({"date": [D, D, D], "arrived": [D, day(2), day(-1)]})
    assert known_days(table).tolist() == [np.datetime64(x, "D") for x in (D, day(2), D)]
    assert on_time_mask(table, 1).tolist() == [True, False, True]
    assert known_days(table[["date"]]).tolist() == [np.datetime64(D, "D")] * 3
    assert on_time_mask(table[["date"]], 0).all()


def ingest(rows: list[dict[str, object]], through: dt.date | None) -> tuple[pd.DataFrame, dict]:
    raw = [RawRow(f"mem:{i}", dict(r)) for i, r in enumerate(rows, 1)]
    s = ingest_settings().model_copy(update={"through": through})
    df, report = ingest_rows(raw, s, date_format=None)
    return df, dict(report.dropped)


def test_ingest_keeps_what_is_known_by_base_through_and_the_first_known_copy() -> None:
    rows = [
        {**art(date=D.isoformat(), url="https://g.example/a", text=BODY + "a"), "arrived": None},
        # published on D, brought by the crawl of day+3
        {**art(date=D.isoformat(), url="https://g.example/b", text=BODY + "b")}
        | {"arrived": day(3).isoformat()},
        # a later copy of /a that states an earlier date must not replace the one in use
        {**art(date=day(-2).isoformat(), url="https://g.example/a", text=BODY + "a2")}
        | {"arrived": day(4).isoformat()},
        {**art(date=D.isoformat(), url="https://g.example/c", text=BODY + "c")}
        | {"arrived": "not a day"},
    ]
    early, dropped = ingest(rows, day(2))
    assert early["url"].tolist() == ["https://g.example/a"]
    assert dropped["after_through"] == 2 and dropped["unparseable_arrival"] == 1
    late, dropped = ingest(rows, day(4))
    assert sorted(late["url"]) == ["https://g.example/a", "https://g.example/b"]
    assert dropped["duplicate_url"] == 1
    kept_a = late[late["url"] == "https://g.example/a"].iloc[0]
    assert kept_a["date"] == D and kept_a["text"].endswith("a")  # the copy known first
    assert late.set_index("url")["arrived"].to_dict() == {
        "https://g.example/a": D,
        "https://g.example/b": day(3),
    }


def test_a_masthead_is_stripped_from_the_day_it_became_one() -> None:
    titles = [f"Story {i} | The Courier" for i in range(4)]
    days = [day(0), day(1), day(2), day(3)]
    out = strip_title_suffixes(titles, [" | "], 3, ["c"] * 4, drop_ellipsis=False, days=days)
    assert out == ["Story 0 | The Courier", "Story 1 | The Courier", "Story 2", "Story 3"]
    # without days: every title of the group, as before
    assert strip_title_suffixes(titles, [" | "], 3, ["c"] * 4)[0] == "Story 0"


def index(articles: pd.DataFrame) -> ArticleIndex:
    s = load_settings(RetrievalSettings, params.compose(ROOT), "retrieval")
    return ArticleIndex(articles, s)


def test_a_late_article_is_visible_from_its_arrival_with_its_own_date() -> None:
    articles = pd.DataFrame(
        {
            "article_id": ["early", "late", "other"],
            "date": [D, D, day(1)],
            "arrived": [D, day(6), day(1)],
            "title": ["harbour strike", "harbour strike talks", "bakery prize"],
            "text": ["dockers strike at the harbour"] * 2 + ["rye bread prize"],
        }
    )
    idx = index(articles)
    before = idx.search("harbour strike", idx.window(day(5), None), k=5)
    assert [r.article_id for r in before] == ["early"]
    after = idx.search("harbour strike", idx.window(day(9), None), k=5)
    assert {r.article_id for r in after} == {"early", "late"}
    assert {r.date for r in after} == {D}  # reported under its stated date
    # the early question's results are those of an index without the late article
    alone = index(articles[articles["article_id"] != "late"])
    again = alone.search("harbour strike", alone.window(day(5), None), k=5)
    assert [(r.article_id, r.score) for r in before] == [(r.article_id, r.score) for r in again]


WORDS = [f"w{i}" for i in range(40)]


def question_set(n: int, seed: int) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        words = rng.choices(WORDS[: 8 + i % 30], k=rng.randint(3, 9))
        rows.append(
            {
                "question_id": f"q{i:03d}",
                "qtype": rng.choice(["tf", "mc"]),
                "question": "Will " + " ".join(words) + "?",
                "answer": rng.choice(["Yes", "No"]),
                "resolution_date": day(rng.randint(0, 40)),
            }
        )
    # a few word-for-word repeats answered both ways
    for k in range(6):
        src = dict(rows[k])
        rows.append(
            {**src, "question_id": f"r{k}", "resolution_date": day(41 + k), "answer": "Yes"}
        )
    return pd.DataFrame(rows)


def test_adding_later_days_never_changes_an_earlier_questions_flags() -> None:
    full = question_set(160, 7)
    whole = duplicates(full, 0.5).set_index(full["question_id"])
    assert whole["dup_near_of"].notna().sum() > 5  # the check has something to find
    for cut in (5, 17, 30, 44):
        early = full[full["resolution_date"] <= day(cut)]
        part = duplicates(early, 0.5).set_index(early["question_id"])
        pd.testing.assert_frame_equal(part, whole.loc[part.index])


def _parts(root: Path) -> list[Path]:
    return sorted(p for p in (root / "near").rglob("*") if p.is_file())


def test_kept_days_give_the_flags_of_a_computation_from_scratch(tmp_path: Path) -> None:
    """Each day's near-duplicate flags are kept under its chain of days: a set grown by
    days computes only the new days, with the same flags as without a store."""
    full = question_set(160, 7)
    store = KeptStore(tmp_path)
    for cut in (17, 30, 47):
        early = full[full["resolution_date"] <= day(cut)].reset_index(drop=True)
        plain = duplicates(early, 0.5)
        pd.testing.assert_frame_equal(duplicates(early, 0.5, kept=store), plain)
        written = _parts(tmp_path)
        assert len(written) == early["resolution_date"].nunique()  # a part a day, once
        pd.testing.assert_frame_equal(duplicates(early, 0.5, kept=store), plain)  # read back
        assert _parts(tmp_path) == written
    files = _parts(tmp_path)

    # an earlier day's question edited: that day and every later one computed again
    edited = full.copy()
    first_day = edited["resolution_date"] == edited["resolution_date"].min()
    edited.loc[first_day, "question"] += " again"
    pd.testing.assert_frame_equal(duplicates(edited, 0.5, kept=store), duplicates(edited, 0.5))
    assert len(_parts(tmp_path)) == 2 * len(files)

    # a damaged part is computed again, never trusted
    for f in files:
        f.write_bytes(b"not a part")
    pd.testing.assert_frame_equal(duplicates(full, 0.5, kept=store), duplicates(full, 0.5))


def test_day_array_reads_an_arrow_date_column_whole_as_it_reads_any_column() -> None:
    import pyarrow as pa

    days = [day(k) for k in (3, 0, 40, 40, 7)]
    arrow = pd.Series(days, dtype=pd.ArrowDtype(pa.date32()))
    expected = np.array([np.datetime64(d, "D") for d in days], dtype="datetime64[D]")
    for column in (arrow, arrow.iloc[1:4], arrow.iloc[::2], arrow.iloc[:0]):
        got = day_array(column)
        assert got.dtype == np.dtype("datetime64[D]")
        assert np.array_equal(got, day_array(column.astype(object)))
    assert np.array_equal(day_array(arrow), expected)
    assert np.array_equal(day_array([d.isoformat() for d in days]), expected)
    with_null = pd.Series([*days, None], dtype=pd.ArrowDtype(pa.date32()))
    with pytest.raises((TypeError, ValueError)):
        day_array(with_null)  # a missing day is an error on either path


def test_english_stopwords_are_scikit_learns_list() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert english_stopwords() == ENGLISH_STOP_WORDS and len(english_stopwords()) == 318
