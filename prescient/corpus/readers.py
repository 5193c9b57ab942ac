"""Streaming readers for every corpus source, counting what the file physically holds.

Each reader yields one :class:`~prescient.corpus.units.RawRow` per physical unit of its file: a line of JSON
Lines, a record of CSV as the file holds it, a Parquet row, a WARC record
(:mod:`prescient.corpus.warc`). A unit that cannot be read still comes out, carrying
the reason, so the ingest accounting shows where every unit went; a damaged stretch of
a compressed file comes out as a :class:`~prescient.corpus.physical.Damage` event in
place. Readers never hold a whole input in memory and never raise on bad data; only a
configuration that cannot work (a missing file, a column mapping the file does not
have, an unfinished crawl, a crawled file whose bytes changed) raises
:class:`~prescient.corpus.sources.CorpusConfigError`.

The files come from :func:`prescient.corpus.sources.corpus_files`; a crawled file's
sha256 is computed from the bytes as they are read and compared with the manifest's at
the end.
"""

from __future__ import annotations

import csv
import hashlib
import logging
from collections import deque
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from prescient.corpus import physical
from prescient.corpus.physical import Damage, Line
from prescient.corpus.settings import REQUIRED_FIELDS, CorpusSettings
from prescient.corpus.sources import CorpusConfigError, InputFile, check_digest, corpus_files
from prescient.corpus.units import RawRow, Unit
from prescient.corpus.warc import PLAIN, Extraction, read_warc
from prescient.jsonl import LineError, parse_json

logger = logging.getLogger(__name__)

# A JSON source whose first rows lack a mapped key is a configuration error, not bad
# data: look at this many readable rows before deciding.
_SCHEMA_PROBE_ROWS = 200
_CSV_FIELD_LIMIT = 2**31 - 1  # the record bound is enforced per record, below

BLANK_LINE = "blank_line"
MALFORMED_JSON = "malformed_json"
MALFORMED_ROW = "malformed_row"
INVALID_UTF8 = "invalid_utf8"
CORRUPT_PARQUET = "corrupt_parquet"


def _map_fields(obj: Mapping[str, Any], columns: Mapping[str, str | None]) -> dict[str, Any]:
    return {f: (obj.get(col) if col else None) for f, col in columns.items()}


def _check_mapping(
    path: Path, available: set[str], columns: Mapping[str, str | None], exhaustive: bool
) -> None:
    missing = [f"{f} -> {col!r}" for f, col in columns.items() if col and col not in available]
    if missing and (exhaustive or any(columns[f] not in available for f in REQUIRED_FIELDS)):
        raise CorpusConfigError(
            f"{path}: the column mapping names column(s) the file does not have: "
            f"{', '.join(missing)}. Columns present: {sorted(available)[:30]}. "
            "Fix: set corpus.columns.<field>=<column> (e.g. -S corpus.columns.date=published_at), "
            "or null for the optional url/source_domain."
        )


def _line_row(path: Path, line: Line, file_no: int, reason: str | None, detail: str = "") -> RawRow:
    return RawRow(
        f"{path}:{line.number}",
        reason=reason,
        detail=detail,
        file_no=file_no,
        members=(line.first_member, line.last_member),
    )


def _parse_json_line(line: Line) -> tuple[Any, str | None, str]:
    """(object, reason, detail) of one line: every failure of json is a reason."""
    if not line.data.strip():
        return None, BLANK_LINE, ""
    try:
        obj = parse_json(line.data, surrogates=False, want_object=True)
    except LineError as exc:  # bad syntax, huge numbers, deep nesting, a lone surrogate
        if exc.not_utf8:
            return None, INVALID_UTF8, f"{exc.reason} of the line"
        return None, MALFORMED_JSON, str(exc)[:120]
    return obj, None, ""


