"""OpenAI-style Batch API: many chat requests sent as one file, at the batch price.

The major providers answer a batch within a day at about half the price of the same
requests sent one by one. The protocol (OpenAI's Batch API; Together, Groq and vLLM's
batch runner speak it too):

1. the requests as JSON Lines, one per request: ``{"custom_id": <ledger key>,
   "method": "POST", "url": "/v1/chat/completions", "body": {...}}``;
2. ``POST /files`` (multipart, ``purpose=batch``) uploads them;
3. ``POST /batches`` creates the batch from that file;
4. ``GET /batches/<id>`` is polled until the batch is ``completed``, ``failed``,
   ``expired`` or ``cancelled``;
5. ``GET /files/<id>/content`` of its output and error files: one line per request,
   ``{"custom_id", "response": {"status_code", "body"}, "error"}``.

**Never submitted twice.** A :class:`BatchJournal` (JSON Lines, each line fsync'd) records
a batch before it is created (its digest: a hash of its sorted ledger keys, also sent as
the batch's metadata) and its id right after. A killed stage reads the journal and polls
the batch it submitted instead of submitting again; a kill between the two lines is
covered by the metadata, which finds the batch on the server. A request the batch
did not answer (a failed line, an expired batch) comes back as an error and is recorded
as a failed call, like any other.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prescient.llm.transport_base import HTTPSession

logger = logging.getLogger(__name__)

ENDPOINT = "/v1/chat/completions"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
METADATA_KEY = "prescient_batch"


def batch_digest(keys: Iterable[str]) -> str:
    """The batch's identity: sha256 of its sorted ledger keys (first 32 hex digits)."""
    joined = "\n".join(sorted(set(keys)))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Outcome:
    """One request's result from a batch: the chat-completion body, or why there is none."""

    body: Mapping[str, Any] | None
    error: str | None


@dataclass
class JournalBatch:
    """A batch the journal knows: its keys, its id once created, whether it was read."""

    digest: str
    model: str
    keys: list[str]
    batch_id: str | None = None
    collected: bool = False


class BatchJournal:
    """The durable record of submitted batches (module doc), one JSON object per line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _write(self, record: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def batches(self) -> dict[str, JournalBatch]:
        """Every batch recorded, by digest (a torn last line is ignored: its batch
        was never created, or the metadata finds it)."""
        found: dict[str, JournalBatch] = {}
        if not self.path.exists():
            return found
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
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


class BatchAPI:
    """The files and batches endpoints of one OpenAI-compatible server (aiohttp)."""

    def __init__(self, api_base: str, api_key: str | None, timeout_s: float) -> None:
        self.base = api_base.rstrip("/")
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout_s = timeout_s
        self.http = HTTPSession()

    async def _request(self, method: str, path: str, **kw: Any) -> bytes:
        import aiohttp

        session = await self.http.get()
        timeout = aiohttp.ClientTimeout(total=self.timeout_s)
        url = self.base + path
        async with session.request(
            method, url, headers=self.headers, timeout=timeout, **kw
        ) as resp:
            raw: bytes = await resp.read()
            if resp.status >= 400:
                raise BatchError(f"{method} {path}: HTTP {resp.status}: {raw[:200]!r}", resp.status)
            return raw

    async def upload(self, jsonl: bytes) -> str:
        import aiohttp

        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", jsonl, filename="batch.jsonl", content_type="application/jsonl")
        return str(json.loads(await self._request("POST", "/files", data=form))["id"])

    async def create(self, file_id: str, digest: str) -> str:
        body = {
            "input_file_id": file_id,
            "endpoint": ENDPOINT,
            "completion_window": "24h",
            "metadata": {METADATA_KEY: digest},
        }
        return str(json.loads(await self._request("POST", "/batches", json=body))["id"])

    async def get(self, batch_id: str) -> dict[str, Any]:
        return dict(json.loads(await self._request("GET", f"/batches/{batch_id}")))

    async def find(self, digest: str) -> str | None:
        """The id of the batch created with this digest's metadata, if the server has one."""
        after: str | None = None
        while True:
            query = "?limit=100" + (f"&after={after}" if after else "")
            page = json.loads(await self._request("GET", "/batches" + query))
            for b in page.get("data", []):
                if (b.get("metadata") or {}).get(METADATA_KEY) == digest:
                    return str(b["id"])
            if not page.get("has_more") or not page.get("data"):
                return None
            after = str(page["data"][-1]["id"])

    async def content(self, file_id: str) -> bytes:
        return await self._request("GET", f"/files/{file_id}/content")

    async def aclose(self) -> None:
        await self.http.aclose()


