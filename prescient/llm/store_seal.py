"""Sealing a response store file: its finished lines moved into zstd frames beside it.

A store file (:mod:`prescient.llm.store`) is appended to one answer at a time, each
fsync'd before it is used, so it is plain JSON Lines while anyone may be writing to it.
Once nobody is, its lines can be kept as a stage's compressed snapshot keeps them
(:mod:`prescient.llm.ledger_file`): zstd frames of the same lines, about a tenth of the
bytes for evaluation prompts. Sealing does that for one store file: its complete lines
are added as new frames to the file's **sealed part** (``<name>.sealed.jsonl`` beside
``<name>.jsonl``, :func:`sealed_path`), and the file is emptied. The store's reader
(:class:`prescient.llm.ledger.Ledger`) reads the sealed part and then the file, so every
answer is served as before, and new answers are appended to the emptied file.

Safety:

- **Only a file nobody is using is sealed.** Every :class:`~prescient.llm.ledger.Ledger`
  opened on a store file (with the pool beside it, as the stages open it) holds a
  shared lock on one byte of it (:func:`hold_users`, a Linux open-file-description
  lock, released by the kernel however its process ends) until it is released or
  collected; sealing takes that byte exclusively without waiting, and does nothing when
  it cannot. A reader that opens the file while a seal is under way waits for it to
  end. Where such locks are not available (not Linux), nothing is sealed. (The
  ``prescient ledger`` commands read without the lock: during a seal they may count a
  line twice, never miss one.)
- **No line is lost.** The new sealed part (the old frames as they were, then the new
  ones) is written to a temporary file, fsync'd and renamed into place before the file
  is emptied. A run killed between the two leaves lines in both: readers serve the first
  of equal answers, and the next seal adds only the lines the sealed part lacks.
- **Damage costs a frame.** Readers read a sealed part a frame at a time
  (:func:`prescient.llm.ledger_file.recovered_lines`): a damaged frame loses its lines
  after the damage (about 4 MiB of lines at most; answers a stage's snapshot still holds
  come back from it), and the frames after it are read on. A sealed part that does
  not read to its end is never added to; the plain file keeps growing instead, and
  ``prescient ledger verify`` names the damage. New frames are read back before the
  file is emptied.
- **Every reader must know sealed parts.** A version of this project from before sealing
  reads only the plain file: it would ask again for every sealed answer, so while a
  store is shared with a checkout of such a version, run the others with
  ``llm.ledger_compression: none`` (nothing is sealed then).

``zstd -dc <name>.sealed.jsonl`` reads a sealed part (concatenated frames are one
stream); ``prescient ledger stats``, ``verify`` and ``export`` read it as a ledger file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prescient import io
from prescient.llm.claims import CLAIM_BASE, OFD_LOCKS, lock_byte
from prescient.llm.ledger_file import compressed, recovered_lines

logger = logging.getLogger(__name__)

SEALED = ".sealed"
"""What a sealed part's name adds before the store file's suffix."""

USERS_BYTE = CLAIM_BASE - 1
"""The byte of a store file its users lock shared and sealing locks exclusively (below
every claim's byte, :mod:`prescient.llm.claims`; far beyond any real file's end)."""


def sealed_path(store_file: str | os.PathLike[str]) -> Path:
    """The sealed part of the store file at ``store_file`` (``x.jsonl``: ``x.sealed.jsonl``)."""
    path = Path(store_file)
    return path.with_name(f"{path.stem}{SEALED}{path.suffix}")


def _lock(fd: int, kind: int, *, wait: bool) -> bool:
    """Lock :data:`USERS_BYTE` of the open file ``fd`` (``kind``: fcntl.F_RDLCK or
    F_WRLCK); False when another holder keeps it and ``wait`` is False."""
    try:
        lock_byte(fd, kind, USERS_BYTE, wait=wait)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):  # held by another
            return False
        raise
    return True


def hold_users(store_file: str | os.PathLike[str]) -> int | None:
    """Open the store file (creating it, empty, when it is not there) and hold its users'
    shared lock, waiting while it is being sealed; returns the descriptor (closing it
    releases the lock), or None where this system has no such locks (nothing is sealed
    then), or the file cannot be opened or locked (a warning: see the module)."""
    if not OFD_LOCKS:
        return None
    try:
        fd = os.open(store_file, os.O_RDONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:
        return None
    try:
        _lock(fd, fcntl.F_RDLCK, wait=True)
    except OSError as exc:
        os.close(fd)
        logger.warning(
            "%s: no shared lock on the store file (%s): were another process to seal it "
            "meanwhile, this one would stop with an error or ask again, never serve a wrong answer",
            store_file,
            exc,
        )
        return None
    return fd


@dataclass(frozen=True)
class Sealed:
    """What one seal did: lines added to the sealed part, lines left out because the part
    held them already, a torn last line dropped (bytes), and the sizes after."""

    lines: int
    already: int
    torn_bytes: int
    sealed_bytes: int


def _digest(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=16).digest()


def _sealed_lines(part: Path) -> set[bytes] | None:
    """Digests of the sealed part's lines, or None when it does not read to its end."""
    seen: set[bytes] = set()
    if not part.exists() or part.stat().st_size == 0:
        return seen
    for raw in recovered_lines(part):
        if isinstance(raw, str):
            logger.warning(
                "%s: %s; the store file beside it is no longer sealed (its later answers stay "
                "in it), and `python -m prescient ledger verify %s` lists what is readable",
                part,
                raw,
                part,
            )
            return None
        seen.add(_digest(raw))
    return seen


