"""WARC records (plain or gzip) as corpus rows, every record accounted for.

Records are framed here, from the WARC headers' Content-Length, rather than by a
library that stops quietly at a cut: each record of the file is one row. A record that
the end of the file (or a damaged gzip member) cuts is ``truncated_record`` (or
``corrupt_gzip``), never an article with half its text; a block whose
WARC-Block-Digest does not match is ``corrupt_record``; bytes that are not a record
(a wrong Content-Length, garbage) are ``malformed_record``, and reading resumes at the
next ``WARC/1.x`` header. Complete response records are parsed with warcio and their
HTML extracted with trafilatura. An optional allow-list of hosts is checked on the
record's WARC-Target-URI first, so a record of another site costs only its framing
(``host_not_allowed``): no digest, no HTTP parsing, no extraction.

The publication date is the page's own when trafilatura finds one, otherwise the
WARC-Date, noted as ``date_from_warc``. Each row carries its crawl day (the WARC-Date),
so the ingest checks can drop a page dated after it was fetched (``future_date``). No
date depends on the day the stage runs.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from prescient.corpus import physical
from prescient.corpus.physical import Chunk, Damage, Digest
from prescient.corpus.units import RawRow, Unit
from prescient.dates import parse_date

logger = logging.getLogger(__name__)

NOT_A_RESPONSE = "not_a_response"
HOST_NOT_ALLOWED = "host_not_allowed"
MALFORMED_RECORD = "malformed_record"
CORRUPT_RECORD = "corrupt_record"

_MAX_HEADER_BYTES = 64 * 1024
_RECORD_MAGIC = b"WARC/1."
_TRAILER = b"\r\n\r\n"
_LINE_BREAKS = (bytearray(b"\r"), bytearray(b"\n"))  # the blank lines between records
# The date extractor (htmldate) discards dates after its ``max_date``, which defaults to
# the day it runs. A fixed bound far beyond any crawl keeps dates a function of the page
# alone; dates after the crawl are then dropped, visibly, by the ingest checks.
_EXTRACTOR_MAX_DATE = "2099-12-31"


@dataclass(frozen=True)
class _Framed:
    """One record cut out of the stream: its header block and (maybe) its content block."""

    offset: int
    headers: dict[str, str]
    header_bytes: bytes
    block: bytes | None  # None: larger than the bound, skipped unread
    members: tuple[int, int]


class _Stream:
    """Decompressed bytes with look-ahead, stopping at damage until it is handled."""

    def __init__(self, items: Iterator[Chunk | Damage]) -> None:
        self.items = items
        self.buf = bytearray()
        self.base = 0  # decompressed offset of buf[0]
        self.marks: list[tuple[int, int]] = []  # (offset, member) where chunks begin
        self.gap: Damage | None = None
        self.ended = False
        self.last_member = 0
        self.member_offsets: dict[int, int] = {}  # gzip member -> its byte offset in the file

    def fill(self, n: int) -> bool:
        """Buffer at least ``n`` bytes unless damage or the end comes first."""
        while len(self.buf) < n and self.gap is None and not self.ended:
            item = next(self.items, None)
            if item is None:
                self.ended = True
            elif isinstance(item, Damage):
                self.gap = item
            else:
                self.marks.append((self.base + len(self.buf), item.member))
                self.last_member = item.member
                if item.member_offset is not None:
                    self.member_offsets[item.member] = item.member_offset
                self.buf += item.data
        return len(self.buf) >= n

    def member_at(self, offset: int) -> int:
        member = self.last_member
        for start, m in reversed(self.marks):
            if start <= offset:
                return m
            member = m
        return member

    def find(self, needle: bytes, start: int, limit: int) -> int:
        """Index of ``needle`` in the buffer at or after ``start``, reading up to ``limit``."""
        while True:
            at = self.buf.find(needle, start, limit + len(needle))
            if at >= 0:
                return at
            if len(self.buf) >= limit + len(needle) or not self.fill(len(self.buf) + 1):
                return -1

    def consume(self, n: int) -> bytes:
        out = bytes(self.buf[:n])
        del self.buf[:n]
        self.base += n
        keep = [m for m in self.marks if m[0] >= self.base]
        before = [m for m in self.marks if m[0] < self.base]
        self.marks = ([(self.base, before[-1][1])] if before else []) + keep
        return out

    def skip(self, n: int) -> bool:
        """Drop ``n`` bytes, streaming; False when damage or the end came first."""
        while n > 0:
            if not self.buf and not self.fill(1):
                return False
            step = min(n, len(self.buf))
            self.consume(step)
            n -= step
        return True

    def push_back(self, data: bytes) -> None:
        self.buf[0:0] = data
        self.base -= len(data)
        self.marks.insert(0, (self.base, self.member_at(self.base + len(data))))

    def take_gap(self) -> Damage | None:
        """The pending damage, once the bytes before it are gone; reading resumes after it."""
        gap, self.gap = self.gap, None
        self.base += len(self.buf)
        self.buf.clear()
        self.marks.clear()
        return gap


def _parse_headers(block: bytes) -> dict[str, str] | None:
    lines = block.decode("utf-8", "replace").split("\r\n")
    if not lines[0].startswith("WARC/1."):
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers.setdefault(name.strip().lower(), value.strip())
    return headers


def _content_length(headers: dict[str, str]) -> int | None:
    raw = headers.get("content-length", "")
    return int(raw) if raw.isdigit() and len(raw) < 16 else None


class _Framer:
    """Cuts records out of one file's stream, yielding rows for everything unusable."""

    def __init__(
        self, path: Path, file_no: int, max_bytes: int, digest: Digest | None = None
    ) -> None:
        self.path = path
        self.file_no = file_no
        self.max_bytes = max_bytes
        self.stream = _Stream(physical.chunks(path, file_no, digest))
        self.count = 0
        self.here = (0, 0)

    def row(
        self,
        offset: int,
        reason: str,
        detail: str = "",
        uri: str | None = None,
        member: int | None = None,
    ) -> RawRow:
        """A row for the record at decompressed ``offset``, addressed as a reader of the
        file would: by byte offset in a plain WARC, by its gzip member's offset in a
        WARC.gz (where records are members)."""
        self.count += 1
        if member is None:
            here, here_member = self.here
            member = here_member if offset == here else self.stream.member_at(offset)
        at = self.stream.member_offsets.get(member)
        place = f"@ byte {offset}" if at is None else f"in the gzip member at byte {at}"
        where = f"{self.path}:record {self.count} {place}" + (f" ({uri})" if uri else "")
        return RawRow(
            where, reason=reason, detail=detail, file_no=self.file_no, members=(member, member)
        )

    def records(self) -> Iterator[_Framed | RawRow | Damage]:
        s = self.stream
        while True:
            while s.fill(1) and s.buf[:1] in _LINE_BREAKS:
                s.consume(1)
            # Where this record starts, before reading it consumes the bytes.
            self.here = (s.base, s.member_at(s.base))
            if not s.buf:
                if s.gap is None:
                    return
                yield from self._gap(None)
            elif not s.fill(len(_RECORD_MAGIC)) and _RECORD_MAGIC.startswith(bytes(s.buf)):
                if s.gap is not None:
                    yield from self._gap(s.base)
                else:
                    yield self.row(s.base, physical.TRUNCATED_RECORD, "the file ends in a header")
                    s.consume(len(s.buf))
            elif not s.buf.startswith(_RECORD_MAGIC):
                start = s.base
                skipped = self._skip_to_record()
                yield self.row(start, MALFORMED_RECORD, f"{skipped} bytes that are not a record")
            else:
                yield from self._one()

    def _gap(self, offset: int | None) -> Iterator[RawRow | Damage]:
        """Handle damage: the record in progress (or the damaged member's record) is lost."""
        gap = self.stream.gap
        assert gap is not None
        if offset is not None or not gap.produced:
            reason = (
                physical.TRUNCATED_RECORD
                if gap.reason == physical.TRUNCATED_GZIP
                else physical.CORRUPT_GZIP
            )
            detail = f"{gap.reason} at {gap.where}"
            if offset is not None:
                yield self.row(offset, reason, detail)
            else:  # the member gave no bytes: its record is the one lost
                self.stream.member_offsets[gap.member] = gap.offset
                yield self.row(self.stream.base, reason, detail, member=gap.member)
        self.stream.take_gap()
        yield gap

    def _skip_to_record(self, start: int = 1) -> int:
        """Drop bytes up to the next ``WARC/1.`` at or after index ``start`` (streaming);
        return how many."""
        s = self.stream
        skipped = 0
        while True:
            at = s.buf.find(_RECORD_MAGIC, start)
            if at >= 0:
                s.consume(at)
                return skipped + at
            drop = max(len(s.buf) - len(_RECORD_MAGIC) + 1, start)
            drop = min(drop, len(s.buf))
            s.consume(drop)
            skipped += drop
            start = max(0, start - drop)
            if not s.fill(len(s.buf) + 1):
                skipped += len(s.buf)
                s.consume(len(s.buf))
                return skipped

    def _one(self) -> Iterator[_Framed | RawRow | Damage]:
        s = self.stream
        start = s.base
        end = s.find(_TRAILER, 0, _MAX_HEADER_BYTES)
        if end < 0:
            if s.gap is not None:
                yield from self._gap(start)
            elif s.ended:
                yield self.row(start, physical.TRUNCATED_RECORD, "the file ends in a record header")
                s.consume(len(s.buf))
            else:
                skipped = self._skip_to_record()
                yield self.row(
                    start, MALFORMED_RECORD, f"a header without an end ({skipped} bytes)"
                )
            return
        header_bytes = bytes(s.buf[: end + len(_TRAILER)])
        headers = _parse_headers(header_bytes)
        length = _content_length(headers) if headers is not None else None
        if headers is None or length is None:
            skipped = self._skip_to_record()
            yield self.row(start, MALFORMED_RECORD, f"no valid Content-Length ({skipped} bytes)")
            return
        total = len(header_bytes) + length
        if length > self.max_bytes:
            yield from self._skip_large(start, header_bytes, headers, total)
            return
        if not s.fill(total):
            if s.gap is not None:
                yield from self._gap(start)
            else:
                have = len(s.buf) - len(header_bytes)
                yield self.row(
                    start,
                    physical.TRUNCATED_RECORD,
                    f"{have} of {length} content bytes",
                    headers.get("warc-target-uri"),
                )
                s.consume(len(s.buf))
            return
        members = (s.member_at(start), s.member_at(start + total - 1))
        record = s.consume(total)
        if s.fill(len(_TRAILER)) and not s.buf.startswith(_TRAILER):
            # Content-Length disagrees with where the record ends: look for the next
            # record right after this header.
            s.push_back(record[len(header_bytes) :])
            self._skip_to_record(0)
            yield self.row(
                start,
                MALFORMED_RECORD,
                "Content-Length does not end at the record separator",
                headers.get("warc-target-uri"),
            )
            return
        s.consume(min(len(_TRAILER), len(s.buf)))
        yield _Framed(start, headers, header_bytes, record[len(header_bytes) :], members)

    def _skip_large(
        self, start: int, header_bytes: bytes, headers: dict[str, str], total: int
    ) -> Iterator[_Framed | RawRow | Damage]:
        s = self.stream
        member = s.member_at(start)
        if s.skip(total):
            yield _Framed(start, headers, header_bytes, None, (member, s.member_at(s.base)))
        elif s.gap is not None:
            yield from self._gap(start)
        else:
            yield self.row(start, physical.TRUNCATED_RECORD, "the file ends in a large record")


