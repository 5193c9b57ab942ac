"""Streaming readers for every corpus source.

Each reader yields one ``RawRow`` per input row (a JSON line, a CSV record, a Parquet
row, a WARC response record), never holding the whole input in memory. A row that
cannot be read still comes out, carrying the reason, so the ingest accounting can show
where every input row went.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

logger = logging.getLogger(__name__)

ARTICLE_FIELDS = ("date", "title", "text", "url", "source_domain")
REQUIRED_FIELDS = ("date", "title", "text")
FORMATS = ("jsonl", "csv", "parquet", "warc")

# A JSON/CSV source whose first rows lack a mapped column is a configuration error,
# not bad data: look at this many readable rows before deciding.
_SCHEMA_PROBE_ROWS = 200
# Pages larger than this are not articles (and would cost memory to parse).
MAX_HTML_BYTES = 5_000_000


class CorpusConfigError(ValueError):
    """The corpus configuration cannot work (missing file, wrong column mapping...)."""


@dataclass
class RawRow:
    """One input row in article-field terms, or the reason it could not be read.

    Attributes:
        where: ``file:line`` (or ``file:record``) for error messages and examples.
        fields: article field -> raw value (None when absent).
        reason: why the row is unusable at read time (None when readable).
        notes: counters the reader wants reported without dropping the row
            (e.g. ``date_from_warc``).
    """

    where: str
    fields: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    notes: tuple[str, ...] = ()


def _open_text(path: Path) -> IO[str]:
    """Text stream that keeps undecodable bytes as surrogates, so they can be counted."""
    raw = gzip.open(path, "rb") if _is_gzip(path) else open(path, "rb")  # noqa: SIM115
    return io.TextIOWrapper(
        cast(IO[bytes], raw), encoding="utf-8", errors="surrogateescape", newline=""
    )


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _has_surrogates(values: Mapping[str, Any]) -> bool:
    for v in values.values():
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


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


def read_jsonl(path: Path, columns: Mapping[str, str | None]) -> Iterator[RawRow]:
    """JSON Lines, plain or gzip; malformed lines and non-UTF-8 lines are reasons."""
    seen_keys: set[str] = set()
    probed = 0
    checked = False
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            if not line.strip():
                continue  # blank lines are not rows
            try:
                line.encode("utf-8")
            except UnicodeEncodeError:
                yield RawRow(where, reason="invalid_utf8")
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                yield RawRow(where, reason="malformed_json")
                continue
            if not isinstance(obj, dict):
                yield RawRow(where, reason="malformed_json")
                continue
            if not checked:
                seen_keys.update(obj)
                probed += 1
                if probed >= _SCHEMA_PROBE_ROWS or all(
                    c in seen_keys for c in columns.values() if c
                ):
                    _check_mapping(path, seen_keys, columns, exhaustive=False)
                    checked = True
            yield RawRow(where, _map_fields(obj, columns))
    if not checked and probed:
        _check_mapping(path, seen_keys, columns, exhaustive=False)


def read_csv(path: Path, columns: Mapping[str, str | None]) -> Iterator[RawRow]:
    """CSV with a header row, plain or gzip; short/long records are ``malformed_row``."""
    with _open_text(path) as fh:
        reader = csv.DictReader(fh, restkey="\x00extra", restval=None)
        header = set(reader.fieldnames or [])
        _check_mapping(path, header, columns, exhaustive=True)
        for rec in reader:
            where = f"{path}:{reader.line_num}"
            if "\x00extra" in rec or any(v is None for v in rec.values()):
                yield RawRow(where, reason="malformed_row")
                continue
            if _has_surrogates(rec):
                yield RawRow(where, reason="invalid_utf8")
                continue
            yield RawRow(where, _map_fields(rec, columns))


def read_parquet(path: Path, columns: Mapping[str, str | None]) -> Iterator[RawRow]:
    """Parquet in record batches (bounded memory)."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    _check_mapping(path, set(pf.schema_arrow.names), columns, exhaustive=True)
    wanted = sorted({c for c in columns.values() if c})
    row = 0
    for batch in pf.iter_batches(batch_size=2048, columns=wanted):
        for obj in batch.to_pylist():
            row += 1
            yield RawRow(f"{path}:row {row}", _map_fields(obj, columns))


