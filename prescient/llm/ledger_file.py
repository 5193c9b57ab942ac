"""How a ledger file holds its lines: plain JSON Lines, or zstd frames of them.

A response store file and a ledger its own store are appended to line by line, so they
are always plain (a store file's sealed part, :mod:`prescient.llm.store_seal`, holds
frames like a snapshot's). A stage's ledger snapshot (:mod:`prescient.llm.store`) is written
once, whole, when the stage's work is done; with ``llm.ledger_compression: zstd`` it is
written as zstd frames of its lines instead. The lines are the same bytes either way,
and every reader of a ledger (:func:`prescient.llm.ledger_read.iter_lines`,
:class:`prescient.llm.ledger.Ledger`) tells the two apart by the file's first bytes, so
a compressed snapshot is served, verified, exported and traced as a plain one is.

The compressed bytes are a function of the lines alone: a frame holds whole lines, the
next one starts at the first line after :data:`FRAME_BYTES` of input, and each frame is
compressed at :data:`LEVEL` by the zstd library pyarrow ships (the library that writes
this project's Parquet tables; pyarrow is pinned, so every clone writes the same bytes).
``zstd -dc`` (or ``zstdcat``) reads such a file: concatenated frames are one stream.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Literal

Compression = Literal["none", "zstd"]
COMPRESSIONS: tuple[Compression, ...] = ("none", "zstd")
"""The values of ``llm.ledger_compression``."""

MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of a zstd frame (a JSON Lines file starts with ``{``)."""

LEVEL = 9
"""zstd's level for snapshots: about 9x on evaluation ledgers, at about 150 MB/s."""

UNREADABLE = "compressed snapshot unreadable from here (damaged or cut; pull it again)"
"""The problem of the first line a damaged compressed snapshot could not give."""

FRAME_BYTES = 1 << 22
"""Input per frame (whole lines; a frame ends after the line that reaches it)."""


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """Whether the ledger file at ``path`` holds zstd frames (False: absent, or plain)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return False


def compressed(lines: Iterable[bytes]) -> Iterator[bytes]:
    """zstd frames of ``lines`` (each ending in a newline), in order: see the module."""
    import pyarrow as pa

    codec = pa.Codec("zstd", compression_level=LEVEL)
    block: list[bytes] = []
    size = 0
    for line in lines:
        block.append(line)
        size += len(line)
        if size >= FRAME_BYTES:
            yield codec.compress(b"".join(block), asbytes=True)
            block, size = [], 0
    if block:
        yield codec.compress(b"".join(block), asbytes=True)


def open_lines(path: str | os.PathLike[str], compressed: bool | None = None) -> IO[bytes]:
    """The ledger file at ``path`` opened for reading its lines (``for raw in fh``),
    decompressed on the way when it holds zstd frames (``compressed``: whether it does,
    when the caller has looked already; None: look)."""
    if not (is_compressed(path) if compressed is None else compressed):
        return open(path, "rb")
    import pyarrow as pa

    return io.BufferedReader(pa.CompressedInputStream(pa.OSFile(os.fspath(path)), "zstd"))


def spooled(path: str | os.PathLike[str]) -> tuple[IO[bytes], str | None]:
    """A compressed ledger's lines in an unnamed temporary file (removed when closed),
    for readers that read a line where an index says it is, and what stopped the
    decompression (None: nothing). A damaged or cut file keeps the whole lines before the
    damage; the rest is the problem, not an exception."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 (returned open; the caller closes it)
    problem = None
    try:
        with open_lines(path, True) as src:
            try:
                out.writelines(src)  # line by line: a failed read loses no whole line
            except OSError as exc:
                problem = f"{UNREADABLE}: {exc}"
        out.flush()
    except BaseException:
        out.close()
        raise
    return out, problem
