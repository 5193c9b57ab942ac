"""The one way the project calls a model, composed of small parts.

``Gateway.complete_many`` takes a batch of ``LLMRequest`` and returns one ``LLMResult``
per request, in order. A request is a chat completion or the log-probabilities of a text
(:mod:`prescient.llm.logprobs`, what bits per character read); both kinds take the same
path. Each request goes through:

1. the **registry** (:mod:`prescient.llm.registry`): which model, its defaults, limits;
2. the **ledger cache** (:mod:`prescient.llm.cache`): an answered request costs nothing,
   identical requests share one call, within a batch and across the gateway's batches
   (a failure too), and another process working on the same ledger is waited for
   instead of paid twice;
3. the **limits** (:mod:`prescient.llm.limits`): per-model concurrency and
   requests-per-minute, then the **cost ceiling** (:mod:`prescient.llm.ceiling`,
   ``llm.max_cost_usd``), which may hold a request back unsent;
4. the **retry policy** (:mod:`prescient.llm.retry`): backoff with jitter, Retry-After;
5. a **transport** (:mod:`prescient.llm.transports`): litellm, the direct OpenAI-format
   client, an OpenAI-compatible completions server (log-probabilities), or the
   in-process models; a model served at several endpoints has its attempts spread over
   them (:mod:`prescient.llm.endpoints`); a request no transport can answer (the
   log-probabilities of a chat-only model) is refused before any call;
6. **scrubbing** (:mod:`prescient.llm.scrub`): no key value reaches an error text.

A model whose entry sets ``batch: true`` has its unanswered chat requests sent as one
Batch API job instead (:mod:`prescient.llm.batch_route`), through the same ledger.

A request that still fails is recorded as a failure (``ok=False``): the stage decides
what to do with it (:mod:`prescient.llm.failures`), and a rerun (a new gateway) asks
again. Every result, fresh or from the ledger, is built from its ledger entry by one
function (:mod:`prescient.llm.sending`), so the two cannot drift apart.

This module holds the gateway and the stage helpers; the requests' planning and the
estimate logged before a batch live in :mod:`prescient.llm.planning`, one request's
attempts, entry and result in :mod:`prescient.llm.sending`, the running totals and the
progress bar in :mod:`prescient.llm.progress`.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from prescient.llm.baselines import keyed_params
from prescient.llm.batch_route import BatchRoute, batch_refusal
from prescient.llm.cache import Entry, InFlight, Lane, LedgerCache, window_size
from prescient.llm.ceiling import CostCeiling, NotSent, reply_cost
from prescient.llm.endpoints import EndpointPools
from prescient.llm.failures import FailureReport, failed_stage
from prescient.llm.heap import freeze_imports
from prescient.llm.ledger import Ledger
from prescient.llm.ledger_format import TRANSPORT_PARAMS, request_key
from prescient.llm.limits import Clock, Limits, SystemClock
from prescient.llm.logprobs import CHAT, LOGPROBS
from prescient.llm.planning import Planned, estimate_planned
from prescient.llm.progress import GatewayStats, Progress
from prescient.llm.registry import ModelConfigError, ModelRegistry, ModelSpec
from prescient.llm.retry import RetryPolicy
from prescient.llm.scrub import Scrubber
from prescient.llm.sending import (
    Outcome,
    attempts,
    ledger_entry,
    request_audit,
    result_from_entry,
)
from prescient.llm.settings import GatewaySettings
from prescient.llm.store import CacheDir, StageLedger, finish_ledger, open_stage_ledger
from prescient.llm.transports import TransportSet, refusal
from prescient.llm.types import LLMRequest, LLMResult, Reply

logger = logging.getLogger(__name__)


class Gateway:
    """Calls models for one stage, through that stage's ledger.

    Args:
        models: the registry (name -> ModelSpec or raw params entry); requests name
            models by these names.
        ledger_path: the ledger file, the gateway's only store of answers (a library
            user's cache; stages pass ``ledger`` instead).
        stage: stage name, recorded in every entry.
        settings: the ``llm`` params section.
        clock: time for limits and retries (tests pass a fake one).
        ledger: the ledger to work through instead of ``ledger_path``'s file: a stage's
            ledger over the response store (:func:`prescient.llm.store.open_stage_ledger`).

    Raises:
        LedgerNotWritableError: the ledger cannot be written (checked here, before any
            call; a ValueError, so a stage stops with exit 2 as on bad parameters).

    Use it as a context manager or call ``close()`` when done, which logs the totals and
    stops the ledger's writer thread; nothing needs flushing (every entry is on disk
    before its result is returned).
    """

    def __init__(
        self,
        models: Mapping[str, Any],
        ledger_path: str | os.PathLike[str],
        *,
        stage: str,
        settings: GatewaySettings,
        clock: Clock | None = None,
        ledger: Ledger | StageLedger | None = None,
    ) -> None:
        freeze_imports()
        self.registry = models if isinstance(models, ModelRegistry) else ModelRegistry(models)
        self.stage = stage
        self.settings = settings
        self.clock = clock or SystemClock()
        ledger = ledger if ledger is not None else Ledger(ledger_path)
        ledger.check_writable()  # before any call: an answer that cannot be stored is lost
        self.cache = LedgerCache(ledger)
        self.limits = Limits(self.clock)
        self.retry = RetryPolicy(
            settings.max_tries, settings.backoff_base_s, settings.backoff_max_s
        )
        self.endpoints = EndpointPools(self.clock, settings.endpoint_cooldown_s)
        self.stats = GatewayStats()
        self.ceiling = CostCeiling(settings.max_cost_usd)
        self._closed = False

    @classmethod
    def from_params(
        cls,
        params: Mapping[str, Any],
        stage: str,
        ledger_path: str | os.PathLike[str],
        cache_dir: CacheDir = None,
        texts: Callable[[], Iterable[str]] | None = None,
    ) -> Gateway:
        """Build a stage's gateway from the composed params (``models`` and ``llm``).

        Run from the project root: given DVC's cache directory, the stage's ledger is a
        snapshot over the repository's response store (:mod:`prescient.llm.store`), so an
        answer is paid once whatever DVC restores; :meth:`finish` writes the snapshot.

        Args:
            params: the composed params (``prescient.plumbing.params.load()``).
            stage: the calling stage's name (recorded in entries).
            ledger_path: the stage's ledger file (from the stage's command line).
            cache_dir: DVC's cache directory (None: the ledger is its own store).
            texts: the texts its prompts quote, from the tables they come from
                (:class:`prescient.llm.store.StageLedger`).

        Raises:
            ParamsError: the ``llm`` section is incomplete or invalid.
        """
        settings = GatewaySettings.from_params(params)
        return cls(
            params.get("models") or {},
            ledger_path,
            stage=stage,
            settings=settings,
            ledger=open_stage_ledger(
                ledger_path, cache_dir, texts=texts, compression=settings.ledger_compression
            ),
        )

    @property
    def ledger(self) -> Ledger | StageLedger:
        return self.cache.ledger

    def finish(self) -> None:
        """Write the stage's ledger: the entries its outputs came from (or, for a plain
        ledger, make sure the file exists: a declared output even when nothing was asked)."""
        finish_ledger(self.ledger)

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Log the totals, release claims and stop the ledger's writer thread. Idempotent.

        The embedded model stays loaded for the process (it is freed at exit).
        """
        if not self._closed:
            self._closed = True
            self.cache.close()
            self.endpoints.log()
            logger.info("%s: %s", self.stage, self.stats.describe())
            if self.ceiling.limit_usd is not None:
                logger.info("%s: %s", self.stage, self.ceiling.describe(self.stats.not_sent))
            if isinstance(self.ledger, StageLedger) and self.stats.requests:
                self.ledger.log_run(self.stage, self.stats.run_record())

    # -- public API -----------------------------------------------------------------

    def spec(self, name: str) -> ModelSpec:
        """The registry entry for a model name; ModelConfigError when there is none."""
        return self.registry[name]

    def generation_params(self, request: LLMRequest) -> dict[str, Any]:
        """The model's default generation params overridden by the request's (keyed,
        stored); a log-probability request's own params alone (the defaults are chat's)."""
        return _generation_params(self.spec(request.model), request)

    def key_for(self, request: LLMRequest) -> str:
        """The ledger key this request has (what ``LLMResult.key`` will be)."""
        spec = self.spec(request.model)
        return request_key(spec.litellm_model, request.messages, self.generation_params(request))

    def check(self, models: Sequence[str], kind: str = CHAT) -> None:
        """Fail early: every model is registered, valid, can answer requests of ``kind``
        (:func:`prescient.llm.transports.refusal`) and its key variable is set.

        Raises:
            ModelConfigError: naming the unknown model, the bad field, why the model
                cannot answer, or the variable.
        """
        for name in dict.fromkeys(models):
            spec = self.spec(name)
            reason = refusal(spec, kind) or batch_refusal(spec)
            if reason is not None:
                raise ModelConfigError(
                    f"model {spec.name!r} ({spec.litellm_model}) cannot answer {kind} "
                    f"requests: {reason}"
                )
            if spec.api_key_env and not os.environ.get(spec.api_key_env):
                raise ModelConfigError(
                    f"model {spec.name!r} needs an API key: set the environment variable "
                    f"{spec.api_key_env}"
                )
            self.ceiling.check_priced(spec)

    def failure_report(self) -> FailureReport:
        """The failed calls so far against ``llm.max_failed_share``."""
        s = self.stats
        return FailureReport(
            requests=s.requests,
            failed=s.failures,
            max_failed_share=self.settings.max_failed_share,
            failed_by_model=dict(sorted(s.failures_by_model.items())),
            first_errors=tuple(s.first_errors),
            not_sent=s.not_sent,
            spending=self.ceiling.describe(s.not_sent),
            overrun=self.ceiling.overrun,
        )

    def complete_many(self, requests: Sequence[LLMRequest], desc: str = "") -> list[LLMResult]:
        """Answer every request; results in request order, failures marked, never raised.

        Args:
            requests: the batch (any mix of models; duplicates cost one call).
            desc: progress bar label (default: the stage name).

        Raises:
            ModelConfigError: a model is not registered, its entry is invalid or its
                key variable is unset (before any call is made).
        """
        batch = list(requests)
        self._check_batch(batch)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.acomplete_many(batch, desc))
        # Called from inside an event loop (a notebook, an async stage): run the batch on
        # a private loop in a worker thread rather than fail.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self.acomplete_many(batch, desc)).result()

    def complete(self, request: LLMRequest) -> LLMResult:
        """One request; see ``complete_many``."""
        return self.complete_many([request])[0]

    async def acomplete_many(
        self, requests: Sequence[LLMRequest], desc: str = ""
    ) -> list[LLMResult]:
        """The async core of ``complete_many``, for callers already in an event loop."""
        batch = list(requests)
        self._check_batch(batch)
        label = desc or self.stage
        progress = Progress(self.stats, len(batch), label, self.settings.progress)
        transports = TransportSet(self.settings.transport, self.endpoints)
        scrub = Scrubber.from_env(self.registry.key_variables())
        inflight: InFlight = {}
        planned = [self.plan(r) for r in batch]
        est = estimate_planned(self, planned)
        if est.to_send:
            logger.info("%s: %s", label, est.describe())
        # the requests of models whose entry sets batch: true
        route = BatchRoute(self, planned, scrub, self._batch_entry)
        results: list[LLMResult | None] = [None] * len(planned)
        # What the ledger answers is answered here, without a task; the other requests
        # wait in their lane (a model's requests; None: those of a batch job).
        lanes: dict[Lane | None, collections.deque[int]] = {}
        note = getattr(self.cache.ledger, "note_request", None)
        for i, (req, spec, _, key) in enumerate(planned):
            if note is not None:  # a stage ledger's snapshot names this run's askers
                note(key, request_audit(self.stage, req, spec), req.quoted)
            if route.takes(key):
                lanes.setdefault(None, collections.deque()).append(i)
                continue
            entry = self.cache.answered(key)
            if entry is None:
                lanes.setdefault((spec.name, spec.concurrency), collections.deque()).append(i)
            else:
                result = result_from_entry(req, key, entry, from_ledger=True)
                progress.done(result)
                results[i] = result

        async def one(i: int, batched: bool) -> None:
            p = planned[i]
            req, spec, _, key = p

            async def call() -> Entry:
                return await self._send(p, transports, scrub)

            try:
                found = await route.fetch(key) if batched else None
                entry, hit = found or await self.cache.fetch(
                    key, call, inflight, (spec.name, spec.concurrency), req.quoted
                )
            except NotSent as exc:  # held back before sending: nothing in the ledger
                result = LLMResult(
                    req, key, ok=False, text=None, error=str(exc), litellm_model=spec.litellm_model
                )
            else:
                result = result_from_entry(req, key, entry, from_ledger=hit)
            progress.done(result)
            results[i] = result

        async def worker(queue: collections.deque[int], batched: bool) -> None:
            while queue:
                await one(queue.popleft(), batched)

        # A lane's requests are taken in order by as many workers as it may hold claims
        # (cache.window_size): enough to keep its concurrency busy, and no task waits
        # for a place in the window, however long the batch.
        workers = [
            worker(queue, lane is None)
            for lane, queue in lanes.items()
            for _ in range(len(queue) if lane is None else min(len(queue), window_size(lane)))
        ]
        try:
            await asyncio.gather(*workers)
        finally:
            progress.close()
            await route.aclose()
            await transports.aclose()
        if progress.failed:
            logger.warning("%s: %d of %d requests failed", label, progress.failed, len(batch))
        if progress.not_sent:
            logger.warning(
                "%s: %d of %d requests not sent (held back by the cost ceiling)",
                label,
                progress.not_sent,
                len(batch),
            )
        done = [r for r in results if r is not None]
        assert len(done) == len(planned), "a request was left without a result"
        return done

    # -- parts ----------------------------------------------------------------------

    async def _send(self, p: Planned, transports: TransportSet, scrub: Scrubber) -> Entry:
        """Ask the model (its transport made on first use) and count what it cost."""
        req, spec, gen, key = p
        transport = transports.for_model(spec, req.kind)
        outcome = await attempts(self, spec, req, gen, transport, scrub, key)
        entry = ledger_entry(self.stage, self.clock, key, req, spec, gen, outcome)
        entry["cost"] = reply_cost(spec, entry["usage"], entry["cost"])
        self.stats.paid(entry)
        # Settled before the request its freed slot woke is admitted, as the ceiling asks.
        self.ceiling.settle(key, entry)
        # The ledger write (hashing, encoding) waits until the slot is taken up again.
        await self.limits.after_sends()
        return entry

    def _batch_entry(self, p: Planned, reply: Reply | None, error: str | None) -> Entry:
        """The ledger entry of a batched request's reply (one attempt) or error."""
        req, spec, gen, key = p
        outcome = Outcome(reply, error, 1, None)
        return ledger_entry(self.stage, self.clock, key, req, spec, gen, outcome)

    def _check_batch(self, batch: Sequence[LLMRequest]) -> None:
        for kind in dict.fromkeys(r.kind for r in batch):
            self.check([r.model for r in batch if r.kind == kind], kind)

    def plan(self, req: LLMRequest) -> Planned:
        """The request with its model entry, generation params and ledger key."""
        spec = self.spec(req.model)
        gen = _generation_params(spec, req)
        return req, spec, gen, request_key(spec.litellm_model, req.messages, gen)


