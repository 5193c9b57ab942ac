from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prescient.benchmarks.daily_oracle.select import (
    KeptDays,
    SelectSettings,
    day_seed,
    hot_topic_clusters,
    select_articles,
)
from prescient.kept import KeptStore
from prescient.plumbing import params
from prescient.seeds import derive_seed
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT, SHARED_NEWS


@functools.cache
def shipped(*overrides: str) -> SelectSettings:
    """The shipped `select` section, with Hydra overrides."""
    return load_settings(SelectSettings, params.compose(ROOT, list(overrides)), "select")


TOPICS = {
    "bridge": "The harbour bridge vote in Port Velden council approved funding for the bridge repairs and the bridge toll",
    "vaccine": "Brightwell vaccine trial results show the vaccine reduced illness; regulators will review the vaccine data",
    "football": "The Gulls beat the Rangers in the league match; the striker scored twice and the league leaders extended",
}
FILLER = [
    "A bakery in Ellisford won a regional prize for its rye bread recipe and plans a second shop",
    "The weather office expects a mild autumn with light winds along the northern coast this week",
    "A new bicycle lane opened downtown after two years of planning and public consultations with residents",
    "The museum extended its opening hours for the summer season to welcome more visiting families",
    "Local chess club celebrates fifty years with a tournament drawing players from six towns",
]


def day_frame(day: dt.date, n_per_topic: int = 3, prefix: str = "") -> pd.DataFrame:
    rows = []
    for topic, text in TOPICS.items():
        for i in range(n_per_topic):
            rows.append(
                (
                    f"{prefix}{day}-{topic}-{i}",
                    day,
                    f"{topic} story {i}",
                    f"{text} (angle {i}, outlet {i * 7})",
                )
            )
    for i, text in enumerate(FILLER):
        rows.append((f"{prefix}{day}-filler-{i}", day, f"filler {i}", text))
    return pd.DataFrame(rows, columns=["article_id", "date", "title", "text"])


def test_hot_topics_come_from_distinct_clusters_and_random_fills_the_rest() -> None:
    day = dt.date(2024, 5, 2)
    out, m = select_articles(day_frame(day), shipped(), base_seed=1)
    hot = out[out["selection"] == "hot_topic"]
    assert len(hot) == 3 and len(out) == 6
    assert {aid.split("-")[3] for aid in hot["article_id"]} == set(TOPICS)
    assert hot["cluster_size"].tolist() == [3, 3, 3]
    assert out["article_id"].is_unique
    assert m["clusters_per_day"] == {"3": 1} and m["hot_topic_padded_with_random"] == 0


def test_fewer_clusters_are_padded_with_random_articles_and_counted() -> None:
    day = dt.date(2024, 5, 2)
    df = day_frame(day)
    df = df[~df["article_id"].str.contains("football|vaccine")]
    out, m = select_articles(df, shipped(), base_seed=1)
    assert (out["selection"] == "hot_topic").sum() == 1
    assert len(out) == 6 and out["padded"].sum() == 2
    assert m["hot_topic_padded_with_random"] == 2


def test_small_days_take_what_there_is() -> None:
    day = dt.date(2024, 5, 2)
    out, m = select_articles(day_frame(day, n_per_topic=1).head(4), shipped(), base_seed=1)
    assert len(out) == 4 and m["days_with_fewer_than_target_candidates"] == 1


def test_selection_is_deterministic_and_independent_of_other_days() -> None:
    d1, d2 = dt.date(2024, 5, 2), dt.date(2024, 5, 3)
    one = select_articles(day_frame(d1), shipped(), base_seed=7)[0]
    both = select_articles(pd.concat([day_frame(d2), day_frame(d1)]), shipped(), base_seed=7)[0]
    again = select_articles(pd.concat([day_frame(d1), day_frame(d2)]), shipped(), base_seed=7)[0]
    same_day = both[both["date"] == d1].reset_index(drop=True)
    pd.testing.assert_frame_equal(same_day, one)
    pd.testing.assert_frame_equal(both, again)
    assert day_seed(7, d1) == derive_seed(7, "select", d1)
    assert day_seed(7, d1) != day_seed(8, d1) != day_seed(7, d2)


def test_date_range_limits_the_days() -> None:
    df = pd.concat([day_frame(dt.date(2024, 5, d)) for d in (1, 2, 3)])
    out, m = select_articles(
        df, shipped("select.date_start=2024-05-02", "select.date_end=2024-05-02"), 1
    )
    assert m["days"] == 1 and set(out["date"]) == {dt.date(2024, 5, 2)}


def test_incoherent_clusters_are_dropped() -> None:
    texts = [
        TOPICS["bridge"] + f" reported by outlet{i} with commentary{i}" for i in range(3)
    ] + FILLER
    good, bad = hot_topic_clusters(texts, shipped("select.min_coherence=0.99"))
    assert good == [] and len(bad) == 1
    good, bad = hot_topic_clusters(texts, shipped())
    assert len(good) == 1 and good[0].members == (0, 1, 2) and good[0].coherence > 0.3