def _digest_ok(value: str | None, block: bytes) -> bool:
    """Whether a WARC-Block-Digest (``algo:base32`` or ``algo:hex``) matches the block;
    True when absent or in a form this reader does not know."""
    if not value or ":" not in value:
        return True
    algo, _, encoded = value.partition(":")
    algo = algo.strip().lower().replace("-", "")
    if algo not in ("sha1", "sha256", "md5"):
        return True
    digest = hashlib.new(algo, block).digest()
    encoded = encoded.strip()
    if len(encoded) == 2 * len(digest):
        return encoded.lower() == digest.hex()
    return encoded.upper().rstrip("=") == base64.b32encode(digest).decode().rstrip("=")


def read_warc(
    path: Path,
    *,
    max_bytes: int,
    file_no: int = 0,
    hosts: Sequence[str] | None = None,
    digest: Digest | None = None,
) -> Iterator[Unit]:
    """Every record of a WARC/WARC.gz file as a row (see the module docstring).

    Args:
        path: the file.
        max_bytes: bound on a record's content (larger ones are counted, never held).
        file_no: index of the file in the corpus.
        hosts: allow-list of target hosts (lower case, without ``www.``); None: all.
        digest: fed every byte of the file as stored (for the crawl manifest's sha256).
    """
    framer = _Framer(path, file_no, max_bytes, digest)
    allowed = None if hosts is None else frozenset(hosts)
    for item in framer.records():
        if not isinstance(item, _Framed):
            yield item
            continue
        yield _record_row(framer, item, max_bytes, allowed)


