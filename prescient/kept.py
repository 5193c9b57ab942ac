"""Work a stage keeps for its next run, in DVC's cache directory: parts named by the
digest of exactly what they were computed from, read and written whole, never trusted
beyond their checks.

Some stages recompute the whole archive on every run although most of it is the same
work as the day before: retrieval tokenizes every article and answers every question
(:mod:`prescient.retrieval.reuse`), selection clusters every day's articles
(:mod:`prescient.benchmarks.daily_oracle.select`). Each keeps its parts in its own
directory under ``<DVC cache>/prescient/`` (beside the response store, so every clone
that shares the cache, experiment and queue worker finds them, and no DVC command
restores or removes them). A part is a sequence of numpy arrays in one file:

- **named** by the caller, as a digest of everything the part depends on (the inputs'
  bytes, the settings, the code), so a name can only be found again by the same work;
- **checked** when read: a header (this format, the number of arrays) and a digest of
  the payload, so a damaged or cut file is computed again, with a warning, never used;
- **written whole**: a temporary file renamed into place, so a kill leaves the part or
  nothing, and two processes writing the same part leave one of two equal files;
- **compressed**: the arrays' ``.npy`` stream as one zstd frame (level
  :data:`LEVEL`: term ids and counts take less than half their bytes), read back
  whole; a part written plain (by an older version) is read as it is.

A failure to write (a full disk, a read-only cache) is logged and the run goes on: a
store only saves work, and no output depends on it. Its directories may be deleted at
any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io as _bytes_io
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from prescient import io

logger = logging.getLogger(__name__)

FORMAT = 1
"""The layout of a part's file."""
DIGEST_SIZE = 16
_MAGIC = np.array([0x70726574, FORMAT], dtype=np.int64)  # "pret", the format
LEVEL = 1
"""zstd's level for a part (about 2.3x on retrieval's months of tokens, at several
hundred MB/s)."""
_ZSTD = b"\x28\xb5\x2f\xfd"  # a zstd frame's first bytes (a plain part starts \x93NUMPY)


def digest(*parts: bytes) -> bytes:
    """A name: BLAKE2b of ``parts``, each length-prefixed (so no two sequences share one)."""
    h = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.digest()


def code_of(*modules: object) -> bytes:
    """The bytes of the modules whose code decides what a part holds."""
    return b"".join(Path(str(getattr(m, "__file__", ""))).read_bytes() for m in modules)


