"""Batch mode: a model whose entry sets ``batch: true`` is asked through its provider's
batch API (:mod:`prescient.llm.batch`) instead of one request at a time.

Within one ``Gateway.complete_many`` call (the evaluate stage makes one per batch-mode
model, every setting and elicitation together), the model's requests that neither the
stage's ledger nor the response store answers go out as batch jobs (``custom_id``: the
ledger key; identical requests are one line), while the gateway's other requests travel
as usual. The requests are cut in key order into jobs within the provider's limits on
one batch and ``llm.batch_max_requests``; up to ``llm.batch_max_in_flight`` jobs are out
at once, and each is polled every ``llm.batch_poll_s`` seconds. Each answer is written
to the ledger as soon as its job is collected (a failed line as a failed call, which a
rerun asks again), and the requests get their results like any other: an answered
request is served from the ledger on every later run. Chat requests travel in batches
on every batch API; answer log-probability requests
(:mod:`prescient.llm.answer_logprobs`) where the API carries them (OpenAI's: the same
``logprobs``/``top_logprobs`` body the direct client posts, read by the same rule); a
text's log-probabilities (bits per character) never.

**Never submitted twice.** The batch journal (:class:`prescient.llm.batch.BatchJournal`)
is kept beside the file the ledger appends to, as ``<that file>.batches``: in a DVC
project beside the response store under DVC's cache (:mod:`prescient.llm.store`), which
no DVC command restores or commits, else beside the ledger. A stage killed while its
batch is pending finds the batch there when rerun and polls it; the requests of that
batch are not sent again (nor held back by the cost ceiling: they are already paid for).
The journal is not a ledger (no ``.jsonl`` suffix, so the ledger tools never read it);
once a batch is collected its answers live in the ledger and its lines are history.

**Where.** The transports that serve the model's chat requests declare the batch APIs
their models may use (:mod:`prescient.llm.routes`); the first that takes the model is
used. ``anthropic/`` models go to Anthropic's Message Batches API
(:mod:`prescient.llm.batch_anthropic`; the entry's ``api_base``, else Anthropic's API);
every other remote model to OpenAI's Batch API (:mod:`prescient.llm.batch_openai`) at the
entry's first ``api_base`` (the files and batches endpoints of an OpenAI-compatible
server), or OpenAI's API for ``openai/`` models without one; other providers need their
OpenAI-compatible base URL as ``api_base``.

**Cost.** A batched reply is priced at the Batch API's rates: the entry's ``price`` less
its ``batch_discount``, else litellm's table's batch rates (OpenAI's models have them,
half the standard price), else the standard rates. The cost ceiling
(:mod:`prescient.llm.ceiling`) admits the batch's requests in key order before it is
submitted, at the same rates; those that do not fit are not sent.

Status reads that fail for a passing reason (a connection error, a timeout, a 429 or
5xx) are retried under the gateway's retry policy; if the batch cannot be submitted or
read, its requests are recorded as failed calls and the journal keeps an already
submitted batch for the rerun to poll.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from prescient.llm.answer_logprobs import AnswerLogprobsError
from prescient.llm.batch import BatchAPI, BatchJournal, JobLimits, run_batch
from prescient.llm.batch import Outcome as BatchOutcome
from prescient.llm.cache import Entry, LedgerCache
from prescient.llm.ceiling import CostCeiling, NotSent, reply_cost
from prescient.llm.limits import Clock
from prescient.llm.logprobs import CHAT
from prescient.llm.planning import Planned
from prescient.llm.registry import ModelSpec
from prescient.llm.retry import RetryPolicy, describe
from prescient.llm.routes import (
    BATCH_API_ROUTES,
    ROUTES,
    batch_api_route,
    batch_kinds,
)
from prescient.llm.scrub import Scrubber
from prescient.llm.settings import GatewaySettings
from prescient.llm.transport_base import USAGE_FIELDS
from prescient.llm.types import SERVED_MODEL, Reply

logger = logging.getLogger(__name__)

MakeEntry = Callable[[Planned, Reply | None, str | None], Entry]
"""The ledger entry of a request's reply (one attempt), or of its error."""


class Stats(Protocol):
    """What a batch route counts in its gateway's stats."""

    calls: int

    def paid(self, entry: Mapping[str, Any], earlier: bool = False) -> None: ...


