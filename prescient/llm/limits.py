"""Per-model limits: requests in flight (a semaphore) and requests per minute (a bucket).

Time comes from a :class:`Clock`, so tests replace it with a fake one and assert on the
waits the limits asked for instead of on how long a run took.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
import weakref
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Clock(Protocol):
    """The gateway's sense of time."""

    def monotonic(self) -> float:
        """Seconds on a monotonic clock (rate limits)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait (rate-limit pacing, retry backoff)."""
        ...

    def now(self) -> dt.datetime:
        """The current UTC time (ledger timestamps, Retry-After given as a date)."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


class TokenBucket:
    """A requests-per-minute limiter: ``rpm`` starts per minute, bursts of one second's worth.

    ``reserve`` takes a token at once, letting the count go negative, and says how long
    the caller must wait before using it; reservations are handed out in arrival order.
    It is synchronous and holds no asyncio primitive, so one bucket serves every batch
    (each batch runs on its own event loop) and keeps its state between them.

    Args:
        rpm: requests per minute (> 0).
        clock: monotonic clock in seconds.
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


T = TypeVar("T")


class PerLoop(Generic[T]):
    """One value per event loop (semaphores and futures belong to a loop, and each batch
    runs on its own), made by ``make`` on first use; a loop's value goes with the loop.
    The last loop's is kept at hand, since every call of a batch asks for it."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._values: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = (
            weakref.WeakKeyDictionary()
        )
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], T] | None = None

    def get(self) -> T:
        """The running loop's value."""
        loop = asyncio.get_running_loop()
        last = self._last
        if last is not None and last[0]() is loop:
            return last[1]
        value = self._values.get(loop)
        if value is None:
            value = self._values[loop] = self._make()
        self._last = (weakref.ref(loop), value)
        return value


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Limits:
    """Every model's limits for one gateway.

    ``concurrency`` is shared by all batches running on one event loop (semaphores
    belong to a loop, so there is one set per loop); ``rpm`` buckets live as long as the
    gateway, so a new batch does not get a fresh burst.

    Args:
        clock: where pacing waits and reads the time.
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._buckets: dict[str, TokenBucket] = {}
        self._sems: PerLoop[dict[str, asyncio.Semaphore]] = PerLoop(dict)
        self._turn: PerLoop[list[asyncio.Future[None]]] = PerLoop(list)

    def slot(self, model: str, concurrency: int) -> asyncio.Semaphore:
        """``model``'s slots on the running loop: ``async with limits.slot(...)`` holds one."""
        sems = self._sems.get()
        sem = sems.get(model)
        if sem is None:
            sem = sems[model] = asyncio.Semaphore(concurrency)
        return sem

    async def after_sends(self) -> None:
        """Let what is already due on the loop run first: the requests that released
        slots woke, the replies that arrived. A request calls this once its reply is in
        and its slot released (and its cost settled), so the next requests go out before
        its ledger write (hashing, encoding, the write itself): when many replies land at
        once, the slots refill first, as a bare client's would.

        Every caller in one pass of the loop waits on one future, set by a callback the
        loop runs after the callbacks due in its next pass (a timer due at once runs
        after those).
        """
        turn = self._turn.get()
        if not turn or turn[0].done():
            loop = asyncio.get_running_loop()
            future = loop.create_future()
            loop.call_at(loop.time(), _wake, future)
            turn[:] = [future]
        await turn[0]

    async def pace(self, model: str, rpm: float | None) -> None:
        """Wait until ``model``'s requests-per-minute budget allows one more start."""
        if rpm is None:
            return
        bucket = self._buckets.get(model)
        if bucket is None:
            bucket = self._buckets[model] = TokenBucket(rpm, self.clock.monotonic)
        delay = bucket.reserve()
        if delay > 0:
            await self.clock.sleep(delay)
