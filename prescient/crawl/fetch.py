"""HTTP GET with the failure classes a bulk download meets, and the retry policy.

Transient failures (the statuses :func:`prescient.llm.retry.retryable_status` names:
429, 5xx, 408, ...; refused, reset or stalled connections, bodies cut short) are retried
with the model calls' backoff (:class:`prescient.llm.retry.RetryPolicy`: exponential,
jittered, capped, a server's ``Retry-After`` first); other client errors (404, 403...)
are final at once. The standard library's client is used: it honours ``HTTPS_PROXY``
and follows redirects (keeping the ``Range`` header), and a socket timeout bounds how
long a stalled body can hang.
"""

from __future__ import annotations

import datetime as dt
import functools
import http.client
import logging
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from prescient.llm import retry

logger = logging.getLogger(__name__)

USER_AGENT = "prescient-crawl/0.1 (+https://commoncrawl.org/terms-of-use)"

Sleep = Callable[[float], None]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry.

    Attributes:
        max_tries: attempts in a row without progress before a request fails.
        backoff_base_s: first wait; each further failure doubles it.
        backoff_max_s: cap on one wait, also on a server's Retry-After.
        timeout_s: socket timeout; a body that stalls this long counts as dropped.
    """

    max_tries: int
    backoff_base_s: float
    backoff_max_s: float
    timeout_s: float

    @functools.cached_property
    def backoff(self) -> retry.RetryPolicy:
        """The waits between attempts: the model calls' policy with these settings."""
        return retry.RetryPolicy(self.max_tries, self.backoff_base_s, self.backoff_max_s)


class FetchError(Exception):
    """A request that did not give the bytes asked for.

    Attributes:
        reason: one line for logs and the manifest (``HTTP 503``, ``connection dropped``).
        transient: whether trying again can help.
        retry_after: seconds the server asked us to wait, if it did.
        status: the HTTP status, when the server answered with an error status.
        full_size: the file's size a ``416 Range Not Satisfiable`` answer reports.
    """

    def __init__(
        self,
        reason: str,
        transient: bool,
        retry_after: float | None = None,
        status: int | None = None,
        full_size: int | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.transient = transient
        self.retry_after = retry_after
        self.status = status
        self.full_size = full_size


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay-seconds or an HTTP date;
    :func:`prescient.llm.retry.parse_retry_after`).

    Args:
        value: the header's value.
        now: the current time as a Unix timestamp (default: the clock), for a date.
    """
    when = None if now is None else dt.datetime.fromtimestamp(now, dt.UTC)
    return retry.parse_retry_after(value, when)


def backoff_delay(policy: RetryPolicy, failures: int, retry_after: float | None) -> float:
    """Wait before the next attempt after ``failures`` failures in a row (>= 1).

    A server's Retry-After wins (capped); otherwise ``base * 2^(failures-1)``, capped,
    times a jitter in [0.5, 1.5) so that parallel downloads do not retry in step
    (:meth:`prescient.llm.retry.RetryPolicy.wait`; timing only, never an output).
    """
    return policy.backoff.wait(failures, retry_after)


def describe_network_error(exc: BaseException) -> str:
    """One line for a connection-level failure."""
    if isinstance(exc, http.client.IncompleteRead):
        return f"connection dropped mid-body ({len(exc.partial)} bytes of the last read)"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "connection stalled (socket timeout)"
    if isinstance(exc, urllib.error.URLError):
        return f"connection failed ({exc.reason})"
    return f"connection dropped ({type(exc).__name__}: {exc})"


NETWORK_ERRORS: tuple[type[BaseException], ...] = (
    OSError,  # ConnectionError, TimeoutError, ssl errors, URLError
    http.client.HTTPException,  # IncompleteRead, RemoteDisconnected, BadStatusLine
)


def open_url(
    url: str, timeout_s: float, start: int = 0, if_range: str | None = None
) -> http.client.HTTPResponse:
    """GET ``url`` (from byte ``start`` when > 0) and return the open response.

    ``if_range`` (an ETag or an HTTP date) goes with a range request as ``If-Range``: a
    server whose file no longer has that validator answers with the whole file (200).

    Raises:
        FetchError: an HTTP error status or a connection failure, classified.
    """
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if start > 0:
        headers["Range"] = f"bytes={start}-"
        if if_range:
            headers["If-Range"] = if_range
    request = urllib.request.Request(url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=timeout_s)  # noqa: S310
    except urllib.error.HTTPError as exc:
        status = exc.code
        got = exc.headers
        retry_after = parse_retry_after(got.get("Retry-After") if got else None)
        content_range = str(got.get("Content-Range") or "") if got else ""
        exc.close()
        if status == 416:  # Content-Range: bytes */<size>
            size = content_range.rpartition("/")[2]
            raise FetchError(
                "HTTP 416 range not satisfiable",
                transient=True,
                status=416,
                full_size=int(size) if size.isdigit() else None,
            ) from None
        transient = retry.retryable_status(status)
        raise FetchError(f"HTTP {status} {exc.reason}", transient, retry_after, status) from None
    except NETWORK_ERRORS as exc:
        raise FetchError(describe_network_error(exc), transient=True) from None
    assert isinstance(response, http.client.HTTPResponse)
    return response


def get_bytes(url: str, policy: RetryPolicy, sleep: Sleep = time.sleep) -> bytes:
    """A small file (a listing) in full, retried on transient failures.

    Raises:
        FetchError: a final failure, with the reason of the last attempt.
    """
    failures = 0
    while True:
        try:
            with open_url(url, policy.timeout_s) as response:
                return response.read()  # a body shorter than Content-Length raises
        except NETWORK_ERRORS as exc:
            error = FetchError(describe_network_error(exc), transient=True)
        except FetchError as exc:
            error = exc
        failures += 1
        if not error.transient or failures >= policy.max_tries:
            raise FetchError(
                f"{error.reason} (after {failures} attempt{'s' * (failures > 1)})",
                transient=False,
            )
        wait = backoff_delay(policy, failures, error.retry_after)
        logger.info("%s: %s; retrying in %.1fs", url, error.reason, wait)
        sleep(wait)
