"""Masthead suffixes leave titles by one rule, shared by ingest (per source domain) and
the OpenForecast chain builder (over the whole corpus)."""

from __future__ import annotations

import datetime as dt

from prescient.benchmarks.openforecast import linking
from prescient.corpus import titles
from prescient.corpus.accounting import summarize
from prescient.corpus.ingest import ingest_rows
from prescient.corpus.normalize import article_id, normalize_url
from prescient.corpus.readers import RawRow
from tests.support.corpus import BODY, ingest_settings
from tests.support.corpus import article as art

SEPS = [" | ", " - "]


def test_a_suffix_is_a_masthead_only_within_its_own_group() -> None:
    heads = [
        "Storm hits coast | Alpha Πάτρας",
        "Port reopens | ALPHA ΠΆΤΡΑΣ…",
        "Mayor resigns - Beta",
    ]
    t = [*heads, "Rates rise | Alpha Πάτρας", "Tram opens - Beta"]
    groups = ["alpha.example", "alpha.example", "beta.example", "beta.example", "alpha.example"]
    # Per group: "alpha πάτρας" ends 2 of alpha's titles (the ellipsis ignored, any case),
    # "beta" ends 1 of beta's and 1 of alpha's.
    assert titles.mastheads(t, SEPS, 2, groups) == {"alpha.example": {"alpha πάτρας": 2}}
    assert titles.strip_title_suffixes(t, SEPS, 2, groups, drop_ellipsis=False) == [
        "Storm hits coast",
        "Port reopens",
        "Mayor resigns - Beta",
        "Rates rise | Alpha Πάτρας",  # beta.example's only such title
        "Tram opens - Beta",
    ]
    # One group (the chain builder): both suffixes recur.
    assert titles.mastheads(t, SEPS, 2) == {None: {"alpha πάτρας": 3, "beta": 2}}
    assert titles.strip_title_suffixes(t, SEPS, 2) == [
        "Storm hits coast",
        "Port reopens",
        "Mayor resigns",
        "Rates rise",
        "Tram opens",
    ]


def test_stripping_repeats_and_never_empties_a_title_without_the_ellipsis_rule() -> None:
    t = [
        "A - CNN Politics | CNN",
        "B - CNN Politics",
        "D - CNN Politics",
        "... | CNN",
        "C | CNN ...",
    ]
    kept = titles.strip_title_suffixes(t, SEPS, 2, drop_ellipsis=False)
    assert kept == ["A", "B", "D", "...", "C"]
    assert titles.strip_title_suffixes(t, SEPS, 2) == ["A", "B", "D", "", "C"]


def test_the_chain_builder_uses_the_shared_rule() -> None:
    assert linking.strip_title_suffixes is titles.strip_title_suffixes


def test_ingest_strips_each_outlet_s_masthead_and_keeps_ids() -> None:
    def row(i: int, domain: str, title: str) -> RawRow:
        url = f"https://{domain}/{i}"
        return RawRow(
            f"mem:{i}", art(url=url, source_domain=domain, title=title, text=f"{BODY}{i}")
        )

    units = [row(i, "alpha.example", f"Story {i} | Alpha Πάτρας") for i in range(5)]
    units += [row(5 + i, "beta.example", f"Story {i} | Alpha Πάτρας") for i in range(4)]
    no_url = art(url=None, source_domain="alpha.example", title="Story 9 | Alpha Πάτρας")
    units.append(RawRow("mem:9", dict(no_url, text=f"{BODY}9")))
    df, report = ingest_rows(units, ingest_settings(), date_format=None)
    got = dict(zip(df["article_id"], df["title"], strict=True))
    ids = dict(zip(df["url"].fillna(""), df["article_id"], strict=True))
    assert got[ids["https://alpha.example/0"]] == "Story 0"
    assert got[ids["https://beta.example/5"]] == "Story 0 | Alpha Πάτρας"  # 4 < min_count 5
    assert sum(t.endswith("Πάτρας") for t in got.values()) == 4
    # The id of an article without URL is that of its title as read.
    read_id = article_id(None, "Story 9 | Alpha Πάτρας", dt.date(2024, 3, 1))
    assert ids[""] == read_id and got[read_id] == "Story 9"
    assert ids["https://alpha.example/0"] == article_id(
        normalize_url("https://alpha.example/0"), "", dt.date(2024, 3, 1)
    )
    m = summarize(df, report, "x")
    assert m["title_mastheads"] == {"titles_stripped": 6, "mastheads": 1, "source_domains": 1}
    assert m["rows_read"] == 10 == m["rows_kept"]
    # null: titles as read.
    df, report = ingest_rows(
        units, ingest_settings("ingest.title_suffix_min_count=null"), date_format=None
    )
    assert all(t.endswith("| Alpha Πάτρας") for t in df["title"])
    assert summarize(df, report, "x")["title_mastheads"]["titles_stripped"] == 0