def read_jsonl(
    path: Path, columns: Mapping[str, str | None], *, max_bytes: int, file_no: int = 0
) -> Iterator[Unit]:
    """JSON Lines, plain or gzip: one row per physical line, blank lines included.

    The column mapping is checked on the first readable rows (a wrong mapping is a
    configuration error), unless the file is damaged: keys garbled by a corrupt gzip
    member are not a configuration, and those rows are counted like any other.
    """
    seen_keys: set[str] = set()
    probed = 0
    checked = False
    for item in physical.lines(physical.chunks(path, file_no), max_bytes):
        if isinstance(item, Damage):
            checked = True
            yield item
            continue
        if item.problem:
            yield _line_row(path, item, file_no, item.problem)
            continue
        obj, reason, detail = _parse_json_line(item)
        if reason:
            yield _line_row(path, item, file_no, reason, detail)
            continue
        if not checked:
            seen_keys.update(obj)
            probed += 1
            if probed >= _SCHEMA_PROBE_ROWS or all(c in seen_keys for c in columns.values() if c):
                _check_mapping(path, seen_keys, columns, exhaustive=False)
                checked = True
        row = _line_row(path, item, file_no, None)
        row.fields = _map_fields(obj, columns)
        yield row
    if not checked and probed:
        _check_mapping(path, seen_keys, columns, exhaustive=False)


