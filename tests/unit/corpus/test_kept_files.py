"""Ingest's outcomes kept per input file: with them, without them, or with some of them,
the article table and the metrics are the same bytes; a later day reuses every file read
before and applies its own ``base.through``; a changed, damaged or large file is read."""

from __future__ import annotations

import datetime as dt
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from prescient import io
from prescient.corpus import kept_files
from prescient.corpus.accounting import summarize
from prescient.corpus.ingest import ingest_corpus_to
from prescient.corpus.kept_files import KeptFiles
from prescient.corpus.language import KeptLanguages
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.kept import KeptStore
from tests.support.corpus import (
    BODY,
    corpus_settings,
    gzip_bytes,
    ingest_settings,
    jsonl_bytes,
    table_bytes,
)
from tests.support.corpus import article as art
from tests.support.kept import flip_payload_byte

DAYS = [dt.date(2024, 3, 1) + dt.timedelta(days=i) for i in range(5)]


def day_rows(day: dt.date) -> list[dict[str, object]]:
    """A day's rows: keepable ones with a masthead, a duplicate of an earlier day's URL,
    a repeated text, a short text, a missing date and a row known only from the next day."""
    d, n = day.isoformat(), day.day
    return [
        *(
            art(
                date=d,
                url=f"https://g.example/{n}/{i}",
                title=f"Story {n}-{i} | The Gazette",
                text=f"{BODY}Story {n} {i}.",
            )
            for i in range(6)
        ),
        art(date=d, url="https://g.example/1/0", title=f"Copy {n}", text=f"{BODY}copy {n}"),
        art(date=d, url=f"https://g.example/{n}/rep", title="Repeat", text=f"{BODY}Story 1 0."),
        art(date=d, url=f"https://g.example/{n}/short", title="Short", text="Too short."),
        art(date="", url=f"https://g.example/{n}/nodate", title="No date"),
        art(
            date=(day + dt.timedelta(days=1)).isoformat(),
            url=f"https://g.example/{n}/ahead",
            title=f"Ahead {n}",
            text=f"{BODY}ahead {n}",
        ),
    ]


def write_day(folder: Path, day: dt.date) -> Path:
    path = folder / f"{day.isoformat()}.jsonl.gz"
    rows = day_rows(day)
    # two gzip members, as a feed that appends to its file writes them
    path.write_bytes(gzip_bytes(jsonl_bytes(rows[:5])) + gzip_bytes(jsonl_bytes(rows[5:])))
    return path


def source(tmp_path: Path, days: list[dt.date]) -> CorpusSettings:
    folder = tmp_path / "news"
    folder.mkdir(exist_ok=True)
    for day in days:
        write_day(folder, day)
    return corpus_settings("jsonl", folder, "corpus.glob=*.jsonl.gz")


def settings(through: dt.date) -> IngestSettings:
    return ingest_settings("ingest.title_suffix_min_count=3").model_copy(
        update={"through": through}
    )


def ingest(
    corpus: CorpusSettings, s: IngestSettings, out: Path, store: KeptStore | None
) -> tuple[dict[str, bytes], dict[str, Any], KeptFiles | None]:
    files = KeptFiles(store, corpus, s) if store is not None else None
    kept = KeptLanguages(store) if store is not None else None
    summary, report, checksum = ingest_corpus_to(corpus, s, out, kept, files)
    assert checksum == io.parquet_checksum(out)  # what ingest records for later stages
    metrics = json.loads(json.dumps(summarize(summary, report, checksum), default=str))
    return table_bytes(out), metrics, files


def test_kept_files_give_the_same_table_and_metrics_and_are_read_once(tmp_path: Path) -> None:
    corpus, s = source(tmp_path, DAYS[:4]), settings(DAYS[3])
    plain, metrics, _ = ingest(corpus, s, tmp_path / "plain.parquet", None)
    assert metrics["dropped"]["after_through"] == 1 and metrics["dropped"]["duplicate_url"] == 4
    assert metrics["title_mastheads"]["titles_stripped"] > 0
    store = KeptStore(tmp_path / "kept")
    for run, (reused, read) in enumerate([(0, 4), (4, 0)]):
        table, again, files = ingest(corpus, s, tmp_path / f"run{run}.parquet", store)
        assert table == plain and again == metrics
        assert files is not None and (files.reused, files.read) == (reused, read)


def test_a_later_day_reuses_every_earlier_file_under_its_own_through(tmp_path: Path) -> None:
    corpus = source(tmp_path, DAYS[:3])
    store = KeptStore(tmp_path / "kept")
    ingest(corpus, settings(DAYS[2]), tmp_path / "first.parquet", store)
    # the next day: one file more, and the row of day 3 known from day 4 is now kept
    write_day(tmp_path / "news", DAYS[3])
    s = settings(DAYS[3])
    plain, metrics, _ = ingest(corpus, s, tmp_path / "plain.parquet", None)
    table, again, files = ingest(corpus, s, tmp_path / "update.parquet", store)
    assert table == plain and again == metrics
    assert files is not None and (files.reused, files.read) == (3, 1)
    assert metrics["dropped"]["after_through"] == 1  # only the new day's row ahead


