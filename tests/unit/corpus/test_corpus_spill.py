"""The article table written a month at a time from spilled texts equals the one built in
memory: same rows, same order, same checksum; the spill leaves nothing behind."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import pytest

from prescient import io
from prescient.corpus import spill
from prescient.corpus.ingest import ingest_corpus, ingest_corpus_to
from tests.support.corpus import BODY, corpus_settings, ingest_settings, jsonl_bytes
from tests.support.corpus import article as art


def rows() -> list[dict[str, object]]:
    out = []
    for i in range(60):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=(i * 37) % 200)
        out.append(
            art(
                date=day.isoformat(),
                url=f"https://g.example/{i % 50}",  # ten repeated urls
                text=f"{BODY}Story {i % 55}.",  # and five repeated texts
                title=f"Story {i} | The Gazette",
            )
        )
    return out


@pytest.mark.parametrize("flush_bytes", [1, 5_000, 10**9])
def test_a_table_written_by_month_equals_the_one_built_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flush_bytes: int
) -> None:
    monkeypatch.setattr(spill, "FLUSH_BYTES", flush_bytes)
    source = tmp_path / "news.jsonl"
    source.write_bytes(jsonl_bytes(rows()))
    corpus = corpus_settings("jsonl", source)
    settings = ingest_settings("ingest.title_suffix_min_count=3")
    whole, report = ingest_corpus(corpus, settings)
    out = tmp_path / "out" / "articles.parquet"
    summary, streamed, checksum = ingest_corpus_to(corpus, settings, out)
    pd.testing.assert_frame_equal(io.read_table(out), whole)
    pd.testing.assert_frame_equal(pd.read_parquet(out), whole)  # a dataset to pyarrow too
    assert checksum == io.parquet_checksum(out)
    parts = io.table_files(out)
    assert len(parts) > 1 and [p.stem for p in parts] == sorted(
        {d.strftime("%Y-%m") for d in whole["date"]}
    )
    assert sorted(summary["date"]) == sorted(whole["date"].tolist())
    assert streamed.dropped == report.dropped and report.dropped["duplicate_url"] > 0
    assert report.titles_stripped > 0  # mastheads counted over records without texts
    assert [p.name for p in out.parent.iterdir()] == ["articles.parquet"]  # no spill left


def test_a_spill_write_that_fails_stops_the_reader_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full buffers are written on another thread; a write that fails is raised where
    the texts are next needed, never a month of texts silently missing."""

    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(spill, "_write_batch", broken)
    disk = spill.DiskSpill(tmp_path, flush_bytes=1)
    disk.put(0, 0, "a text")  # flushed: the failing write runs aside
    with pytest.raises(OSError, match="disk full"):
        disk.texts(0)
    disk.close()
    assert list(tmp_path.iterdir()) == []
