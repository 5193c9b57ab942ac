"""Several endpoints serving one model (vLLM replicas): requests spread over them.

A model entry may list endpoints (``api_base: [http://gpu1:8000/v1, http://gpu2:8000/v1]``).
Where a request goes is a transport concern, below the ledger and the retry policy:

- each attempt goes to the healthy endpoint with the fewest requests in flight (ties
  taken in turn), so replicas share the load and a slow one gets less of it;
- an attempt that fails in a way worth retrying (connection refused or reset, timeout,
  429, 5xx) puts its endpoint in a cooldown of ``llm.endpoint_cooldown_s``, so the
  gateway's next attempt at that request, and every other request meanwhile, goes to
  another endpoint; after the cooldown the endpoint gets requests again (one failure
  sends it back). When every endpoint is cooling down, the one that recovers first is
  tried.

The ledger key hashes the model string, messages and generation parameters, never the
endpoint, so which replica answered changes no key and no result; the model's
``concurrency`` bounds its requests in flight over all its endpoints together.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Sequence

from prescient.llm.limits import Clock
from prescient.llm.registry import ModelSpec
from prescient.llm.retry import is_retryable
from prescient.llm.transport_base import Call, Transport
from prescient.llm.types import Reply

logger = logging.getLogger(__name__)


class EndpointPool:
    """The endpoints of one model, their requests in flight and their cooldowns.

    Args:
        bases: the endpoint URLs.
        clock: time for cooldowns.
        cooldown_s: how long an endpoint that failed is passed over.
    """

    def __init__(self, bases: Sequence[str], clock: Clock, cooldown_s: float) -> None:
        self.bases = list(bases)
        self.clock = clock
        self.cooldown_s = cooldown_s
        self.inflight = [0] * len(self.bases)
        self.sent = [0] * len(self.bases)
        self.failed = [0] * len(self.bases)
        self.down_until = [-math.inf] * len(self.bases)
        self._turn = 0

    def acquire(self) -> int:
        """The endpoint for the next attempt (its index), counted as in flight."""
        now = self.clock.monotonic()
        n = len(self.bases)
        healthy = [i for i in range(n) if self.down_until[i] <= now]
        if healthy:
            i = min(healthy, key=lambda j: (self.inflight[j], (j - self._turn) % n))
        else:
            i = min(range(n), key=lambda j: self.down_until[j])
        self._turn = (i + 1) % n
        self.inflight[i] += 1
        self.sent[i] += 1
        return i

    def release(self, i: int, failed: bool) -> None:
        """The attempt at endpoint ``i`` is over; a failure starts its cooldown."""
        self.inflight[i] -= 1
        if failed:
            self.failed[i] += 1
            self.down_until[i] = self.clock.monotonic() + self.cooldown_s
            logger.info("%s failed; passed over for %.0fs", self.bases[i], self.cooldown_s)


class EndpointPools:
    """One pool per model, kept for the gateway's life."""

    def __init__(self, clock: Clock, cooldown_s: float) -> None:
        self.clock = clock
        self.cooldown_s = cooldown_s
        self._pools: dict[str, EndpointPool] = {}

    def pool(self, spec: ModelSpec) -> EndpointPool:
        """The pool of ``spec``'s endpoints."""
        if spec.name not in self._pools:
            bases = [b for b in spec.endpoints if b is not None]
            self._pools[spec.name] = EndpointPool(bases, self.clock, self.cooldown_s)
        return self._pools[spec.name]

    def log(self) -> None:
        """Attempts and failures per endpoint, for the stage's log."""
        for name, pool in sorted(self._pools.items()):
            parts = [
                f"{b}: {s} attempts, {f} failed"
                for b, s, f in zip(pool.bases, pool.sent, pool.failed, strict=True)
            ]
            logger.info("%s endpoints: %s", name, "; ".join(parts))


class SpreadTransport:
    """Sends each attempt through ``inner`` to the endpoint its pool picks."""

    def __init__(self, inner: Transport, pool: EndpointPool) -> None:
        self.inner = inner
        self.pool = pool
        self.retries = inner.retries

    async def complete(self, call: Call) -> Reply:
        i = self.pool.acquire()
        try:
            reply = await self.inner.complete(
                dataclasses.replace(call, api_base=self.pool.bases[i])
            )
        except BaseException as exc:
            self.pool.release(i, failed=isinstance(exc, Exception) and is_retryable(exc))
            raise
        self.pool.release(i, failed=False)
        return reply

    async def aclose(self) -> None:
        return None  # the inner transport is closed with the batch's others
