"""The response ledger: every request and response, appended durably as it arrives.

One JSON object per line. A line is written, flushed and fsync'd under an exclusive
file lock before the caller sees the result, so a process killed at any moment leaves
at most a torn last line, which readers skip and writers cut off before appending.
Only successful entries are served again: a failure is recorded for the audit but a
rerun retries it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# Parameters that change how a request travels, not what the model is asked.
TRANSPORT_PARAMS = frozenset(
    {
        "timeout",
        "request_timeout",
        "num_retries",
        "max_retries",
        "api_key",
        "api_base",
        "base_url",
        "stream",
        "metadata",
    }
)


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def request_key(
    litellm_model: str, messages: Sequence[Mapping[str, str]], params: Mapping[str, Any]
) -> str:
    """sha256 of the canonical (model, messages, generation params) triple."""
    gen = {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS}
    payload = {"model": litellm_model, "messages": [dict(m) for m in messages], "params": gen}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def read_entries(path: Path) -> Iterator[dict[str, Any]]:
    """Entries of a ledger file in order, skipping a torn (partial) line."""
    if not path.exists():
        return
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                logger.warning(
                    "%s:%d: ignoring a partial last line (interrupted write)", path, lineno
                )
                return
            try:
                yield json.loads(raw)
            except json.JSONDecodeError:
                logger.warning("%s:%d: ignoring an unreadable line", path, lineno)


class Ledger:
    """An append-only JSONL ledger with an in-memory index of successful responses."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._ok: dict[str, dict[str, Any]] = {}
        for entry in read_entries(self.path):
            if entry.get("error") is None and entry.get("response") is not None:
                self._ok[entry["key"]] = entry

    def __len__(self) -> int:
        return len(self._ok)

    def get(self, key: str) -> dict[str, Any] | None:
        """The recorded successful entry for ``key``, if any."""
        return self._ok.get(key)

    def append(self, entry: Mapping[str, Any]) -> None:
        """Durably append one entry (thread- and process-safe)."""
        line = (canonical_json(entry) + "\n").encode("utf-8")
        with self._lock, open(self.path, "ab+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                _cut_torn_tail(fh)
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        if entry.get("error") is None and entry.get("response") is not None:
            self._ok[str(entry["key"])] = dict(entry)


def _cut_torn_tail(fh: Any) -> None:
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
    fh.truncate(pos)
    fh.seek(0, os.SEEK_END)
