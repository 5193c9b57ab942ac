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
function, so the two cannot drift apart.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from prescient.llm.batch_route import BatchRoute, Planned, batch_refusal
from prescient.llm.cache import Entry, InFlight, LedgerCache
from prescient.llm.ceiling import NOT_SENT, CostCeiling, NotSent, rates, reply_cost
from prescient.llm.endpoints import EndpointPools
from prescient.llm.failures import FailureReport, failed_stage
from prescient.llm.fit import estimate_tokens
from prescient.llm.heap import freeze_imports
from prescient.llm.ledger import (
    TRANSPORT_PARAMS,
    Ledger,
    is_success,
    readable_text,
    request_key,
)
from prescient.llm.limits import Clock, Limits, SystemClock
from prescient.llm.logprobs import CHAT, LOGPROBS
from prescient.llm.registry import ModelConfigError, ModelRegistry, ModelSpec
from prescient.llm.retry import RetryPolicy, describe, is_retryable
from prescient.llm.scrub import Scrubber
from prescient.llm.settings import GatewaySettings
from prescient.llm.store import CacheDir, StageLedger, finish_ledger, open_stage_ledger
from prescient.llm.transport_base import Call, Transport
from prescient.llm.transports import TransportSet, refusal
from prescient.llm.types import LLMRequest, LLMResult, Reply

logger = logging.getLogger(__name__)

FIRST_ERRORS = 5
"""Distinct errors a gateway keeps for its failure summary."""


@dataclass
class GatewayStats:
    """Running counts over the gateway's life, for a stage's log line and metrics.

    Attributes:
        requests: results returned.
        ledger_hits: results answered without a call (by the stage's ledger or the
            response store).
        sent: distinct requests sent to a model (identical requests of a batch are one;
            a request whose attempts all failed counts too).
        sent_failed: sent requests that failed after their last attempt.
        calls: attempts that reached a transport (retries included).
        retries: attempts after the first.
        failures: results returned with ``ok=False``.
        not_sent: failed results whose request was never sent (the cost ceiling,
            :mod:`prescient.llm.ceiling`); nothing of them is in the ledger.
        prompt_tokens: prompt tokens of the sent requests, as the provider counted them.
        completion_tokens: completion tokens of the sent requests.
        cost_usd: USD of the sent requests where the price is known.
        unpriced: sent requests that succeeded without a known price.
        requests_by_model: results returned, per model.
        failures_by_model: failed results, per model.
        first_errors: the first distinct ``model: error`` texts.
    """

    requests: int = 0
    ledger_hits: int = 0
    sent: int = 0
    sent_failed: int = 0
    calls: int = 0
    retries: int = 0
    failures: int = 0
    not_sent: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    requests_by_model: Counter[str] = field(default_factory=Counter)
    failures_by_model: Counter[str] = field(default_factory=Counter)
    first_errors: list[str] = field(default_factory=list)

    def record(self, result: LLMResult) -> None:
        self.requests += 1
        self.ledger_hits += result.from_ledger
        self.requests_by_model[result.request.model] += 1
        if not result.ok:
            self.failures += 1
            self.failures_by_model[result.request.model] += 1
            self.not_sent += str(result.error).startswith(NOT_SENT)
            text = f"{result.request.model}: {result.error}"
            if len(self.first_errors) < FIRST_ERRORS and text not in self.first_errors:
                self.first_errors.append(text)

    def paid(self, entry: Mapping[str, Any]) -> None:
        """Count one request sent to a model (its new ledger entry)."""
        self.sent += 1
        if not is_success(entry):
            self.sent_failed += 1
            return
        usage = entry.get("usage") or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        cost = entry.get("cost")
        if cost is None:
            self.unpriced += 1
        else:
            self.cost_usd += float(cost)

    def run_record(self) -> dict[str, Any]:
        """What this gateway's run sent and was served, for the store's run log."""
        return {
            "results": self.requests,
            "served": self.ledger_hits,
            "sent": self.sent,
            "sent_failed": self.sent_failed,
            "retries": self.retries,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "unpriced": self.unpriced,
            "not_sent": self.not_sent,
        }

    def describe(self) -> str:
        """One line: results, served, sent (failed, retries), tokens and cost."""
        answered = self.sent - self.sent_failed
        if answered == 0:
            cost = "nothing paid"
        elif self.unpriced == answered:
            cost = "price unknown"
        else:
            cost = f"${self.cost_usd:.4f}"
            cost += f" (+{self.unpriced} unpriced)" if self.unpriced else ""
        return (
            f"{self.requests} results: {self.ledger_hits} served without a call, "
            f"{self.sent} sent to models ({self.sent_failed} failed, {self.retries} retries), "
            f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens, "
            f"{cost}" + (f", {self.not_sent} not sent (cost ceiling)" if self.not_sent else "")
        )


