"""The synthetic corpus of bench/bench_scale.py: deterministic, a day's lines independent
of the span, the shared corpus's fields and the paper's shape."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import sys
from pathlib import Path

import numpy as np

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import scale_corpus  # noqa: E402

DAY = dt.date(2024, 12, 30)  # a Monday


def test_a_day_is_a_function_of_the_day_alone() -> None:
    vocab = scale_corpus.vocabulary()
    assert scale_corpus.day_lines(DAY, vocab) == scale_corpus.day_lines(DAY, vocab)


def test_a_daily_feed_holds_the_same_lines_and_one_more_day_adds_one_file(
    tmp_path: Path,
) -> None:
    feed, one = tmp_path / "feed", tmp_path / "one.jsonl.gz"
    scale_corpus.write_corpus(DAY, DAY + dt.timedelta(days=1), one)
    counts = scale_corpus.write_daily(DAY, DAY + dt.timedelta(days=1), feed)
    assert counts["files_written"] == 2
    files = sorted(feed.iterdir())
    assert b"".join(gzip.decompress(f.read_bytes()) for f in files) == gzip.decompress(
        one.read_bytes()
    )
    before = {f.name: f.stat().st_mtime_ns for f in files}
    counts = scale_corpus.write_daily(DAY, DAY + dt.timedelta(days=2), feed)
    assert counts["files_written"] == 1 and counts["days"] == 3
    assert {f.name: f.stat().st_mtime_ns for f in files} == before


def test_one_more_day_keeps_the_earlier_lines(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    scale_corpus.write_corpus(DAY, DAY, a)
    scale_corpus.write_corpus(DAY, DAY + dt.timedelta(days=1), b)
    lines_a = gzip.decompress(a.read_bytes())
    lines_b = gzip.decompress(b.read_bytes())
    assert lines_b.startswith(lines_a) and len(lines_b) > len(lines_a)


def test_shape() -> None:
    rows = [
        json.loads(x) for x in scale_corpus.day_lines(DAY, scale_corpus.vocabulary()).splitlines()
    ]
    assert set(rows[0]) == {"date", "title", "text", "url", "source_domain"}
    assert {r["date"] for r in rows} == {DAY.isoformat()}
    assert len({r["url"] for r in rows}) == len(rows)
    assert {r["source_domain"] for r in rows} <= set(scale_corpus.DOMAINS)
    words = np.array([len(r["text"].split()) for r in rows])
    assert 700 < words.mean() < 900
    assert max(len(r["text"]) for r in rows) < 10_000
    weekday = np.mean([scale_corpus.day_count(DAY + dt.timedelta(days=i)) for i in range(5)])
    weekend = np.mean([scale_corpus.day_count(DAY + dt.timedelta(days=i)) for i in (5, 6)])
    assert weekend < 0.8 * weekday
    start, end = scale_corpus.span_for_scale(1.0)
    assert (start, end) == (dt.date(2019, 1, 1), dt.date(2024, 12, 31))
    assert (end - scale_corpus.span_for_scale(0.01)[0]).days + 1 == 22
