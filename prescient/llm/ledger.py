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
so a slow disk never occupies the event loop's default executor.

No line can break a reader. A line that is not UTF-8, not JSON (a 5,000-digit number,
200,000 nested brackets), not an object or has fields of the wrong type is skipped and
counted with its line number (``prescient ledger verify`` lists them). Only successful
entries are served again, and only when their key is the hash of their own request: a
line that reuses a real key for another request is never served (nor is an answer that
no longer matches its hash, below). When several successes share one key, the first
one in the file is served, so a later line can never change an answer a stage has
already used. Failures are kept for the audit, and a rerun asks the model again.

Any text a model returns can be stored. A lone UTF-16 surrogate (``\\ud800``: valid in
a JSON string, which is how servers send it, but not encodable as UTF-8) is written as
its JSON escape, six ASCII characters, so the line stays UTF-8 and JSON parses it back
to the very same string; every other character is written as itself, so lines without
one are byte-identical to what they always were. (JSON reads an escaped high surrogate
directly followed by an escaped low one as the one character they encode: an HTTP reply
never holds such a pair uncombined, an in-process model's may, and stages are handed the
combined character either way, see :func:`readable_text`.)

Every entry written carries ``response_sha256``, the sha256 of the canonical JSON of its
answer: the four fields :data:`RESPONSE_FIELDS` name, the reply text (``response``), why
generation stopped (``finish_reason``), the token counts (``usage``) and the failure
(``error``), each ``null`` when the entry lacks it. These are what a stage reads of an
entry; the request is covered by the key, and timings, cost, tags and provenance
describe the call, not the answer. The hash is a function of the entry alone (no clock,
the same bytes on every machine, see :func:`response_hash`), so a reply edited after it
was written (one "No" turned into "Yes") is told apart from a damaged or forged line:
such an entry is never served, and ``prescient ledger verify`` reports it as changed.
The writer (:meth:`Ledger.append`, :meth:`Ledger.append_async`) adds the field to any
entry that lacks it and keeps one an entry already carries, so an answer copied from
another ledger keeps the hash it was first written with. Entries written before the field
existed are read and served as before; the audit counts them as unverifiable. The key is
unchanged: it hashes the request only, so existing ledgers keep serving their answers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

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

_NONE = type(None)
FIELD_TYPES: Mapping[str, tuple[type, ...]] = {
    "key": (str,),
    "stage": (str,),
    "model": (str,),
    "litellm_model": (str,),
    "template": (str,),
    "template_version": (str,),
    "timestamp": (str,),
    "response": (str, _NONE),
    "error": (str, _NONE),
    "finish_reason": (str, _NONE),
    "messages": (list,),
    "params": (dict,),
    "tags": (dict,),
    "usage": (dict,),
    "provenance": (dict, _NONE),
    "cost": (int, float, _NONE),
    "latency_s": (int, float, _NONE),
    "tries": (int,),
    "response_sha256": (str,),
}
"""The JSON types an entry's fields may have; a field of another type damages the line."""

_JSON_NAMES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    _NONE: "null",
}


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
"""The encoder ``json.dumps`` would build for :func:`canonical_json` on every call; it
keeps no state between calls, so one serves every thread."""


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8 kept as is."""
    return _CANONICAL.encode(obj)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as its ``\\uXXXX`` escape.

    In ``json.dumps(..., ensure_ascii=False)`` output a surrogate can only stand inside a
    string literal, where the escape means the same code point, so ``json.loads`` of the
    result is equal to ``json.loads`` of the input. Text without one is returned as is.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (a code point UTF-8 cannot carry)."""
    return _SURROGATE.search(text) is not None


def readable_text(text: str) -> str:
    """``text`` as every UTF-8 output can hold it: a high surrogate directly followed by
    a low one becomes the character they encode (as JSON reads them back), and any other
    surrogate becomes U+FFFD, the replacement character. Text without one is returned
    as is. The ledger keeps the reply exactly; this is what stages are handed."""
    if not has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def utf8_json(obj: Any) -> bytes:
    """:func:`canonical_json` as UTF-8 bytes; a lone surrogate is kept as its JSON escape
    (module doc), everything else is byte-identical to ``canonical_json(obj)``."""
    text = canonical_json(obj)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escape_surrogates(text).encode("utf-8")


