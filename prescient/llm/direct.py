"""A lean transport for OpenAI-compatible chat-completion servers (``llm.transport: auto``).

litellm spends about 4.5 ms of CPU on every call (logging objects, cost lookups, response
models). At 32 requests in flight against a 200 ms server that alone holds throughput to
about 70% of the ideal rate, because the event loop is busy instead of waiting. For the
providers that speak the plain OpenAI wire format (``openai/...``, ``hosted_vllm/...``: a
vLLM, llama.cpp or Ollama server) this module posts the same request body with one shared
aiohttp session and reads the JSON reply itself, at a fraction of that cost. Every other
provider, and every model when ``llm.transport`` is ``litellm``, goes through litellm.

The choice is invisible to the ledger: keys hash the litellm model string, messages and
generation params, never the transport, so switching transports keeps every ledger hit.
Errors keep the shape the gateway's retry rules read: an HTTP status on ``status_code``
and the response headers on ``headers`` (Retry-After), and connection failures,
timeouts, malformed or truncated bodies as ``ConnectionError`` (retryable).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from prescient.llm.registry import ModelSpec

DIRECT_BASES: Mapping[str, str | None] = {
    "openai": "https://api.openai.com/v1",
    "hosted_vllm": None,  # an api_base is required
}
"""Providers served directly, with their default base URL (None: the entry must set one)."""


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


def direct_supported(spec: ModelSpec) -> bool:
    """True when the model's provider speaks the OpenAI wire format and has a base URL."""
    if spec.provider not in DIRECT_BASES:
        return False
    return bool(spec.api_base or DIRECT_BASES[spec.provider])


def _url(spec: ModelSpec) -> str:
    base = (spec.api_base or DIRECT_BASES[spec.provider] or "").rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


class DirectClient:
    """One aiohttp session for a batch; ``chat`` returns the parsed OpenAI JSON reply."""

    def __init__(self) -> None:
        self._session: Any = None

    async def _get_session(self) -> Any:
        if self._session is None:
            import aiohttp

            # No connection cap of our own: the gateway's per-model semaphore is the limit.
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def chat(
        self,
        spec: ModelSpec,
        messages: Sequence[Mapping[str, Any]],
        gen: Mapping[str, Any],
        api_key: str | None,
        timeout_s: float,
    ) -> dict[str, Any]:
        """POST one chat completion; the reply's JSON with at least one choice.

        Raises:
            DirectHTTPError: an HTTP error status (4xx/5xx), with the server's headers.
            DirectTransportError: connection failure, timeout or an unusable body.
        """
        import aiohttp

        session = await self._get_session()
        body = {"model": spec.litellm_model.split("/", 1)[1], "messages": list(messages), **gen}
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        try:
            async with session.post(
                _url(spec),
                data=json.dumps(body),
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=timeout_s),
            ) as resp:
                raw = await resp.read()
                if resp.status >= 400:
                    raise http_error(resp.status, raw, resp.headers)
        except TimeoutError as exc:
            raise Timeout(f"timed out after {timeout_s:g}s") from exc
        except aiohttp.ClientError as exc:  # refused, reset, payload cut short, ...
            raise APIConnectionError(f"{type(exc).__name__}: {exc}") from exc
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            choice["message"]["content"]  # noqa: B018 - the field must exist
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise APIConnectionError(
                f"unusable reply ({type(exc).__name__}): {raw[:120]!r}"
            ) from exc
        return dict(data)


_PRICES: dict[str, tuple[float, float] | None] = {}


def price(model: str) -> tuple[float, float] | None:
    """USD per (prompt, completion) token from litellm's price map; None when unknown."""
    if model not in _PRICES:
        import litellm

        info = litellm.model_cost.get(model) or litellm.model_cost.get(model.split("/", 1)[-1])
        if info and info.get("input_cost_per_token") is not None:
            _PRICES[model] = (
                float(info["input_cost_per_token"]),
                float(info.get("output_cost_per_token") or 0.0),
            )
        else:
            _PRICES[model] = None
    return _PRICES[model]
