"""The response ledger: every request and response, appended durably as it arrives.

One JSON object per line (JSON Lines), so DVC caches it as one file and a peer who
``dvc pull``s it can read it with any tool. A line is written, flushed and fsync'd
under an exclusive file lock before the caller sees the result, so a process killed at
any moment leaves at most a torn last line, which readers skip and the next writer cuts
off before appending.

Writes use group commit: while one write is being fsync'd, the lines other callers
hand in queue up and go out together with the next single fsync. Every caller still
returns only once its own line is on disk, but a disk that needs a few milliseconds per
fsync no longer caps a concurrent batch at a few hundred responses per second. The
async path (``append_async``, what the gateway uses) writes on the ledger's own thread,
so a slow disk never occupies the event loop's default executor, which litellm needs
for every request it prepares.

Only successful entries are served again: a failure is recorded for the audit, and a
rerun asks the model again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import fcntl
import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

logger = logging.getLogger(__name__)

# Parameters that change how a request travels, not what the model is asked: never part
# of the key, never stored in the ledger's params.
TRANSPORT_PARAMS = frozenset(
    {
        "timeout",
        "request_timeout",
        "num_retries",
        "max_retries",
        "api_key",
        "api_base",
        "base_url",
        "api_version",
        "extra_headers",
        "headers",
        "stream",
        "metadata",
        "drop_params",
    }
)


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8 kept as is."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _normalise(obj: Any) -> Any:
    """Make equal requests serialise equally: ``0`` and ``0.0``, tuples and lists."""
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, Mapping):
        return {str(k): _normalise(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_normalise(v) for v in obj]
    return obj


def request_key(
    litellm_model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> str:
    """The ledger key: sha256 of the canonical (litellm model, messages, generation params).

    Transport fields (timeouts, retries, keys, endpoints) are left out, so moving a model
    to another server or raising a timeout does not invalidate answers already paid for;
    any change to what the model is asked (one character, one sampling parameter) does.
    ``None`` values are dropped: an unset parameter and an explicit null ask the same.
    """
    gen = {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS and v is not None}
    payload = {"model": litellm_model, "messages": list(messages), "params": gen}
    return hashlib.sha256(canonical_json(_normalise(payload)).encode("utf-8")).hexdigest()


def iter_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """``(line number, entry or None, problem or None)`` for every line of a ledger.

    The audit (``prescient ledger verify``) needs the problems; readers that only want
    the entries use :func:`read_entries`.
    """
    if not path.exists():
        return
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                yield lineno, None, "partial last line (an interrupted write; the next run cuts it)"
                return
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                yield lineno, None, f"unreadable line ({exc.msg})"
                continue
            if not isinstance(obj, dict) or "key" not in obj:
                yield lineno, None, "line is not a ledger entry (no key)"
                continue
            yield lineno, obj, None


def read_entries(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Entries of a ledger file in order, skipping (and logging) a torn or unreadable line."""
    path = Path(path)
    for lineno, entry, problem in iter_lines(path):
        if entry is None:
            logger.warning("%s:%d: ignoring %s", path, lineno, problem)
        else:
            yield entry


def is_success(entry: Mapping[str, Any]) -> bool:
    """An entry that may be served again instead of calling the model."""
    return entry.get("error") is None and entry.get("response") is not None


class Ledger:
    """An append-only JSON Lines ledger with an in-memory index of successful responses.

    Safe for many threads of one process (group commit behind a condition variable) and
    for several processes on one file (``flock`` around every write).

    Args:
        path: the ledger file; its directory is created.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._ok: dict[str, dict[str, Any]] = {}
        self.failed_entries = 0
        for entry in read_entries(self.path):
            if is_success(entry):
                self._ok[str(entry["key"])] = entry
            else:
                self.failed_entries += 1
        # Group commit state: lines waiting, sequence numbers handed out and made durable.
        self._cond = threading.Condition()
        self._pending: list[bytes] = []
        self._enqueued = 0
        self._durable = 0
        self._writing = False
        self._failed: list[tuple[int, int, BaseException]] = []
        # Async group commit: (line, entry, future) waiting for the writer task.
        self._async_pending: list[tuple[bytes, Mapping[str, Any], asyncio.Future[None]]] = []
        self._async_writer: asyncio.Task[None] | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    def __len__(self) -> int:
        return len(self._ok)

    def __contains__(self, key: object) -> bool:
        return key in self._ok

    def get(self, key: str) -> dict[str, Any] | None:
        """The recorded successful entry for ``key``, or None (never a failure)."""
        return self._ok.get(key)

    def append(self, entry: Mapping[str, Any]) -> None:
        """Durably append one entry; returns once it is fsync'd. Thread- and process-safe.

        Raises:
            OSError: the write failed; the entry is not in the ledger.
        """
        line = (canonical_json(entry) + "\n").encode("utf-8")
        with self._cond:
            self._pending.append(line)
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
                try:
                    self._write(batch)
                except BaseException as exc:  # re-raised below, for every writer in the batch
                    error = exc
                finally:
                    self._cond.acquire()
                    self._writing = False
                    self._durable = last
                    if error is not None:
                        self._failed = [*self._failed[-15:], (first, last, error)]
                    self._cond.notify_all()
            for lo, hi, cause in self._failed:
                if lo <= mine <= hi:
                    raise OSError(f"could not append to {self.path}: {cause}") from cause
        self._index(entry)

    async def append_async(self, entry: Mapping[str, Any]) -> None:
        """``append`` for coroutines: returns once the entry is fsync'd, never blocks the loop.

        Raises:
            OSError: the write failed; the entry is not in the ledger.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        line = (canonical_json(entry) + "\n").encode("utf-8")
        self._async_pending.append((line, entry, done))
        if self._async_writer is None or self._async_writer.done():
            self._async_writer = loop.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        if self._thread is None:
            self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ledger")
        while self._async_pending:
            batch, self._async_pending = self._async_pending, []
            try:
                await loop.run_in_executor(self._thread, self._write, [b[0] for b in batch])
            except Exception as exc:
                for _, _, fut in batch:
                    if not fut.done():
                        fut.set_exception(OSError(f"could not append to {self.path}: {exc}"))
                continue
            for _, entry, fut in batch:
                self._index(entry)
                if not fut.done():
                    fut.set_result(None)

    def close(self) -> None:
        """Stop the writer thread (entries are already on disk; nothing is flushed here)."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None

    def _index(self, entry: Mapping[str, Any]) -> None:
        if is_success(entry):
            self._ok[str(entry["key"])] = dict(entry)
        else:
            self.failed_entries += 1

    def _write(self, lines: list[bytes]) -> None:
        with open(self.path, "ab+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                _cut_torn_tail(fh, self.path)
                fh.write(b"".join(lines))
                fh.flush()
                os.fsync(fh.fileno())
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _cut_torn_tail(fh: IO[bytes], path: Path) -> None:
    """Truncate a partial last line left by a killed writer, so the next line starts clean."""
    size = fh.seek(0, os.SEEK_END)
    if size == 0:
        return
    fh.seek(size - 1)
    if fh.read(1) == b"\n":
        return
    pos = size - 1
    while pos > 0:
        step = min(4096, pos)
        fh.seek(pos - step)
        chunk = fh.read(step)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            pos = pos - step + nl + 1
            break
        pos -= step
    logger.warning("%s: cutting a partial last line of %d bytes", path, size - pos)
    fh.truncate(pos)
    fh.seek(0, os.SEEK_END)