class KeptStore:
    """One stage's directory of kept parts (module docstring).

    Args:
        root: the directory (``<DVC cache>/prescient/<name>``).
        level: zstd's level for the parts it writes (:data:`LEVEL` unless a store of
            large parts written once trades time for disk).
    """

    def __init__(self, root: str | os.PathLike[str], level: int = LEVEL) -> None:
        self.root = Path(root)
        self.level = level

    @classmethod
    def in_cache(
        cls, cache_dir: str | os.PathLike[str] | None, name: str, level: int = LEVEL
    ) -> KeptStore | None:
        """The store ``name`` under DVC's cache directory (None outside a DVC project)."""
        return None if cache_dir is None else cls(Path(cache_dir) / "prescient" / name, level)

    def _path(self, kind: str, name: bytes) -> Path:
        hexname = name.hex()
        return self.root / kind / hexname[:2] / hexname

    def read(self, kind: str, name: bytes) -> list[np.ndarray] | None:
        """The arrays stored under ``name``; None when absent or failing its checks."""
        path = self._path(kind, name)
        try:
            with _opened(path) as fh:
                head = np.load(fh, allow_pickle=False)
                if head.shape != (4,) or not np.array_equal(head[:2], _MAGIC):
                    raise ValueError("not a kept part of this format")
                arrays = [np.load(fh, allow_pickle=False) for _ in range(int(head[2]))]
                if fh.read(1):
                    raise ValueError("trailing bytes")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError) as exc:  # pyarrow raises these kinds too
            logger.warning("kept work: %s is unreadable (%s); computing it again", path, exc)
            return None
        if _payload_digest(arrays) != int(head[3]):
            logger.warning("kept work: %s fails its digest; computing it again", path)
            return None
        return arrays

    def discard(self, kind: str, name: bytes) -> None:
        """Remove the part stored under ``name`` (absent: nothing to do; a part that
        cannot be removed stays, unused)."""
        with contextlib.suppress(OSError):
            self._path(kind, name).unlink()

    def write(self, kind: str, name: bytes, arrays: Sequence[np.ndarray]) -> None:
        """Store ``arrays`` under ``name``, whole or not at all; a failure is logged."""
        head = np.array([*_MAGIC, len(arrays), _payload_digest(arrays)], dtype=np.int64)
        path = self._path(kind, name)
        import pyarrow as pa

        plain = _bytes_io.BytesIO()
        for a in (head, *arrays):
            np.save(plain, a, allow_pickle=False)
        data = pa.Codec("zstd", compression_level=self.level).compress(
            plain.getbuffer(), asbytes=True
        )
        del plain
        try:
            with io.atomic_path(path) as tmp, open(tmp, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            logger.warning("kept work: could not write %s (%s)", path, exc)


def _opened(path: Path) -> _bytes_io.BufferedIOBase:
    """A part's ``.npy`` stream: the file decompressed whole, or the plain file."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data[: len(_ZSTD)] == _ZSTD:
        import pyarrow as pa

        data = pa.input_stream(pa.BufferReader(data), compression="zstd").read()
    return _bytes_io.BytesIO(data)


def _payload_digest(arrays: Sequence[np.ndarray]) -> int:
    h = hashlib.blake2b(digest_size=7)  # fits an int64
    for a in arrays:
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).data)
    return int.from_bytes(h.digest(), "little")


def pack_strings(values: Sequence[str]) -> list[np.ndarray]:
    """Strings as two arrays a part can hold: their UTF-8 bytes end to end, and where
    each ends."""
    encoded = [v.encode("utf-8") for v in values]
    ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    return [np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), ends]


def unpack_strings(blob: np.ndarray, ends: np.ndarray) -> list[str]:
    """The strings :func:`pack_strings` packed (ValueError when they do not decode)."""
    raw, stops = blob.tobytes(), ends.tolist()
    starts = [0, *stops[:-1]][: len(stops)]
    return [raw[s:e].decode("utf-8") for s, e in zip(starts, stops, strict=True)]


CHECKSUMS = "checksums"
"""The store of :class:`KeptChecksums` under DVC's cache directory."""


class KeptChecksums:
    """:func:`prescient.io.parquet_checksum` of Parquet files, kept by the SHA-256 of the
    files' bytes (and the code of :mod:`prescient.io`, which defines the checksum).

    The stage that writes a large table has its checksum already (it digests the rows as
    it writes them) and records it here; a later stage that identifies the same file by
    its checksum then hashes the file's bytes (about 2 GB/s) instead of decoding and
    digesting every row (the article table at the paper's size: about 3 GB). A file not
    recorded is checksummed and recorded. The checksum is the same either way.

    Args:
        store: the kept store (:data:`CHECKSUMS` under DVC's cache directory).
    """

    def __init__(self, store: KeptStore) -> None:
        self.store = store
        self._code = digest(b"parquet checksum", code_of(io))

    def _name(self, sha: str) -> bytes:
        return digest(self._code, sha.encode())

    def record(self, path: str | os.PathLike[str], checksum: str) -> None:
        """Keep ``checksum`` as the one of the file now at ``path``."""
        value = np.frombuffer(checksum.encode("ascii"), dtype=np.uint8).copy()
        self.store.write("parquet", self._name(io.file_sha256(path)), [value])

    def checksum(self, path: str | os.PathLike[str]) -> str:
        """:func:`prescient.io.parquet_checksum` of the file, or partitioned table, at
        ``path`` (each part kept by its bytes)."""
        if Path(path).is_dir():
            return io.parts_checksum({f.stem: self.checksum(f) for f in io.table_files(path)})
        name = self._name(io.file_sha256(path))
        stored = self.store.read("parquet", name)
        if stored is not None and len(stored) == 1 and stored[0].dtype == np.uint8:
            found = stored[0].tobytes()
            if len(found) == 64 and not found.strip(b"0123456789abcdef"):
                return found.decode("ascii")
        value = io.parquet_checksum(path)
        self.store.write("parquet", name, [np.frombuffer(value.encode("ascii"), np.uint8).copy()])
        return value
