"""How a ledger file holds its lines: plain JSON Lines, or zstd frames of them.

A response store file and a ledger its own store are appended to line by line, so they
are always plain (a store file's sealed part, :mod:`prescient.llm.store_seal`, holds
frames like a snapshot's). A stage's ledger snapshot (:mod:`prescient.llm.store`) is written
once, whole, when the stage's work is done; with ``llm.ledger_compression: zstd`` it is
written as zstd frames of its lines instead. The lines are the same bytes either way,
and every reader of a ledger (:func:`prescient.llm.ledger_read.iter_lines`,
:class:`prescient.llm.ledger.Ledger`) tells the two apart by the file's first bytes, so
a compressed snapshot is served, verified, exported and traced as a plain one is.

The compressed bytes are a function of the lines alone: a frame holds whole lines and
ends after a line its bytes choose (:func:`_ends_frame`, about :data:`FRAME_BYTES` of
input a frame), and each frame is compressed at :data:`LEVEL` by the zstd library
pyarrow ships (the library that writes this project's Parquet tables; pyarrow is pinned,
so every clone writes the same bytes). Since where a frame ends depends on its lines, a
snapshot written again with a few more lines has the same frames elsewhere, and its
writer copies those from the file it replaces (:class:`FrameMemo`) rather than
compressing them again. ``zstd -dc`` (or ``zstdcat``) reads such a file: concatenated
frames are one stream.

Readers here read it a frame at a time (:func:`recovered_lines`), so damage costs the
lines of the frame it hits, not the rest of the file: a damaged frame gives its whole
lines before the damage, and reading goes on at the next frame.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import hashlib
import io
import mmap
import os
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Literal

Compression = Literal["none", "zstd"]
COMPRESSIONS: tuple[Compression, ...] = ("none", "zstd")
"""The values of ``llm.ledger_compression``."""

MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of a zstd frame (a JSON Lines file starts with ``{``)."""

LEVEL = 9
"""zstd's level for snapshots: about 9x on evaluation ledgers, at about 150 MB/s."""

UNREADABLE = "zstd frames unreadable from here (damaged or cut)"
"""How the problem of a damaged stretch of a compressed ledger file begins (a snapshot
is pulled again; a store file's sealed part is refilled from the stages' snapshots)."""

