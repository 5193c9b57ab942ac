"""Checks that a downloaded file is whole: its sha256, and for ``.gz`` files that every
gzip member is complete.

HTTP only says how many bytes came; a file cut short on the server, or a partial file
whose tail a crash damaged, can still have the advertised length. WARC files are
sequences of gzip members (one per record), so decompressing the stream and requiring
that it ends exactly at the end of a member catches both. The check runs on the bytes
as they arrive, so a file is read once.
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path

_GZIP_WBITS = 16 + zlib.MAX_WBITS  # gzip header and trailer, the largest window
_MAX_OUT = 1 << 22  # decompressed bytes per step: memory stays bounded on any ratio
_SLICE = 1 << 14  # compressed bytes per inflate call (see StreamCheck._inflate_slice)


class CorruptData(ValueError):
    """The bytes are not a complete gzip stream; the message says where it broke."""


class StreamCheck:
    """sha256 of a byte stream and, optionally, the integrity of its gzip members.

    Args:
        gzip: also check that the stream is a sequence of complete gzip members.
    """

    def __init__(self, gzip: bool) -> None:
        self.gzip = gzip
        self.size = 0
        self.members = 0
        self._sha = hashlib.sha256()
        self._inflate: zlib._Decompress | None = None

    def update(self, data: bytes | memoryview) -> None:
        """Feed the next bytes.

        Raises:
            CorruptData: the bytes so far are not valid gzip.
        """
        self._sha.update(data)
        start = self.size
        self.size += len(data)
        if self.gzip:
            view = memoryview(data)
            for at in range(0, len(view), _SLICE):
                self._inflate_slice(view[at : at + _SLICE], start + at)

    def _inflate_slice(self, piece: memoryview, offset: int) -> None:
        """Inflate one slice, starting a new member wherever one ends. Slices are small
        because zlib copies the bytes after a member's end (``unused_data``): with one
        member per WARC record, whole chunks would be copied once per record."""
        while len(piece):
            if self._inflate is None:
                self._inflate = zlib.decompressobj(_GZIP_WBITS)
            try:
                self._inflate.decompress(piece, _MAX_OUT)
                while self._inflate.unconsumed_tail:
                    self._inflate.decompress(self._inflate.unconsumed_tail, _MAX_OUT)
            except zlib.error as exc:
                raise CorruptData(
                    f"invalid gzip data in member {self.members + 1} "
                    f"(within bytes {offset}-{offset + len(piece)}): {exc}"
                ) from None
            if not self._inflate.eof:
                return
            self.members += 1
            used = len(piece) - len(self._inflate.unused_data)
            piece, offset = piece[used:], offset + used
            self._inflate = None

    def hexdigest(self) -> str:
        """sha256 of everything fed so far."""
        return self._sha.hexdigest()

    def finish(self) -> str:
        """The sha256, once the stream is known to be whole.

        Raises:
            CorruptData: empty, or (gzip) the stream ends inside a member.
        """
        if self.size == 0:
            raise CorruptData("empty file")
        if self.gzip and self._inflate is not None:
            raise CorruptData(
                f"truncated gzip member: the stream ends inside member {self.members + 1} "
                f"after {self.size} bytes"
            )
        return self.hexdigest()


def check_file(path: Path, gzip: bool, chunk_bytes: int = 1 << 20) -> StreamCheck:
    """Feed a file on disk through a :class:`StreamCheck` (not finished).

    Raises:
        CorruptData: the file's bytes are not valid gzip.
    """
    check = StreamCheck(gzip)
    with open(path, "rb") as fh:
        while block := fh.read(chunk_bytes):
            check.update(block)
    return check
