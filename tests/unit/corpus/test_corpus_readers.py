"""Readers count what files physically hold, and damaged files cost only what is damaged.

Each test reproduces one way a real input goes wrong (a stray quote, an interrupted
download, a corrupt member, a byte-order mark, a huge field...) and checks the exact
accounting: rows read = physical lines or records, each lost unit under a named reason
with file and line or byte offset, and nothing raised.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from prescient.corpus import physical
from prescient.corpus.physical import Chunk, Damage
from tests.support.corpus import (
    BODY,
    article,
    articles,
    csv_bytes,
    gzip_bytes,
    ingest_settings,
    jsonl_bytes,
    run,
    small_warc,
)


def nonzero(m: dict[str, object]) -> dict[str, int]:
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    return {k: v for k, v in dropped.items() if v}


def balanced(m: dict[str, object]) -> bool:
    dropped = m["dropped"]
    assert isinstance(dropped, dict)
    return (
        m["rows_read"]
        == m["rows_kept"] + sum(dropped.values())
        == (
            m["rows_kept"] + m["dropped_total"]  # type: ignore[operator]
        )
    )


# --- CSV --------------------------------------------------------------------------------


def test_one_unbalanced_quote_loses_one_line_not_the_rows_after_it(tmp_path: Path) -> None:
    lines = csv_bytes(articles(50)).decode().splitlines(keepends=True)
    # Data row 10 (line 11) opens a quote it never closes.
    lines[10] = lines[10].replace(",Story 9,", ',"Story 9,', 1)
    p = tmp_path / "news.csv"
    p.write_text("".join(lines))
    df, report, m = run("csv", p)
    assert m["rows_read"] == 50 and m["rows_kept"] == 49
    assert nonzero(m) == {"malformed_row": 1}
    assert report.examples["malformed_row"] == [f"{p}:11: unexpected end of data"]
    assert "Story 9" not in set(df["title"]) and "Story 10" in set(df["title"])


def test_a_quote_closed_inside_a_later_row_is_one_lost_line(tmp_path: Path) -> None:
    rows = articles(6)
    lines = csv_bytes(rows, quote_all=True).decode().splitlines(keepends=True)
    lines[2] = lines[2].replace('"Story 1"', '"Story 1', 1)  # swallows up to row 3's quote
    p = tmp_path / "news.csv"
    p.write_text("".join(lines))
    df, _, m = run("csv", p)
    assert m["rows_read"] == 6 and m["rows_kept"] == 5 and nonzero(m) == {"malformed_row": 1}
    assert balanced(m)


def test_a_csv_field_over_the_csv_module_limit_is_read_and_filtered(tmp_path: Path) -> None:
    rows = articles(3)
    rows[1]["text"] = "x" * 200_000  # the csv module's default limit is 131,072
    p = tmp_path / "news.csv"
    p.write_bytes(csv_bytes(rows))
    _, _, m = run("csv", p)
    assert m["rows_read"] == 3 and nonzero(m) == {"text_too_long": 1}
    # Past ingest.max_record_bytes the record is not held, only counted.
    df, report, m = run("csv", p, ingest_settings("ingest.max_record_bytes=100000"))
    assert m["rows_read"] == 3 and nonzero(m) == {"record_too_large": 1}
    assert report.examples["record_too_large"] == [f"{p}:3"]
    assert len(df) == 2


def test_a_multi_line_record_too_large_loses_its_first_line(tmp_path: Path) -> None:
    rows = articles(2)
    rows[0]["text"] = "\n".join(["y" * 1000] * 3)  # a quoted field over three lines
    p = tmp_path / "news.csv"
    p.write_bytes(csv_bytes(rows))
    _, report, m = run("csv", p, ingest_settings("ingest.max_record_bytes=2048"))
    # Line 2 is lost; lines 3 and 4 are read again as records (one field each).
    assert m["rows_read"] == 4 and m["rows_kept"] == 1
    assert nonzero(m) == {"record_too_large": 1, "malformed_row": 2}
    assert report.examples["record_too_large"] == [f"{p}:2"]


def test_a_byte_order_mark_is_not_part_of_the_first_column_name(tmp_path: Path) -> None:
    p = tmp_path / "news.csv"
    p.write_bytes(b"\xef\xbb\xbf" + csv_bytes(articles(2)))
    df, _, m = run("csv", p)
    assert m["rows_read"] == 2 and len(df) == 2


def test_a_truncated_gzip_csv_counts_the_cut_record(tmp_path: Path) -> None:
    data = csv_bytes(articles(20))
    packed = gzip_bytes(data)
    p = tmp_path / "news.csv.gz"
    p.write_bytes(packed[: len(packed) * 3 // 4])
    df, report, m = run("csv", p)
    cut = json.dumps(m["damage"])
    assert "truncated_gzip" in cut and str(p) in cut
    assert nonzero(m) == {"truncated_record": 1}
    assert m["rows_kept"] == m["rows_read"] - 1 > 0  # type: ignore[operator]


# --- JSON Lines -------------------------------------------------------------------------


def test_jsonl_rows_are_physical_lines_blank_and_hostile_ones_included(tmp_path: Path) -> None:
    lines = [
        b"\xef\xbb\xbf" + json.dumps(article(url="https://g.example/bom")).encode(),
        b"[" * 200_000,
        b'{"date": ' + b"1" * 5000 + b"}",
        json.dumps(article(url="https://g.example/nan", title=float("nan"))).encode(),
        b'{"title": Infinity}',
        json.dumps(article(url="https://g.example/7", title=7.0)).encode(),
        b"",
        b"   ",
        b'{"title": "cut',
    ]
    p = tmp_path / "news.jsonl"
    p.write_bytes(b"\n".join(lines))  # no newline after the last line
    df, report, m = run("jsonl", p)
    assert m["rows_read"] == 9
    assert list(df["url"]) == ["https://g.example/bom"]  # the BOM row is kept
    assert nonzero(m) == {
        "blank_line": 2,
        "malformed_json": 3,
        "invalid_field_type": 3,
    }
    assert [e.split(": ", 1)[0] for e in report.examples["malformed_json"]] == [
        f"{p}:2",
        f"{p}:3",
        f"{p}:9",
    ]
    assert "nested too deeply" in report.examples["malformed_json"][0]
    assert "digits" in report.examples["malformed_json"][1]
    assert report.examples["invalid_field_type"][0] == f"{p}:4: title holds a float"
    assert not df["title"].isin(["nan", "inf", "7.0"]).any()


def test_a_line_over_the_bound_is_skipped_without_holding_it(tmp_path: Path) -> None:
    big = json.dumps(article(url="https://g.example/big", text="z" * 50_000)).encode()
    rows = [json.dumps(r).encode() for r in articles(2)]
    p = tmp_path / "news.jsonl"
    p.write_bytes(rows[0] + b"\n" + big + b"\n" + rows[1] + b"\n")
    df, report, m = run("jsonl", p, ingest_settings("ingest.max_record_bytes=10000"))
    assert m["rows_read"] == 3 and nonzero(m) == {"record_too_large": 1}
    assert report.examples["record_too_large"] == [f"{p}:2"]
    assert len(df) == 2


def test_a_truncated_gzip_keeps_the_complete_lines_and_counts_the_cut_one(tmp_path: Path) -> None:
    data = jsonl_bytes(articles(30))
    packed = gzip_bytes(data)
    p = tmp_path / "news.jsonl.gz"
    p.write_bytes(packed[: len(packed) // 2])
    df, report, m = run("jsonl", p)
    import zlib

    prefix = zlib.decompressobj(31).decompress(packed[: len(packed) // 2])
    complete = prefix.count(b"\n")
    assert 0 < complete < 30
    assert m["rows_read"] == complete + 1 and m["rows_kept"] == complete
    assert nonzero(m) == {"truncated_record": 1}
    assert m["damage"] == [
        {
            "file": str(p),
            "reason": "truncated_gzip",
            "byte": 0,
            "member": 0,
            "detail": f"the file ends inside a gzip member ({len(packed) // 2} bytes of it)",
        }
    ]
    assert report.examples["truncated_record"] == [f"{p}:{complete + 1}"]


def test_a_corrupt_member_keeps_nothing_it_held_and_the_other_members_survive(
    tmp_path: Path,
) -> None:
    parts = [jsonl_bytes(articles(30)[i * 10 : (i + 1) * 10]) for i in range(3)]
    members = [gzip_bytes(part) for part in parts]
    middle = bytearray(members[1])
    middle[-6] ^= 0x01  # the CRC-32 of member 1 no longer matches
    p = tmp_path / "news.jsonl.gz"
    p.write_bytes(members[0] + bytes(middle) + members[2])
    df, report, m = run("jsonl", p)
    assert m["rows_read"] == 30
    assert nonzero(m) == {"corrupt_gzip": 10}
    assert sorted(df["title"]) == sorted(f"Story {i}" for i in [*range(10), *range(20, 30)])
    [damage] = m["damage"]
    assert damage["reason"] == "corrupt_gzip" and damage["member"] == 1
    assert damage["byte"] == len(members[0]) and "incorrect data check" in damage["detail"]


def test_a_flipped_byte_inside_deflate_data_loses_only_its_member(tmp_path: Path) -> None:
    members = [gzip_bytes(jsonl_bytes(articles(20)[i * 10 : (i + 1) * 10])) for i in range(2)]
    first = bytearray(members[0])
    first[len(first) // 2] ^= 0x10
    p = tmp_path / "news.jsonl.gz"
    p.write_bytes(bytes(first) + members[1])
    df, _, m = run("jsonl", p)
    assert sorted(df["title"]) == sorted(f"Story {i}" for i in range(10, 20))
    assert m["rows_kept"] == 10 and set(nonzero(m)) <= {"corrupt_gzip", "malformed_json"}
    assert balanced(m)


def test_bytes_after_the_last_member_are_reported_and_the_rows_kept(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl.gz"
    p.write_bytes(gzip_bytes(jsonl_bytes(articles(5))) + b"\x00" * 100)
    df, _, m = run("jsonl", p)
    assert len(df) == 5 and m["rows_read"] == 6 and nonzero(m) == {"corrupt_gzip": 1}
    assert m["damage"][0]["detail"] == "100 bytes that are not gzip data"  # type: ignore[index]


def test_a_gzip_name_without_gzip_content_is_damage_not_a_crash(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl.gz"
    p.write_bytes(jsonl_bytes(articles(3)))
    df, _, m = run("jsonl", p)
    assert len(df) == 0 and m["rows_read"] == 1 and nonzero(m) == {"corrupt_gzip": 1}


# --- Parquet ------------------------------------------------------------------------


def test_float_titles_in_parquet_are_not_text(tmp_path: Path) -> None:
    frame = pd.DataFrame(articles(3))
    frame["title"] = [float("nan"), 7.0, float("inf")]
    p = tmp_path / "news.parquet"
    frame.to_parquet(p)
    df, _, m = run("parquet", p)
    # Arrow stores a float column's NaN as null: no title; the other floats are no text.
    assert len(df) == 0 and nonzero(m) == {"missing_title": 1, "invalid_field_type": 2}


def test_a_truncated_parquet_file_is_damage(tmp_path: Path) -> None:
    p = tmp_path / "news.parquet"
    pd.DataFrame(articles(3)).to_parquet(p)
    p.write_bytes(p.read_bytes()[:-20])
    df, _, m = run("parquet", p)
    assert len(df) == 0 and nonzero(m) == {"corrupt_parquet": 1}
    assert m["damage"][0]["reason"] == "corrupt_parquet"  # type: ignore[index]


# --- WARC ---------------------------------------------------------------------------


@pytest.mark.parametrize("gz", [False, True])
def test_a_truncated_warc_counts_the_cut_record_never_half_an_article(
    tmp_path: Path, gz: bool
) -> None:
    w = small_warc(gz)
    cut = w.starts[-1] + (40 if gz else 900)
    p = tmp_path / ("cc.warc.gz" if gz else "cc.warc")
    p.write_bytes(w.bytes()[:cut])
    df, report, m = run("warc", p)
    assert m["rows_read"] == 4  # warcinfo + three responses, the last one cut
    assert nonzero(m) == {"not_a_response": 1, "truncated_record": 1}
    assert sorted(df["title"]) == ["Harbour story 0", "Harbour story 1"]
    [example] = report.examples["truncated_record"]
    if gz:
        assert example.startswith(f"{p}:record 4 in the gzip member at byte {w.starts[-1]}:")
        assert m["damage"][0]["reason"] == "truncated_gzip"  # type: ignore[index]
        assert m["damage"][0]["byte"] == w.starts[-1]  # type: ignore[index]
    else:
        assert example.startswith(f"{p}:record 4 @ byte {w.starts[-1]} (")
        assert "content bytes" in example and m["damage"] == []


def test_a_block_that_fails_its_digest_is_corrupt(tmp_path: Path) -> None:
    w = small_warc(False)
    data = bytearray(w.bytes())
    at = data.index(b"Paragraph 2", w.starts[2])
    data[at] = ord("p")
    p = tmp_path / "cc.warc"
    p.write_bytes(bytes(data))
    df, report, m = run("warc", p)
    assert m["rows_read"] == 4 and nonzero(m) == {"not_a_response": 1, "corrupt_record": 1}
    assert "Harbour story 1" not in set(df["title"])
    assert report.examples["corrupt_record"][0].startswith(f"{p}:record 3 @ byte {w.starts[2]}")


def test_a_wrong_content_length_costs_one_record(tmp_path: Path) -> None:
    w = small_warc(False)
    data = w.bytes()
    head_end = data.index(b"\r\n\r\n", w.starts[2])
    header = data[w.starts[2] : head_end]
    length = int(header.rsplit(b"Content-Length: ", 1)[1])
    wrong = header.replace(
        f"Content-Length: {length}".encode(), f"Content-Length: {length + 7}".encode()
    )
    p = tmp_path / "cc.warc"
    p.write_bytes(data[: w.starts[2]] + wrong + data[head_end:])
    df, report, m = run("warc", p)
    assert m["rows_read"] == 4 and nonzero(m) == {"not_a_response": 1, "malformed_record": 1}
    assert sorted(df["title"]) == ["Harbour story 0", "Harbour story 2"]


def test_garbage_between_records_is_one_unit_and_reading_resumes(tmp_path: Path) -> None:
    w = small_warc(False)
    data = w.bytes()
    p = tmp_path / "cc.warc"
    p.write_bytes(data[: w.starts[2]] + b"junk" * 50 + data[w.starts[2] :])
    df, report, m = run("warc", p)
    assert m["rows_read"] == 5 and nonzero(m) == {"not_a_response": 1, "malformed_record": 1}
    assert report.examples["malformed_record"] == [
        f"{p}:record 3 @ byte {w.starts[2]}: 200 bytes that are not a record"
    ]
    assert len(df) == 3


# --- the physical layer --------------------------------------------------------------


def test_lines_keep_offsets_and_members_across_chunks() -> None:
    items = iter(
        [
            Chunk(b"\xef\xbb\xbfab", 0),
            Chunk(b"c\nde", 0),
            Chunk(b"f\n\ng", 1),
        ]
    )
    out = list(physical.lines(items, 100))
    assert [(x.number, x.offset, x.data, x.first_member, x.last_member) for x in out] == [  # type: ignore[union-attr]
        (1, 3, b"abc", 0, 0),
        (2, 7, b"def", 0, 1),
        (3, 11, b"", 1, 1),
        (4, 12, b"g", 1, 1),
    ]


def test_damage_cuts_the_partial_line_and_stands_for_an_empty_member() -> None:
    cut = Damage(0, "f", physical.TRUNCATED_GZIP, 1, 50, True, "")
    lost = Damage(0, "f", physical.CORRUPT_GZIP, 2, 90, False, "")
    out = list(physical.lines(iter([Chunk(b"a\nb", 0), cut, lost, Chunk(b"c\n", 3)]), 100))
    kinds = [(x.data, x.problem) if not isinstance(x, Damage) else x.reason for x in out]
    assert kinds == [
        (b"a", None),
        (b"", physical.TRUNCATED_RECORD),
        physical.TRUNCATED_GZIP,
        (b"", physical.CORRUPT_GZIP),
        physical.CORRUPT_GZIP,
        (b"c", None),
    ]


def test_row_text_matches_the_input_exactly(tmp_path: Path) -> None:
    p = tmp_path / "news.jsonl"
    p.write_bytes(jsonl_bytes([article(text=BODY + "naïve café — ✓")]))
    df, _, _ = run("jsonl", p)
    assert df.loc[0, "text"] == BODY + "naïve café — ✓"


def test_records_of_a_warc_gz_are_addressed_by_their_member_offset(tmp_path: Path) -> None:
    w = small_warc(True)
    data = bytearray(w.bytes())
    data[w.starts[2] + 30] ^= 0xFF  # inside record 3's deflate data
    p = tmp_path / "cc.warc.gz"
    p.write_bytes(bytes(data))
    df, report, m = run("warc", p)
    assert m["rows_read"] == 4 and sorted(df["title"]) == ["Harbour story 0", "Harbour story 2"]
    [example] = report.examples["corrupt_gzip"]
    assert example.startswith(f"{p}:record 3 in the gzip member at byte {w.starts[2]}:")
    assert [d["byte"] for d in m["damage"]] == [w.starts[2]]  # type: ignore[union-attr]
