"""Requests in flight, visible to every process that shares a ledger.

Two processes working through the same ledger (two stages, or a stage and a notebook,
on one file) would otherwise both pay for every request neither has answered yet.
Before calling a model for a key, a process claims the key with an exclusive lock on
one byte of the ledger file, at an offset far beyond its end derived from the key; a
second process that finds the byte locked waits, re-reads the ledger when the lock is
released, and is served the first one's answer (or calls itself if that call failed).

The locks are Linux open-file-description locks (``F_OFD_SETLK``): they belong to this
process's own descriptor, so the ledger writer opening and closing the file does not
drop them (as it would classic POSIX locks), and the kernel releases them when the
process dies, however it dies: a killed stage never leaves a claim behind. They do
not interact with the ``flock`` that guards appends. Where such locks are not
available (not Linux), claims are off and each process pays for its own calls, as
before.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import struct
from pathlib import Path

logger = logging.getLogger(__name__)

CLAIM_BASE = 1 << 62
"""Claims lock bytes from here on, far beyond any real ledger's end."""
_FLOCK = "hhqqi4x"  # struct flock: l_type, l_whence, l_start, l_len, l_pid (+ padding)
_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)
_OFD_SETLKW = getattr(fcntl, "F_OFD_SETLKW", None)
OFD_LOCKS = _OFD_SETLK is not None and _OFD_SETLKW is not None
"""Whether this system has open-file-description locks (Linux)."""


def lock_byte(fd: int, kind: int, offset: int, *, wait: bool = False) -> None:
    """Lock (``kind``: fcntl.F_RDLCK, F_WRLCK or F_UNLCK) the byte at ``offset`` of the
    open file ``fd`` with an open-file-description lock; ``wait``: until it is free.

    Raises:
        OSError: EAGAIN or EACCES when another holder keeps it (and not ``wait``); any
            other error of the system.
    """
    command = _OFD_SETLKW if wait else _OFD_SETLK
    assert command is not None, "no open-file-description locks on this system"
    fcntl.fcntl(fd, command, struct.pack(_FLOCK, kind, os.SEEK_SET, offset, 1, 0))


def claim_offset(key: str) -> int:
    """The byte a key's claim locks (60 bits of the key: collisions only cost a wait)."""
    try:
        return CLAIM_BASE + int(key[:15], 16)
    except ValueError:  # not a hex key (hand-made ledgers in tests)
        return CLAIM_BASE + int.from_bytes(key.encode("utf-8")[:7].ljust(7, b"\0"), "big")


class Claims:
    """This process's claims on the keys of one ledger file.

    Args:
        path: the ledger file (created if missing, as the ledger does).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self.enabled = OFD_LOCKS
        if not self.enabled:
            logger.debug("%s: no open-file-description locks here; claims are off", path)

    def _lock(self, kind: int, key: str) -> None:
        assert self._fd is not None
        lock_byte(self._fd, kind, claim_offset(key))

    def try_claim(self, key: str) -> bool:
        """Claim ``key``; False when another process holds it (then wait and try again)."""
        if not self.enabled:
            return True
        try:
            if self._fd is None:  # opened on first use: a ledger nobody writes stays absent
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            self._lock(fcntl.F_WRLCK, key)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                return False
            logger.warning("%s: claims are off (%s)", self.path, exc)
            self.close()
            self.enabled = False
        return True

    def release(self, key: str) -> None:
        """Give up the claim on ``key`` (after its answer is in the ledger)."""
        if self._fd is not None:
            try:
                self._lock(fcntl.F_UNLCK, key)
            except OSError as exc:  # the kernel drops it with the descriptor anyway
                logger.debug("%s: releasing a claim: %s", self.path, exc)

    def close(self) -> None:
        """Release every claim of this instance."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
