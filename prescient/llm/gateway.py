"""The one way the project calls a model: litellm behind a ledger, limits and retries.

``Gateway.complete_many`` takes a batch of ``LLMRequest`` and returns one ``LLMResult``
per request, in order. Requests already answered in the ledger cost nothing; the rest
go out concurrently (a semaphore and a requests-per-minute token bucket per model)
through ``litellm.acompletion``, or for OpenAI-compatible servers through the lean
client of :mod:`prescient.llm.direct` (``llm.transport``), retried with exponential
backoff and jitter on rate limits, server errors, timeouts and connection errors,
honouring a server's Retry-After. A request that still fails is recorded as a failure and returned with ``ok=False``: the
stage decides what to do with it, and a rerun asks again.

Keys are read from the environment variable a model names (``api_key_env``) at call
time, passed to litellm (or the direct client's Authorization header) and nowhere else:
not to params, ledgers, logs or errors.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import email.utils
import functools
import gc
import logging
import os
import random
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from prescient.llm.direct import DirectClient, direct_supported, price
from prescient.llm.ledger import TRANSPORT_PARAMS, Ledger, request_key
from prescient.llm.registry import IN_PROCESS_PROVIDERS, ModelConfigError, ModelSpec, load_registry
from prescient.llm.types import LLMRequest, LLMResult

logger = logging.getLogger(__name__)

TRANSPORTS = ("auto", "litellm")


@dataclass(frozen=True)
class GatewaySettings:
    """Retry, timeout and progress settings (params section ``llm``).

    Attributes:
        max_tries: attempts per request, the first included (>= 1).
        backoff_base_s: wait before the second attempt; doubles per attempt.
        backoff_max_s: cap on one wait, also on a server's Retry-After.
        timeout_s: per-attempt timeout for models that do not set their own.
        progress: show a tqdm bar per batch.
        transport: ``auto`` sends OpenAI-compatible providers (``openai``,
            ``hosted_vllm``) through the lean direct client (:mod:`prescient.llm.direct`)
            and everything else through litellm; ``litellm`` sends everything through
            litellm. Ledger keys do not depend on it.
    """

    max_tries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    timeout_s: float = 120.0
    progress: bool = True
    transport: str = "auto"

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ValueError(f"llm.transport must be one of {TRANSPORTS} (got {self.transport!r})")

    @classmethod
    def from_params(cls, d: Mapping[str, Any] | None) -> GatewaySettings:
        """Read the ``llm`` params section; missing keys keep the defaults above."""
        d = d or {}
        default = cls()
        return cls(
            max_tries=max(1, int(d.get("max_tries", default.max_tries))),
            backoff_base_s=float(d.get("backoff_base_s", default.backoff_base_s)),
            backoff_max_s=float(d.get("backoff_max_s", default.backoff_max_s)),
            timeout_s=float(d.get("timeout_s", default.timeout_s)),
            progress=bool(d.get("progress", default.progress)),
            transport=str(d.get("transport", default.transport)),
        )


@dataclass
class GatewayStats:
    """Running counts over the gateway's life, for a stage's log line and metrics.

    Attributes:
        requests: results returned.
        ledger_hits: served from the ledger without a call.
        calls: attempts that reached a provider (retries included).
        retries: attempts after the first.
        failures: results returned with ``ok=False``.
    """

    requests: int = 0
    ledger_hits: int = 0
    calls: int = 0
    retries: int = 0
    failures: int = 0


class TokenBucket:
    """A requests-per-minute limiter: ``rpm`` starts per minute, bursts of one second's worth.

    ``reserve`` takes a token at once, letting the count go negative, and says how long
    the caller must wait before using it; reservations are handed out in arrival order.
    It is synchronous and holds no asyncio primitive, so one bucket serves every batch
    (each batch runs on its own event loop) and keeps its state between them.

    Args:
        rpm: requests per minute (> 0).
        clock: monotonic clock in seconds (replaceable in tests).
    """

    def __init__(self, rpm: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rpm <= 0:
            raise ValueError(f"rpm must be positive, got {rpm}")
        self.rate = rpm / 60.0
        self.capacity = max(1.0, self.rate)
        self.tokens = self.capacity
        self._clock = clock
        self.updated = clock()

    def reserve(self) -> float:
        """Take one token; returns the seconds to wait before the request may start."""
        now = self._clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    async def acquire(self) -> None:
        delay = self.reserve()
        if delay > 0:
            await asyncio.sleep(delay)


def _retryable(exc: BaseException) -> bool:
    """Rate limits, 5xx, timeouts and connection failures; not 4xx or bad requests."""
    import litellm

    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    retry_types = (
        litellm.RateLimitError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.APIConnectionError,
        litellm.Timeout,
        litellm.BadGatewayError,
    )
    if isinstance(exc, retry_types):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def _retry_after(exc: BaseException) -> float | None:
    """Seconds a server asked us to wait (``Retry-After``/``retry-after-ms``), if it did.

    litellm keeps the provider's headers on ``litellm_response_headers``; its
    ``response`` attribute is a synthetic response without them.
    """
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if not source:
            continue
        try:
            ms = source.get("retry-after-ms")
            if ms is not None:
                return max(0.0, float(ms) / 1000.0)
            value = source.get("retry-after") or source.get("Retry-After")
        except (AttributeError, TypeError, ValueError):
            continue
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            try:  # an HTTP date
                when = email.utils.parsedate_to_datetime(str(value))
            except (TypeError, ValueError):
                continue
            return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())
    return None


def _scrub(text: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def _secret_values(models: Mapping[str, ModelSpec]) -> list[str]:
    """Values of every key variable the registry names, plus anything that looks like one."""
    names = {m.api_key_env for m in models.values() if m.api_key_env}
    names |= {
        var
        for var in os.environ
        if any(word in var.upper() for word in ("KEY", "TOKEN", "SECRET", "PASSWORD"))
    }
    return sorted({v for n in names if len(v := os.environ.get(n, "")) >= 6}, key=len, reverse=True)


@functools.cache
def _freeze_imports() -> None:
    """Move everything allocated so far (litellm's import alone is ~1M objects) out of
    the garbage collector's reach, once per process: otherwise each full collection
    during a batch rescans them, which costs about 0.5 ms per call in a batch of 320."""
    gc.collect()
    gc.freeze()


class Gateway:
    """Calls models for one stage, through that stage's ledger.

    Args:
        models: the registry (name -> ModelSpec); requests name models by these names.
        ledger_path: the stage's ledger file (a DVC output with ``persist: true``).
        stage: stage name, recorded in every entry.
        settings: retry, timeout and progress settings.

    Use it as a context manager or call ``close()`` when done, which logs the totals and
    stops the ledger's writer thread; nothing needs flushing (every entry is on disk
    before its result is returned). Limits are per model: ``concurrency`` requests in
    flight (shared by batches running concurrently on one event loop) and ``rpm`` starts
    per minute (kept across batches).
    """

    def __init__(
        self,
        models: Mapping[str, ModelSpec],
        ledger_path: str | os.PathLike[str],
        *,
        stage: str,
        settings: GatewaySettings | None = None,
    ) -> None:
        from prescient.llm.providers import register_providers

        register_providers()
        _freeze_imports()
        self.models = dict(models)
        self.ledger = Ledger(ledger_path)
        self.stage = stage
        self.settings = settings or GatewaySettings()
        self.stats = GatewayStats()
        self._buckets = {n: TokenBucket(m.rpm) for n, m in self.models.items() if m.rpm}
        # Semaphores belong to an event loop: one set per loop, shared by the batches
        # running on it, so concurrent batches on one loop share each model's limit.
        self._sems: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]
        ] = weakref.WeakKeyDictionary()
        self._closed = False

    @classmethod
    def from_params(
        cls,
        params: Mapping[str, Any],
        stage: str,
        ledger_path: str | os.PathLike[str] | None = None,
        progress: bool | None = None,
    ) -> Gateway:
        """Build from the full params.yaml dict (``models`` and ``llm`` sections).

        Args:
            params: the composed params (``prescient.params.load()``).
            stage: the calling stage's name (recorded in entries; default ledger name).
            ledger_path: the ledger file; default ``<llm.ledger_dir>/<stage>.jsonl``.
            progress: override ``llm.progress`` (None keeps the configured value).
        """
        llm = dict(params.get("llm") or {})
        if progress is not None:
            llm["progress"] = progress
        path = ledger_path or Path(llm.get("ledger_dir", "data/llm")) / f"{stage}.jsonl"
        return cls(
            load_registry(params), path, stage=stage, settings=GatewaySettings.from_params(llm)
        )

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Log the totals and stop the ledger's writer thread. Idempotent.

        The embedded model stays loaded for the process (it is freed at exit).
        """
        if not self._closed:
            self._closed = True
            self.ledger.close()
            s = self.stats
            logger.info(
                "%s: %d results, %d from the ledger, %d calls (%d retries), %d failed",
                self.stage,
                s.requests,
                s.ledger_hits,
                s.calls,
                s.retries,
                s.failures,
            )

    # -- public API -----------------------------------------------------------------

    def spec(self, name: str) -> ModelSpec:
        """The registry entry for a model name; ModelConfigError when there is none."""
        if name not in self.models:
            raise ModelConfigError(
                f"model {name!r} is not in the registry (params.models); known: "
                f"{sorted(self.models)}. Add conf/model/{name}.yaml and list it in "
                "conf/config.yaml's defaults."
            )
        return self.models[name]

    def generation_params(self, request: LLMRequest) -> dict[str, Any]:
        """The model's default generation params overridden by the request's (keyed, stored)."""
        params = {**self.spec(request.model).params, **request.params}
        return {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS and v is not None}

    def key_for(self, request: LLMRequest) -> str:
        """The ledger key this request has (what ``LLMResult.key`` will be)."""
        spec = self.spec(request.model)
        return request_key(spec.litellm_model, request.messages, self.generation_params(request))

    def check(self, models: Sequence[str]) -> None:
        """Fail early: every model is registered and its key variable is set.

        Raises:
            ModelConfigError: naming the unknown model or the missing variable.
        """
        for name in dict.fromkeys(models):
            spec = self.spec(name)
            if spec.api_key_env and not os.environ.get(spec.api_key_env):
                raise ModelConfigError(
                    f"model {spec.name!r} needs an API key: set the environment variable "
                    f"{spec.api_key_env}"
                )

    def complete_many(self, requests: Sequence[LLMRequest], desc: str = "") -> list[LLMResult]:
        """Answer every request; results in request order, failures marked, never raised.

        Args:
            requests: the batch (any mix of models; duplicates cost one call).
            desc: progress bar label (default: the stage name).

        Raises:
            ModelConfigError: a model is not registered or its key variable is unset
                (before any call is made).
        """
        batch = list(requests)
        self.check([r.model for r in batch])
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
        self.check([r.model for r in batch])
        names = {r.model for r in batch}
        sems = self._sems.setdefault(asyncio.get_running_loop(), {})
        for n in names:
            sems.setdefault(n, asyncio.Semaphore(self.spec(n).concurrency))
        inflight: dict[str, asyncio.Future[LLMResult]] = {}
        hits = failures = 0
        bar = tqdm(
            total=len(batch),
            desc=desc or self.stage,
            unit="req",
            disable=not self.settings.progress,
            mininterval=0.5,
            dynamic_ncols=True,
        )
        secrets = _secret_values(self.models)
        client = DirectClient() if any(self._direct(self.spec(n)) for n in names) else None

        async def one(req: LLMRequest) -> LLMResult:
            nonlocal hits, failures
            key = self.key_for(req)
            entry = self.ledger.get(key)
            if entry is not None:
                hits += 1
                result = _from_entry(req, key, entry)
            else:
                if key not in inflight:  # identical requests in one batch share one call
                    inflight[key] = asyncio.ensure_future(
                        self._call(req, key, sems[req.model], secrets, client)
                    )
                result = replace(await asyncio.shield(inflight[key]), request=req)
                failures += not result.ok
            bar.update(1)
            bar.set_postfix(hits=hits, failed=failures, refresh=False)
            return result

        try:
            results = list(await asyncio.gather(*(one(r) for r in batch)))
        finally:
            bar.close()
            if client is not None:
                await client.close()
        self.stats.requests += len(results)
        self.stats.ledger_hits += hits
        self.stats.failures += failures
        if failures:
            logger.warning("%s: %d of %d requests failed", desc or self.stage, failures, len(batch))
        return results

    # -- internals ------------------------------------------------------------------

    def _tries(self, spec: ModelSpec) -> int:
        # In-process providers fail deterministically (a missing file, an unknown
        # script): asking again cannot help.
        return 1 if spec.provider in IN_PROCESS_PROVIDERS else self.settings.max_tries

    def _backoff(self, attempt: int, exc: BaseException) -> float:
        server = _retry_after(exc)
        if server is not None:
            return min(server, self.settings.backoff_max_s)
        delay = min(self.settings.backoff_max_s, self.settings.backoff_base_s * 2 ** (attempt - 1))
        return delay * random.uniform(0.5, 1.5)  # jitter, so retries do not arrive in step

    def _direct(self, spec: ModelSpec) -> bool:
        return self.settings.transport == "auto" and direct_supported(spec)

    async def _call(
        self,
        req: LLMRequest,
        key: str,
        sem: asyncio.Semaphore,
        secrets: Sequence[str],
        client: DirectClient | None = None,
    ) -> LLMResult:
        spec = self.spec(req.model)
        gen = self.generation_params(req)
        # The slot is held through backoff waits (under rate limiting, fewer requests in
        # flight is what the server asks for) but not through the ledger write.
        async with sem:
            result, tries = await self._attempts(req, key, spec, gen, secrets, client)
        # Durable before the caller sees it; fsync'd on the ledger's own thread.
        await self.ledger.append_async(self._entry(req, spec, gen, result, tries))
        if not result.ok:
            logger.warning("%s failed after %d tries: %s", req.model, tries, result.error)
        return result

    async def _attempts(
        self,
        req: LLMRequest,
        key: str,
        spec: ModelSpec,
        gen: Mapping[str, Any],
        secrets: Sequence[str],
        client: DirectClient | None = None,
    ) -> tuple[LLMResult, int]:
        import litellm

        direct = client is not None and self._direct(spec)
        api_key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
        timeout = spec.timeout_s or self.settings.timeout_s

        bucket = self._buckets.get(req.model)
        max_tries = self._tries(spec)
        error = "not attempted"
        attempt = 0
        for attempt in range(1, max_tries + 1):
            if bucket is not None:
                await bucket.acquire()
            self.stats.calls += 1
            self.stats.retries += attempt > 1
            start = time.perf_counter()
            try:
                if direct:
                    assert client is not None
                    data = await client.chat(spec, req.messages, gen, api_key, timeout)
                    latency = time.perf_counter() - start
                    return _direct_result(req, key, data, latency, spec), attempt
                resp = await litellm.acompletion(
                    model=spec.litellm_model,
                    messages=[dict(m) for m in req.messages],
                    api_base=spec.api_base,
                    api_key=api_key,
                    timeout=timeout,
                    num_retries=0,  # retries are ours, with the ledger's accounting
                    max_retries=0,
                    drop_params=True,  # e.g. seed for providers that do not take one
                    **gen,
                )
                return _to_result(req, key, resp, time.perf_counter() - start, spec), attempt
            except Exception as exc:  # every provider error is a result, not a crash
                error = _scrub(f"{type(exc).__name__}: {_first_line(exc)}"[:500], secrets)
                if not _retryable(exc) or attempt == max_tries:
                    break
                delay = self._backoff(attempt, exc)
                logger.debug("%s: retry %d in %.2fs after %s", req.model, attempt, delay, error)
                await asyncio.sleep(delay)
        return LLMResult(req, key, ok=False, text=None, error=error), attempt

    def _entry(
        self, req: LLMRequest, spec: ModelSpec, gen: Mapping[str, Any], res: LLMResult, tries: int
    ) -> dict[str, Any]:
        return {
            "key": res.key,
            "stage": self.stage,
            "model": spec.name,
            "litellm_model": spec.litellm_model,
            "template": req.template,
            "template_version": req.template_version,
            "messages": [dict(m) for m in req.messages],
            "params": dict(gen),
            "tags": dict(req.tags),
            "response": res.text,
            "finish_reason": res.finish_reason,
            "usage": dict(res.usage),
            "cost": res.cost,
            "latency_s": None if res.latency_s is None else round(res.latency_s, 4),
            "tries": tries,
            "timestamp": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "error": res.error,
        }