def read_warc(path: Path) -> Iterator[RawRow]:
    """HTTP response records of a WARC/WARC.gz, with the article extracted from HTML.

    Only response records are rows; request, metadata and warcinfo records are skipped
    (they are not candidate articles). The page's own publication date is used when
    trafilatura finds one; otherwise the WARC-Date, noted as ``date_from_warc``.
    """
    import trafilatura
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        for n, record in enumerate(ArchiveIterator(fh), start=1):
            if record.rec_type != "response":
                continue
            uri = record.rec_headers.get_header("WARC-Target-URI")
            where = f"{path}:record {n} ({uri})"
            warc_date = record.rec_headers.get_header("WARC-Date")
            http = record.http_headers
            ctype = (http.get_header("Content-Type") if http else "") or ""
            status = http.get_statuscode() if http else None
            if status and not str(status).startswith("2"):
                yield RawRow(where, reason="http_error_status")
                continue
            if "html" not in ctype.lower():
                yield RawRow(where, reason="non_html_response")
                continue
            stream = record.content_stream()
            body = stream.read(MAX_HTML_BYTES + 1)
            if len(body) > MAX_HTML_BYTES:
                yield RawRow(where, reason="html_too_large")
                continue
            try:
                doc = trafilatura.bare_extraction(
                    body,
                    url=uri,
                    with_metadata=True,
                    include_comments=False,
                    include_tables=False,
                    date_extraction_params={"extensive_search": False, "original_date": True},
                )
            except Exception:  # trafilatura raises many things on broken pages
                logger.debug("trafilatura failed on %s", where, exc_info=True)
                doc = None
            data = doc.as_dict() if doc is not None and hasattr(doc, "as_dict") else doc
            if not isinstance(data, dict) or not (data.get("text") or "").strip():
                yield RawRow(where, reason="unparseable_html")
                continue
            title = data.get("title") or ""
            text = _strip_leading_title(data.get("text") or "", title)
            notes: tuple[str, ...] = ()
            date = data.get("date")
            if not date:
                date = _warc_day(warc_date)
                notes = ("date_from_warc",)
            yield RawRow(
                where,
                {
                    "date": date,
                    "title": title,
                    "text": text,
                    "url": uri,
                    "source_domain": None,
                },
                notes=notes,
            )


def _strip_leading_title(text: str, title: str) -> str:
    """trafilatura often repeats the headline as the first line of the body."""
    first, _, rest = text.partition("\n")
    if title and first.strip() == title.strip():
        return rest
    return text


def _warc_day(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        return None


def input_files(path: Path, fmt: str, glob: str | None) -> list[Path]:
    """The files a corpus configuration points at, with a clear error when there are none."""
    if fmt not in FORMATS:
        raise CorpusConfigError(
            f"corpus.format={fmt!r} is not supported; use one of {', '.join(FORMATS)}."
        )
    if not path.exists():
        raise CorpusConfigError(
            f"{path}: the corpus input does not exist. Fix: create it, or point "
            "corpus.path at your file (e.g. -S corpus.path=data/raw/news.jsonl.gz)."
        )
    if path.is_dir():
        pattern = glob or "*"
        files = sorted(p for p in path.glob(pattern) if p.is_file())
        if not files:
            raise CorpusConfigError(
                f"{path}: no files match corpus.glob={pattern!r}. Fix: set corpus.glob."
            )
        return files
    return [path]


def read_rows(
    path: Path, fmt: str, columns: Mapping[str, str | None] | None, glob: str | None = None
) -> Iterator[RawRow]:
    """All rows of a corpus source, file by file in name order."""
    files = input_files(path, fmt, glob)
    if fmt != "warc":
        if not columns:
            raise CorpusConfigError(
                f"corpus.columns is required for format {fmt!r} (article field -> column)."
            )
        unknown = sorted(set(columns) - set(ARTICLE_FIELDS))
        absent = [f for f in REQUIRED_FIELDS if not columns.get(f)]
        if unknown or absent:
            raise CorpusConfigError(
                f"corpus.columns must map {', '.join(ARTICLE_FIELDS)} "
                f"(date, title, text required); unknown: {unknown}, unmapped: {absent}."
            )
        columns = {f: columns.get(f) for f in ARTICLE_FIELDS}
    for f in files:
        if fmt == "jsonl":
            yield from read_jsonl(f, columns or {})
        elif fmt == "csv":
            yield from read_csv(f, columns or {})
        elif fmt == "parquet":
            yield from read_parquet(f, columns or {})
        else:
            yield from read_warc(f)
