"""What every transport shares: the call it gets, the interface it offers, the errors it raises.

A transport turns a :class:`Call` into a :class:`prescient.llm.types.Reply` or raises;
the gateway's retry policy reads the error (``status_code``, headers), the ledger and
result handling never see which transport answered. Ledger keys do not depend on it.

The transports, one module each, are chosen by :mod:`prescient.llm.transports`, which
imports a transport's module only when a batch needs it:

- ``litellm`` (:mod:`prescient.llm.litellm_transport`): chat with any provider litellm
  knows;
- ``direct`` (:mod:`prescient.llm.direct`): a lean chat client for the providers that
  speak the plain OpenAI wire format;
- ``completions`` (:mod:`prescient.llm.completions`): texts' log-probabilities from an
  OpenAI-compatible completions server;
- ``in_process`` (:mod:`prescient.llm.providers`): models answered in this process
  (llama.cpp's log-probabilities in :mod:`prescient.llm.llama_eval`).

This module imports none of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS, top_logprobs_body
from prescient.llm.registry import ModelSpec
from prescient.llm.types import Reply

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")
"""The token counts a reply's ``usage`` holds, whatever the transport."""
REASONING_TOKENS = "reasoning_tokens"
"""A reasoning model's hidden reasoning tokens, kept in ``usage`` where the provider
reports them (``completion_tokens_details.reasoning_tokens``): already among the
completion tokens it bills, so priced with them, and shown apart in the ledger."""


def reasoning_tokens(usage: Any) -> dict[str, int]:
    """``{reasoning_tokens: n}`` from a provider's usage (a dict or an object), or {}."""
    details = (
        usage.get("completion_tokens_details")
        if isinstance(usage, dict)
        else (getattr(usage, "completion_tokens_details", None))
    )
    if details is None:
        return {}
    n = (
        details.get(REASONING_TOKENS)
        if isinstance(details, dict)
        else (getattr(details, REASONING_TOKENS, None))
    )
    return {REASONING_TOKENS: int(n)} if isinstance(n, int | float) and n else {}


Messages = Sequence[Mapping[str, Any]]
"""A request's chat messages."""


def token_usage(prompt: int, completion: int) -> dict[str, int]:
    """A reply's ``usage`` from its prompt and completion token counts."""
    return {
        USAGE_FIELDS[0]: prompt,
        USAGE_FIELDS[1]: completion,
        USAGE_FIELDS[2]: prompt + completion,
    }


@dataclass(frozen=True)
class Call:
    """One attempt's inputs.

    Attributes:
        spec: the model's registry entry.
        messages: chat messages.
        gen: generation parameters (the keyed ones).
        api_key: the key read from ``spec.api_key_env`` (None: none needed). Handed to
            the transport alone, never stored.
        timeout_s: seconds this attempt may take.
        api_base: the endpoint this attempt goes to (one of ``spec.endpoints``; None:
            the provider's default).
        kind: ``chat``, ``logprobs`` (:mod:`prescient.llm.logprobs`) or
            ``answer_logprobs`` (:mod:`prescient.llm.answer_logprobs`).
        options: the request's unkeyed computation options (``LLMRequest.options``).
        tags: the request's identifiers (``LLMRequest.tags``), not keyed: only the
            random baseline reads one, to draw per question (:mod:`prescient.llm.baselines`).
    """

    spec: ModelSpec
    messages: Sequence[Mapping[str, Any]]
    gen: Mapping[str, Any]
    api_key: str | None
    timeout_s: float
    api_base: str | None
    kind: str = "chat"
    options: Mapping[str, Any] = field(default_factory=dict)
    tags: Mapping[str, Any] = field(default_factory=dict)


class Transport(Protocol):
    """Sends calls to models.

    Attributes:
        retries: whether failed attempts are worth repeating (in-process models fail
            deterministically: asking again cannot help).
    """

    retries: bool

    async def complete(self, call: Call) -> Reply:
        """The model's reply; raises on any failure (the error is recorded, not raised on).

        A transport answers the kinds of request :func:`prescient.llm.transports.refusal`
        lets through to it; for ``logprobs`` the reply's text is the score's JSON, for
        ``answer_logprobs`` the answers' (:mod:`prescient.llm.answer_logprobs`).
        """
        ...

    async def aclose(self) -> None:
        """Free what the transport opened for this batch (connections)."""
        ...


def chat_body(
    spec: ModelSpec, messages: Messages, gen: Mapping[str, Any], kind: str
) -> dict[str, Any]:
    """The OpenAI chat-completion body of a request to ``spec``: what the direct client
    posts (:mod:`prescient.llm.direct`) and what an OpenAI Batch API line carries. An
    answer log-probability request is asked with ``logprobs`` and ``top_logprobs``, its
    allowed answers left out."""
    body = {"model": spec.litellm_model.split("/", 1)[1], "messages": list(messages), **gen}
    return top_logprobs_body(body) if kind == ANSWER_LOGPROBS else body


class HTTPSession:
    """The aiohttp session of an HTTP transport, opened on first use and closed with the
    transport; aiohttp is imported when the transport is made, which a batch does only
    when it needs one. No connection cap of its own: the gateway's per-model semaphore
    is the limit."""

    def __init__(self) -> None:
        import aiohttp  # noqa: F401  (loaded with the transport, frozen with it)

        self._session: Any = None

    async def get(self) -> Any:
        if self._session is None:
            import aiohttp

            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class DirectHTTPError(Exception):
    """The server answered with an HTTP error status."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"{message} (HTTP {status_code})")
        self.status_code = status_code
        self.headers = dict(headers)


class BadRequestError(DirectHTTPError):
    """400 (the OpenAI error names, which litellm uses too, so ledgers read the same)."""


class AuthenticationError(DirectHTTPError):
    """401."""


class PermissionDeniedError(DirectHTTPError):
    """403."""


class NotFoundError(DirectHTTPError):
    """404."""


class RateLimitError(DirectHTTPError):
    """429."""


class InternalServerError(DirectHTTPError):
    """5xx."""


_BY_STATUS: Mapping[int, type[DirectHTTPError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
}


def http_error(status: int, body: bytes, headers: Mapping[str, str]) -> DirectHTTPError:
    """The error for an HTTP status, with the server's own message when it gave one."""
    text = body[:2000].decode("utf-8", "replace").strip()
    try:
        message = str(json.loads(text)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        message = text[:300]
    cls = _BY_STATUS.get(status, InternalServerError if status >= 500 else DirectHTTPError)
    return cls(status, message, headers)


class DirectTransportError(ConnectionError):
    """No usable reply: connection failure, timeout, malformed or truncated body."""


class Timeout(DirectTransportError):
    """The attempt ran past its timeout."""


class APIConnectionError(DirectTransportError):
    """Refused, reset or cut-short connection, or a body that is not a chat completion."""


class ProviderError(Exception):
    """An in-process model cannot answer (unknown model or script, missing file)."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code

    def __reduce__(self) -> tuple[Any, tuple[int, str]]:
        return (type(self), (self.status_code, str(self)))
