"""The bytes of a corpus file as it is stored, with every damaged stretch reported.

Readers count what the file physically holds (lines, records), so the layer under them
must never hide bytes: a gzip file is decompressed member by member with zlib (which
checks each member's CRC-32 and length), and a cut member (an interrupted download), a
member that fails to inflate or its checksum, or bytes that are not gzip data come out
as :class:`Damage` events in stream order, between the chunks of data that could be
read. Nothing here raises on bad data.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

__all__ = [
    "CORRUPT_GZIP",
    "TRUNCATED_GZIP",
    "Chunk",
    "Damage",
    "Line",
    "chunks",
    "is_gzip",
    "lines",
]

TRUNCATED_GZIP = "truncated_gzip"
"""A gzip member ends before its end-of-stream marker: the file was cut."""
CORRUPT_GZIP = "corrupt_gzip"
"""A gzip member fails to inflate or its CRC-32/length check, or bytes are not gzip."""

TRUNCATED_RECORD = "truncated_record"
"""A line or record that the end of the readable data cut."""
RECORD_TOO_LARGE = "record_too_large"
"""A line or record larger than the configured bound (never buffered whole)."""

_GZIP_MAGIC = b"\x1f\x8b\x08"
_BOM = b"\xef\xbb\xbf"
_READ_BYTES = 1 << 18
_INFLATE_BYTES = 1 << 20


@dataclass(frozen=True)
class Chunk:
    """Decompressed bytes, all from gzip member ``member`` (0 for a plain file).

    ``member_offset`` is the byte offset of that member in the file (None for a plain
    file), which is how an index of a WARC.gz addresses a record.
    """

    data: bytes
    member: int
    member_offset: int | None = None


@dataclass(frozen=True)
class Damage:
    """A stretch of a file that could not be read.

    Attributes:
        file_no: index of the file in the corpus (which file of a directory).
        path: the file.
        reason: :data:`TRUNCATED_GZIP` or :data:`CORRUPT_GZIP`.
        member: index of the damaged gzip member in the file.
        offset: byte offset in the file (compressed) where the damaged stretch starts.
        produced: whether the damaged member gave any bytes before the damage showed.
        detail: what zlib or the scan said.
    """

    file_no: int
    path: str
    reason: str
    member: int
    offset: int
    produced: bool
    detail: str

    @property
    def where(self) -> str:
        """``file: byte N`` for logs and metrics."""
        return f"{self.path}: byte {self.offset}"


def is_gzip(path: Path) -> bool:
    """gzip by name (``.gz``) or by its first bytes."""
    if path.name.endswith(".gz"):
        return True
    with open(path, "rb") as fh:
        return fh.read(2) == _GZIP_MAGIC[:2]


class Digest(Protocol):
    """What :func:`chunks` feeds the raw bytes to (a ``hashlib`` object)."""

    def update(self, data: Any, /) -> None: ...


class _Hashing:
    """A binary file that feeds every byte read to a digest; ``drain`` reads the rest,
    so the digest always covers the whole file, however far the reader got."""

    def __init__(self, fh: BinaryIO, digest: Digest | None) -> None:
        self.fh = fh
        self.digest = digest

    def read(self, n: int) -> bytes:
        data = self.fh.read(n)
        if self.digest is not None and data:
            self.digest.update(data)
        return data

    def drain(self) -> None:
        if self.digest is not None:
            while self.read(_READ_BYTES):
                pass


def chunks(path: Path, file_no: int = 0, digest: Digest | None = None) -> Iterator[Chunk | Damage]:
    """The decompressed content of ``path`` in chunks, with damage events in place.

    Args:
        path: the file.
        file_no: its index in the corpus (carried by damage events).
        digest: fed every byte of the file as stored (a ``hashlib.sha256()``), so a
            reader checks a file's checksum in the same pass that reads it.
    """
    if not is_gzip(path):
        with open(path, "rb") as raw:
            fh = _Hashing(raw, digest)
            while data := fh.read(_INFLATE_BYTES):
                yield Chunk(data, 0)
        return
    yield from _GzipMembers(path, file_no, digest)


class _GzipMembers:
    """Iterate over the members of a gzip file, resynchronising after damage.

    After a corrupt member the next member is found by its header bytes (magic, deflate,
    no reserved flags); a false match inflates to an error within a few bytes and is
    reported like any other corrupt stretch.
    """

    def __init__(self, path: Path, file_no: int, digest: Digest | None = None) -> None:
        self.path = path
        self.file_no = file_no
        self.digest = digest
        self.buf = b""
        self.pos = 0  # file offset of buf[0]
        self.at_eof = False

    def _fill(self, fh: _Hashing) -> bool:
        if self.at_eof:
            return False
        data = fh.read(_READ_BYTES)
        if not data:
            self.at_eof = True
            return False
        self.buf += data
        return True

    def _consume(self, n: int) -> None:
        self.buf = self.buf[n:]
        self.pos += n

    def _damage(self, reason: str, member: int, offset: int, produced: bool, detail: str) -> Damage:
        return Damage(self.file_no, str(self.path), reason, member, offset, produced, detail)

    def __iter__(self) -> Iterator[Chunk | Damage]:
        with open(self.path, "rb") as raw:
            fh = _Hashing(raw, self.digest)
            yield from self._members(fh)
            fh.drain()

    def _members(self, fh: _Hashing) -> Iterator[Chunk | Damage]:
        member = 0
        while self.buf or self._fill(fh):
            while len(self.buf) < 4 and self._fill(fh):
                pass
            if len(self.buf) < 4 and _GZIP_MAGIC.startswith(self.buf[:3]):
                yield self._damage(
                    TRUNCATED_GZIP,
                    member,
                    self.pos,
                    False,
                    "the file ends inside a gzip header",
                )
                return
            if not _is_member_start(self.buf):
                start = self.pos
                skipped = self._skip_to_member(fh)
                yield self._damage(
                    CORRUPT_GZIP,
                    member,
                    start,
                    False,
                    f"{skipped} bytes that are not gzip data",
                )
                member += 1
                continue
            yield from self._member(fh, member)
            member += 1

    def _member(self, fh: _Hashing, member: int) -> Iterator[Chunk | Damage]:
        start = self.pos
        inflater = zlib.decompressobj(31)
        produced = False
        limited = False  # the last call filled its output: zlib may hold more
        while not inflater.eof:
            if not self.buf and not limited and not self._fill(fh):
                yield self._damage(
                    TRUNCATED_GZIP,
                    member,
                    start,
                    produced,
                    f"the file ends inside a gzip member ({self.pos - start} bytes of it)",
                )
                return
            data = self.buf
            saved = inflater.copy()
            try:
                out = inflater.decompress(data, _INFLATE_BYTES)
            except zlib.error as exc:
                for piece in _salvage(saved, data):
                    produced = True
                    yield Chunk(piece, member, start)
                skipped = self._skip_to_member(fh)
                yield self._damage(
                    CORRUPT_GZIP, member, start, produced, f"{exc}; {skipped} bytes skipped"
                )
                return
            rest = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            self._consume(len(data) - len(rest))
            limited = len(out) >= _INFLATE_BYTES
            if out:
                produced = True
                yield Chunk(out, member, start)

    def _skip_to_member(self, fh: _Hashing) -> int:
        """Drop bytes up to the next plausible member header (or the end); return how many."""
        skipped = 0
        first = True
        while True:
            at = _find_member_start(self.buf, 1 if first else 0)
            first = False
            if at >= 0:
                self._consume(at)
                return skipped + at
            keep = min(len(self.buf), 3)  # a header may straddle two reads
            drop = len(self.buf) - keep
            self._consume(drop)
            skipped += drop
            if not self._fill(fh):
                skipped += len(self.buf)
                self._consume(len(self.buf))
                return skipped


def _salvage(inflater: zlib._Decompress, data: bytes) -> Iterator[bytes]:
    """What ``data`` inflates to before the byte where inflating fails, so the rows
    before a corruption are counted whatever the read size (small steps, then bytes)."""
    step = 512
    at = 0
    while at < len(data):
        piece = data[at : at + step]
        saved = inflater.copy()
        try:
            out = inflater.decompress(piece)
        except zlib.error:
            if step == 1:
                return
            inflater, step = saved, 1
            continue
        if out:
            yield out
        if inflater.eof:
            return
        at += len(piece)


def _is_member_start(buf: bytes) -> bool:
    return len(buf) >= 4 and buf.startswith(_GZIP_MAGIC) and not buf[3] & 0xE0


def _find_member_start(buf: bytes, start: int) -> int:
    at = buf.find(_GZIP_MAGIC, start)
    while at >= 0:
        if at + 3 >= len(buf) or not buf[at + 3] & 0xE0:
            return at
        at = buf.find(_GZIP_MAGIC, at + 1)
    return -1


@dataclass(frozen=True, slots=True)
class Line:
    """One physical line (without its ``\\n``) of the decompressed content.

    Attributes:
        number: 1-based line number in the readable content.
        offset: byte offset of the line in the decompressed content.
        data: the bytes (a leading UTF-8 byte-order mark of the file removed).
        first_member: gzip member of the line's first byte.
        last_member: gzip member of its last byte.
        problem: why the line cannot be used (:data:`TRUNCATED_RECORD`,
            :data:`CORRUPT_GZIP`, :data:`RECORD_TOO_LARGE`), or None.
    """

    number: int
    offset: int
    data: bytes
    first_member: int
    last_member: int
    problem: str | None = None


def lines(items: Iterator[Chunk | Damage], max_bytes: int) -> Iterator[Line | Damage]:
    """Physical lines of decompressed content, damage events passed on in place.

    A line longer than ``max_bytes`` is skipped without being held in memory and comes
    out empty with problem :data:`RECORD_TOO_LARGE`. A partial line that damage cut
    comes out with the damage as its problem; so does an empty stand-in for a damaged
    member that gave no bytes at all (it held at least one line that is now lost).
    """
    number = 0
    offset = 0  # of the current partial line
    carry: list[bytes] = []
    carry_len = 0
    carry_member = -1
    skipping = False
    first = True
    for item in items:
        if isinstance(item, Damage):
            problem = TRUNCATED_RECORD if item.reason == TRUNCATED_GZIP else CORRUPT_GZIP
            if carry or skipping or not item.produced:
                number += 1
                member = carry_member if carry_member >= 0 else item.member
                yield Line(number, offset, b"", member, item.member, problem)
                offset += carry_len
            carry, carry_len, carry_member, skipping = [], 0, -1, False
            yield item
            continue
        data = item.data
        if first:
            first = False
            if data.startswith(_BOM):
                data = data[len(_BOM) :]
                offset = len(_BOM)
        pieces = data.split(b"\n")
        last = pieces.pop()
        for piece in pieces:
            number += 1
            size = carry_len + len(piece) + 1
            if skipping or carry_len + len(piece) > max_bytes:
                member = carry_member if carry_member >= 0 else item.member
                yield Line(number, offset, b"", member, item.member, RECORD_TOO_LARGE)
            elif carry:
                carry.append(piece)
                yield Line(number, offset, b"".join(carry), carry_member, item.member)
            else:
                yield Line(number, offset, piece, item.member, item.member)
            offset += size
            carry, carry_len, carry_member, skipping = [], 0, -1, False
        if last:
            if carry_member < 0:
                carry_member = item.member
            if not skipping:
                carry.append(last)
            carry_len += len(last)
            if carry_len > max_bytes and not skipping:
                skipping = True
                carry = []
    if carry or skipping:
        number += 1
        data = b"" if skipping else b"".join(carry)
        yield Line(
            number,
            offset,
            data,
            carry_member,
            carry_member,
            RECORD_TOO_LARGE if skipping else None,
        )