@dataclass(frozen=True)
class Outcome:
    """What the attempts at one request came to."""

    reply: Reply | None
    error: str | None
    tries: int
    latency_s: float | None


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

        Raises:
            ParamsError: the ``llm`` section is incomplete or invalid.
        """
        return cls(
            params.get("models") or {},
            ledger_path,
            stage=stage,
            settings=GatewaySettings.from_params(params),
            ledger=open_stage_ledger(ledger_path, cache_dir),
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
        defaults = {} if request.kind == LOGPROBS else self.spec(request.model).params
        params = {**defaults, **request.params}
        return {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS and v is not None}

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
        bar = tqdm(
            total=len(batch),
            desc=desc or self.stage,
            unit="req",
            disable=not self.settings.progress,
            mininterval=0.5,
            dynamic_ncols=True,
            postfix={"hits": 0, "failed": 0},
        )
        transports = TransportSet(self.settings.transport, self.endpoints)
        scrub = Scrubber.from_env(self.registry.key_variables())
        inflight: InFlight = {}
        hits_before, failures_before = self.stats.ledger_hits, self.stats.failures
        planned = [self.plan(r) for r in batch]
        est = estimate_planned(self, planned)
        if est.to_send:
            logger.info("%s: %s", desc or self.stage, est.describe())
        route = BatchRoute(  # the requests of models whose entry sets batch: true
            self,
            planned,
            scrub,
            lambda p, reply, error: self._entry(
                p[3], p[0], p[1], p[2], Outcome(reply, error, 1, None)
            ),
        )

        async def one(p: Planned) -> LLMResult:
            req, spec, gen, key = p

            async def call() -> Entry:
                transport = transports.for_model(spec, req.kind)
                outcome = await self._attempts(spec, req, gen, transport, scrub, key)
                entry = self._entry(key, req, spec, gen, outcome)
                entry["cost"] = reply_cost(spec, entry["usage"], entry["cost"])
                self.stats.paid(entry)
                self.ceiling.settle(key, entry)
                return entry

            try:
                entry, hit = await route.fetch(key) or await self.cache.fetch(
                    key, call, inflight, (spec.name, spec.concurrency)
                )
            except NotSent as exc:  # held back before sending: nothing in the ledger
                result = LLMResult(req, key, ok=False, text=None, error=str(exc))
            else:
                result = result_from_entry(req, key, entry, from_ledger=hit)
            self.stats.record(result)
            bar.update(1)
            if result.from_ledger or not result.ok:  # the counts shown change only then
                bar.set_postfix(
                    hits=self.stats.ledger_hits - hits_before,
                    failed=self.stats.failures - failures_before,
                    refresh=False,
                )
            return result

        try:
            results = list(await asyncio.gather(*(one(p) for p in planned)))
        finally:
            bar.close()
            await route.aclose()
            await transports.aclose()
        failed = self.stats.failures - failures_before
        if failed:
            logger.warning("%s: %d of %d requests failed", desc or self.stage, failed, len(batch))
        return results

    # -- parts ----------------------------------------------------------------------

    def _check_batch(self, batch: Sequence[LLMRequest]) -> None:
        for kind in dict.fromkeys(r.kind for r in batch):
            self.check([r.model for r in batch if r.kind == kind], kind)

    def plan(self, req: LLMRequest) -> Planned:
        """The request with its model entry, generation params and ledger key."""
        spec = self.spec(req.model)
        gen = self.generation_params(req)
        return req, spec, gen, request_key(spec.litellm_model, req.messages, gen)

    async def _attempts(
        self,
        spec: ModelSpec,
        req: LLMRequest,
        gen: Mapping[str, Any],
        transport: Transport,
        scrub: Scrubber,
        key: str = "",
    ) -> Outcome:
        """Try the request until it succeeds, fails for good, or runs out of attempts.

        The concurrency slot is held through backoff waits (under rate limiting, fewer
        requests in flight is what the server asks for) but not through the ledger write.
        Holding the slot, the request is admitted by the cost ceiling or NotSent raised.
        """
        api_key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
        timeout_s = spec.timeout_s or self.settings.timeout_s
        call = Call(
            spec,
            req.messages,
            gen,
            api_key,
            timeout_s,
            spec.endpoints[0],
            req.kind,
            req.options,
            req.tags,
        )
        tries = self.retry.max_tries if transport.retries else 1
        error, attempt = "not attempted", 0
        async with self.limits.slot(spec.name, spec.concurrency):
            self.ceiling.admit(key, spec, req, gen)
            for attempt in range(1, tries + 1):
                await self.limits.pace(spec.name, spec.rpm)
                self.stats.calls += 1
                self.stats.retries += attempt > 1
                start = time.perf_counter()
                try:
                    reply = await transport.complete(call)
                except Exception as exc:  # every provider error is a result, not a crash
                    error = scrub(describe(exc))
                    if attempt == tries or not is_retryable(exc):
                        break
                    delay = self.retry.delay(attempt, exc, self.clock.now())
                    logger.debug("%s: retry %d in %.2fs after %s", spec.name, attempt, delay, error)
                    await self.clock.sleep(delay)
                else:
                    return Outcome(reply, None, attempt, time.perf_counter() - start)
        logger.warning("%s failed after %d tries: %s", spec.name, attempt, error)
        return Outcome(None, error, attempt, None)

    def _entry(
        self,
        key: str,
        req: LLMRequest,
        spec: ModelSpec,
        gen: Mapping[str, Any],
        outcome: Outcome,
    ) -> Entry:
        """The ledger entry of a request's outcome (a success or a recorded failure)."""
        reply = outcome.reply
        entry: Entry = {
            "key": key,
            "stage": self.stage,
            "model": spec.name,
            "litellm_model": spec.litellm_model,
            "template": req.template,
            "template_version": req.template_version,
            "messages": [dict(m) for m in req.messages],
            "params": dict(gen),
            "tags": dict(req.tags),
            "response": None if reply is None else reply.text,
            "finish_reason": None if reply is None else reply.finish_reason,
            "usage": {} if reply is None else dict(reply.usage),
            "cost": None if reply is None else reply.cost,
            "latency_s": None if outcome.latency_s is None else round(outcome.latency_s, 4),
            "tries": outcome.tries,
            "timestamp": self.clock.now().isoformat(timespec="seconds"),
            "error": outcome.error,
        }
        if spec.in_process:
            # An in-process model's answer is a function of the request and the build:
            # when it ran and how long it took are not part of it, and leaving them out
            # makes its ledger the same bytes on every machine and day (dvc.lock hashes
            # it). The stage's log has the timings.
            del entry["timestamp"]
            entry["latency_s"] = None
        if reply is not None and reply.provenance is not None:
            entry["provenance"] = dict(reply.provenance)
        return entry


