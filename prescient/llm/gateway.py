"""The one way the project calls a model: litellm behind a ledger, limits and retries.

``Gateway.complete_many`` takes a batch of ``LLMRequest`` and returns one ``LLMResult``
per request, in order. Requests already answered in the ledger cost nothing; the rest
go out concurrently (a semaphore and a requests-per-minute bucket per model), retried
with exponential backoff and jitter on rate limits, server errors, timeouts and
connection errors. A request that still fails is recorded as a failure and returned
with ``ok=False``: the stage decides what to do, and a rerun tries it again.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from prescient.llm.ledger import TRANSPORT_PARAMS, Ledger, request_key
from prescient.llm.registry import ModelConfigError, ModelSpec, load_registry
from prescient.llm.types import LLMRequest, LLMResult

logger = logging.getLogger(__name__)

# Providers that run in this process (prescient.llm.providers): no price, no network.
LOCAL_PROVIDERS = frozenset({"local", "baseline", "scripted"})


@dataclass(frozen=True)
class GatewaySettings:
    """Retry and progress settings (params section ``llm``)."""

    max_tries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    progress: bool = True

    @classmethod
    def from_params(cls, d: Mapping[str, Any] | None) -> GatewaySettings:
        d = d or {}
        return cls(
            max_tries=max(1, int(d.get("max_tries", 5))),
            backoff_base_s=float(d.get("backoff_base_s", 1.0)),
            backoff_max_s=float(d.get("backoff_max_s", 60.0)),
            progress=bool(d.get("progress", True)),
        )


class RateLimiter:
    """A token bucket: at most ``rpm`` request starts per minute, bursts up to ``rpm``/6."""

    def __init__(self, rpm: float | None) -> None:
        self.rate = (rpm or 0) / 60.0
        self.capacity = max(1.0, (rpm or 0) / 6.0)
        self.tokens = self.capacity
        self.updated = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        if self.rate <= 0:
            return
        async with self._lock:
            while True:
                now = time.monotonic()
                self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
                self.updated = now
                if self.tokens >= 1:
                    self.tokens -= 1
                    return
                await asyncio.sleep((1 - self.tokens) / self.rate)


def _retryable(exc: BaseException) -> bool:
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
    return isinstance(status, int) and (status == 429 or status >= 500)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _describe(exc: BaseException) -> str:
    """An error message safe to store: exception type and first line, keys scrubbed."""
    text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:500]
    for var, value in os.environ.items():
        if value and len(value) >= 8 and ("KEY" in var or "TOKEN" in var or "SECRET" in var):
            text = text.replace(value, "***")
    return text


class Gateway:
    """Calls models for one stage, through that stage's ledger.

    Args:
        models: the registry (name -> ModelSpec).
        ledger_path: the stage's ledger file (a DVC output with ``persist: true``).
        stage: stage name, recorded in every entry.
        settings: retry and progress settings.
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
        self.models = dict(models)
        self.ledger = Ledger(ledger_path)
        self.stage = stage
        self.settings = settings or GatewaySettings()
        self.calls = 0  # requests that reached a provider (attempts, not retries)

    @classmethod
    def from_params(
        cls,
        params: Mapping[str, Any],
        stage: str,
        ledger_path: str | os.PathLike[str] | None = None,
        progress: bool | None = None,
    ) -> Gateway:
        """Build from the full params.yaml dict (``models`` and ``llm`` sections)."""
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
        """Nothing to release per gateway: the ledger closes after every append."""

    # -- public API -----------------------------------------------------------------

    def spec(self, name: str) -> ModelSpec:
        if name not in self.models:
            raise ModelConfigError(
                f"model {name!r} is not in the registry (params.models); known: {sorted(self.models)}. "
                "Add conf/model/<name>.yaml and list it in conf/config.yaml's defaults."
            )
        return self.models[name]

    def key_for(self, request: LLMRequest) -> str:
        spec = self.spec(request.model)
        return request_key(spec.litellm_model, request.messages, self._gen_params(spec, request))

    def complete_many(self, requests: Sequence[LLMRequest], desc: str = "") -> list[LLMResult]:
        """Answer every request, in order; failures are marked, never raised."""
        for name in {r.model for r in requests}:
            self._check_key(self.spec(name))
        return asyncio.run(self._run(list(requests), desc or self.stage))

    def complete(self, request: LLMRequest) -> LLMResult:
        return self.complete_many([request])[0]

    # -- internals ------------------------------------------------------------------

    @staticmethod
    def _gen_params(spec: ModelSpec, request: LLMRequest) -> dict[str, Any]:
        params = {**spec.params, **request.params}
        return {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS and v is not None}

    @staticmethod
    def _check_key(spec: ModelSpec) -> None:
        if spec.api_key_env and not os.environ.get(spec.api_key_env):
            raise ModelConfigError(
                f"model {spec.name!r} needs an API key: set the environment variable {spec.api_key_env}"
            )

    async def _run(self, requests: list[LLMRequest], desc: str) -> list[LLMResult]:
        sems = {n: asyncio.Semaphore(self.spec(n).concurrency) for n in {r.model for r in requests}}
        buckets = {n: RateLimiter(self.spec(n).rpm) for n in sems}
        inflight: dict[str, asyncio.Task[LLMResult]] = {}
        hits = failures = 0
        bar = tqdm(
            total=len(requests),
            desc=desc,
            unit="req",
            disable=not self.settings.progress,
            mininterval=1.0,
        )

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
                        self._call(req, key, sems[req.model], buckets[req.model])
                    )
                result = await asyncio.shield(inflight[key])
                result = LLMResult(**{**result.__dict__, "request": req})
                failures += not result.ok
            bar.update(1)
            bar.set_postfix(hits=hits, failed=failures, refresh=False)
            return result

        try:
            return list(await asyncio.gather(*(one(r) for r in requests)))
        finally:
            bar.close()

    async def _call(
        self, req: LLMRequest, key: str, sem: asyncio.Semaphore, bucket: RateLimiter
    ) -> LLMResult:
        import litellm

        spec = self.spec(req.model)
        gen = self._gen_params(spec, req)
        error: str | None = None
        async with sem:
            for attempt in range(1, self.settings.max_tries + 1):
                await bucket.acquire()
                start = time.perf_counter()
                self.calls += 1
                try:
                    resp = await litellm.acompletion(
                        model=spec.litellm_model,
                        messages=[dict(m) for m in req.messages],
                        api_base=spec.api_base,
                        api_key=os.environ.get(spec.api_key_env) if spec.api_key_env else None,
                        timeout=spec.timeout_s,
                        num_retries=0,
                        max_retries=0,
                        **gen,
                    )
                    latency = time.perf_counter() - start
                    choice = resp.choices[0]
                    text = choice.message.content or ""
                    usage = getattr(resp, "usage", None)
                    usage_d = {
                        k: int(getattr(usage, k, 0) or 0)
                        for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                    }
                    cost = (
                        None
                        if spec.litellm_model.split("/", 1)[0] in LOCAL_PROVIDERS
                        else _cost(resp)
                    )
                    result = LLMResult(
                        req,
                        key,
                        True,
                        text,
                        None,
                        choice.finish_reason,
                        usage_d,
                        cost,
                        latency,
                        False,
                    )
                    # fsync off the event loop, so other requests keep flowing meanwhile.
                    await asyncio.to_thread(
                        self.ledger.append, self._entry(req, spec, gen, result, attempt)
                    )
                    return result
                except Exception as exc:  # every provider error is a result, not a crash
                    error = _describe(exc)
                    if not _retryable(exc) or attempt == self.settings.max_tries:
                        break
                    delay = _retry_after(exc)
                    if delay is None:
                        delay = min(
                            self.settings.backoff_max_s,
                            self.settings.backoff_base_s * 2 ** (attempt - 1),
                        )
                        delay *= 0.5 + random.random()  # jitter, so retries do not arrive in step
                    logger.debug("retrying %s in %.2fs after %s", req.model, delay, error)
                    await asyncio.sleep(delay)
        result = LLMResult(req, key, False, None, error)
        await asyncio.to_thread(
            self.ledger.append, self._entry(req, spec, gen, result, self.settings.max_tries)
        )
        logger.warning("%s failed after retries: %s", req.model, error)
        return result

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
            "latency_s": res.latency_s,
            "tries": tries,
            "timestamp": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "error": res.error,
        }


def _cost(resp: Any) -> float | None:
    """USD cost when litellm knows the price: it already computed it for its own logging."""
    hidden = getattr(resp, "_hidden_params", None) or {}
    value = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if value is None:
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