class Host(Protocol):
    """What a batch route uses of its gateway."""

    cache: LedgerCache
    ceiling: CostCeiling
    settings: GatewaySettings
    clock: Clock
    retry: RetryPolicy

    @property
    def stats(self) -> Stats: ...


JOURNAL_SUFFIX = ".batches"
"""The batch journal's name: the ledger's append file's name with this added."""


def journal_path(ledger_file: str | Path) -> Path:
    """The batch journal beside the file a ledger appends to (module doc)."""
    path = Path(ledger_file)
    return path.with_name(path.name + JOURNAL_SUFFIX)


def job_limits(spec: ModelSpec, settings: GatewaySettings) -> JobLimits:
    """How ``spec``'s batched requests are cut into jobs: the provider's limits on one
    batch (its declaration), ``llm.batch_max_requests`` where lower, and
    ``llm.batch_max_in_flight`` jobs out at once."""
    declared = batch_api_route(spec)
    assert declared is not None  # Gateway.check refused the entry
    most = declared.max_requests
    if settings.batch_max_requests is not None:
        most = min(most, settings.batch_max_requests)
    return JobLimits(most, declared.max_bytes, settings.batch_max_in_flight)


def batch_refusal(spec: ModelSpec) -> str | None:
    """Why ``spec``'s entry cannot set ``batch: true`` (None: it can, or it does not),
    in the words of the declarations (:mod:`prescient.llm.routes`)."""
    if not spec.batch or batch_api_route(spec) is not None:
        return None
    for route in ROUTES:
        if not route.accepts(spec, CHAT):
            continue
        if route.no_batch is not None:
            return route.no_batch
        for name in route.batch_apis:
            reason = BATCH_API_ROUTES[name].refuses(spec)
            if reason is not None:
                return reason
    return f"no batch API serves {spec.litellm_model}"


def make_batch_api(
    spec: ModelSpec, api_key: str | None, timeout_s: float, retry: RetryPolicy, clock: Clock
) -> BatchAPI:
    """The client of ``spec``'s batch API (its module imported now), retrying reads."""
    declared = batch_api_route(spec)
    if declared is None:  # Gateway.check refused the entry
        raise ValueError(f"{spec.name}: {batch_refusal(spec)}")
    base = declared.base(spec)
    assert base is not None  # the declaration serves only models it knows a base for
    module, _, name = declared.target.partition(":")
    api: BatchAPI = getattr(importlib.import_module(module), name)(
        base, api_key, timeout_s, retry, clock
    )
    return api


