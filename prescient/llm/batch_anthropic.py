"""Anthropic's Message Batches API: the requests in one JSON body, the answers as one
JSON Lines file.

1. ``POST /v1/messages/batches`` with ``{"requests": [{"custom_id": <ledger key>,
   "params": {"model", "max_tokens", "messages", ...}}]}`` creates the batch;
2. ``GET /v1/messages/batches/<id>`` is polled until its ``processing_status`` is
   ``ended`` (``in_progress`` and ``canceling`` are not; ``request_counts`` says how many
   requests succeeded, errored, were canceled or expired);
3. ``GET`` of its ``results_url``: one line per request, ``{"custom_id", "result":
   {"type": "succeeded" | "errored" | "canceled" | "expired", "message": {...}}}``; a
   message's text is its ``text`` content blocks, its usage ``input_tokens`` and
   ``output_tokens``.

Requests carry the key as ``x-api-key`` and the API version as ``anthropic-version``.
A chat request's generation params are written as the Messages API names them, as the
one-by-one path (litellm) sends them: system messages become the ``system`` param,
``stop`` becomes ``stop_sequences``, ``max_tokens`` is required (:data:`MAX_TOKENS`
when the request sets none), and params the API does not take (``seed``) are left out;
the ledger key is the request's, whatever is sent. Stop reasons are read as the chat
format names them (``end_turn`` -> ``stop``, ``max_tokens`` -> ``length``), so an entry
reads the same whichever path answered it.

A batch carries no metadata here, so :meth:`AnthropicBatchAPI.find` cannot find one
again (the journal's limit, :mod:`prescient.llm.batch`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from prescient.llm.batch import (
    BatchError,
    BatchHTTP,
    BatchState,
    Outcome,
    ReplyFields,
    keyed_records,
)
from prescient.llm.limits import Clock
from prescient.llm.registry import ModelSpec
from prescient.llm.retry import RetryPolicy
from prescient.llm.transport_base import Messages

VERSION = "2023-06-01"
"""The ``anthropic-version`` header."""

BATCHES = "/v1/messages/batches"

MAX_TOKENS = 4096
"""``max_tokens`` of a request that sets none (the Messages API requires one)."""

SAMPLING = ("temperature", "top_p", "top_k")
"""Generation params sent under their own names."""

STOP_REASONS: Mapping[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}
"""Anthropic's stop reasons as the chat format's finish reasons."""


class AnthropicBatchAPI(BatchHTTP):
    """The Message Batches endpoints of Anthropic's API (:class:`prescient.llm.batch.BatchAPI`).

    Args:
        api_base: Anthropic's API (with or without a trailing ``/v1``).
        api_key: sent as ``x-api-key``.
        timeout_s: seconds one request may take.
        retry: the policy reads are retried under (None: no retries).
        clock: the clock retries wait on.
    """

    def __init__(
        self,
        api_base: str,
        api_key: str | None,
        timeout_s: float,
        retry: RetryPolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        base = api_base.rstrip("/")
        base = base.removesuffix("/v1")
        headers = {"anthropic-version": VERSION, **({"x-api-key": api_key} if api_key else {})}
        super().__init__(base, headers, timeout_s, retry, clock)

    def request_body(
        self, spec: ModelSpec, messages: Messages, gen: Mapping[str, Any], kind: str
    ) -> dict[str, Any]:
        """The ``params`` of a batch request (module doc); chat is the only kind a
        message batch carries."""
        system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
        params: dict[str, Any] = {
            "model": spec.litellm_model.split("/", 1)[1],
            "max_tokens": int(gen.get("max_tokens") or MAX_TOKENS),
            "messages": [dict(m) for m in messages if m.get("role") != "system"],
        }
        if system:
            params["system"] = "\n\n".join(system)
        params.update({k: gen[k] for k in SAMPLING if gen.get(k) is not None})
        stop = gen.get("stop")
        if stop:
            params["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
        return params

    def reply_fields(
        self, body: Mapping[str, Any], gen: Mapping[str, Any], kind: str
    ) -> ReplyFields:
        return message_reply_fields(body)

    async def find(self, digest: str) -> str | None:
        """None: a message batch carries no metadata to find it by."""
        return None

    async def submit(self, bodies: Mapping[str, Mapping[str, Any]], digest: str) -> str:
        requests = [{"custom_id": key, "params": dict(bodies[key])} for key in sorted(bodies)]
        raw = await self._call("POST", BATCHES, json={"requests": requests})
        return str(json.loads(raw)["id"])

    async def poll(self, batch_id: str) -> BatchState:
        info = dict(json.loads(await self._call("GET", f"{BATCHES}/{batch_id}")))
        status = str(info["processing_status"])
        return BatchState(status, status == "ended", info)

    async def results(self, state: BatchState, wanted: set[str]) -> dict[str, Outcome]:
        """The outcomes in the batch's results file (none before it has one)."""
        url = state.info.get("results_url")
        if not url:
            return {}
        if not str(url).startswith(self.base + "/"):
            # the key goes with every request: never to another host
            raise BatchError(f"results_url {str(url)[:120]!r} is not under {self.base}")
        return read_results(await self._call("GET", str(url)[len(self.base) :]), wanted)


def read_results(raw: bytes, wanted: set[str]) -> dict[str, Outcome]:
    """The outcomes in a results file, for the keys asked for."""
    out: dict[str, Outcome] = {}
    for key, rec in keyed_records(raw, wanted):
        result = rec.get("result") or {}
        kind = result.get("type")
        if kind == "succeeded" and result.get("message"):
            out[key] = Outcome(dict(result["message"]), None)
        elif kind == "errored":
            detail = json.dumps(result.get("error"))[:300]
            out[key] = Outcome(None, f"batch request failed: {detail}")
        else:
            out[key] = Outcome(None, f"batch request {kind or 'without a result'}")
    return out


def message_reply_fields(message: Mapping[str, Any]) -> ReplyFields:
    """Text, finish reason and token counts of a Messages API reply."""
    blocks = message["content"]
    text = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    reason = message.get("stop_reason")
    finish = None if reason is None else STOP_REASONS.get(str(reason), str(reason))
    usage = message.get("usage") or {}
    counts = {
        "prompt_tokens": int(usage.get("input_tokens") or 0),
        "completion_tokens": int(usage.get("output_tokens") or 0),
    }
    return text, finish, counts
