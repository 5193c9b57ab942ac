"""The article table as month parts: a month whose rows did not change keeps its file,
the table is the same bytes as one written from nothing, and every reader reads the
directory as the table in one file."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prescient import io
from prescient.corpus import table as table_mod
from prescient.corpus.ingest import ingest_corpus, ingest_corpus_to
from prescient.kept import KeptChecksums, KeptStore
from tests.support.corpus import BODY, corpus_settings, ingest_settings, jsonl_bytes
from tests.support.corpus import article as art


def rows(days: int, extra: int = 0) -> list[dict[str, object]]:
    out = []
    for i in range(days):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=i * 9)
        out.append(art(date=day.isoformat(), url=f"https://g.example/{i}", text=f"{BODY}S {i}."))
    for j in range(extra):  # late in the last month
        out.append(
            art(date="2024-03-30", url=f"https://g.example/late{j}", text=f"{BODY}Late {j}.")
        )
    return out


def ingest(tmp_path: Path, name: str, data: list[dict[str, object]], out: Path) -> str:
    source = tmp_path / f"{name}.jsonl"
    source.write_bytes(jsonl_bytes(data))
    return ingest_corpus_to(corpus_settings("jsonl", source), ingest_settings(), out)[2]


def tree(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_an_unchanged_month_keeps_its_file_and_the_table_equals_a_fresh_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "kept" / "articles.parquet"
    ingest(tmp_path, "a", rows(10), out)  # January to March
    before = {p.name: p.stat().st_ino for p in out.iterdir()}
    caplog.set_level("INFO", logger=table_mod.__name__)
    checksum = ingest(tmp_path, "b", rows(10, extra=2), out)  # March gains two rows
    assert "2 month parts kept, 1 written" in caplog.text
    after = {p.name: p.stat().st_ino for p in out.iterdir()}
    assert after["2024-01.parquet"] == before["2024-01.parquet"]  # the same file, linked
    assert after["2024-03.parquet"] != before["2024-03.parquet"]
    fresh = tmp_path / "fresh" / "articles.parquet"
    assert ingest(tmp_path, "b", rows(10, extra=2), fresh) == checksum
    assert tree(out) == tree(fresh)
    assert checksum == io.parquet_checksum(out)
    manifest = json.loads((out / io.TABLE_MANIFEST).read_text())
    assert sorted(manifest["parts"]) == ["2024-01", "2024-02", "2024-03"]
    assert sum(p["rows"] for p in manifest["parts"].values()) == 12


def test_a_part_whose_file_or_manifest_does_not_agree_is_written_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "articles.parquet"
    ingest(tmp_path, "a", rows(10), out)
    fresh = tree(out)
    caplog.set_level("INFO", logger=table_mod.__name__)
    part = out / "2024-02.parquet"
    part.unlink()
    part.write_bytes(fresh["2024-02.parquet"] + b"x")  # another size
    ingest(tmp_path, "a", rows(10), out)
    assert "2 month parts kept, 1 written" in caplog.text
    assert tree(out) == fresh
    (out / io.TABLE_MANIFEST).write_text("{")  # unreadable: nothing is kept
    caplog.clear()
    ingest(tmp_path, "a", rows(10), out)
    assert "0 month parts kept, 3 written" in caplog.text
    assert tree(out) == fresh


def test_a_table_in_one_file_is_replaced_and_a_failed_write_keeps_the_old_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "articles.parquet"
    io.write_parquet(out, pd.DataFrame({"a": [1]}))  # an older layout's single file
    ingest(tmp_path, "a", rows(10), out)
    assert out.is_dir() and sorted(p.name for p in tmp_path.iterdir()) == [
        "a.jsonl",
        "articles.parquet",
    ]
    before = tree(out)

    def broken(*_: object, **__: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(io, "write_parquet_parts", broken)
    with pytest.raises(OSError, match="disk full"):
        ingest(tmp_path, "b", rows(10, extra=1), out)
    assert tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "articles.parquet", "b.jsonl"]


@pytest.mark.parametrize("group_rows", [2, 1024])
def test_the_readers_read_a_directory_as_the_table_in_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, group_rows: int
) -> None:
    monkeypatch.setattr(table_mod, "ROW_GROUP_ROWS", group_rows)
    source = tmp_path / "a.jsonl"
    source.write_bytes(jsonl_bytes(rows(20)))
    whole, _ = ingest_corpus(corpus_settings("jsonl", source), ingest_settings())
    out = tmp_path / "articles.parquet"
    ingest_corpus_to(corpus_settings("jsonl", source), ingest_settings(), out)
    one = tmp_path / "one.parquet"
    io.write_parquet_parts(one, [whole.iloc[:7], whole.iloc[7:]], whole.iloc[:0], text=True)
    assert len(io.table_files(out)) == 6
    with io.ParquetTable(out) as parts:  # 20 rows in 6 months: 3 or 4 a month
        assert parts.num_row_groups == (12 if group_rows == 2 else 6)
    for path in (out, one):
        pd.testing.assert_frame_equal(io.read_table(path), whole)
        pd.testing.assert_frame_equal(
            io.read_table(path, ["date", "title"]), whole[["date", "title"]]
        )
        pd.testing.assert_frame_equal(
            pd.concat(io.parquet_parts(path, ["article_id", "nope"]), ignore_index=True),
            whole[["article_id"]],
        )
        ids = whole["article_id"].iloc[[3, 11, 17]].tolist()
        pd.testing.assert_frame_equal(
            io.read_parquet_where(path, "article_id", ids),
            whole.iloc[[3, 11, 17]].reset_index(drop=True),
        )
        assert io.read_parquet_where(path, "article_id", []).columns.tolist() == list(whole)
        reader = io.RowReader(path, ["article_id", "text"])
        positions = [19, 0, 8, 7, 12]
        assert list(reader.rows(positions)) == [
            (whole["article_id"][i], whole["text"][i]) for i in positions
        ]
        with io.ParquetTable(path) as table:
            assert table.num_rows == 20
            assert sum(table.row_group_rows(g) for g in range(table.num_row_groups)) == 20
            assert sum(b.num_rows for b in table.iter_batches(["date"])) == 20
    assert io.parquet_checksum(out) != io.parquet_checksum(one)  # parts are named
    kept = KeptChecksums(KeptStore(tmp_path / "kept"))
    assert kept.checksum(out) == io.parquet_checksum(out) == kept.checksum(out)


def test_a_directory_without_parts_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / io.TABLE_MANIFEST).write_text("{}")
    with pytest.raises(ValueError, match="t: a table directory without a Parquet file"):
        io.table_files(tmp_path / "t")


def test_a_month_key_covers_every_value_and_not_the_order() -> None:
    writer = b"w"
    a = [["x", "2024-01-01", None], ["y", "2024-01-02", "u"]]
    assert table_mod.month_key(writer, a) == table_mod.month_key(writer, a[::-1])
    assert table_mod.month_key(writer, a) != table_mod.month_key(b"v", a)
    assert table_mod.month_key(writer, a) != table_mod.month_key(
        writer, [["x", "2024-01-01", "None"], a[1]]
    )
    assert table_mod.part_name(int(np.int64(2024 * 12 + 11))) == "2024-12"