class _Unreadable(Exception):
    """A line fed to the CSV parser cannot be used (cut, corrupt, too large)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _CsvFeed:
    """Physical lines for :func:`csv.reader`, remembering the lines of the current record.

    Lines put back (``retry``) are fed again before new ones, which is how reading
    restarts after a record that cannot be read.
    """

    def __init__(self, items: Iterator[Line | Damage], max_bytes: int) -> None:
        self.items = items
        self.max_bytes = max_bytes
        self.pending: deque[Line] = deque()
        self.taken: list[Line] = []
        self.size = 0
        self.damage: list[Damage] = []

    def __iter__(self) -> _CsvFeed:
        return self

    def __next__(self) -> str:
        if self.pending:
            line = self.pending.popleft()
        else:
            item = next(self.items)
            while isinstance(item, Damage):
                self.damage.append(item)
                item = next(self.items)
            line = item
        self.taken.append(line)
        if line.problem:
            raise _Unreadable(line.problem)
        self.size += len(line.data) + 1
        if self.size > self.max_bytes:
            raise _Unreadable(physical.RECORD_TOO_LARGE)
        return line.data.decode("utf-8", "surrogateescape") + "\n"

    def take(self) -> list[Line]:
        """The lines of the record just read; the next record starts empty."""
        taken, self.taken, self.size = self.taken, [], 0
        return taken

    def retry(self, lines: list[Line]) -> None:
        """Feed these lines again, before any new one."""
        self.pending.extendleft(reversed(lines))


def _csv_header(path: Path, reader: Any, feed: _CsvFeed) -> list[str] | None:
    try:
        header = next(reader)
    except StopIteration:
        return None
    except (csv.Error, _Unreadable) as exc:
        raise CorpusConfigError(
            f"{path}: the header row cannot be read ({exc}). Fix: check that the file is "
            "CSV (corpus.format) with a header row of column names."
        ) from None
    feed.take()
    return [str(h) for h in header]


def read_csv(
    path: Path, columns: Mapping[str, str | None], *, max_bytes: int, file_no: int = 0
) -> Iterator[Unit]:
    """CSV with a header row, plain or gzip: one row per record as the file holds it.

    A record that cannot be read (an unbalanced quote, a wrong number of fields, a cut
    or oversized record) loses only its first physical line, counted under the reason;
    reading restarts at the next line, so one stray quote cannot swallow the rows after
    it. A well-formed record may span lines (quoted newlines).
    """
    feed = _CsvFeed(physical.lines(physical.chunks(path, file_no), max_bytes), max_bytes)
    reader = csv.reader(feed, strict=True)
    old_limit = csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        header = _csv_header(path, reader, feed)
        if header is None:
            yield from feed.damage
            return
        _check_mapping(path, set(header), columns, exhaustive=True)
        index = {f: header.index(c) if c else None for f, c in columns.items()}
        yield from _csv_records(path, reader, feed, index, len(header), file_no)
    finally:
        csv.field_size_limit(old_limit)


def _csv_records(
    path: Path,
    reader: Any,
    feed: _CsvFeed,
    index: Mapping[str, int | None],
    width: int,
    file_no: int,
) -> Iterator[Unit]:
    while True:
        reason, detail = None, ""
        try:
            rec = next(reader)
        except StopIteration:
            yield from feed.damage
            return
        except csv.Error as exc:
            rec, reason, detail = [], MALFORMED_ROW, str(exc)
        except _Unreadable as exc:
            rec, reason = [], exc.reason
        yield from feed.damage
        feed.damage.clear()
        taken = feed.take()
        if not taken:
            continue
        if reason is None and len(rec) != width:
            reason = BLANK_LINE if not rec else MALFORMED_ROW
            detail = "" if not rec else f"{len(rec)} fields, the header has {width}"
        first = taken[0]
        if reason is None:
            row = _line_row(path, first, file_no, None)
            row.members = (first.first_member, taken[-1].last_member)
            row.fields = {f: (rec[i] if i is not None else None) for f, i in index.items()}
            yield row
            continue
        if len(taken) > 1:
            # Only the first line is lost; the others are read again as records.
            if reason in (physical.TRUNCATED_RECORD, physical.CORRUPT_GZIP):
                reason = MALFORMED_ROW
                detail = "a record not closed before the end of the readable data"
            feed.retry(taken[1:])
        yield _line_row(path, first, file_no, reason, detail or "")


def read_parquet(
    path: Path, columns: Mapping[str, str | None], *, file_no: int = 0
) -> Iterator[Unit]:
    """Parquet in record batches (bounded memory); a row group that cannot be decoded
    counts each of its rows (from the file's metadata) as ``corrupt_parquet``."""
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a bad footer
        yield Damage(file_no, str(path), CORRUPT_PARQUET, 0, 0, False, str(exc)[:200])
        yield RawRow(f"{path}: footer", reason=CORRUPT_PARQUET, detail=str(exc)[:120])
        return
    _check_mapping(path, set(pf.schema_arrow.names), columns, exhaustive=True)
    wanted = sorted({c for c in columns.values() if c})
    row = 0
    for group in range(pf.metadata.num_row_groups):
        expected = pf.metadata.row_group(group).num_rows
        done = 0
        try:
            for batch in pf.iter_batches(batch_size=2048, row_groups=[group], columns=wanted):
                for obj in batch.to_pylist():
                    row += 1
                    done += 1
                    yield RawRow(f"{path}:row {row}", _map_fields(obj, columns), file_no=file_no)
        except Exception as exc:  # a damaged page or column chunk
            logger.warning("%s: row group %d cannot be decoded: %s", path, group, exc)
            for _ in range(expected - done):
                row += 1
                yield RawRow(
                    f"{path}:row {row}",
                    reason=CORRUPT_PARQUET,
                    detail=f"row group {group}: {str(exc)[:100]}",
                    file_no=file_no,
                )


def read_file(
    corpus: CorpusSettings,
    item: InputFile,
    file_no: int,
    *,
    max_record_bytes: int,
    extraction: Extraction = PLAIN,
) -> Iterator[Unit]:
    """All units of one file of the source, in file order.

    Raises:
        ChecksumError: at the end of a file whose bytes do not have the manifest's sha256.
    """
    digest = hashlib.sha256() if item.sha256 else None
    yield from file_units(
        corpus,
        item.path,
        file_no,
        max_record_bytes=max_record_bytes,
        digest=digest,
        extraction=extraction,
    )
    if digest is not None:
        check_digest(item, digest.hexdigest())


def file_units(
    corpus: CorpusSettings,
    path: Path,
    file_no: int,
    *,
    max_record_bytes: int,
    digest: physical.Digest | None = None,
    extraction: Extraction = PLAIN,
) -> Iterator[Unit]:
    """The units of one file by the source's format; ``digest`` (WARC only) is fed the
    file's bytes as they are read, and ``extraction`` (WARC only) says how pages are
    extracted."""
    columns = corpus.column_map()
    if corpus.format == "jsonl":
        yield from read_jsonl(path, columns, max_bytes=max_record_bytes, file_no=file_no)
    elif corpus.format == "csv":
        yield from read_csv(path, columns, max_bytes=max_record_bytes, file_no=file_no)
    elif corpus.format == "parquet":
        yield from read_parquet(path, columns, file_no=file_no)
    else:
        yield from read_warc(
            path,
            max_bytes=max_record_bytes,
            file_no=file_no,
            hosts=corpus.hosts,
            digest=digest,
            extraction=extraction,
        )


def read_rows(
    corpus: CorpusSettings, *, max_record_bytes: int, extraction: Extraction = PLAIN
) -> Iterator[Unit]:
    """All units of a corpus source, file by file (the files of
    :func:`~prescient.corpus.sources.corpus_files`, in their order).

    Args:
        corpus: the source.
        max_record_bytes: bound on one line or record (larger ones are counted, not read).
        extraction: how WARC pages are extracted.
    """
    for file_no, item in enumerate(corpus_files(corpus)):
        yield from read_file(
            corpus, item, file_no, max_record_bytes=max_record_bytes, extraction=extraction
        )
