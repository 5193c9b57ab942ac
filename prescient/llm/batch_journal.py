"""The batch journal: the durable record of submitted batches (:mod:`prescient.llm.batch`).

One JSON object per line, each appended and fsync'd on its own: ``submitting`` (a batch's
digest, model and ledger keys) before the batch is created, ``submitted`` (its id) right
after, ``collected`` once its answers are in the ledger. The reader survives any line: a
line that is not a record of that shape (torn by a kill, not JSON, nested past the
parser's depth, not UTF-8, a lone surrogate, an array, a record missing a field) is
skipped with a warning naming the file and line, because a journal that cannot be read
would stop every batch of the stage. A torn last line is cut before the next append, so
the next record starts on a line of its own and is not lost with it.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prescient.jsonl import parse_json

logger = logging.getLogger(__name__)

EVENT_FIELDS: dict[str, dict[str, type]] = {
    "submitting": {"digest": str, "model": str, "keys": list},
    "submitted": {"digest": str, "batch_id": str},
    "collected": {"digest": str},
}
"""The fields each event's record must have, and their types."""


@dataclass
class JournalBatch:
    """A batch the journal knows: its keys, its id once created, whether it was read."""

    digest: str
    model: str
    keys: list[str]
    batch_id: str | None = None
    collected: bool = False


def parse_record(raw: bytes) -> dict[str, Any]:
    """One journal line as a record.

    Raises:
        ValueError: the line is not a record of the journal's shape (the message says
            why); invalid UTF-8, bad JSON and too deep nesting all end here.
    """
    rec: dict[str, Any] = parse_json(
        raw, surrogates=False, want_object=True
    )  # LineError: a ValueError
    event = rec.get("event")
    fields = EVENT_FIELDS.get(event) if isinstance(event, str) else None
    if fields is None:
        raise ValueError(f"unknown event {str(rec.get('event'))[:40]!r}")
    for name, kind in fields.items():
        if not isinstance(rec.get(name), kind):
            raise ValueError(f"field {name!r} missing or not a {kind.__name__}")
    if "keys" in fields and not all(isinstance(k, str) for k in rec["keys"]):
        raise ValueError("a key that is not a string")
    return rec


class BatchJournal:
    """The durable record of submitted batches (module doc), one JSON object per line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _cut_torn_tail(self) -> None:
        """Cut a last line without its newline (a write a kill tore), so that the next
        record is not glued to it."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        if not data or data.endswith(b"\n"):
            return
        keep = data.rfind(b"\n") + 1
        logger.warning(
            "%s: line %d torn (no newline); cut before appending",
            self.path,
            data[:keep].count(b"\n") + 1,
        )
        os.truncate(self.path, keep)

    def _write(self, record: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._cut_torn_tail()
        line = (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def batches(self) -> dict[str, JournalBatch]:
        """Every batch recorded, by digest; a line that is no record is skipped and named
        (module doc): a torn last line's batch was never created, or the metadata finds
        it."""
        found: dict[str, JournalBatch] = {}
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return found
        for number, raw in enumerate(data.split(b"\n"), 1):
            if not raw.strip():
                continue
            try:
                rec = parse_record(raw)
            except ValueError as exc:
                logger.warning("%s: line %d skipped: %s", self.path, number, exc)
                continue
            d = rec["digest"]
            if rec["event"] == "submitting":
                found[d] = JournalBatch(d, rec["model"], list(rec["keys"]))
            elif d in found and rec["event"] == "submitted":
                found[d].batch_id = rec["batch_id"]
            elif d in found and rec["event"] == "collected":
                found[d].collected = True
        return found

    def submitting(self, batch: JournalBatch) -> None:
        self._write(
            {
                "event": "submitting",
                "digest": batch.digest,
                "model": batch.model,
                "keys": batch.keys,
            }
        )

    def submitted(self, digest: str, batch_id: str) -> None:
        self._write({"event": "submitted", "digest": digest, "batch_id": batch_id})

    def collected(self, digest: str, status: str) -> None:
        self._write({"event": "collected", "digest": digest, "status": status})
