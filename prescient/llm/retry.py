"""When to try a request again, and how long to wait first.

Rate limits (429), conflicts, early and timed-out requests (409, 425, 408), server
errors (5xx), timeouts and connection failures are worth another attempt; client errors
(400, 401, 403, 404) are not. Every transport raises errors that carry the HTTP status
on ``status_code`` (litellm's exceptions do, and the direct and completions clients'
mirror them), so one rule serves all. The wait doubles per attempt from
``backoff_base_s`` with a 0.5-1.5 jitter, capped by ``backoff_max_s``; a server's
``Retry-After`` (seconds, milliseconds or an HTTP date) takes precedence, under the same
cap. The crawl's downloads (:mod:`prescient.crawl.fetch`) use the same statuses and waits.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import random
from dataclasses import dataclass, field

RETRY_STATUSES = frozenset({408, 409, 425, 429})
"""Client-error statuses worth another attempt (timeout, conflict, too early, rate limit)."""


def retryable_status(status: int) -> bool:
    """True for :data:`RETRY_STATUSES` and every 5xx."""
    return status in RETRY_STATUSES or status >= 500


def is_retryable(exc: BaseException) -> bool:
    """Rate limits, 5xx, timeouts and connection failures; not 4xx or bad requests."""
    if isinstance(exc, asyncio.TimeoutError | TimeoutError | ConnectionError):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and retryable_status(status)


def parse_retry_after(value: object, now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or an HTTP date);
    None when there is none or it cannot be read.

    Args:
        value: the header's value.
        now: the current UTC time, for a date.
    """
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    now = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - now).total_seconds())


def retry_after(exc: BaseException, now: dt.datetime | None = None) -> float | None:
    """Seconds a server asked us to wait (``Retry-After``/``retry-after-ms``), if it did.

    litellm keeps the provider's headers on ``litellm_response_headers`` (its
    ``response`` attribute is a synthetic response without them); the direct client
    keeps them on ``headers``.

    Args:
        exc: the error of the failed attempt.
        now: the current UTC time, for a Retry-After given as a date.
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
        wait = parse_retry_after(value, now)
        if wait is not None:
            return wait
    return None


@dataclass
class RetryPolicy:
    """Attempts and waits between them.

    Attributes:
        max_tries: attempts per request, the first included.
        backoff_base_s: nominal wait before the second attempt.
        backoff_max_s: cap on any wait.
        rng: jitter source (timing only: it never reaches an output).
    """

    max_tries: int
    backoff_base_s: float
    backoff_max_s: float
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, exc: BaseException, now: dt.datetime | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        return self.wait(attempt, retry_after(exc, now))

    def wait(self, attempt: int, server: float | None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based), given the
        wait the server asked for (None: it asked for none)."""
        if server is not None:
            return min(server, self.backoff_max_s)
        nominal = min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1))
        return float(nominal * self.rng.uniform(0.5, 1.5))  # so retries do not arrive in step


def describe(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 500 characters), for ledgers and logs.

    litellm repeats ``litellm.<Type>:`` prefixes in its messages; they are dropped.
    """
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    prefix = f"litellm.{type(exc).__name__}: "
    while line.startswith(prefix):
        line = line[len(prefix) :]
    return f"{type(exc).__name__}: {line}"[:500]
