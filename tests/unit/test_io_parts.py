"""A table written in parts reads back as one table, is identified by the same checksum
as the whole, and is read through one row group at a time."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from prescient import io


def frame(start: int, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": pd.Series([f"a{i}" for i in range(start, start + n)], dtype="string"),
            "date": pd.Series(
                [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(start, start + n)],
                dtype=pd.ArrowDtype(pa.date32()),
            ),
            "text": pd.Series([f"text {i}" if i % 3 else None for i in range(start, start + n)]),
        }
    )


def test_parts_read_back_as_the_whole(tmp_path: Path) -> None:
    parts = [frame(0, 5), frame(5, 1), frame(6, 7)]
    whole = pd.concat(parts, ignore_index=True)
    out = tmp_path / "t.parquet"
    digest = io.write_parquet_parts(out, iter(parts), frame(0, 0))
    assert digest.hexdigest() == io.frame_checksum(whole) == io.parquet_checksum(out)
    pd.testing.assert_frame_equal(pd.read_parquet(out), whole)
    read = list(io.parquet_parts(out, ["id", "date", "absent"]))
    assert [len(p) for p in read] == [5, 1, 7]
    pd.testing.assert_frame_equal(pd.concat(read, ignore_index=True), whole[["id", "date"]])


def test_no_part_writes_the_empty_table_and_a_mismatch_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    io.write_parquet_parts(out, iter([]), frame(0, 0))
    assert list(pd.read_parquet(out).columns) == ["id", "date", "text"]
    digest = io.FrameDigest()
    digest.update(frame(0, 2))
    with pytest.raises(ValueError, match="dtypes"):
        digest.update(frame(0, 2).astype({"id": object}))


def test_rows_are_read_by_their_key_across_row_groups(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    io.write_parquet_parts(path, [frame(0, 5), frame(5, 4)], frame(0, 0))
    got = io.read_parquet_where(path, "id", ["a7", "a1", "a1", "zz"])
    assert got["id"].tolist() == ["a1", "a7"]
    assert got["text"].tolist() == ["text 1", "text 7"]
    none = io.read_parquet_where(path, "id", [])
    assert len(none) == 0 and list(none.columns) == ["id", "date", "text"]
    some = io.read_parquet_where(path, "id", ["a8", "a2"], ["text", "id"])
    assert some.to_dict("list") == {"text": ["text 2", "text 8"], "id": ["a2", "a8"]}
    pd.testing.assert_frame_equal(
        io.read_parquet_where(path, "id", ["a2", "a8"]),
        pd.read_parquet(path).iloc[[2, 8]].reset_index(drop=True),
    )


def test_tables_on_disk_hold_the_last_table_read(tmp_path: Path) -> None:
    paths = {}
    for name, start in (("a", 0), ("b", 10)):
        paths[name] = tmp_path / f"{name}.parquet"
        frame(start, 3).to_parquet(paths[name], index=False)
    tables = io.TablesOnDisk(paths)
    assert list(tables) == ["a", "b"] and len(tables) == 2 and "a" in tables
    first = tables["a"]
    assert tables["a"] is first  # asked again in turn: not read again
    assert tables["b"]["id"].tolist() == ["a10", "a11", "a12"]
    assert tables["a"] is not first  # read again once another was read
    pd.testing.assert_frame_equal(tables["a"], first)


def _reference_cells(values: pd.Series) -> list[object]:
    """The list cells' JSON texts computed one cell at a time, with no memo."""
    return [
        json.dumps([str(x) for x in v]) if isinstance(v, list | tuple | np.ndarray) else v
        for v in values
    ]


def test_list_cells_hash_as_their_json_text_whatever_repeats() -> None:
    cells = [
        np.array([0.0, 1.0]),
        np.array([-0.0, 1.0]),  # equal to the first, not the same bytes
        np.array([0.0, 1.0]),
        np.array([0.0, 1.0], dtype=np.float32),
        np.array([np.nan, 0.5]),
        np.array([1, 2], dtype=np.int64),
        np.array(["a1", "a2"], dtype=object),
        ["a1", "a2"],
        ("a1", "a2"),
        [1, "a1"],
        [1.0, 1],
        [],
        None,
        "plain",
        np.array(["a1", "a2"], dtype=object),
    ]
    values = pd.Series(cells, dtype=object)
    assert io._json_cells(values) == _reference_cells(values)
    assert io._json_cells(values)[1] == '["-0.0", "1.0"]'
    frame = pd.DataFrame({"probs": values, "n": range(len(cells))})
    same = pd.DataFrame({"probs": _reference_cells(values), "n": range(len(cells))})
    assert io.frame_checksum(frame) == _hashed(same, frame)


def _hashed(texts: pd.DataFrame, like: pd.DataFrame) -> str:
    """The checksum of ``like`` from its cells' texts: the dtypes, then the row hashes."""
    import hashlib

    h = hashlib.sha256(json.dumps([[c, str(t)] for c, t in like.dtypes.items()]).encode())
    h.update(pd.util.hash_pandas_object(texts, index=False).to_numpy().tobytes())
    return h.hexdigest()


def test_a_row_reader_reads_only_the_groups_that_hold_the_rows(tmp_path: Path) -> None:
    frame = pd.DataFrame({"n": range(50), "s": [f"row {i}" for i in range(50)]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False, row_group_size=10)
    reader = io.RowReader(path, ["s", "n"], keep_groups=2)
    assert len(reader) == 50
    assert list(reader.rows([41, 3, 47, 40])) == [
        ("row 41", 41),
        ("row 3", 3),
        ("row 47", 47),
        ("row 40", 40),
    ]
    assert reader.groups_read == 2  # groups 4 and 0, each once
    assert list(reader.rows([12, 45])) == [("row 12", 12), ("row 45", 45)]
    assert reader.groups_read == 3  # group 1 replaced group 0, the least recently used
    assert list(reader.rows([5])) == [("row 5", 5)] and reader.groups_read == 4
    with pytest.raises(IndexError, match="no row 50"):
        list(reader.rows([50]))
    with pytest.raises(ValueError, match="no column"):
        io.RowReader(path, ["missing"])


def test_files_of_one_table_read_together_equal_their_frames_concatenated(tmp_path: Path) -> None:
    """A column empty in one file (an Arrow list of nulls) and typed in another, a
    nullable integer, a string column with gaps: the same frame ``pd.concat`` gives."""
    parts = [
        pd.DataFrame({"id": ["a", "b"], "ids": [[], []], "n": pd.array([1, None], "Int64")}),
        pd.DataFrame({"id": ["c"], "ids": [["x", "y"]], "n": pd.array([3], "Int64")}),
        pd.DataFrame({"id": [None, "e"], "ids": [["z"], []], "n": pd.array([None, 5], "Int64")}),
    ]
    paths = []
    for i, part in enumerate(parts):
        paths.append(tmp_path / f"{i}.parquet")
        part.to_parquet(paths[-1], index=False)
    frame, sizes = io.read_parquet_files(paths)
    expected = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    assert sizes == [2, 1, 2]
    assert io.frame_checksum(frame) == io.frame_checksum(expected)
    pd.testing.assert_frame_equal(frame, expected)
    assert io.read_parquet_files([])[1] == []