class BatchRoute:
    """The batch-mode requests of one ``complete_many`` call, sent when it starts.

    Args:
        gateway: the gateway (its cache, ceiling, stats, settings, clock, retry policy).
        planned: the call's requests (``Gateway.plan``).
        scrub: removes key values from error texts.
        make_entry: the gateway's ledger entry of a reply or an error.

    The requests it takes are claimed (:mod:`prescient.llm.claims`) until their answers
    are in the ledger; one another process is working on is left to the usual path,
    which waits for it.
    """

    def __init__(
        self, gateway: Host, planned: Sequence[Planned], scrub: Scrubber, make_entry: MakeEntry
    ) -> None:
        self.gateway = gateway
        self.scrub = scrub
        self.make_entry = make_entry
        self._entries: dict[str, Entry] = {}
        self._sent: set[str] = set()
        self._held: dict[str, str] = {}
        self._model_of: dict[str, str] = {}
        self._tasks: dict[str, asyncio.Future[None]] = {}
        groups = self._select(planned)
        for name, group in groups.items():
            self._tasks[name] = asyncio.ensure_future(self._run(group))

    def _select(self, planned: Sequence[Planned]) -> dict[str, dict[str, Planned]]:
        cache = self.gateway.cache
        claimed: dict[str, Planned] = {}
        for p in planned:
            req, spec, _, key = p
            if not spec.batch or key in claimed or req.kind not in batch_kinds(spec):
                continue
            if cache.get(key) is not None or key in cache.failed_here:
                continue
            if cache.claims.try_claim(key):
                claimed[key] = p
        if not claimed:
            return {}
        cache.ledger.refresh()  # another process may have answered some meanwhile
        journal = BatchJournal(journal_path(cache.ledger.path))
        pending = {k for b in journal.batches().values() if not b.collected for k in b.keys}
        groups: dict[str, dict[str, Planned]] = {}
        for key in sorted(claimed, key=lambda k: (k not in pending, k)):
            req, spec, gen, _ = claimed[key]
            if cache.get(key) is not None:
                cache.claims.release(key)
                continue
            try:
                self.gateway.ceiling.admit(key, spec, req, gen, batch=True, sent=key in pending)
            except NotSent as exc:
                self._held[key] = str(exc)
                cache.claims.release(key)
                continue
            groups.setdefault(spec.name, {})[key] = claimed[key]
            self._model_of[key] = spec.name
        return groups

    def takes(self, key: str) -> bool:
        """Whether this route answers ``key`` (its batch, or the ceiling held it back)."""
        return key in self._model_of or key in self._held

    async def fetch(self, key: str) -> tuple[Entry, bool] | None:
        """``(entry, False)`` for a request this route answers, once its batch is read;
        None for one it does not take.

        Raises:
            NotSent: the cost ceiling held the request back.
        """
        if key in self._held:
            raise NotSent(self._held[key])
        name = self._model_of.get(key)
        if name is None:
            return None
        await asyncio.shield(self._tasks[name])
        return self._entries[key], False

    async def aclose(self) -> None:
        """Wait for the batches still being read (a caller that failed early)."""
        for task in self._tasks.values():
            if not task.done():
                task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _run(self, group: Mapping[str, Planned]) -> None:
        gw = self.gateway
        spec = next(iter(group.values()))[1]
        api_key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
        timeout_s = spec.timeout_s or gw.settings.timeout_s
        api = make_batch_api(spec, api_key, timeout_s, gw.retry, gw.clock)
        journal = BatchJournal(journal_path(gw.cache.ledger.path))
        bodies = {
            key: api.request_body(spec, p[0].messages, p[2], p[0].kind) for key, p in group.items()
        }

        async def record(outcomes: Mapping[str, BatchOutcome]) -> None:
            for key in sorted(outcomes):
                if key in group and key not in self._entries:
                    outcome = outcomes[key]
                    await self._record(group[key], outcome.body, outcome.error, api, True)

        async def failed(keys: Sequence[str], exc: Exception) -> None:
            error = f"batch: {self.scrub(describe(exc))}"
            logger.warning("%s: %s", spec.name, error)
            for key in sorted(set(keys) - set(self._entries)):
                await self._record(group[key], None, error, api, False)

        try:
            await run_batch(
                spec.name,
                bodies,
                api,
                journal,
                record,
                gw.settings.batch_poll_s,
                gw.clock.sleep,
                submitted=self._sent.update,
                limits=job_limits(spec, gw.settings),
                failed=failed,
            )
        except Exception as exc:  # a failed batch is recorded, not raised
            await failed(list(group), exc)
        finally:
            await api.aclose()
            for key in group:
                gw.cache.claims.release(key)

    async def _record(
        self,
        planned: Planned,
        body: Mapping[str, Any] | None,
        error: str | None,
        api: BatchAPI,
        collected: bool,
    ) -> None:
        """Keep one request's outcome in the ledger; ``collected``: it came from a batch.

        The stats count it as sent only where this run submitted its batch, as collected
        where an earlier run's batch answered it, and not at all where no batch was sent
        (the submission failed), so the stage's log line says what was really sent.
        """
        gw = self.gateway
        req, spec, gen, key = planned
        reply = None
        if body is not None:
            try:
                text, finish, counts = api.reply_fields(body, gen, req.kind)
            except AnswerLogprobsError as exc:
                error = f"batch reply holds no answer log-probabilities: {exc}"
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
                error = f"batch reply unusable ({type(exc).__name__}): {str(body)[:120]}"
            else:
                prompt, completion = counts[USAGE_FIELDS[0]], counts[USAGE_FIELDS[1]]
                usage = {**counts, USAGE_FIELDS[2]: prompt + completion}
                cost = reply_cost(spec, usage, None, batch=True)
                named = body.get("model")
                served = {SERVED_MODEL: named} if isinstance(named, str) and named else None
                reply = Reply(text, finish, usage, cost, provenance=served)
        if reply is None:
            error = self.scrub(error or "batch: no answer")
        entry = self.make_entry(planned, reply, error)
        await gw.cache.ledger.append_async(entry, keyed_here=True, texts=req.quoted)
        if key in self._sent:
            gw.stats.calls += 1
            gw.stats.paid(entry)
        elif collected:
            gw.stats.paid(entry, earlier=True)
        gw.ceiling.settle(key, entry)
        if error is not None:
            gw.cache.failed_here[key] = entry
        self._entries[key] = entry
