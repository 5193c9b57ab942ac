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

**Jobs.** A model's requests may be more than one batch takes (the provider's limits
on requests and bytes, :class:`JobLimits`): :func:`run_batch` cuts them in key order
into jobs and keeps several out at once, each journaled, resumed and collected on its
own, so a kill resumes the jobs that were out and submits only the ones never sent.

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
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
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
    "JobLimits",
    "JournalBatch",
    "Outcome",
    "attempt_of",
    "batch_digest",
    "keyed_records",
    "line_bytes",
    "run_batch",
    "split_jobs",
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
        self, spec: ModelSpec, messages: Messages, gen: Mapping[str, Any], kind: str
    ) -> dict[str, Any]:
        """What one request of ``kind`` asks (the provider's request shape); only the
        kinds the API's declaration carries (:mod:`prescient.llm.routes`) are asked."""
        ...

    def reply_fields(
        self, body: Mapping[str, Any], gen: Mapping[str, Any], kind: str
    ) -> ReplyFields:
        """Text, finish reason and token counts of one answered request's body (a
        request of ``kind`` with generation params ``gen``)."""
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
Failed = Callable[[Sequence[str], Exception], Awaitable[None]]

LINE_OVERHEAD = 128
"""Bytes a request line holds besides its body (its ``custom_id``, method, URL and
JSON punctuation), an upper bound used when cutting jobs to a provider's size limit."""


@dataclass(frozen=True)
class JobLimits:
    """How a model's batched requests are cut into jobs and how many run at once.

    Attributes:
        max_requests: the most requests in one job (None: no limit).
        max_bytes: the most bytes of request lines in one job (None: no limit).
        in_flight: the most jobs submitted and not yet collected at once.
    """

    max_requests: int | None = None
    max_bytes: int | None = None
    in_flight: int = 1

    def __post_init__(self) -> None:
        for name in ("max_requests", "max_bytes"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if self.in_flight < 1:
            raise ValueError(f"in_flight must be at least 1, got {self.in_flight}")


def line_bytes(key: str, body: Mapping[str, Any]) -> int:
    """An upper bound on the bytes of one request's line in a batch's input."""
    encoded = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return len(key) + len(encoded.encode("utf-8")) + LINE_OVERHEAD


def split_jobs(keys: Sequence[str], sizes: Mapping[str, int], limits: JobLimits) -> list[list[str]]:
    """``keys`` in their order, cut into consecutive jobs of at most
    ``limits.max_requests`` requests and ``limits.max_bytes`` bytes (``sizes``: each
    key's line bytes). A request larger than the byte limit alone is a job of its own,
    which the provider then refuses: it is recorded as failed, never dropped. The cut
    depends on the keys and sizes only, so a rerun cuts the same jobs."""
    jobs: list[list[str]] = []
    job: list[str] = []
    used = 0
    for key in keys:
        size = sizes[key]
        full = limits.max_requests is not None and len(job) >= limits.max_requests
        over = limits.max_bytes is not None and used + size > limits.max_bytes
        if job and (full or over):
            jobs.append(job)
            job, used = [], 0
        job.append(key)
        used += size
    if job:
        jobs.append(job)
    return jobs


async def run_batch(
    model: str,
    bodies: Mapping[str, Mapping[str, Any]],
    api: BatchAPI,
    journal: BatchJournal,
    record: Record,
    poll_s: float,
    sleep: Sleep = asyncio.sleep,
    submitted: Callable[[list[str]], None] | None = None,
    limits: JobLimits = JobLimits(),
    failed: Failed | None = None,
) -> None:
    """Answer ``bodies`` (ledger key -> request body) through batch jobs.

    A key in a job the journal recorded and has not collected is answered by polling
    that job; the others, in key order, are cut into new jobs by ``limits``
    (:func:`split_jobs`; a job of the very keys batched before is a new attempt,
    :func:`batch_digest`). Up to ``limits.in_flight`` jobs are out at once, the pending
    ones first: each is journaled just before it is created, polled, read and handed to
    ``record``, and the next waiting job is submitted as soon as one is collected.
    Every key gets an :class:`Outcome`; ``record`` must keep them durably (the ledger)
    before it returns, because the journal then marks the job read. ``submitted``
    hears the keys of each job this call creates, so that what was sent now can be
    told from what an earlier run's job answers.

    A job that cannot be submitted or read goes to ``failed`` with its keys while the
    other jobs go on; without ``failed`` its error is raised once the other jobs are
    stopped. Anything else that stops a job (a kill) stops them all.
    """
    wanted = set(bodies)
    known = list(journal.batches().values())
    pending = [b for b in known if not b.collected and wanted & set(b.keys)]
    covered = {k for b in pending for k in b.keys}
    fresh = sorted(wanted - covered)
    sizes = {k: line_bytes(k, bodies[k]) for k in fresh}
    new = [
        JournalBatch(batch_digest(chunk, attempt_of(chunk, known)), model, chunk)
        for chunk in split_jobs(fresh, sizes, limits)
    ]
    jobs = [(b, False) for b in pending] + [(b, True) for b in new]
    if len(jobs) > 1:
        logger.info(
            "%s: %d requests in %d batch jobs (%d pending), up to %d in flight",
            model,
            len(wanted),
            len(jobs),
            len(pending),
            limits.in_flight,
        )
    slots = asyncio.Semaphore(limits.in_flight)

    stopped = asyncio.Event()  # a job was stopped by more than a failure: start no other

    async def one(batch: JournalBatch, is_new: bool) -> None:
        async with slots:
            if stopped.is_set():
                return
            try:
                if is_new:
                    journal.submitting(batch)
                await _submit(batch, model, bodies, api, journal, submitted)
                results = await _collect(batch, api, poll_s, sleep)
            except Exception as exc:
                if failed is None:
                    stopped.set()
                    raise
                await failed([k for k in batch.keys if k in wanted], exc)
                return
            except BaseException:
                stopped.set()
                raise
            await record({k: v for k, v in results.items() if k in wanted})
            journal.collected(batch.digest, results.status)

    tasks = [asyncio.ensure_future(one(b, is_new)) for b, is_new in jobs]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _submit(
    batch: JournalBatch,
    model: str,
    bodies: Mapping[str, Mapping[str, Any]],
    api: BatchAPI,
    journal: BatchJournal,
    submitted: Callable[[list[str]], None] | None,
) -> None:
    """Give ``batch`` its id: the one the journal has, the one the server finds by its
    digest, or a new job's (journaled as soon as it is known)."""
    if batch.batch_id is not None:
        logger.info("%s: resuming batch %s (%d requests)", model, batch.batch_id, len(batch.keys))
        return
    batch.batch_id = await api.find(batch.digest)
    if batch.batch_id is None:
        asked = {k: bodies[k] for k in batch.keys if k in bodies}
        batch.batch_id = await api.submit(asked, batch.digest)
        if submitted is not None:
            submitted(list(batch.keys))
        logger.info("%s: submitted batch %s (%d requests)", model, batch.batch_id, len(batch.keys))
    else:
        logger.info("%s: found batch %s (%d requests)", model, batch.batch_id, len(batch.keys))
    journal.submitted(batch.digest, batch.batch_id)


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
