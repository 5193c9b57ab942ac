"""CC-NEWS listings and the choice of files for a date range."""

from __future__ import annotations

import datetime as dt
import gzip

import pytest

from prescient.crawl.ccnews import (
    ListingError,
    WarcFile,
    count_by_month,
    crawl_window,
    file_crawled_at,
    listing_source,
    months_covering,
    parse_listing,
    select_files,
)

UTC = dt.UTC


def _file(stamp: str, serial: int = 1) -> WarcFile:
    name = f"CC-NEWS-{stamp}-{serial:05d}.warc.gz"
    when = file_crawled_at(name)
    assert when is not None
    return WarcFile(when, f"crawl-data/CC-NEWS/{stamp[:4]}/{stamp[4:6]}/{name}")


def test_file_names_carry_the_utc_crawl_time() -> None:
    assert file_crawled_at("CC-NEWS-20240101012345-00001.warc.gz") == dt.datetime(
        2024, 1, 1, 1, 23, 45, tzinfo=UTC
    )
    assert file_crawled_at("CC-NEWS-20241301012345-00001.warc.gz") is None  # month 13
    assert file_crawled_at("CC-NEWS-2024010101234-00001.warc.gz") is None  # 13 digits
    assert file_crawled_at("CC-NEWS-20240101012345-00001.warc") is None
    assert file_crawled_at("CC-MAIN-20240101012345-00001.warc.gz") is None


def test_listing_paths_and_months_of_a_window() -> None:
    assert listing_source(2024, 1) == "crawl-data/CC-NEWS/2024/01/warc.paths.gz"
    assert months_covering(dt.date(2023, 12, 30), dt.date(2024, 2, 1)) == [
        (2023, 12),
        (2024, 1),
        (2024, 2),
    ]
    assert months_covering(dt.date(2024, 5, 1), dt.date(2024, 5, 31)) == [(2024, 5)]
    # The margin runs after the last day only (pages are crawled after publication).
    assert crawl_window(dt.date(2024, 1, 30), dt.date(2024, 1, 31), 3) == (
        dt.date(2024, 1, 30),
        dt.date(2024, 2, 3),
    )
    with pytest.raises(ValueError, match="before date_start"):
        crawl_window(dt.date(2024, 2, 1), dt.date(2024, 1, 31), 0)


def test_parse_listing_keeps_files_and_reports_other_lines() -> None:
    lines = [
        "crawl-data/CC-NEWS/2024/01/CC-NEWS-20240131235959-00002.warc.gz",
        "",
        "  crawl-data/CC-NEWS/2024/01/CC-NEWS-20240101000000-00001.warc.gz  ",
        "crawl-data/CC-NEWS/2024/01/index.html",
        "elsewhere/CC-NEWS-20240101000000-00003.warc.gz",
    ]
    data = gzip.compress("\n".join(lines).encode())
    listing = parse_listing(data, "x/warc.paths.gz")
    assert [f.name for f in listing.files] == [
        "CC-NEWS-20240131235959-00002.warc.gz",
        "CC-NEWS-20240101000000-00001.warc.gz",
    ]
    assert listing.unrecognised == [
        "crawl-data/CC-NEWS/2024/01/index.html",
        "elsewhere/CC-NEWS-20240101000000-00003.warc.gz",
    ]
    with pytest.raises(ListingError, match="x/warc.paths.gz: not a gzip"):
        parse_listing(b"crawl-data/CC-NEWS/...", "x/warc.paths.gz")


def test_selection_is_by_utc_crawl_day_inclusive_deduplicated_and_ordered() -> None:
    files = [
        _file("20240129235959"),  # the day before: out
        _file("20240130000000", 2),  # first second of the window
        _file("20240130000000", 1),  # same second, lower serial: first
        _file("20240202235959"),  # last second of the window
        _file("20240203000000"),  # one second later: out
    ]
    chosen = select_files([*files, files[1]], dt.date(2024, 1, 30), dt.date(2024, 2, 2), None)
    assert [f.name for f in chosen] == [
        "CC-NEWS-20240130000000-00001.warc.gz",
        "CC-NEWS-20240130000000-00002.warc.gz",
        "CC-NEWS-20240202235959-00001.warc.gz",
    ]
    trial = select_files(files, dt.date(2024, 1, 30), dt.date(2024, 2, 2), 2)
    assert trial == chosen[:2]
    assert count_by_month(chosen) == {"2024-01": 2, "2024-02": 1}