def host_allowed(uri: str | None, hosts: frozenset[str]) -> bool:
    """Whether the URI's host is one of ``hosts`` or a subdomain of one (``www.`` and
    ``edition.`` of ``cnn.com`` both are)."""
    try:
        host = (urlsplit(uri or "").hostname or "").rstrip(".")
    except ValueError:  # a malformed URI (bad port, brackets): no host to allow
        return False
    host = host.removeprefix("www.")
    while host:
        if host in hosts:
            return True
        _, _, host = host.partition(".")
    return False


def _record_row(
    framer: _Framer, rec: _Framed, max_bytes: int, hosts: frozenset[str] | None
) -> RawRow:
    uri = rec.headers.get("warc-target-uri")
    if rec.headers.get("warc-type", "").lower() != "response":
        return framer.row(rec.offset, NOT_A_RESPONSE, rec.headers.get("warc-type", "?"))
    if hosts is not None and not host_allowed(uri, hosts):
        return framer.row(rec.offset, HOST_NOT_ALLOWED, "", uri)
    fetched = parse_date(rec.headers.get("warc-date"))
    if fetched is None:
        return framer.row(rec.offset, MALFORMED_RECORD, "no readable WARC-Date", uri)
    if rec.block is None:
        return framer.row(rec.offset, physical.RECORD_TOO_LARGE, "content over the bound", uri)
    if not _digest_ok(rec.headers.get("warc-block-digest"), rec.block):
        return framer.row(rec.offset, CORRUPT_RECORD, "WARC-Block-Digest does not match", uri)
    row = framer.row(rec.offset, "", uri=uri)
    row.members = rec.members
    row.fetched = fetched
    reason, detail, fields, notes = _extract(rec, uri, max_bytes)
    row.reason = reason
    row.detail = detail
    row.fields = fields
    row.notes = notes
    return row


