"""WARC records cut out of a file's decompressed stream, every record accounted for.

Records are framed here, from the WARC headers' Content-Length, rather than by a
library that stops quietly at a cut: each record of the file is one framed record or one
row saying why it is not. A record that the end of the file (or a damaged gzip member)
cuts is ``truncated_record`` (or ``corrupt_gzip``), never an article with half its
text; bytes that are not a record (a wrong Content-Length, garbage) are
``malformed_record``, and reading resumes at the next ``WARC/1.x`` header. What a
complete record holds (its type, host, digest, page) is read by
:mod:`prescient.corpus.warc`; framing only needs the bytes, so it stays apart from the
HTTP and HTML parsing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prescient.corpus import physical
from prescient.corpus.physical import Chunk, Damage, Digest
from prescient.corpus.units import RawRow

MALFORMED_RECORD = "malformed_record"

_MAX_HEADER_BYTES = 64 * 1024
_RECORD_MAGIC = b"WARC/1."
TRAILER = b"\r\n\r\n"
"""What ends every record (and what warcio expects after a block it parses)."""
_LINE_BREAKS = (bytearray(b"\r"), bytearray(b"\n"))  # the blank lines between records


@dataclass(frozen=True)
class Framed:
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


class Framer:
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

    def records(self) -> Iterator[Framed | RawRow | Damage]:
        """The file's records in order, each a framed record or a row saying why it is
        not one, with the stream's damage events in place (the accounting counts both)."""
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

    def _one(self) -> Iterator[Framed | RawRow | Damage]:
        s = self.stream
        start = s.base
        end = s.find(TRAILER, 0, _MAX_HEADER_BYTES)
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
        header_bytes = bytes(s.buf[: end + len(TRAILER)])
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
        if s.fill(len(TRAILER)) and not s.buf.startswith(TRAILER):
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
        s.consume(min(len(TRAILER), len(s.buf)))
        yield Framed(start, headers, header_bytes, record[len(header_bytes) :], members)

    def _skip_large(
        self, start: int, header_bytes: bytes, headers: dict[str, str], total: int
    ) -> Iterator[Framed | RawRow | Damage]:
        s = self.stream
        member = s.member_at(start)
        if s.skip(total):
            yield Framed(start, headers, header_bytes, None, (member, s.member_at(s.base)))
        elif s.gap is not None:
            yield from self._gap(start)
        else:
            yield self.row(start, physical.TRUNCATED_RECORD, "the file ends in a large record")