def _frames_hold(frames: list[bytes], digest: bytes) -> bool:
    """Whether ``frames`` decompress to lines whose running digest is ``digest``."""
    import pyarrow as pa

    h = hashlib.blake2b(digest_size=16)
    try:
        for frame in frames:
            h.update(pa.input_stream(pa.BufferReader(frame), compression="zstd").read())
    except OSError:
        return False
    return h.digest() == digest


def seal(store_file: str | os.PathLike[str]) -> Sealed | None:
    """Move the complete lines of the store file at ``store_file`` into its sealed part and
    empty it (see the module).

    Returns:
        what was done, or None when nothing was: the file is absent or empty, in use
        (another reader holds it), its sealed part is damaged, or this system lacks the
        locks that make sealing safe.

    Raises:
        OSError: the sealed part could not be written, or its new frames did not read
            back as the lines; the store file is as it was.
    """
    path = Path(store_file)
    if not OFD_LOCKS:
        return None
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    try:
        if os.fstat(fd).st_size == 0 or not _lock(fd, fcntl.F_WRLCK, wait=False):
            return None
        fcntl.flock(fd, fcntl.LOCK_EX)  # the writers' lock, should any writer be about
        part = sealed_path(path)
        seen = _sealed_lines(part)
        if seen is None:
            return None
        counts = {"lines": 0, "already": 0, "torn": 0}
        written = hashlib.blake2b(digest_size=16)

        def fresh() -> Iterator[bytes]:
            with open(fd, "rb", closefd=False) as fh:
                fh.seek(0)
                for raw in fh:
                    if not raw.endswith(b"\n"):
                        counts["torn"] = len(raw)
                        break
                    if _digest(raw) in seen:
                        counts["already"] += 1
                        continue
                    counts["lines"] += 1
                    written.update(raw)
                    yield raw

        frames = list(compressed(fresh()))  # the new lines' frames: a tenth of their bytes
        if frames:
            if not _frames_hold(frames, written.digest()):
                raise OSError(f"{part}: new frames do not read back as the lines they hold")
            with io.atomic_path(part) as tmp, open(tmp, "wb") as out:
                if part.exists():
                    with open(part, "rb") as old:
                        shutil.copyfileobj(old, out)
                for frame in frames:
                    out.write(frame)
            _fsync_dir(part.parent)
        os.ftruncate(fd, 0)
        os.fsync(fd)
        if counts["torn"]:
            logger.warning(
                "%s: a torn last line (%d bytes, a write that never finished) dropped",
                path,
                counts["torn"],
            )
        size = part.stat().st_size if part.exists() else 0
        return Sealed(counts["lines"], counts["already"], counts["torn"], size)
    finally:
        os.close(fd)  # releases both locks


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system syncs a directory
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