def _normalise(obj: Any) -> Any:
    """Make equal requests serialise equally: ``0`` and ``0.0``, tuples and lists.

    The plain JSON types are told by their exact type (what requests hold, and several
    times faster than the abstract checks below, which every other value takes).
    """
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): _normalise(v) for k, v in obj.items()}
    if kind is list or kind is tuple:
        return [_normalise(v) for v in obj]
    if kind is float:
        return int(obj) if obj.is_integer() else obj
    return _normalise_other(obj)


def _normalise_other(obj: Any) -> Any:
    """:func:`_normalise` of a value that is not of a plain JSON type (subclasses too)."""
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, Mapping):
        return {str(k): _normalise(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
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
    return hashlib.sha256(utf8_json(_normalise(payload))).hexdigest()


RESPONSE_FIELDS = ("response", "finish_reason", "usage", "error")
"""The fields of an entry that make up its answer (module docstring)."""

RESPONSE_HASH = "response_sha256"
"""The entry field holding :func:`response_hash` of the entry as written."""


def response_hash(entry: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the entry's :data:`RESPONSE_FIELDS` (absent: null).

    Computed on the fields as a reader parses them back from the line (a reply holding an
    uncombined surrogate pair is hashed as the one character JSON reads), so the hash of a
    written entry and of the same entry read from the file agree.
    """
    text = canonical_json({name: entry.get(name) for name in RESPONSE_FIELDS})
    if has_surrogate(text):
        return hashlib.sha256(utf8_json(json.loads(escape_surrogates(text)))).hexdigest()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_response_hash(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """``entry`` with :data:`RESPONSE_HASH` set; an entry that already has one is returned as is."""
    if RESPONSE_HASH in entry:
        return entry
    return {**entry, RESPONSE_HASH: response_hash(entry)}


def response_problem(entry: Mapping[str, Any]) -> str | None:
    """None when the entry's answer matches its :data:`RESPONSE_HASH` (or it has none)."""
    recorded = entry.get(RESPONSE_HASH)
    if recorded is None:
        return None
    actual = response_hash(entry)
    if actual != recorded:
        return (
            f"changed answer: {', '.join(RESPONSE_FIELDS)} hash to {actual[:16]}..., "
            f"not the {RESPONSE_HASH} written with them ({str(recorded)[:16]}...)"
        )
    return None


def _json_name(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def entry_problem(obj: Any) -> str | None:
    """Why a parsed line is not a usable ledger entry, or None when it is one."""
    if not isinstance(obj, dict):
        return f"not a ledger entry (a JSON line holding {_json_name(obj)})"
    if "key" not in obj:
        return "not a ledger entry (no key)"
    for name, types in FIELD_TYPES.items():
        if name not in obj:
            continue
        value = obj[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            allowed = " or ".join(dict.fromkeys(_JSON_NAMES[t] for t in types))
            return f"field {name!r} is {_json_name(value)}, not {allowed}"
    if not obj["key"]:
        return "field 'key' is empty"
    if not all(isinstance(m, dict) for m in obj.get("messages", [])):
        return "field 'messages' holds something other than objects"
    usage = obj.get("usage") or {}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values()):
        return "field 'usage' holds something other than whole numbers"
    return None


def key_problem(entry: Mapping[str, Any]) -> str | None:
    """None when the entry's key is the hash of its own request; else why it is not."""
    if not all(name in entry for name in ("litellm_model", "messages", "params")):
        return "the entry has no request to check its key against"
    try:
        expected = request_key(entry["litellm_model"], entry["messages"], entry["params"])
    except (ValueError, TypeError, RecursionError) as exc:
        return f"its request cannot be hashed ({type(exc).__name__})"
    if expected != entry["key"]:
        return f"key {str(entry['key'])[:16]}... is not the hash of its own request ({expected})"
    return None


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """``(entry, None)`` for a usable line, ``(None, problem)`` for a damaged one; never raises."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte {exc.start})"
    try:
        obj = json.loads(text)
    except RecursionError:
        return None, "unreadable line (nested too deeply)"
    except ValueError as exc:  # JSONDecodeError, and integers over Python's digit limit
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).split(";")[0]
        return None, f"unreadable line ({reason})"
    problem = entry_problem(obj)
    return (obj, None) if problem is None else (None, problem)


class Line(NamedTuple):
    """One line of a ledger file."""

    number: int
    entry: dict[str, Any] | None
    problem: str | None


PARTIAL = "partial last line (an interrupted write; the next run cuts it)"


def iter_lines(path: str | os.PathLike[str]) -> Iterator[Line]:
    """Every line of a ledger: its entry, or what is wrong with it. Never raises on content.

    The audit (``prescient ledger verify``) needs the problems; readers that only want
    the entries use :func:`read_entries`.
    """
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                yield Line(number, None, PARTIAL)
                return
            entry, problem = parse_line(raw)
            yield Line(number, entry, problem)


def read_entries(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Well-formed entries of a ledger file in order; damaged lines are skipped and logged."""
    skipped: list[str] = []
    for line in iter_lines(path):
        if line.entry is None:
            skipped.append(f"line {line.number}: {line.problem}")
        else:
            yield line.entry
    if skipped:
        logger.warning(
            "%s: skipped %d damaged lines (%s); `python -m prescient ledger verify` lists them",
            path,
            len(skipped),
            "; ".join(skipped[:3]),
        )


class LedgerNotWritableError(OSError, ValueError):
    """The ledger file cannot be opened for appending (a read-only file or directory, a
    path that is a directory, a missing disk). A ValueError too, as a configuration
    error is: stages that stop with exit 2 on bad parameters stop on this alike."""


def is_success(entry: Mapping[str, Any]) -> bool:
    """An entry that answers its request (it may be served if its key checks out)."""
    return entry.get("error") is None and isinstance(entry.get("response"), str)


class Ledger:
    """An append-only JSON Lines ledger with an in-memory index of servable answers.

    Safe for many threads of one process (group commit behind a condition variable) and
    for several processes on one file (``flock`` around every write); ``refresh`` picks
    up what other processes appended since.

    Args:
        path: the ledger file; its directory is created.

    Attributes:
        failed_entries: recorded failures read or written by this instance.
        damaged: ``(line number, problem)`` of every line that could not be read.
        unserved: ``(line number, problem)`` of successes not served because their key
            is not the hash of their request or their answer does not match its
            ``response_sha256``.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._path_str = str(self.path)
        with contextlib.suppress(OSError):  # reading needs no directory; writing says why
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._ok: dict[str, dict[str, Any]] = {}
        self.failed_entries = 0
        self.damaged: list[tuple[int, str]] = []
        self.unserved: list[tuple[int, str]] = []
        # What has been read of the file: bytes and complete lines (refresh goes on there).
        self._index_lock = threading.RLock()
        self._offset = 0
        self._lines = 0
        self._load()
        # Group commit state: lines waiting, sequence numbers handed out and made durable.
        self._cond = threading.Condition()
        self._pending: list[bytes] = []
        self._enqueued = 0
        self._durable = 0
        self._writing = False
        self._failed: list[tuple[int, int, BaseException]] = []
        # Async group commit: (line, entry, future, keyed here) waiting for the writer task.
        self._async_pending: list[tuple[bytes, Mapping[str, Any], asyncio.Future[None], bool]] = []
        self._async_writer: asyncio.Task[None] | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    def __len__(self) -> int:
        return len(self._ok)

    def __contains__(self, key: object) -> bool:
        return key in self._ok

    def get(self, key: str) -> dict[str, Any] | None:
        """The servable answer for ``key``, or None (never a failure, never a forgery)."""
        return self._ok.get(key)

    def items(self) -> list[tuple[str, dict[str, Any]]]:
        """``(key, servable answer)`` of every key answered so far."""
        with self._index_lock:
            return list(self._ok.items())

    # -- reading --------------------------------------------------------------------

    def _load(self) -> None:
        if not self.path.is_file():  # a directory: check_writable says so
            return
        with open(self.path, "rb") as fh:
            for raw in fh:
                if not raw.endswith(b"\n"):
                    logger.warning(
                        "%s: ignoring a partial last line (%d bytes)", self.path, len(raw)
                    )
                    break
                self._lines += 1
                self._offset += len(raw)
                self._take(self._lines, raw, count_failures=True)
        self._warn("damaged lines skipped", self.damaged)
        self._warn("answers not served (forged key or changed answer)", self.unserved)

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
        with self._index_lock:
            try:
                size = os.stat(self._path_str).st_size
            except FileNotFoundError:
                return 0
            if size <= self._offset:
                return 0
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read(size - self._offset)
            end = data.rfind(b"\n") + 1
            lines = data[:end].splitlines(keepends=True)
            for raw in lines:
                self._lines += 1
                self._take(self._lines, raw, count_failures=False)
            self._offset += end
            return len(lines)

    def _take(self, number: int, raw: bytes, *, count_failures: bool) -> None:
        entry, problem = parse_line(raw)
        if entry is None:
            self.damaged.append((number, problem or "damaged"))
        else:
            self._index(entry, number, count_failures=count_failures)

    def _index(
        self,
        entry: Mapping[str, Any],
        number: int | None = None,
        *,
        count_failures: bool = True,
        verify: bool = True,
    ) -> None:
        if not is_success(entry):
            self.failed_entries += count_failures
            return
        problem = (key_problem(entry) or response_problem(entry)) if verify else None
        if problem is not None:
            self.unserved.append((number or 0, problem))
            return
        with self._index_lock:
            self._ok.setdefault(str(entry["key"]), dict(entry))  # the first answer stays

    # -- writing --------------------------------------------------------------------

    def check_writable(self) -> None:
        """Open the file for appending (creating it, empty, when it is not there), so a
        ledger that cannot take an answer stops its user before any model is asked.

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

    def append(self, entry: Mapping[str, Any]) -> None:
        """Durably append one entry; returns once it is fsync'd. Thread- and process-safe.

        The entry is written with its ``response_sha256`` (added when it lacks one).

        Raises:
            OSError: the write failed; the entry is not in the ledger.
        """
        entry = with_response_hash(entry)
        line = utf8_json(entry) + b"\n"
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

    def append_many(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Durably append several entries with one write and one fsync (the caller has
        the ledger to itself, as when a stage opens it).

        Raises:
            OSError: the write failed; none of the entries is in the ledger.
        """
        hashed = [with_response_hash(e) for e in entries]
        self._write([utf8_json(e) + b"\n" for e in hashed])
        for entry in hashed:
            self._index(entry)

    async def append_async(self, entry: Mapping[str, Any], *, keyed_here: bool = False) -> None:
        """``append`` for coroutines: returns once the entry is fsync'd, never blocks the loop.

        The entry is written with its ``response_sha256`` (added when it lacks one).

        Args:
            entry: the entry.
            keyed_here: the caller computed ``entry["key"]`` from this very entry's
                request (the gateway does), so hashing it again to check is skipped.

        Raises:
            OSError: the write failed; the entry is not in the ledger.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        entry = with_response_hash(entry)
        line = utf8_json(entry) + b"\n"
        self._async_pending.append((line, entry, done, keyed_here))
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
                for _, _, fut, _ in batch:
                    if not fut.done():
                        fut.set_exception(OSError(f"could not append to {self.path}: {exc}"))
                continue
            for _, entry, fut, keyed_here in batch:
                self._index(entry, verify=not keyed_here)
                if not fut.done():
                    fut.set_result(None)

    def close(self) -> None:
        """Stop the writer thread (entries are already on disk; nothing is flushed here)."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None

    def _write(self, lines: list[bytes]) -> None:
        data = b"".join(lines)
        with open(self.path, "ab+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                start = _cut_torn_tail(fh, self.path)
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        with self._index_lock:
            # Our own lines need no re-reading when nobody wrote since our last read.
            if start == self._offset:
                self._offset += len(data)
                self._lines += len(lines)


def _cut_torn_tail(fh: IO[bytes], path: Path) -> int:
    """Truncate a partial last line left by a killed writer; returns the end of the file."""
    size = fh.seek(0, os.SEEK_END)
    if size == 0:
        return 0
    fh.seek(size - 1)
    if fh.read(1) == b"\n":
        return size
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
    return fh.seek(0, os.SEEK_END)
