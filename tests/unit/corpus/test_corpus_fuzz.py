"""Damaged inputs, generated: nothing raises and every physical unit is accounted for.

Truncation at every byte offset of a small gzip file and of a small WARC (plain and
gzip), random byte flips and stray quotes. For each: no exception, ``rows_read`` equals
the physical lines or records the readable bytes hold (computed independently: zlib
for the gzip prefix, the writer's record offsets for WARC), ``rows_read == rows_kept +
dropped_total``, and no damaged input yields an article the intact input does not hold.
"""

from __future__ import annotations

import functools
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prescient.corpus import warc
from prescient.corpus.accounting import summarize
from prescient.corpus.ingest import ingest_rows
from prescient.corpus.physical import Damage
from prescient.corpus.readers import RawRow, Unit, read_csv, read_jsonl
from tests.support.corpus import (
    FIELDS,
    Warc,
    articles,
    csv_bytes,
    gzip_bytes,
    ingest_settings,
    jsonl_bytes,
    page,
)

COLUMNS: dict[str, str | None] = {f: f for f in FIELDS}
SETTINGS = ingest_settings()
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(autouse=True)
def _cheap_extraction(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The same page always extracts the same way: memoise trafilatura for speed."""
    monkeypatch.setattr(warc, "_trafilatura", functools.cache(warc._trafilatura))
    yield


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A directory for thousands of small files: memory-backed where there is one."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm) as d:
        yield Path(d)


def units(items: Iterable[Unit]) -> tuple[int, set[str], list[Damage]]:
    """Reader-level accounting: (rows, texts of readable rows, damage)."""
    rows, texts, damage = 0, set(), []
    for item in items:
        if isinstance(item, Damage):
            damage.append(item)
            continue
        assert isinstance(item, RawRow)
        rows += 1
        if item.reason is None:
            texts.add(str(item.fields["text"]))
    return rows, texts, damage


def account(units: Iterator[Unit]) -> tuple[dict[str, Any], set[str]]:
    df, report = ingest_rows(units, SETTINGS, date_format=None)
    m = summarize(df, report, "x")
    assert m["rows_read"] == m["rows_kept"] + m["dropped_total"]
    return m, set(df["text"])


def jsonl(path: Path) -> tuple[dict[str, Any], set[str]]:
    return account(read_jsonl(path, COLUMNS, max_bytes=SETTINGS.max_record_bytes))


def csv(path: Path) -> tuple[dict[str, Any], set[str]]:
    return account(read_csv(path, COLUMNS, max_bytes=SETTINGS.max_record_bytes))


def warcs(path: Path) -> tuple[dict[str, Any], set[str]]:
    return account(warc.read_warc(path, max_bytes=SETTINGS.max_record_bytes))


def small_pages(gz: bool) -> Warc:
    """warcinfo, two article pages (short: record framing is what is under test) and a
    request."""
    w = Warc(gz)
    w.info()
    for i in range(2):
        w.response(
            f"https://velden-post.example/2024/05/0{i + 1}/s{i}",
            page(f"Harbour story {i}", 1, f"2024-05-0{i + 1}"),
            warc_date=f"2024-05-0{i + 1}T18:00:00Z",
        )
    w.request("https://velden-post.example/")
    return w


JSONL_GZ = gzip_bytes(jsonl_bytes(articles(5)))
WARC_PLAIN = small_pages(False)
WARC_GZ = small_pages(True)


def test_the_intact_files_are_read_whole(scratch: Path) -> None:
    p = scratch / "a.jsonl.gz"
    p.write_bytes(JSONL_GZ)
    m, _ = jsonl(p)
    assert (m["rows_read"], m["rows_kept"]) == (5, 5)
    for w, name in ((WARC_PLAIN, "a.warc"), (WARC_GZ, "a.warc.gz")):
        p = scratch / name
        p.write_bytes(w.bytes())
        m, _ = warcs(p)
        assert (m["rows_read"], m["damage"]) == (4, [])
        assert m["dropped"]["text_too_short"] == 2 and m["dropped"]["not_a_response"] == 2
        rows, texts, _ = units(warc.read_warc(p, max_bytes=1 << 20))
        assert rows == 4 and len(texts) == 2


def test_gzip_jsonl_truncated_at_every_offset(scratch: Path) -> None:
    p = scratch / "a.jsonl.gz"
    for cut in range(len(JSONL_GZ) + 1):
        p.write_bytes(JSONL_GZ[:cut])
        rows, texts, damage = units(read_jsonl(p, COLUMNS, max_bytes=1 << 20))
        prefix = zlib.decompressobj(31).decompress(JSONL_GZ[:cut])
        lost = 1 if 0 < cut < len(JSONL_GZ) and not prefix.endswith(b"\n") else 0
        assert rows == prefix.count(b"\n") + lost, cut
        assert len(texts) == prefix.count(b"\n"), cut
        assert bool(damage) == (0 < cut < len(JSONL_GZ)), cut
        if cut % 17 == 0:  # the whole ingest on a sample of the cuts
            m, kept = jsonl(p)
            assert m["rows_read"] == rows and len(kept) == len(texts), cut


@pytest.mark.parametrize("w", [WARC_PLAIN, WARC_GZ], ids=["warc", "warc.gz"])
def test_warc_truncated_at_every_offset(scratch: Path, w: Warc) -> None:
    data = w.bytes()
    p = scratch / ("a.warc.gz" if w is WARC_GZ else "a.warc")
    p.write_bytes(data)
    readable = [
        r for r in warc.read_warc(p, max_bytes=1 << 20) if isinstance(r, RawRow) and not r.reason
    ]
    text = dict(zip(w.pages, (str(r.fields["text"]) for r in readable), strict=True))
    for cut in range(len(data) + 1):
        p.write_bytes(data[:cut])
        rows, texts, _ = units(warc.read_warc(p, max_bytes=1 << 20))
        assert rows == sum(start < cut for start in w.starts), cut
        if w is WARC_PLAIN:
            # A record is whole once its content is; the separator after it is optional.
            assert texts == {text[i] for i in w.pages if w.ends[i] - 4 <= cut}, cut
        else:
            assert {text[i] for i in w.pages if w.ends[i] <= cut} <= texts, cut
            assert texts <= {text[i] for i in w.pages if w.starts[i] < cut}, cut
        if cut % 97 == 0:  # the whole ingest on a sample of the cuts
            m, _ = warcs(p)
            assert m["rows_read"] == rows, cut


def flip(data: bytes, flips: list[tuple[int, int]], start: int = 0) -> bytes:
    out = bytearray(data)
    for at, mask in flips:
        out[start + at % (len(data) - start)] ^= mask
    return bytes(out)


flips = st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(1, 255)), min_size=1, max_size=3)


@FUZZ
@given(flips)
def test_flipped_bytes_in_gzip_jsonl(scratch: Path, fl: list[tuple[int, int]]) -> None:
    p = scratch / "a.jsonl.gz"
    p.write_bytes(JSONL_GZ)
    _, full = jsonl(p)
    p.write_bytes(flip(JSONL_GZ, fl))
    m, texts = jsonl(p)
    # The CRC-32 catches what flips did to the text, unless a flip ends the deflate
    # stream early: that reads as a cut download, whose complete lines are kept.
    if not any(d["reason"] == "truncated_gzip" for d in m["damage"]):
        assert texts <= full


@FUZZ
@given(flips, st.sampled_from(["warc", "warc.gz"]))
def test_flipped_bytes_in_warc(scratch: Path, fl: list[tuple[int, int]], kind: str) -> None:
    w = WARC_GZ if kind == "warc.gz" else WARC_PLAIN
    p = scratch / f"a.{kind}"
    p.write_bytes(w.bytes())
    _, full = warcs(p)
    p.write_bytes(flip(w.bytes(), fl))
    m, texts = warcs(p)
    assert texts <= full  # block digests and CRC-32s catch changed content
    assert m["rows_read"] >= 1


CSV_ROWS = articles(12)
CSV_DATA = csv_bytes(CSV_ROWS)
CSV_HEADER = CSV_DATA.index(b"\n") + 1


@FUZZ
@given(flips)
def test_flipped_bytes_in_csv_rows(scratch: Path, fl: list[tuple[int, int]]) -> None:
    p = scratch / "a.csv"
    damaged = flip(CSV_DATA, fl, start=CSV_HEADER)
    p.write_bytes(damaged)
    m, _ = csv(p)
    lines = damaged[CSV_HEADER:].count(b"\n") + (0 if damaged.endswith(b"\n") else 1)
    assert 1 <= m["rows_read"] <= lines


def stray_quotes(draw: Callable[..., Any]) -> tuple[bytes, int, int, int]:
    """A CSV with a quote inserted into some rows.

    Returns (data, rows, rows where the quote opens a field, rows where it lands in the
    date). A quote inside a field just before a comma or the line end is not inserted:
    it would close an earlier stray quote cleanly, and the lines between would then be
    one valid record with a multi-line field, as the format defines it.
    """
    n = draw(st.integers(1, 12))
    lines = csv_bytes(CSV_ROWS[:n]).split(b"\n")
    opened = in_date = 0
    for i in draw(st.sets(st.integers(1, n), max_size=n)):
        line = lines[i]
        at = draw(st.integers(0, len(line)))
        starts_field = at == 0 or line[at - 1 : at] == b","
        if not starts_field and (at == len(line) or line[at : at + 1] == b","):
            continue
        if starts_field:
            opened += 1
        elif at <= len("2024-03-01"):
            in_date += 1
        lines[i] = line[:at] + b'"' + line[at:]
    return b"\n".join(lines), n, opened, in_date


@FUZZ
@given(st.data())
def test_stray_quotes_cost_only_their_own_lines(scratch: Path, data: st.DataObject) -> None:
    content, n, opened, in_date = stray_quotes(data.draw)
    p = scratch / "a.csv"
    p.write_bytes(content)
    m, _ = csv(p)
    assert m["rows_read"] == n
    # A quote opening a field swallows its line (reading restarts at the next one); a
    # quote inside a field is a character of it (and spoils a date).
    assert m["dropped"]["malformed_row"] == opened
    assert m["dropped"]["unparseable_date"] == in_date
    assert m["rows_kept"] == n - opened - in_date
