"""The response ledger: every request and response, appended durably as it arrives.

One JSON object per line (JSON Lines), so DVC caches it as one file and a peer who
``dvc pull``s it can read it with any tool. (A stage's snapshot, written whole when the
stage is done, may instead hold zstd frames of the same lines: :mod:`prescient.llm.ledger_file`;
this class reads one, and never appends to it.) A line is written, flushed and fsync'd
under an exclusive file lock before the caller sees the result, so a process killed at
any moment leaves at most a torn last line, which readers skip and the next writer cuts
off before appending.

Writes use group commit: while one write is being fsync'd, the lines other callers
hand in queue up and go out together with the next single fsync. Every caller still
returns only once its own line is on disk, but a disk that needs a few milliseconds per
fsync no longer caps a concurrent batch at a few hundred responses per second. The
async path (``append_async``, what the gateway uses) writes on the ledger's own thread,
so a slow disk never occupies the event loop's default executor.

This module is the writer and the index of servable answers (:class:`Ledger`: successes
whose key is the hash of their own request and whose answer matches its hash, the first
one per key). The index holds where each answer's line is in the file, not the line:
a few dozen bytes per answer whatever its prompt holds (a RAG prompt is about 12 KB), so
a ledger of millions of answers is served from a small index and a read of its line; the line format (keys, answer hashes, which lines are entries) is :mod:`prescient.llm.ledger_format`
and reading a file :mod:`prescient.llm.ledger_read`. Their public names are importable
from here too (``__all__``): the ledger is one thing to its users.

In the response store, the long texts a request quotes (retrieved articles) are written
once, to the store's text pool, and the line refers to them (:mod:`prescient.llm.text_pool`);
every read (:meth:`Ledger.get`, :meth:`Ledger.line`, the index built on loading) puts
them back first, so a user of the ledger sees the entry and the line as written. A store
file's lines may also sit in its sealed part, zstd frames beside it
(:mod:`prescient.llm.store_seal`): they are read first, then the file's own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import json
import logging
import os
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from prescient.jsonl import cut_partial_tail
from prescient.llm.ledger_file import Problems, is_compressed, spooled
from prescient.llm.ledger_format import (
    RESPONSE_FIELDS,
    RESPONSE_HASH,
    TRANSPORT_PARAMS,
    canonical_json,
    entry_problem,
    escape_surrogates,
    has_surrogate,
    is_success,
    key_problem,
    parse_line,
    readable_text,
    request_key,
    response_hash,
    response_problem,
    utf8_json,
    with_response_hash,
)
from prescient.llm.ledger_read import PARTIAL, Line, iter_lines, read_entries
from prescient.llm.store_seal import hold_users, sealed_path
from prescient.llm.text_pool import (
    POOLED,
    PooledTextError,
    TextPool,
    expand_entry,
    expand_with,
    open_pool,
    pool_entry,
)
from prescient.llm.verified import VerifiedLines

__all__ = [
    "PARTIAL",
    "RESPONSE_FIELDS",
    "RESPONSE_HASH",
    "TRANSPORT_PARAMS",
    "Ledger",
    "LedgerNotWritableError",
    "Line",
    "canonical_json",
    "entry_problem",
    "escape_surrogates",
    "has_surrogate",
    "is_success",
    "iter_lines",
    "key_problem",
    "parse_line",
    "read_entries",
    "readable_text",
    "request_key",
    "response_hash",
    "response_problem",
    "utf8_json",
    "with_response_hash",
]

logger = logging.getLogger(__name__)

_LENGTH_BITS = 40
_LENGTH_MASK = (1 << _LENGTH_BITS) - 1


_POOLED_MARK = b'"' + POOLED.encode() + b'":[['
"""How a line whose texts sit in the pool starts its ``pooled`` field (canonical JSON)."""


def line_ref(offset: int, length: int) -> int:
    """Where a line is in its file, as one int: its offset and its length in bytes."""
    return (offset << _LENGTH_BITS) | length


class LedgerNotWritableError(OSError, ValueError):
    """The ledger file cannot be opened for appending (a read-only file or directory, a
    path that is a directory, a missing disk). A ValueError too, as a configuration
    error is: stages that stop with exit 2 on bad parameters stop on this alike."""


class Ledger:
    """An append-only JSON Lines ledger with an in-memory index of servable answers (a
    store file also reads its sealed part first, :mod:`prescient.llm.store_seal`).

    Safe for many threads of one process (group commit behind a condition variable) and
    for several processes on one file (``flock`` around every write); ``refresh`` picks
    up what other processes appended since.

    Args:
        path: the ledger file; its directory is created.
        pool: where the texts its lines refer to are (:mod:`prescient.llm.text_pool`):
            by default the pool beside it when it is a response store file (None
            elsewhere); a stage's snapshot is read with its store's pool.

    Attributes:
        failed_entries: recorded failures read or written by this instance.
        damaged: ``(line number, problem)`` of every line that could not be read.
        unserved: ``(line number, problem)`` of successes not served because their key
            is not the hash of their request or their answer does not match its
            ``response_sha256``.
        missing_texts: lines not read because the pool lacks a text they refer to
            (also in ``damaged``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        pool: TextPool | None | Literal["beside"] = "beside",
        verified: VerifiedLines | None = None,
    ) -> None:
        self.path = Path(path)
        # The digests of lines found sound before (prescient.llm.verified): a line read
        # again byte for byte is indexed without checking its key and answer again.
        self._verified = verified
        self._path_str = str(self.path)
        with contextlib.suppress(OSError):  # reading needs no directory; writing says why
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # Where each servable answer's line is in the file (line_ref: its offset and
        # length in one int): an int per answer, whatever the line holds, and nothing the
        # garbage collector scans (parsed entries are containers: every full collection
        # would walk them all, a cost that grows with the ledger on every batch).
        self._ok: dict[str, int] = {}
        # The text pool (None: none): the texts its lines refer to instead of holding
        # them (prescient.llm.text_pool).
        self.pool = open_pool(self.path) if isinstance(pool, str) else pool
        self.missing_texts = 0
        # A store file: its sealed part's lines come first (an unnamed temporary file of
        # them, spooled on loading, at offsets below _base; the file's own lines are at
        # _base and on), and this reader holds the users' lock that keeps it from being
        # sealed while it is read (prescient.llm.store_seal).
        in_store = isinstance(pool, str) and self.pool is not None
        self._sealed = sealed_path(self.path) if in_store else None
        self._sealed_fd: int | None = None
        self._base = 0
        self._users = hold_users(self.path) if in_store else None
        if self._users is not None:
            self._users_closer = weakref.finalize(self, os.close, self._users)
        # A descriptor of the file the index describes, opened when it is first read or
        # written: a file replaced meanwhile (an atomic rewrite) is still read as indexed.
        # A compressed snapshot (prescient.llm.ledger_file) is read from its lines spooled
        # to a temporary file, and never appended to.
        self._fd: int | None = None
        self.compressed = is_compressed(self.path)
        self._spool_problems: Problems = []
        self.failed_entries = 0
        self.damaged: list[tuple[int, str]] = []
        self.unserved: list[tuple[int, str]] = []
        # What has been read of the file: bytes and complete lines (refresh goes on there).
        self._index_lock = threading.RLock()
        self._offset = 0
        self._lines = 0
        # Where this instance's own lines are going in right now (None: no write under
        # way): refresh reads no further, since the writer indexes those lines itself.
        self._writing_at: int | None = None
        self._load()
        # Group commit state: lines waiting, sequence numbers handed out and made durable.
        self._cond = threading.Condition()
        self._pending: list[bytes] = []
        self._enqueued = 0
        self._durable = 0
        self._writing = False
        self._failed: list[tuple[int, int, BaseException]] = []
        # Async group commit: (line, entry, future, keyed here, pooled texts) waiting for
        # the writer task.
        self._async_pending: list[
            tuple[bytes, Mapping[str, Any], asyncio.Future[int], bool, dict[str, str]]
        ] = []
        # Where the lines of a sync group commit went, by sequence number.
        self._written_at: dict[int, int] = {}
        self._async_writer: asyncio.Task[None] | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    def __len__(self) -> int:
        return len(self._ok)

    @property
    def verified(self) -> VerifiedLines | None:
        """The digests of lines found sound this ledger reads and keeps, if any."""
        return self._verified

    def __contains__(self, key: object) -> bool:
        return key in self._ok

    def get(self, key: str) -> dict[str, Any] | None:
        """The servable answer for ``key``, or None (never a failure, never a forgery):
        the entry read from its line, a new dict on every call."""
        ref = self._ok.get(key)
        return None if ref is None else self.entry_at(ref)

    def line(self, key: str) -> bytes | None:
        """The line of the servable answer for ``key`` (what ``get`` reads), or None."""
        ref = self._ok.get(key)
        return None if ref is None else self.line_at(ref)

    def ref(self, key: str) -> int | None:
        """Where the servable answer for ``key`` is (:meth:`line_at` reads it), or None."""
        return self._ok.get(key)

    def line_at(self, ref: int) -> bytes:
        """The line at ``ref`` (:func:`line_ref`), as written (its pooled texts in place).

        Raises:
            OSError: the file no longer holds a line there (another program cut or
                rewrote it since it was indexed: this project's writers only append,
                and seal a store file only while no reader holds it).
        """
        return self._expanded(self._raw_at(ref))

    def entry_at(self, ref: int) -> dict[str, Any]:
        """The entry on the line at ``ref``, its pooled texts in place (what
        :meth:`line_at` reads, without writing it out again); a new dict on every call."""
        entry = entry_of_line(self._raw_at(ref))
        if POOLED in entry and self.pool is not None:
            entry = expand_entry(entry, self.pool.text)
        return entry

    def stored_line_at(self, ref: int) -> bytes:
        """The line at ``ref`` as the file holds it (a store line's quoted texts not
        put back)."""
        return self._raw_at(ref)

    def stored_entry_at(self, ref: int) -> dict[str, Any]:
        """The entry on the line at ``ref`` as the file holds it: a store line's quoted
        texts not put back (its ``pooled`` field says where they go)."""
        return entry_of_line(self._raw_at(ref))

    def _raw_at(self, ref: int) -> bytes:
        """The line at ``ref`` as the file holds it."""
        offset, length = ref >> _LENGTH_BITS, ref & _LENGTH_MASK
        if offset < self._base:
            if self._sealed_fd is None:
                raise OSError(f"{self.path}: its sealed lines are no longer read here (released)")
            fd = self._sealed_fd
        else:
            fd, offset = self._descriptor(), offset - self._base
        start = max(offset - 1, 0)
        data = os.pread(fd, length + offset - start, start)
        line = data[offset - start :]
        if len(line) != length or not line.endswith(b"\n") or (offset and data[:1] != b"\n"):
            raise OSError(
                f"{self.path}: no line of {length} bytes at byte {offset} any more: the file "
                "changed since it was indexed (cut, or rewritten by another program); run again"
            )
        return line

    def _expanded(self, line: bytes) -> bytes:
        """A store line with its pooled texts back in place: the line an unpooled store
        would hold (canonical JSON), byte for byte."""
        if self.pool is None or _POOLED_MARK not in line:
            return line
        entry, problem = parse_line(line)
        if entry is None or POOLED not in entry:
            return line
        return utf8_json(expand_entry(entry, self.pool.text)) + b"\n"

    def __iter__(self) -> Iterator[str]:
        """The keys answered so far (as they were when iteration began)."""
        with self._index_lock:
            return iter(list(self._ok))

    def items(self) -> list[tuple[str, dict[str, Any]]]:
        """``(key, servable answer)`` of every key answered so far."""
        with self._index_lock:
            refs = list(self._ok.items())
        return [(key, self.entry_at(ref)) for key, ref in refs]

    def _descriptor(self) -> int:
        """The open file the index describes (opened now when it is not yet)."""
        with self._index_lock:
            if self._fd is None:
                if self.compressed:
                    spool, self._spool_problems = spooled(self.path)
                    with spool:  # the unnamed file lives on in the dup
                        self._fd = os.dup(spool.fileno())
                else:
                    self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                self._closer = weakref.finalize(self, os.close, self._fd)
            return self._fd

    # -- reading --------------------------------------------------------------------

    def _load(self) -> None:
        self._load_sealed()
        if self.path.is_file():  # not a directory: check_writable says what that is
            # Read through the descriptor lines are read with later: the file indexed is
            # the file read, even if the path is replaced meanwhile.
            fd = self._descriptor()
            self._offset = self._read_lines(fd, self._base, self._spool_problems)
        self._warn("damaged lines skipped", self.damaged)
        self._warn("answers not served (forged key or changed answer)", self.unserved)
        if self._verified is not None:
            self._verified.save()

    def _load_sealed(self) -> None:
        """Index a store file's sealed part, spooled to an unnamed temporary file beside
        it (the store's file system, not the system's temporary directory)."""
        if self._sealed is None or not self._sealed.is_file():
            return
        spool, problems = spooled(self._sealed, self._sealed.parent)
        with spool:  # the unnamed file lives on in the dup
            self._sealed_fd = os.dup(spool.fileno())
        self._sealed_closer = weakref.finalize(self, os.close, self._sealed_fd)
        named = [(n, f"{self._sealed.name}: {problem}") for n, problem in problems]
        self._base = self._read_lines(self._sealed_fd, 0, named)

    def _read_lines(self, fd: int, start: int, problems: Problems) -> int:
        """Index the complete lines of the open file ``fd``, the first at ``start`` (a
        line_ref offset), numbering ``problems`` (damaged stretches of a compressed file,
        by the lines read before each) in their places; returns the bytes indexed."""
        pending = list(problems)
        read = 0
        os.lseek(fd, 0, os.SEEK_SET)
        with open(fd, "rb", closefd=False) as fh:
            for count, raw in enumerate(fh):
                while pending and pending[0][0] <= count:
                    self._lines += 1
                    self.damaged.append((self._lines, pending.pop(0)[1]))
                if not raw.endswith(b"\n"):
                    logger.warning(
                        "%s: ignoring a partial last line (%d bytes)", self.path, len(raw)
                    )
                    break
                self._lines += 1
                self._take(self._lines, raw, start + read, count_failures=True)
                read += len(raw)
        for _, problem in pending:
            self._lines += 1
            self.damaged.append((self._lines, problem))
        return read

    def _warn(self, what: str, found: list[tuple[int, str]]) -> None:
        if found:
            logger.warning(
                "%s: %d %s (%s); `python -m prescient ledger verify %s` lists them",
                self.path,
                len(found),
                what,
                "; ".join(f"line {n}: {p}" for n, p in found[:3]),
                self.path,
            )

    def refresh(self) -> int:
        """Index complete lines other processes appended since the last read; returns their count.

        Cheap when nothing changed (one ``stat``). A line still being written is left for
        the next call: only newline-terminated lines are read, and a writer's line is
        complete once its newline is in the file.
        """
        if self.compressed:  # a snapshot, written whole: nothing is ever appended
            return 0
        with self._index_lock:
            try:
                size = os.stat(self._path_str).st_size
            except FileNotFoundError:
                return 0
            if self._writing_at is not None:
                size = min(size, self._writing_at)
            if size <= self._offset:
                return 0
            fd = self._descriptor()
            data = os.pread(fd, size - self._offset, self._offset)
            end = data.rfind(b"\n") + 1
            lines = data[:end].splitlines(keepends=True)
            at = self._offset
            for raw in lines:
                self._lines += 1
                self._take(self._lines, raw, self._base + at, count_failures=False)
                at += len(raw)
            self._offset += end
            return len(lines)

    def _take(self, number: int, raw: bytes, offset: int, *, count_failures: bool) -> None:
        entry, problem = parse_line(raw)
        if entry is not None and POOLED in entry:
            try:
                entry = expand_entry(entry, expand_with(self.pool))
            except (ValueError, OSError) as exc:
                self.missing_texts += isinstance(exc, PooledTextError)
                entry, problem = None, f"pooled texts unreadable: {exc}"
        if entry is None:
            self.damaged.append((number, problem or "damaged"))
            return
        ref = line_ref(offset, len(raw))
        memo = self._verified
        if memo is None:
            self._index(entry, ref, number, count_failures=count_failures)
            return
        digest = memo.digest(raw)
        known = digest in memo.known
        memo.trusted += known
        if self._index(entry, ref, number, count_failures=count_failures, verify=not known):
            memo.sound.add(digest)

    def _index(
        self,
        entry: Mapping[str, Any],
        ref: int,
        number: int | None = None,
        *,
        count_failures: bool = True,
        verify: bool = True,
    ) -> bool:
        """Index ``entry``, whose line is at ``ref`` in the file, when it is servable
        (returns whether it is)."""
        if not is_success(entry):
            self.failed_entries += count_failures
            return False
        problem = (key_problem(entry) or response_problem(entry)) if verify else None
        if problem is not None:
            self.unserved.append((number or 0, problem))
            return False
        with self._index_lock:
            self._ok.setdefault(str(entry["key"]), ref)  # the first answer stays
        return True

    # -- writing --------------------------------------------------------------------

    def check_writable(self, appending: bool = True) -> None:
        """Open the file for appending (creating it, empty, when it is not there), so a
        ledger that cannot take an answer stops its user before any model is asked.
        ``appending`` False: only its place is checked (a snapshot, rewritten whole),
        and a compressed one passes.

        Raises:
            LedgerNotWritableError: naming the file, why, and the fix.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "ab"):
                pass
        except OSError as exc:
            raise LedgerNotWritableError(
                f"cannot write the response ledger {self.path} ({exc.strerror or exc}): "
                "every answer is stored there before it is used, so no model is asked; "
                "make the file and its directory writable or pass another --ledger path"
            ) from exc
        if appending and self.compressed:
            raise LedgerNotWritableError(self._sealed_message())

    def _sealed_message(self) -> str:
        return (
            f"{self.path} is a compressed ledger snapshot (zstd frames), which is written "
            "whole and never appended to; run the stage inside its DVC project (its "
            "answers then go to the response store) or pass another --ledger path"
        )

    def append(self, entry: Mapping[str, Any], texts: Sequence[str] = ()) -> bytes:
        """Durably append one entry; returns once it is fsync'd. Thread- and process-safe.

        The entry is written with its ``response_sha256`` (added when it lacks one). In
        the response store, the ``texts`` its messages quote are kept once, in the
        store's pool (:mod:`prescient.llm.text_pool`), before the line that refers to them.

        Returns:
            the line written.

        Raises:
            OSError: the write failed; the entry is not in the ledger.
        """
        return self.append_ref(entry, texts)[0]

    def append_ref(self, entry: Mapping[str, Any], texts: Sequence[str] = ()) -> tuple[bytes, int]:
        """:meth:`append`, returning the entry's line and where it is (:meth:`line_at`
        reads it back, a failure's line too)."""
        entry = with_response_hash(entry)
        line = utf8_json(entry) + b"\n"
        stored, pooled = self._stored(entry, line, texts)
        if pooled and self.pool is not None:
            self.pool.add(pooled)  # the texts are on disk before a line refers to them
        with self._cond:
            self._pending.append(stored)
            self._enqueued += 1
            mine = self._enqueued
            while self._durable < mine:
                if self._writing:  # a leader is writing; our line goes with the next batch
                    self._cond.wait()
                    continue
                batch, first, last = self._pending, self._durable + 1, self._enqueued
                self._pending, self._writing = [], True
                self._cond.release()
                error: BaseException | None = None
                at = 0
                try:
                    at = self._write(batch)
                except BaseException as exc:  # re-raised below, for every writer in the batch
                    error = exc
                finally:
                    self._cond.acquire()
                    self._writing = False
                    self._durable = last
                    if error is None:  # where each writer's line went
                        for seq, written in enumerate(batch, first):
                            self._written_at[seq] = at
                            at += len(written)
                    if error is not None:
                        self._failed = [*self._failed[-15:], (first, last, error)]
                    self._cond.notify_all()
            for lo, hi, cause in self._failed:
                if lo <= mine <= hi:
                    raise OSError(f"could not append to {self.path}: {cause}") from cause
            ref = line_ref(self._written_at.pop(mine), len(stored))
        self._keep_sound(stored, self._index(entry, ref))
        return line, ref

    def _keep_sound(self, line: bytes, sound: bool) -> None:
        """Count a line this instance wrote and indexed as sound among the lines found
        sound (:mod:`prescient.llm.verified`): its key was checked, or computed here."""
        if sound and self._verified is not None:
            self._verified.sound.add(self._verified.digest(line))

    def _stored(
        self, entry: Mapping[str, Any], line: bytes, texts: Sequence[str]
    ) -> tuple[bytes, dict[str, str]]:
        """The line the file gets for ``entry`` (whose own line is ``line``) and the texts
        it refers to: in a store, the quoted ``texts`` cut out; elsewhere ``line``."""
        if self.pool is None or not texts:
            return line, {}
        cut, pooled = pool_entry(entry, texts)
        return (utf8_json(cut) + b"\n", pooled) if pooled else (line, {})

    def append_many(
        self,
        entries: Sequence[Mapping[str, Any]],
        texts: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """Durably append several entries with one write and one fsync (the caller has
        the ledger to itself, as when a stage opens it); ``texts``: each entry's quoted
        texts (:meth:`append`).

        Raises:
            OSError: the write failed; none of the entries is in the ledger.
        """
        hashed = [with_response_hash(e) for e in entries]
        quoted = texts if texts is not None else [()] * len(hashed)
        lines: list[bytes] = []
        pooled: dict[str, str] = {}
        for entry, entry_texts in zip(hashed, quoted, strict=True):
            stored, used = self._stored(entry, utf8_json(entry) + b"\n", entry_texts)
            lines.append(stored)
            pooled.update(used)
        at = self._write(lines, pooled)
        for entry, line in zip(hashed, lines, strict=True):
            self._keep_sound(line, self._index(entry, line_ref(at, len(line))))
            at += len(line)

    async def append_async(
        self, entry: Mapping[str, Any], *, keyed_here: bool = False, texts: Sequence[str] = ()
    ) -> bytes:
        """``append`` for coroutines: returns once the entry is fsync'd, never blocks the loop.

        The entry is written with its ``response_sha256`` (added when it lacks one).

        Args:
            entry: the entry.
            keyed_here: the caller computed ``entry["key"]`` from this very entry's
                request (the gateway does), so hashing it again to check is skipped.
            texts: texts the messages quote, kept once in a store (:meth:`append`).

        Returns:
            the line written.

        Raises:
            OSError: the write failed; the entry is not in the ledger.
        """
        return (await self.append_async_ref(entry, keyed_here=keyed_here, texts=texts))[0]

    async def append_async_ref(
        self, entry: Mapping[str, Any], *, keyed_here: bool = False, texts: Sequence[str] = ()
    ) -> tuple[bytes, int]:
        """:meth:`append_async`, returning the entry's line and where it is
        (:meth:`line_at` reads it back, a failure's line too)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        entry = with_response_hash(entry)
        line = utf8_json(entry) + b"\n"
        stored, pooled = self._stored(entry, line, texts)
        self._async_pending.append((stored, entry, done, keyed_here, pooled))
        if self._async_writer is None or self._async_writer.done():
            self._async_writer = loop.create_task(self._drain())
        return line, await done

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        if self._thread is None:
            self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ledger")
        while self._async_pending:
            batch, self._async_pending = self._async_pending, []
            pooled = {d: t for b in batch for d, t in b[4].items()}
            try:
                at = await loop.run_in_executor(
                    self._thread, self._write, [b[0] for b in batch], pooled
                )
            except Exception as exc:
                for _, _, fut, _, _ in batch:
                    if not fut.done():
                        fut.set_exception(OSError(f"could not append to {self.path}: {exc}"))
                continue
            for line, entry, fut, keyed_here, _ in batch:
                ref = line_ref(at, len(line))
                at += len(line)
                self._keep_sound(line, self._index(entry, ref, verify=not keyed_here))
                if not fut.done():
                    fut.set_result(ref)

    def release(self) -> None:
        """Let a store file be sealed (:mod:`prescient.llm.store_seal`): drop this
        reader's shared lock on it, which it otherwise holds until it is collected. No
        line may be read through this instance afterwards (a seal moves them); a
        no-op for any other ledger."""
        if self._users is not None:
            self._users_closer()
            self._users = None
        if self._sealed_fd is not None:
            self._sealed_closer()
            self._sealed_fd = None

    def close(self) -> None:
        """Stop the writer thread and close the file (entries are already on disk;
        nothing is flushed here). A line read after this opens the file again; a store
        file stays held against sealing until :meth:`release`."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        if self._verified is not None:
            self._verified.save()  # with the lines written since it was loaded
        if self.pool is not None:
            self.pool.close()
        with self._index_lock:
            if self._fd is not None:
                self._closer()
                self._fd = None

    def _write(self, lines: list[bytes], pooled: Mapping[str, str] | None = None) -> int:
        """Append ``lines`` under the file lock, fsync'd, after the ``pooled`` texts they
        refer to are in the store's pool; returns where the first is (:func:`line_ref`'s
        offset: after a store file's sealed lines)."""
        if self.compressed:
            raise LedgerNotWritableError(self._sealed_message())
        if pooled and self.pool is not None:
            self.pool.add(pooled)
        data = b"".join(lines)
        with open(self.path, "ab+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                start = cut_partial_tail(fh, self.path)
                with self._index_lock:
                    self._writing_at = start
                written = False
                try:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                    written = True
                finally:
                    with self._index_lock:
                        self._writing_at = None
                        # Our own lines need no re-reading when nobody wrote since our
                        # last read (nobody can while we hold the lock).
                        if written and start == self._offset:
                            self._offset += len(data)
                            self._lines += len(lines)
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        self._descriptor()  # the file just written, when it was new
        return self._base + start


def entry_of_line(line: bytes) -> dict[str, Any]:
    """The entry on a line the index holds (UTF-8 JSON: it was read, or written, as one)."""
    entry: dict[str, Any] = json.loads(line.decode("utf-8"))
    return entry
