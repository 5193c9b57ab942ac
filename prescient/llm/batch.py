"""Batch APIs: many chat requests sent as one job, at the batch price.

The major providers answer a batch within a day at about half the price of the same
requests sent one by one. Each provider's API has its own shape, one module each behind
:class:`BatchAPI`: OpenAI's Batch API (:mod:`prescient.llm.batch_openai`; Together, Groq
and vLLM's batch runner speak it too) and Anthropic's Message Batches API
(:mod:`prescient.llm.batch_anthropic`). Which one a model's batches go to is declared
in :mod:`prescient.llm.routes`. Whatever the API, a batch's requests are keyed by their
ledger keys (each request's ``custom_id``), and :func:`run_batch` submits, polls and
reads them the same way.

**Never submitted twice.** A :class:`BatchJournal` (JSON Lines, each line fsync'd) records
a batch before it is created (its digest: a hash of its sorted ledger keys and its
attempt, :func:`batch_digest`) and its id right after. A killed stage reads the journal and polls the batch it submitted instead
of submitting again. A kill between the two lines is covered where the API keeps
metadata with a batch (OpenAI's: the digest is sent as the batch's metadata, and
:meth:`BatchAPI.find` finds the batch on the server); an API without metadata
(Anthropic's) cannot tell that batch from another, so a kill in that instant submits the
batch again on the rerun. A request the batch did not answer (a failed line, an expired
batch) comes back as an error and is recorded as a failed call, like any other; a rerun
asks it again in a new attempt (a batch whose digest differs from the failed one's, so
neither the journal nor :meth:`BatchAPI.find` mistakes the finished batch for it).

Reads that fail for a passing reason (a connection error, a timeout, a 429 or 5xx) are
retried under the retry policy given to the API (a status poll runs for hours); uploads
and creations are not (a repeated creation could pay twice: the journal covers a lost
one on the rerun).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from prescient.llm.batch_journal import BatchJournal, JournalBatch
from prescient.llm.limits import Clock
from prescient.llm.registry import ModelSpec
from prescient.llm.retry import RetryPolicy, is_retryable
from prescient.llm.transport_base import HTTPSession, Messages

logger = logging.getLogger(__name__)

__all__ = [
    "BatchAPI",
    "BatchError",
    "BatchHTTP",
    "BatchJournal",
    "BatchState",
    "JournalBatch",
    "Outcome",
    "attempt_of",
    "batch_digest",
    "keyed_records",
    "run_batch",
]

ReplyFields = tuple[str, str | None, dict[str, int]]
"""A reply's text, why generation stopped, and its prompt and completion token counts."""


def batch_digest(keys: Iterable[str], attempt: int = 0) -> str:
    """The batch's identity: sha256 of its sorted ledger keys and its attempt (first 32
    hex digits).

    The attempt is how many batches of exactly these keys were collected before
    (:func:`attempt_of`): a batch that failed as a whole is sent again under a new
    identity instead of being found and reread, while a batch not yet collected keeps
    its identity, so a rerun polls it instead of submitting it twice. The first attempt
    hashes the keys alone (the digest journals and batch metadata already carry).
    """
    joined = "\n".join(sorted(set(keys)))
    if attempt:
        joined += f"\n#attempt {attempt}"
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]


def attempt_of(keys: Iterable[str], known: Iterable[JournalBatch]) -> int:
    """The attempt a new batch of ``keys`` is: the batches of the same keys collected
    before (each attempt has its own digest, so each is counted once)."""
    wanted = set(keys)
    return sum(1 for b in known if b.collected and set(b.keys) == wanted)


@dataclass(frozen=True)
class Outcome:
    """One request's result from a batch: the provider's reply body, or why there is none."""

    body: Mapping[str, Any] | None
    error: str | None


@dataclass(frozen=True)
class BatchState:
    """A batch's status as last read.

    Attributes:
        status: the provider's word for it (``completed``, ``expired``, ``ended``, ...).
        done: the batch will change no more: its results can be read.
        info: the provider's whole status object (where its results are).
    """

    status: str
    done: bool
    info: Mapping[str, Any] = field(default_factory=dict)