def _first_line(exc: BaseException) -> str:
    """The message's first line, without litellm's repeated ``litellm.<Type>:`` prefixes."""
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    prefix = f"litellm.{type(exc).__name__}: "
    while line.startswith(prefix):
        line = line[len(prefix) :]
    return line


def _to_result(req: LLMRequest, key: str, resp: Any, latency: float, spec: ModelSpec) -> LLMResult:
    choice = resp.choices[0]
    usage = getattr(resp, "usage", None)
    return LLMResult(
        request=req,
        key=key,
        ok=True,
        text=choice.message.content or "",
        finish_reason=choice.finish_reason,
        usage={
            k: int(getattr(usage, k, 0) or 0)
            for k in ("prompt_tokens", "completion_tokens", "total_tokens")
        },
        cost=None if spec.provider in IN_PROCESS_PROVIDERS else _cost(resp),
        latency_s=latency,
    )


def _direct_result(
    req: LLMRequest, key: str, data: Mapping[str, Any], latency: float, spec: ModelSpec
) -> LLMResult:
    """An LLMResult from an OpenAI-format JSON reply (the direct transport)."""
    choice = data["choices"][0]
    raw_usage = data.get("usage") or {}
    usage = {
        k: int(raw_usage.get(k) or 0)
        for k in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    rates = price(spec.litellm_model)
    cost = (
        rates[0] * usage["prompt_tokens"] + rates[1] * usage["completion_tokens"] if rates else None
    )
    return LLMResult(
        request=req,
        key=key,
        ok=True,
        text=choice["message"].get("content") or "",
        finish_reason=choice.get("finish_reason"),
        usage=usage,
        cost=cost or None,
        latency_s=latency,
    )


def _cost(resp: Any) -> float | None:
    """USD cost when litellm knows the price; it already computed it for its own logging.

    litellm sets ``response_cost`` on every response (None for a model it cannot price);
    pricing again would repeat its slow lookup for unknown models.
    """
    hidden = getattr(resp, "_hidden_params", None) or {}
    if isinstance(hidden, dict) and "response_cost" in hidden:
        value = hidden["response_cost"]
    else:
        import litellm

        try:
            value = litellm.completion_cost(completion_response=resp)
        except Exception:  # unknown price: not an error
            return None
    return float(value) if value else None


def _from_entry(req: LLMRequest, key: str, e: Mapping[str, Any]) -> LLMResult:
    return LLMResult(
        request=req,
        key=key,
        ok=True,
        text=e.get("response"),
        error=None,
        finish_reason=e.get("finish_reason"),
        usage=e.get("usage") or {},
        cost=e.get("cost"),
        latency_s=e.get("latency_s"),
        from_ledger=True,
    )