FRAME_BYTES = 1 << 22
"""Input per frame on average (whole lines; where a frame ends: :func:`_ends_frame`)."""
FRAME_DIGEST = 16
FRAMES_MAGIC = b"prescient ledger frames 1\n"
"""The first bytes of a :class:`FrameMemo`'s index."""


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """Whether the ledger file at ``path`` holds zstd frames (False: absent, or plain)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return False


def _ends_frame(line: bytes, size: int) -> bool:
    """Whether a frame that holds ``size`` bytes of input, ``line`` its last, ends here:
    never before a quarter of :data:`FRAME_BYTES`, always from four times it on, and in
    between when the line's CRC-32 falls under its share of the rest (a chance in
    proportion to its length, so frames average about :data:`FRAME_BYTES`): where frames
    end is a function of the lines alone, so lines added change the frames they join
    and seldom the next, never those further on once an end falls where it fell."""
    least = FRAME_BYTES // 4
    if size >= 4 * FRAME_BYTES:
        return True
    if size < least:
        return False
    return zlib.crc32(line) < (len(line) << 32) // (FRAME_BYTES - least)


def _blocks(lines: Iterable[bytes]) -> Iterator[bytes]:
    """The input of each frame: whole lines, ending where :func:`_ends_frame` says."""
    block: list[bytes] = []
    size = 0
    for line in lines:
        block.append(line)
        size += len(line)
        if _ends_frame(line, size):
            yield b"".join(block)
            block, size = [], 0
    if block:
        yield b"".join(block)


def _frame_digest(block: bytes) -> bytes:
    return hashlib.blake2b(block, digest_size=FRAME_DIGEST).digest()


class FrameMemo:
    """A compressed ledger file's frames as last written, kept beside it (``index``):
    the digest of each frame's lines and its length, with the digest of the whole file.

    Writing the file again (:func:`compressed`), a frame whose lines are the same bytes
    as one of the file's is copied from it rather than compressed again: the same bytes,
    since a frame's compression is a function of its lines. Frames end where their lines
    say (:func:`_ends_frame`), so a snapshot that gains a few lines changes the frames
    they join and seldom more. Frames are taken only from the file they were written as
    (its size and digest checked first); an index of other code or damaged is none.

    Args:
        index: the index file.
        path: the compressed file about to be written again (read until then).
    """

    def __init__(self, index: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
        self.index = Path(index)
        self._head = FRAMES_MAGIC + _frames_code()
        self._old: dict[bytes, tuple[int, int]] = {}
        self._fd: int | None = None
        self.frames: list[tuple[bytes, int]] = []
        self._whole = hashlib.blake2b(digest_size=FRAME_DIGEST)
        self.copied = 0
        with contextlib.suppress(OSError, ValueError):
            self._open(path)

    def _open(self, path: str | os.PathLike[str]) -> None:
        data = self.index.read_bytes()
        if not data.startswith(self._head):
            return
        body = data[len(self._head) :]
        whole, records = body[:FRAME_DIGEST], body[FRAME_DIGEST:]
        size = FRAME_DIGEST + 8
        if len(whole) != FRAME_DIGEST or len(records) % size:
            return
        fd = os.open(path, os.O_RDONLY)
        try:
            places: dict[bytes, tuple[int, int]] = {}
            at = 0
            for i in range(0, len(records), size):
                length = int.from_bytes(records[i + FRAME_DIGEST : i + size], "little")
                places.setdefault(records[i : i + FRAME_DIGEST], (at, length))
                at += length
            if os.fstat(fd).st_size != at or _file_digest(fd) != whole:
                return
            self._old, self._fd, fd = places, fd, -1
        finally:
            if fd >= 0:
                os.close(fd)

    def take(self, digest: bytes) -> bytes | None:
        """The compressed frame of the lines with ``digest`` in the old file, or None."""
        place = self._old.get(digest)
        if place is None or self._fd is None:
            return None
        data = os.pread(self._fd, place[1], place[0])
        if len(data) != place[1]:
            return None
        self.copied += 1
        return data

    def close(self) -> None:
        """Stop reading the old file."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def note(self, digest: bytes, frame: bytes) -> None:
        """Count ``frame`` (of the lines with ``digest``) as the next one written."""
        self.frames.append((digest, len(frame)))
        self._whole.update(frame)

    def save(self) -> None:
        """Keep the frames noted (:attr:`frames`) as those of the file they were written
        to (an index that cannot be written is left as it is: it only saves work)."""
        from prescient.io import atomic_path

        self.close()
        records = b"".join(d + n.to_bytes(8, "little") for d, n in self.frames)
        with contextlib.suppress(OSError), atomic_path(self.index) as tmp:
            Path(tmp).write_bytes(self._head + self._whole.digest() + records)


def _file_digest(fd: int) -> bytes:
    h = hashlib.blake2b(digest_size=FRAME_DIGEST)
    at = 0
    while chunk := os.pread(fd, 1 << 22, at):
        h.update(chunk)
        at += len(chunk)
    return h.digest()


def _frames_code() -> bytes:
    """What makes a frame's bytes from its lines: the level and the zstd pyarrow ships."""
    import pyarrow as pa

    rule = (LEVEL, pa.__version__)
    return hashlib.blake2b(repr(rule).encode(), digest_size=FRAME_DIGEST).digest()