class BatchAPI(Protocol):
    """One provider's batch endpoints, as :func:`run_batch` and the batch route use them."""

    def request_body(
        self, spec: ModelSpec, messages: Messages, gen: Mapping[str, Any]
    ) -> dict[str, Any]:
        """What one request of the batch asks (the provider's request shape)."""
        ...

    def reply_fields(self, body: Mapping[str, Any]) -> ReplyFields:
        """Text, finish reason and token counts of one answered request's body."""
        ...

    async def find(self, digest: str) -> str | None:
        """The id of a batch created with this digest, if the server can tell (None)."""
        ...

    async def submit(self, bodies: Mapping[str, Mapping[str, Any]], digest: str) -> str:
        """Create a batch of ``bodies`` (ledger key -> request body); returns its id."""
        ...

    async def poll(self, batch_id: str) -> BatchState:
        """The batch's status now."""
        ...

    async def results(self, state: BatchState, wanted: set[str]) -> dict[str, Outcome]:
        """The outcomes of a finished batch, for the keys asked for."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


class BatchError(RuntimeError):
    """The batch endpoints refused a request (the message has the status and body;
    ``status_code`` the status, which the retry policy reads)."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class BatchHTTP:
    """What the batch APIs share: an aiohttp session, one request (:meth:`_request`), and
    reads retried for passing reasons when a retry policy is given (module doc).

    Args:
        base: the API's base URL; request paths are relative to it.
        headers: sent with every request (the key lives here only).
        timeout_s: seconds one request may take.
        retry: the policy reads are retried under (None: no retries).
        clock: the clock retries wait on (required with ``retry``).
    """

    def __init__(
        self,
        base: str,
        headers: Mapping[str, str],
        timeout_s: float,
        retry: RetryPolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.base = base.rstrip("/")
        self.headers = dict(headers)
        self.timeout_s = timeout_s
        self.retry = retry
        self.clock = clock
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

    async def _call(self, method: str, path: str, **kw: Any) -> bytes:
        """:meth:`_request`, a read retried when it fails for a passing reason."""
        import aiohttp

        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._request(method, path, **kw)
            except Exception as exc:
                if self.retry is None or self.clock is None:
                    raise
                passing = isinstance(exc, aiohttp.ClientError) or is_retryable(exc)
                if method != "GET" or not passing or attempt >= self.retry.max_tries:
                    raise
                delay = self.retry.delay(attempt, exc, self.clock.now())
                logger.debug("batch %s %s: retry in %.2fs after %s", method, path, delay, exc)
                await self.clock.sleep(delay)

    async def aclose(self) -> None:
        await self.http.aclose()


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
    submitted: Callable[[list[str]], None] | None = None,
) -> None:
    """Answer ``bodies`` (ledger key -> chat-completion body) through batches.

    A key in a batch the journal recorded and has not collected is answered by polling
    that batch; the others go in one new batch (a new attempt where the same keys were
    batched before, :func:`batch_digest`). Every key gets an :class:`Outcome`, handed
    to ``record`` batch by batch; ``record`` must keep them durably (the ledger) before
    it returns, because the journal then marks the batch read. ``submitted`` hears the
    keys of each batch this call creates, so that what was sent now can be told from
    what an earlier run's batch answers.
    """
    wanted = set(bodies)
    known = journal.batches().values()
    open_ = [b for b in known if not b.collected and wanted & set(b.keys)]
    covered = {k for b in open_ for k in b.keys}
    fresh = sorted(wanted - covered)
    if fresh:
        batch = JournalBatch(batch_digest(fresh, attempt_of(fresh, known)), model, fresh)
        journal.submitting(batch)
        open_.append(batch)
    for batch in open_:
        if batch.batch_id is None:
            batch.batch_id = await api.find(batch.digest)
            if batch.batch_id is None:
                asked = {k: bodies[k] for k in batch.keys if k in bodies}
                batch.batch_id = await api.submit(asked, batch.digest)
                if submitted is not None:
                    submitted(list(batch.keys))
                logger.info(
                    "%s: submitted batch %s (%d requests)", model, batch.batch_id, len(batch.keys)
                )
            else:
                logger.info(
                    "%s: found batch %s (%d requests)", model, batch.batch_id, len(batch.keys)
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
    while not (state := await api.poll(batch.batch_id)).done:
        await sleep(poll_s)
    keys = set(batch.keys)
    results = _Results(await api.results(state, keys))
    results.status = state.status
    for key in keys - set(results):
        results[key] = Outcome(
            None, f"batch {batch.batch_id} {results.status} without answering it"
        )
    return results


def keyed_records(raw: bytes, wanted: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The records of a batch's JSON Lines results file whose ``custom_id`` is asked for
    (the ledger key), in file order: every batch API's results are read this way."""
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        key = rec.get("custom_id")
        if key in wanted:
            yield str(key), rec