def _extract(
    rec: _Framed, uri: str | None, max_bytes: int
) -> tuple[str | None, str, dict[str, object], tuple[str, ...]]:
    """(reason, detail, fields, notes) of a complete response record."""
    from warcio.archiveiterator import ArchiveIterator

    assert rec.block is not None
    try:
        parsed = next(iter(ArchiveIterator(io.BytesIO(rec.header_bytes + rec.block + _TRAILER))))
        http = parsed.http_headers
        status = http.get_statuscode() if http else None
        ctype = (http.get_header("Content-Type") if http else "") or ""
        if status and not str(status).startswith("2"):
            return "http_error_status", str(status), {}, ()
        if "html" not in ctype.lower():
            return "non_html_response", ctype[:60], {}, ()
        body = parsed.content_stream().read(max_bytes + 1)
    except Exception as exc:  # warcio raises many types on a broken HTTP block
        return MALFORMED_RECORD, f"HTTP block: {str(exc)[:100]}", {}, ()
    if len(body) > max_bytes:
        return "html_too_large", f"over {max_bytes} bytes", {}, ()
    data = _trafilatura(body, uri)
    if data is None:
        return "unparseable_html", "", {}, ()
    title = str(data.get("title") or "")
    text = _strip_leading_title(str(data.get("text") or ""), title)
    date: object = data.get("date")
    notes: tuple[str, ...] = ()
    if not date:
        date = parse_date(rec.headers.get("warc-date"))
        notes = ("date_from_warc",)
    fields = {"date": date, "title": title, "text": text, "url": uri, "source_domain": None}
    return None, "", fields, notes


def _trafilatura(body: bytes, uri: str | None) -> dict[str, object] | None:
    import trafilatura

    try:
        doc = trafilatura.bare_extraction(
            body,
            url=uri,
            with_metadata=True,
            include_comments=False,
            include_tables=False,
            date_extraction_params={
                "extensive_search": False,
                "original_date": True,
                "max_date": _EXTRACTOR_MAX_DATE,
            },
        )
    except Exception:  # trafilatura raises many things on broken pages
        logger.debug("trafilatura failed", exc_info=True)
        return None
    data = doc.as_dict() if doc is not None and hasattr(doc, "as_dict") else doc
    if not isinstance(data, dict) or not (data.get("text") or "").strip():
        return None
    return data


def _strip_leading_title(text: str, title: str) -> str:
    """trafilatura often repeats the headline as the first line of the body."""
    first, _, rest = text.partition("\n")
    if title and first.strip() == title.strip():
        return rest
    return text
