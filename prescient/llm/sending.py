"""Sending one request: its attempts through a transport, and the ledger entry and result
they come to.

The attempts (:func:`attempts`) hold the model's concurrency slot, are admitted by the
cost ceiling, paced by the model's rate limit and retried under the retry policy; what
they come to (:class:`Outcome`) becomes the request's ledger entry
(:func:`ledger_entry`), a success or a recorded failure. Every result, fresh or from the
ledger, is built from its entry by :func:`result_from_entry`, so the two cannot drift
apart.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from prescient.llm.cache import Entry
from prescient.llm.ceiling import CostCeiling
from prescient.llm.ledger_format import is_success, readable_text
from prescient.llm.limits import Clock, Limits
from prescient.llm.progress import GatewayStats
from prescient.llm.registry import ModelSpec
from prescient.llm.retry import RetryPolicy, describe, is_retryable
from prescient.llm.scrub import Scrubber
from prescient.llm.settings import GatewaySettings
from prescient.llm.transport_base import Call, Transport
from prescient.llm.types import LLMRequest, LLMResult, Reply, served_model

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What the attempts at one request came to."""

    reply: Reply | None
    error: str | None
    tries: int
    latency_s: float | None


class Host(Protocol):
    """What the attempts use of their gateway."""

    settings: GatewaySettings
    clock: Clock
    limits: Limits
    retry: RetryPolicy
    ceiling: CostCeiling
    stats: GatewayStats


async def attempts(
    host: Host,
    spec: ModelSpec,
    req: LLMRequest,
    gen: Mapping[str, Any],
    transport: Transport,
    scrub: Scrubber,
    key: str = "",
) -> Outcome:
    """Try the request until it succeeds, fails for good, or runs out of attempts.

    ``host`` is the gateway: its settings, clock, limits, retry policy, cost ceiling and
    stats.

    The concurrency slot is held through backoff waits (under rate limiting, fewer
    requests in flight is what the server asks for) but not through the ledger write.
    Holding the slot, the request is admitted by the cost ceiling or NotSent raised.
    """
    api_key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    timeout_s = spec.timeout_s or host.settings.timeout_s
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
    tries = host.retry.max_tries if transport.retries else 1
    error, attempt = "not attempted", 0
    async with host.limits.slot(spec.name, spec.concurrency):
        host.ceiling.admit(key, spec, req, gen)
        for attempt in range(1, tries + 1):
            await host.limits.pace(spec.name, spec.rpm)
            host.stats.calls += 1
            host.stats.retries += attempt > 1
            start = time.perf_counter()
            try:
                reply = await transport.complete(call)
            except Exception as exc:  # every provider error is a result, not a crash
                error = scrub(describe(exc))
                if attempt == tries or not is_retryable(exc):
                    break
                delay = host.retry.delay(attempt, exc, host.clock.now())
                logger.debug("%s: retry %d in %.2fs after %s", spec.name, attempt, delay, error)
                await host.clock.sleep(delay)
            else:
                return Outcome(reply, None, attempt, time.perf_counter() - start)
    logger.warning("%s failed after %d tries: %s", spec.name, attempt, error)
    return Outcome(None, error, attempt, None)


def request_audit(stage: str, req: LLMRequest, spec: ModelSpec) -> dict[str, Any]:
    """The fields of a ledger entry that describe who asked, not what was asked or
    answered: the stage, the registry name, the template and the audit tags (none is
    part of the key; :func:`ledger_entry` writes the same values)."""
    return {
        "stage": stage,
        "model": spec.name,
        "template": req.template,
        "template_version": req.template_version,
        "tags": dict(req.tags),
    }


def ledger_entry(
    stage: str,
    clock: Clock,
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
        "stage": stage,
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
        "timestamp": clock.now().isoformat(timespec="seconds"),
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
        served_model=served_model(entry.get("provenance")) if ok else None,
        litellm_model=entry.get("litellm_model"),
    )