def compressed(lines: Iterable[bytes], memo: FrameMemo | None = None) -> Iterator[bytes]:
    """zstd frames of ``lines`` (each ending in a newline), in order: see the module.

    Each frame is compressed on its own, so frames are compressed on as many threads as
    :func:`prescient.threads.thread_count` (zstd runs without the interpreter's lock)
    while the next lines are gathered, a few frames ahead at most: the same bytes as one
    after the other. With ``memo``, a frame the file held before is copied from it, and
    the frames written are noted there (:class:`FrameMemo`)."""
    import pyarrow as pa

    from prescient.threads import thread_count

    codec = pa.Codec("zstd", compression_level=LEVEL)

    def frame(block: bytes) -> tuple[bytes, bytes]:
        if memo is None:
            return b"", codec.compress(block, asbytes=True)
        digest = _frame_digest(block)
        found = memo.take(digest)
        return digest, found if found is not None else codec.compress(block, asbytes=True)

    def noted(done: tuple[bytes, bytes]) -> bytes:
        if memo is not None:
            memo.note(*done)
        return done[1]

    workers = thread_count()
    if workers == 1:
        for block in _blocks(lines):
            yield noted(frame(block))
        return
    pool = concurrent.futures.ThreadPoolExecutor(workers)
    ahead: collections.deque[concurrent.futures.Future[tuple[bytes, bytes]]] = collections.deque()
    try:
        for block in _blocks(lines):
            ahead.append(pool.submit(frame, block))
            if len(ahead) > workers:
                yield noted(ahead.popleft().result())
        while ahead:
            yield noted(ahead.popleft().result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def open_lines(path: str | os.PathLike[str]) -> IO[bytes]:
    """The ledger file at ``path`` opened for reading its lines (``for raw in fh``),
    decompressed on the way when it holds zstd frames (a stream: it stops at damage;
    :func:`recovered_lines` reads on past it)."""
    if not is_compressed(path):
        return open(path, "rb")
    import pyarrow as pa

    return io.BufferedReader(pa.CompressedInputStream(pa.OSFile(os.fspath(path)), "zstd"))


def _frame_end(data: mmap.mmap, start: int) -> int | None:
    """Where the zstd frame that starts at ``start`` ends, from its header and its blocks'
    headers (RFC 8878, section 3.1.1); None when no whole frame starts there."""
    size = len(data)
    if data[start : start + 4] != MAGIC or start + 4 >= size:
        return None
    descriptor = data[start + 4]
    single_segment = (descriptor >> 5) & 1
    pos = start + 5 + (0 if single_segment else 1)  # the window descriptor
    pos += (0, 1, 2, 4)[descriptor & 3]  # the dictionary id
    pos += (single_segment, 2, 4, 8)[descriptor >> 6]  # the content size
    while True:
        if pos + 3 > size:
            return None
        header = int.from_bytes(data[pos : pos + 3], "little")
        kind, length = (header >> 1) & 3, header >> 3
        if kind == 3:  # reserved: not a block
            return None
        pos += 3 + (1 if kind == 1 else length)  # an RLE block holds one byte
        if header & 1:  # the last block
            break
    pos += 4 if (descriptor >> 2) & 1 else 0  # the content checksum
    return pos if pos <= size else None


def recovered_lines(path: str | os.PathLike[str]) -> Iterator[bytes | str]:
    """The lines of a compressed ledger file, read a frame at a time; for each damaged
    stretch, the whole lines before the damage, then the problem (a str beginning
    :data:`UNREADABLE`), and reading goes on at the next whole frame."""
    import pyarrow as pa

    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            pos = 0
            while pos < size:
                end = _frame_end(data, pos)
                frame = pa.py_buffer(data[pos : size if end is None else end])
                problem = None if end is not None else "not a whole frame"
                stream = io.BufferedReader(pa.CompressedInputStream(pa.BufferReader(frame), "zstd"))
                try:
                    for raw in stream:
                        if not raw.endswith(b"\n"):
                            problem = problem or "a cut last line"
                            break
                        yield raw
                except OSError as exc:
                    problem = str(exc)
                if problem is None and end is not None:
                    pos = end
                    continue
                yield f"{UNREADABLE}: {problem} (the frame at byte {pos})"
                after = end if end is not None and data[end : end + 4] == MAGIC else None
                found = data.find(MAGIC, pos + 1) if after is None else after
                if found < 0:
                    return
                pos = found


Problems = list[tuple[int, str]]
"""What :func:`spooled` could not read: (lines read before it, the problem)."""


def spooled(
    path: str | os.PathLike[str], directory: str | os.PathLike[str] | None = None
) -> tuple[IO[bytes], Problems]:
    """A compressed ledger's lines in an unnamed temporary file in ``directory`` (default:
    the system's; removed when closed), for readers that read a line where an index says
    it is, and the damaged stretches (:func:`recovered_lines`), not an exception.

    Raises:
        OSError: the temporary file could not be written (naming the file and where).
    """
    out = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 (returned open; the caller closes it)
    problems: Problems = []
    lines = 0
    try:
        for raw in recovered_lines(path):
            if isinstance(raw, str):
                problems.append((lines, raw))
                continue
            try:
                out.write(raw)
            except OSError as exc:
                raise _unpacking_failed(path, directory, exc) from exc
            lines += 1
        try:
            out.flush()
        except OSError as exc:
            raise _unpacking_failed(path, directory, exc) from exc
    except BaseException:
        with contextlib.suppress(OSError):  # a buffer that cannot be flushed
            out.close()
        raise
    return out, problems


def _unpacking_failed(
    path: str | os.PathLike[str], directory: str | os.PathLike[str] | None, exc: OSError
) -> OSError:
    where = directory if directory is not None else tempfile.gettempdir()
    return OSError(
        exc.errno,
        f"cannot unpack {path} into a temporary file in {where} ({exc.strerror or exc}): "
        "free space there (or set TMPDIR)",
    )