def test_a_changed_or_damaged_file_part_is_read_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    corpus, s = source(tmp_path, DAYS[:1]), settings(DAYS[4])
    store = KeptStore(tmp_path / "kept")
    ingest(corpus, s, tmp_path / "first.parquet", store)
    [first_part] = [p for p in (tmp_path / "kept" / kept_files.KIND).rglob("*") if p.is_file()]
    for day in DAYS[1:3]:
        write_day(tmp_path / "news", day)
    ingest(corpus, s, tmp_path / "second.parquet", store)
    changed = tmp_path / "news" / f"{DAYS[1].isoformat()}.jsonl.gz"
    changed.write_bytes(gzip_bytes(jsonl_bytes(day_rows(DAYS[1])[:4])))
    flip_payload_byte(first_part, -9)
    plain, metrics, _ = ingest(corpus, s, tmp_path / "plain.parquet", None)
    with caplog.at_level(logging.WARNING):
        table, again, files = ingest(corpus, s, tmp_path / "again.parquet", store)
    assert table == plain and again == metrics
    assert files is not None and files.read == 2 and files.reused == 1
    assert "fails its digest" in caplog.text


def test_a_corrupt_member_is_counted_the_same_from_a_kept_file(tmp_path: Path) -> None:
    corpus, s = source(tmp_path, DAYS[:2]), settings(DAYS[2])
    path = tmp_path / "news" / f"{DAYS[0].isoformat()}.jsonl.gz"
    rows = day_rows(DAYS[0])
    middle = bytearray(gzip_bytes(jsonl_bytes(rows[3:6])))
    middle[-6] ^= 0x01  # the member's CRC-32 no longer matches
    path.write_bytes(
        gzip_bytes(jsonl_bytes(rows[:3])) + bytes(middle) + gzip_bytes(jsonl_bytes(rows[6:]))
    )
    plain, metrics, _ = ingest(corpus, s, tmp_path / "plain.parquet", None)
    assert metrics["dropped"]["corrupt_gzip"] == 3
    store = KeptStore(tmp_path / "kept")
    for run in range(2):
        table, again, files = ingest(corpus, s, tmp_path / f"run{run}.parquet", store)
        assert table == plain and again == metrics
    assert files is not None and files.reused == 2


def test_a_file_too_large_to_keep_is_read_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, s = source(tmp_path, DAYS[:2]), settings(DAYS[2])
    plain, metrics, _ = ingest(corpus, s, tmp_path / "plain.parquet", None)
    store = KeptStore(tmp_path / "kept")
    for limit in (200, 8_000):  # under a file's bytes; over its bytes, under its texts
        monkeypatch.setattr(kept_files, "MAX_FILE_CHARS", limit)
        for run in range(2):
            table, again, files = ingest(corpus, s, tmp_path / f"run{run}.parquet", store)
            assert table == plain and again == metrics
            assert files is not None and (files.reused, files.read, files.too_large) == (0, 2, 2)
    assert not (tmp_path / "kept" / kept_files.KIND).exists()


def test_an_update_reads_the_kept_texts_of_its_own_month_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The table's other months keep their parts, so their files' texts stay unread; a
    kept file's texts missing from the store are read from the file again."""
    days = [dt.date(2024, 2, 27), dt.date(2024, 2, 28), dt.date(2024, 3, 1)]
    corpus = source(tmp_path, days)
    store = KeptStore(tmp_path / "kept")
    out = tmp_path / "articles.parquet"
    ingest(corpus, settings(days[-1]), out, store)
    for day in (dt.date(2024, 3, 2), dt.date(2024, 3, 3)):
        write_day(tmp_path / "news", day)
        if day.day == 3:  # every kept text lost: the kept files of March are read again
            for part in (tmp_path / "kept" / kept_files.TEXTS).rglob("*"):
                if part.is_file():
                    part.unlink()
        plain, metrics, _ = ingest(corpus, settings(day), tmp_path / f"plain{day.day}", None)
        with caplog.at_level(logging.WARNING):
            table, again, files = ingest(corpus, settings(day), out, store)
        assert table == plain and again == metrics
        assert files is not None and files.read == 1
        # February's two files are never read; March's kept files are (one, then two)
        assert files.texts_read == day.day - 1
    lost = [r for r in caplog.records if "are not in the store" in r.getMessage()]
    assert len(lost) == 2
