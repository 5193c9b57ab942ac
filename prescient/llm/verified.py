"""Lines whose key and answer were checked before, kept beside a store file.

Loading a ledger checks every answer's key against its own request and its answer
against its hash (:func:`prescient.llm.ledger_format.key_problem`,
:func:`~prescient.llm.ledger_format.response_problem`): canonical JSON of each request,
most of the time a stage spends opening a ledger of tens of thousands of answers, and
the same lines are checked again on every run. A stage's ledgers
(:class:`prescient.llm.store.StageLedger`) therefore keep, beside their store file in
DVC's cache, the digests of the lines that passed, and of the lines the stage wrote
itself (answers it keyed, entries that passed when appended, its snapshot's lines)
(``x.verified`` for the store file ``x.jsonl``, ``x.recorded.verified`` for the stage's
snapshot): a line read again byte for byte is served without the check.

What makes that safe: the digest covers the whole line as read, and the code that checks
and expands a line (the line format's and the text pool's modules), so an edited line or
an edited check is checked again; the texts a line refers to in the pool are checked
against their SHA-256 whenever they are read back, as before. A file of digests that
cannot be read is a file of none (every line checked, as without it). Each load writes
the digests of the lines it found sound, when they differ from those it read, and
closing the ledger (or writing the snapshot) writes them with the lines written since,
so the file holds one ledger's current lines and no more. ``ledger verify`` checks
every line.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from pathlib import Path

from prescient import io

logger = logging.getLogger(__name__)

MAGIC = b"prescient verified lines 1\n"
"""The first bytes of a file of digests."""
DIGEST_SIZE = 16


def _checking_code() -> bytes:
    """A digest of the code that decides whether a line is sound."""
    from prescient.kept import code_of, digest
    from prescient.llm import ledger_format, text_pool

    return digest(b"verified lines", code_of(ledger_format, text_pool))


def _beside(store_file: str | os.PathLike[str], suffix: str) -> Path:
    """The file ``x<suffix>`` beside the store file ``x.jsonl``."""
    path = Path(store_file)
    return path.with_name(f"{path.stem}{suffix}")


def verified_path(store_file: str | os.PathLike[str], *, recorded: bool = False) -> Path:
    """The file of digests of the store file ``x.jsonl`` (``x.verified``) or of the stage
    snapshot it keeps (``recorded``: ``x.recorded.verified``)."""
    return _beside(store_file, ".recorded.verified" if recorded else ".verified")


def _records(path: Path, head: bytes, size: int) -> list[bytes] | None:
    """The ``size``-byte records of the file at ``path`` after ``head``: none when it
    cannot be read, None when it holds something else (another head, a cut record)."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    body = data[len(head) :]
    if not data.startswith(head) or len(body) % size:
        return None
    return [body[i : i + size] for i in range(0, len(body), size)]


def _write(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically; False when it cannot be written (these
    files only save work, so that is no error)."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with io.atomic_path(path) as tmp:
            Path(tmp).write_bytes(data)
        return True
    return False


class VerifiedLines:
    """The digests of a ledger's lines found sound before (module docstring).

    Args:
        path: the file of digests (:func:`verified_path`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._code = _checking_code()
        self.known = self._read()
        self.sound: set[bytes] = set()
        self.trusted = 0

    def _read(self) -> set[bytes]:
        found = _records(self.path, MAGIC + self._code, DIGEST_SIZE)
        if found is None:
            logger.info("%s: not this code's digests; every line is checked", self.path)
            return set()
        return set(found)

    def digest(self, raw: bytes) -> bytes:
        """A line's digest, under the checking code's."""
        return hashlib.blake2b(raw, digest_size=DIGEST_SIZE, key=self._code).digest()

    def save(self) -> None:
        """Write the digests of the lines found sound in this load, when they are not
        those read (a file that cannot be written is left as it is: it only saves work)."""
        if self.sound != self.known and _write(
            self.path, MAGIC + self._code + b"".join(sorted(self.sound))
        ):
            self.known = set(self.sound)


WRITTEN_MAGIC = b"prescient snapshot lines 1\n"
"""The first bytes of a file of written lines."""


def written_path(store_file: str | os.PathLike[str]) -> Path:
    """The file of the snapshot lines last written for the store file ``x.jsonl``
    (``x.recorded.written``)."""
    return _beside(store_file, ".recorded.written")


def frames_path(store_file: str | os.PathLike[str]) -> Path:
    """The index of the compressed snapshot's frames for the store file ``x.jsonl``
    (``x.recorded.frames``, :class:`prescient.llm.ledger_file.FrameMemo`)."""
    return _beside(store_file, ".recorded.frames")


class WrittenLines:
    """The lines a stage's snapshot was written with, each with the digest of what
    shaped it besides the line it was made from (who asked for it, the texts it refers
    to): line digest -> shape digest.

    The snapshot writer makes each line from an answer's line and its shape, and a line
    it made, made again under the same shape, comes out as it stands. So a line of the
    stage's ledger read back byte for byte, asked for alike, is written again as it is,
    neither parsed nor serialized anew (most of a snapshot's cost when its lines quote
    whole articles). The digests are keyed by ``code``, the code that makes a line; a
    file of other code's digests, or that cannot be read, is a file of none.

    Args:
        path: the file (:func:`written_path`).
        code: a digest of the code that writes snapshot lines.
    """

    def __init__(self, path: str | os.PathLike[str], code: bytes) -> None:
        self.path = Path(path)
        self._head = WRITTEN_MAGIC + code
        self.known = self._read()

    def _read(self) -> dict[bytes, bytes]:
        found = _records(self.path, self._head, 2 * DIGEST_SIZE) or []
        return {r[:DIGEST_SIZE]: r[DIGEST_SIZE:] for r in found}

    def save(self, shapes: dict[bytes, bytes]) -> None:
        """Keep ``shapes`` (the lines just written) in place of those read (a file that
        cannot be written is left as it is: it only saves work)."""
        if shapes == self.known:
            return
        if _write(self.path, self._head + b"".join(k + v for k, v in sorted(shapes.items()))):
            self.known = dict(shapes)
