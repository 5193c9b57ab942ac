"""The direct transport for OpenAI-compatible chat-completion servers (``llm.transport: auto``).

litellm spends about 4.5 ms of CPU on every call (logging objects, cost lookups, response
models). At 32 requests in flight against a 200 ms server that alone holds throughput to
about 70% of the ideal rate, because the event loop is busy instead of waiting. For the
providers that speak the plain OpenAI wire format (``openai/...``, ``hosted_vllm/...``: a
vLLM, llama.cpp or Ollama server) this module posts the same request body with one shared
aiohttp session and reads the JSON reply itself, at a fraction of that cost. Every other
provider, and every model when ``llm.transport`` is ``litellm``, goes through litellm.

Answer log-probability requests (:mod:`prescient.llm.answer_logprobs`) for these
providers come here whatever ``llm.transport`` says: the same chat completion, asked with
``logprobs: true`` and ``top_logprobs`` (:data:`prescient.llm.answer_logprobs.TOP_LOGPROBS`),
its reply read by :func:`prescient.llm.answer_logprobs.read_top_logprobs`; the allowed
answers are keyed params, never sent. A reply that carries no token log-probabilities,
or none for an allowed answer, fails the request (not retried: asking again gets the
same reply).

The choice is invisible to the ledger: keys hash the litellm model string, messages and
generation params, never the transport, so switching transports keeps every ledger hit.
Errors keep the shape the gateway's retry rules read: an HTTP status on ``status_code``
and the response headers on ``headers`` (Retry-After), and connection failures,
timeouts, malformed or truncated bodies as ``ConnectionError`` (retryable); the error
types live in :mod:`prescient.llm.transport_base`. Prices come from the price table
litellm ships (:mod:`prescient.llm.prices`).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from prescient.llm.answer_logprobs import (
    ANSWER_LOGPROBS,
    request_answers,
    top_logprobs_text,
)
from prescient.llm.prices import price
from prescient.llm.routes import DIRECT, DIRECT_BASES, Route
from prescient.llm.transport_base import (
    USAGE_FIELDS,
    APIConnectionError,
    Call,
    HTTPSession,
    Timeout,
    chat_body,
    http_error,
    reasoning_tokens,
)
from prescient.llm.types import SERVED_MODEL, Reply


def _url(call: Call) -> str:
    base = (call.api_base or DIRECT_BASES[call.spec.provider] or "").rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


class DirectTransport:
    """One aiohttp session per batch, posting OpenAI chat-completion requests."""

    route: ClassVar[Route] = DIRECT
    """What it serves (:mod:`prescient.llm.routes`)."""

    retries = True

    def __init__(self) -> None:
        self.http = HTTPSession()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def complete(self, call: Call) -> Reply:
        """POST one chat completion.

        Raises:
            DirectHTTPError: an HTTP error status (4xx/5xx), with the server's headers.
            DirectTransportError: connection failure, timeout or an unusable body.
        """
        answers = request_answers(call.gen) if call.kind == ANSWER_LOGPROBS else None
        data = await self._post(call)
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
        if answers is not None:
            text = top_logprobs_text(answers, choice)
        raw_usage = data.get("usage") or {}
        usage = {k: _count(raw_usage.get(k)) for k in USAGE_FIELDS}
        usage.update(reasoning_tokens(raw_usage))
        rates = price(call.spec.litellm_model)
        cost = (
            rates[0] * usage["prompt_tokens"] + rates[1] * usage["completion_tokens"]
            if rates
            else None
        )
        named = data.get("model")
        return Reply(
            text=text,
            finish_reason=choice.get("finish_reason"),
            usage=usage,
            cost=cost or None,
            provenance={SERVED_MODEL: named} if isinstance(named, str) and named else None,
        )

    async def _post(self, call: Call) -> dict[str, Any]:
        import aiohttp

        session = await self.http.get()
        body = chat_body(call.spec, call.messages, call.gen, call.kind)
        headers = {"Content-Type": "application/json"}
        if call.api_key:
            headers["Authorization"] = f"Bearer {call.api_key}"
        try:
            async with session.post(
                _url(call),
                data=json.dumps(body),
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=call.timeout_s),
            ) as resp:
                raw = await resp.read()
                if resp.status >= 400:
                    raise http_error(resp.status, raw, resp.headers)
        except TimeoutError as exc:
            raise Timeout(f"timed out after {call.timeout_s:g}s") from exc
        except aiohttp.ClientError as exc:  # refused, reset, payload cut short, ...
            raise APIConnectionError(f"{type(exc).__name__}: {exc}") from exc
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            if not isinstance(choice["message"], dict) or "content" not in choice["message"]:
                raise KeyError("content")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise APIConnectionError(
                f"unusable reply ({type(exc).__name__}): {raw[:120]!r}"
            ) from exc
        return dict(data)


def _count(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