def _generation_params(spec: ModelSpec, request: LLMRequest) -> dict[str, Any]:
    """:meth:`Gateway.generation_params` of a request to ``spec``."""
    params = request.params if request.kind == LOGPROBS else {**spec.params, **request.params}
    params = keyed_params(spec.litellm_model, params, request.tags)
    return {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS and v is not None}


def stage_gateway(
    params: Mapping[str, Any],
    stage: str,
    ledger_path: str | os.PathLike[str],
    models: Sequence[str],
    cache_dir: CacheDir,
    texts: Callable[[], Iterable[str]] | None = None,
) -> Gateway:
    """The gateway of a model-calling stage, checked before the stage does any work.

    ``cache_dir``: DVC's cache directory, where the response store lives; required, so a
    stage cannot forget it and lose the store (None, said explicitly: the ledger is its
    own store, as outside a DVC project). ``texts``: the texts the stage's prompts quote,
    from the tables they come from (:class:`prescient.llm.store.StageLedger`).

    Every model the stage will ask must be registered and valid and have its key
    variable set, so a configuration error stops the stage before its first call; a
    failed check closes the gateway again, and the stage exits 2 with the message.

    Raises:
        ParamsError: the ``llm`` section is incomplete or invalid.
        ModelConfigError: an unknown or malformed model, or an unset key variable.
    """
    gateway = Gateway.from_params(
        params, stage=stage, ledger_path=ledger_path, cache_dir=cache_dir, texts=texts
    )
    try:
        gateway.check(models)
    except BaseException:
        gateway.close()
        raise
    return gateway


def stage_failed(
    gateway: Gateway,
    logger: logging.Logger,
    outputs: Sequence[str | os.PathLike[str]],
    name: str | None = None,
) -> bool:
    """Wind up a model-calling stage once its work is done: the ledger is a declared
    output even when nothing was asked (it is created empty), and failed calls beyond
    ``llm.max_failed_share`` remove ``outputs`` and return True
    (:func:`prescient.llm.failures.failed_stage`; the stage then exits with
    :data:`~prescient.llm.failures.FAILED_CALLS_EXIT`).

    Args:
        gateway: the stage's gateway.
        logger: the stage's logger (the failure summary is logged there).
        outputs: the stage's outputs besides the ledger.
        name: how the summary names the stage (default: the gateway's stage name).
    """
    gateway.finish()
    return failed_stage(gateway.failure_report(), logger, name or gateway.stage, outputs)