@pytest.mark.shared
@pytest.mark.skipif(not SHARED_NEWS.exists(), reason="../shared news corpus is absent")
def test_selection_on_one_real_month() -> None:
    """June 2022 of shared_news: every day selected, clusters found on most days."""
    from prescient.corpus.ingest import ingest_rows
    from prescient.corpus.readers import read_rows
    from tests.support.corpus import corpus_settings, ingest_settings

    window = ingest_settings("ingest.date_start=2022-06-01", "ingest.date_end=2022-06-30")
    units = read_rows(
        corpus_settings("jsonl", SHARED_NEWS), max_record_bytes=window.max_record_bytes
    )
    articles, _ = ingest_rows(units, window, date_format=None)
    out, m = select_articles(articles, shipped(), base_seed=20240501)
    assert m["days"] == 30
    assert m["articles_selected"] >= 6 * 29
    assert out.groupby("date")["article_id"].nunique().min() >= 5
    days_without = m["clusters_per_day"].get("0", 0)
    assert days_without <= 6, m["clusters_per_day"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["select.max_features='eight hundred'"], "select.max_features: "),
        (["select.n_random=-1"], "select.n_random: "),
        (["select.svd_components=1.5"], "select.svd_components: "),
        (["select.date_end=2024-13-01"], "select.date_end: expected a day as YYYY-MM-DD"),
        (
            ["select.date_start=2024-05-03", "select.date_end=2024-05-02"],
            "select.date_end: is before date_start 2024-05-03",
        ),
    ],
)
def test_bad_settings_are_one_line_naming_the_parameter(overrides: list[str], message: str) -> None:
    with pytest.raises(ParamsError) as err:
        load_settings(SelectSettings, params.compose(ROOT, overrides), "select")
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text
    assert "fix it in conf/ or with -S" in text


def test_parts_of_the_table_select_as_the_whole_table() -> None:
    """The stage reads the table a row group at a time; a day may span two parts."""
    days = [dt.date(2024, 3, d) for d in (4, 5, 6)]
    whole = pd.concat([day_frame(d, prefix=f"{d.day}-") for d in days], ignore_index=True)
    whole = whole.sort_values(["date", "article_id"], ignore_index=True)
    cut1, cut2 = 7, len(whole) - 3  # inside the first and the last day
    parts = [whole.iloc[:cut1], whole.iloc[cut1:cut2], whole.iloc[cut2:], whole.iloc[:0]]
    expected = select_articles(whole, shipped(), base_seed=3)
    got = select_articles(iter(parts), shipped(), base_seed=3)
    pd.testing.assert_frame_equal(got[0], expected[0])
    assert got[1] == expected[1]
    with pytest.raises(ValueError, match="sorted by date"):
        select_articles(iter([whole.iloc[cut2:], whole.iloc[:cut1]]), shipped(), base_seed=3)


def test_kept_days_give_the_same_table_and_only_changed_days_are_clustered_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    days = [dt.date(2024, 5, d) for d in range(1, 7)]
    df = pd.concat([day_frame(d, n_per_topic=2 + d.day % 3) for d in days], ignore_index=True)
    expected = select_articles(df, shipped(), base_seed=5)
    kept = KeptDays(KeptStore(tmp_path / "select"))
    for _ in range(2):  # fills the store, then reads it
        got = select_articles(df, shipped(), base_seed=5, kept_days=kept)
        pd.testing.assert_frame_equal(got[0], expected[0])
        assert got[1] == expected[1]
    assert (kept.computed, kept.reused) == (6, 6)
    # One day's text edited and another day's stored selection damaged: those two are
    # clustered again, and the table is what a run without the store gives.
    edited = df.copy()
    edited.loc[edited["article_id"] == "2024-05-02-bridge-0", "text"] += " (corrected)"
    fifth = df[df["date"] == days[4]].sort_values("article_id").reset_index(drop=True)
    damaged = kept.store._path("days", kept._name(fifth, shipped(), day_seed(5, days[4])))
    damaged.write_bytes(damaged.read_bytes()[:-2])
    kept = KeptDays(KeptStore(tmp_path / "select"))
    got = select_articles(edited, shipped(), base_seed=5, kept_days=kept)
    pd.testing.assert_frame_equal(got[0], select_articles(edited, shipped(), base_seed=5)[0])
    assert kept.computed == 2 and kept.reused == 4
    assert "unreadable" in caplog.text or "fails its digest" in caplog.text
    other = shipped("select.eps=0.6")  # a deciding setting: nothing of the above is found
    kept = KeptDays(KeptStore(tmp_path / "select"))
    got = select_articles(df, other, base_seed=5, kept_days=kept)
    pd.testing.assert_frame_equal(got[0], select_articles(df, other, base_seed=5)[0])
    assert kept.reused == 0


def test_kept_days_are_named_by_the_texts_digests_and_only_missing_days_read_texts(
    tmp_path: Path,
) -> None:
    days = [dt.date(2024, 5, d) for d in range(1, 7)]
    df = pd.concat([day_frame(d, n_per_topic=2 + d.day % 3) for d in days], ignore_index=True)
    df = df.sort_values(["date", "article_id"]).reset_index(drop=True)
    expected = select_articles(df, shipped(), base_seed=5)
    store = KeptStore(tmp_path / "select")
    select_articles(df[df["date"] < days[-1]], shipped(), base_seed=5, kept_days=KeptDays(store))
    # the table as the stage reads it with a store: digests and row positions, no texts
    digests = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in df["text"]]
    meta = df.drop(columns=["text"]).assign(text_sha256=digests, row=range(len(df)))
    asked: list[int] = []

    def texts(rows: Sequence[int]) -> list[str]:
        asked.extend(rows)
        return [str(df["text"].iloc[r]) for r in rows]

    kept = KeptDays(store, texts)
    got = select_articles(meta, shipped(), base_seed=5, kept_days=kept)
    pd.testing.assert_frame_equal(got[0], expected[0])
    assert got[1] == expected[1]
    assert (kept.reused, kept.computed) == (5, 1)
    assert sorted(asked) == np.flatnonzero(df["date"] == days[-1]).tolist()