class BatchError(RuntimeError):
    """The batch endpoints refused a request (the message has the status and body;
    ``status_code`` the status, which the retry policy reads)."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


def request_lines(bodies: Mapping[str, Mapping[str, Any]]) -> bytes:
    """The batch's input file: one request line per ledger key, in key order."""
    lines = (
        json.dumps(
            {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": dict(bodies[key])},
            sort_keys=True,
            separators=(",", ":"),
        )
        for key in sorted(bodies)
    )
    return ("\n".join(lines) + "\n").encode("utf-8")


def read_results(raw: bytes, wanted: set[str]) -> dict[str, Outcome]:
    """The outcomes in an output or error file, for the keys asked for."""
    out: dict[str, Outcome] = {}
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        key = rec.get("custom_id")
        if key not in wanted:
            continue
        resp = rec.get("response") or {}
        status = int(resp.get("status_code") or 0)
        if rec.get("error") or status >= 400 or not resp.get("body"):
            detail = rec.get("error") or (resp.get("body") or {}).get("error") or status
            out[key] = Outcome(None, f"batch request failed: {json.dumps(detail)[:300]}")
        else:
            out[key] = Outcome(dict(resp["body"]), None)
    return out


Sleep = Callable[[float], Awaitable[None]]
Record = Callable[[Mapping[str, Outcome]], Awaitable[None]]


async def run_batch(
    model: str,
    bodies: Mapping[str, Mapping[str, Any]],
    api: BatchAPI,
    journal: BatchJournal,
    record: Record,
    poll_s: float,
    sleep: Sleep = asyncio.sleep,
) -> None:
    """Answer ``bodies`` (ledger key -> chat-completion body) through batches.

    A key in a batch the journal recorded and has not collected is answered by polling
    that batch; the others go in one new batch. Every key gets an :class:`Outcome`,
    handed to ``record`` batch by batch; ``record`` must keep them durably (the ledger)
    before it returns, because the journal then marks the batch read.
    """
    wanted = set(bodies)
    open_ = [b for b in journal.batches().values() if not b.collected and wanted & set(b.keys)]
    covered = {k for b in open_ for k in b.keys}
    fresh = sorted(wanted - covered)
    if fresh:
        batch = JournalBatch(batch_digest(fresh), model, fresh)
        journal.submitting(batch)
        open_.append(batch)
    for batch in open_:
        if batch.batch_id is None:
            batch.batch_id = await api.find(batch.digest)
            if batch.batch_id is None:
                lines = request_lines({k: bodies[k] for k in batch.keys if k in bodies})
                batch.batch_id = await api.create(await api.upload(lines), batch.digest)
                logger.info(
                    "%s: submitted batch %s (%d requests)", model, batch.batch_id, len(batch.keys)
                )
            journal.submitted(batch.digest, batch.batch_id)
        else:
            logger.info(
                "%s: resuming batch %s (%d requests)", model, batch.batch_id, len(batch.keys)
            )
        results = await _collect(batch, api, poll_s, sleep)
        await record({k: v for k, v in results.items() if k in wanted})
        journal.collected(batch.digest, results.status)


class _Results(dict[str, Outcome]):
    status: str = ""


async def _collect(batch: JournalBatch, api: BatchAPI, poll_s: float, sleep: Sleep) -> _Results:
    assert batch.batch_id is not None
    while (info := await api.get(batch.batch_id))["status"] not in TERMINAL:
        await sleep(poll_s)
    keys = set(batch.keys)
    results = _Results()
    for field in ("output_file_id", "error_file_id"):
        if info.get(field):
            results.update(read_results(await api.content(str(info[field])), keys))
    results.status = str(info["status"])
    for key in keys - set(results):
        results[key] = Outcome(
            None, f"batch {batch.batch_id} {results.status} without answering it"
        )
    return results


def chat_reply_fields(body: Mapping[str, Any]) -> tuple[str, str | None, dict[str, int]]:
    """Text, finish reason and token counts of a chat-completion body."""
    choice = body["choices"][0]
    usage = body.get("usage") or {}
    counts = {k: int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens")}
    return str(choice["message"].get("content") or ""), choice.get("finish_reason"), counts