@dataclass(frozen=True)
class Estimate:
    """What a batch will send, known before anything is sent.

    Attributes:
        requests: requests in the batch.
        to_send: distinct requests neither the stage's ledger nor the store answers.
        prompt_tokens: their prompt tokens, estimated (:func:`prescient.llm.fit.estimate_tokens`).
        max_completion_tokens: their ``max_tokens`` summed (None when one has no limit).
        max_cost_usd: the most they can cost at the models' prices (the entry's
            ``price``, else litellm's; :func:`prescient.llm.ceiling.rates`), None when a
            model's price is unknown.
        paid: how many of them go to a provider (the others are answered in process,
            at no cost).
    """

    requests: int
    to_send: int
    prompt_tokens: int
    max_completion_tokens: int | None
    max_cost_usd: float | None
    paid: int = 0

    def describe(self) -> str:
        completion = (
            "no completion limit"
            if self.max_completion_tokens is None
            else f"up to {self.max_completion_tokens:,} completion tokens"
        )
        if not self.paid:
            cost = "answered in process, nothing to pay"
        elif self.max_cost_usd is None:
            cost = "price unknown"
        else:
            cost = f"at most ${self.max_cost_usd:.4f}"
        return (
            f"{self.to_send} of {self.requests} requests to send "
            f"(about {self.prompt_tokens:,} prompt tokens, {completion}, {cost})"
        )


def estimate(gateway: Gateway, batch: Sequence[LLMRequest]) -> Estimate:
    """Calls, tokens and worst-case cost of ``batch`` beyond what is already answered.

    Prompt tokens use the estimate of :func:`prescient.llm.fit.estimate_tokens` for every
    model (a log line, not a bill); in-process models cost nothing.
    """
    return estimate_planned(gateway, [gateway.plan(r) for r in batch])


def estimate_planned(gateway: Gateway, planned: Sequence[Planned]) -> Estimate:
    """:func:`estimate` of requests already planned (:meth:`Gateway.plan`)."""
    todo: dict[str, tuple[ModelSpec, LLMRequest, Mapping[str, Any]]] = {}
    for req, spec, gen, key in planned:
        if key not in todo and key not in gateway.ledger:
            todo[key] = (spec, req, gen)
    prompt = paid = 0
    completion: int | None = 0
    cost: float | None = 0.0
    for spec, req, params in todo.values():
        tokens = estimate_tokens(req.messages)
        prompt += tokens
        limit = 0 if req.kind == LOGPROBS else params.get("max_tokens")
        completion = None if completion is None or limit is None else completion + int(limit)
        if spec.in_process:
            continue
        paid += 1
        found = rates(spec, spec.batch and req.kind == CHAT)
        if cost is None or found is None or limit is None:
            cost = None
        else:
            cost += found[0] * tokens + found[1] * int(limit)
    return Estimate(len(planned), len(todo), prompt, completion, cost if paid else None, paid)


def stage_gateway(
    params: Mapping[str, Any],
    stage: str,
    ledger_path: str | os.PathLike[str],
    models: Sequence[str],
    cache_dir: CacheDir,
) -> Gateway:
    """The gateway of a model-calling stage, checked before the stage does any work.

    ``cache_dir``: DVC's cache directory, where the response store lives; required, so a
    stage cannot forget it and lose the store (None, said explicitly: the ledger is its
    own store, as outside a DVC project).

    Every model the stage will ask must be registered and valid and have its key
    variable set, so a configuration error stops the stage before its first call; a
    failed check closes the gateway again, and the stage exits 2 with the message.

    Raises:
        ParamsError: the ``llm`` section is incomplete or invalid.
        ModelConfigError: an unknown or malformed model, or an unset key variable.
    """
    gateway = Gateway.from_params(params, stage=stage, ledger_path=ledger_path, cache_dir=cache_dir)
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


def result_from_entry(
    req: LLMRequest, key: str, entry: Mapping[str, Any], *, from_ledger: bool
) -> LLMResult:
    """The result a request gets from its ledger entry, fresh or recorded alike.

    Its text is the reply as every output file can hold it (:func:`readable_text`: a lone
    surrogate becomes U+FFFD); the ledger keeps the exact reply.
    """
    ok = is_success(entry)
    return LLMResult(
        request=req,
        key=key,
        ok=ok,
        text=readable_text(entry["response"]) if ok else None,
        error=None if ok else str(entry.get("error") or "failed"),
        finish_reason=entry.get("finish_reason"),
        usage=entry.get("usage") or {},
        cost=entry.get("cost"),
        latency_s=entry.get("latency_s"),
        from_ledger=from_ledger,
    )
