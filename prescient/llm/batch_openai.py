"""OpenAI's Batch API: the requests as one uploaded file, the answers as files to read.

The protocol (Together, Groq and vLLM's batch runner speak it too):

1. the requests as JSON Lines, one per request: ``{"custom_id": <ledger key>,
   "method": "POST", "url": "/v1/chat/completions", "body": {...}}``;
2. ``POST /files`` (multipart, ``purpose=batch``) uploads them;
3. ``POST /batches`` creates the batch from that file, with the batch's digest as its
   metadata (:func:`prescient.llm.batch.batch_digest`), which finds it again after a
   kill (:meth:`OpenAIBatchAPI.find`);
4. ``GET /batches/<id>`` is polled until the batch is ``completed``, ``failed``,
   ``expired`` or ``cancelled``;
5. ``GET /files/<id>/content`` of its output and error files: one line per request,
   ``{"custom_id", "response": {"status_code", "body"}, "error"}``.

The base URL is the entry's first ``api_base`` (the one serving ``/files`` and
``/batches``), or OpenAI's API for ``openai/`` models without one
(:data:`prescient.llm.routes.OPENAI_BATCHES`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS, request_answers, top_logprobs_text
from prescient.llm.batch import BatchHTTP, BatchState, Outcome, ReplyFields, keyed_records
from prescient.llm.limits import Clock
from prescient.llm.registry import ModelSpec
from prescient.llm.retry import RetryPolicy
from prescient.llm.transport_base import Messages, chat_body, reasoning_tokens

ENDPOINT = "/v1/chat/completions"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
METADATA_KEY = "prescient_batch"


class OpenAIBatchAPI(BatchHTTP):
    """The files and batches endpoints of one OpenAI-compatible server
    (:class:`prescient.llm.batch.BatchAPI`)."""

    def __init__(
        self,
        api_base: str,
        api_key: str | None,
        timeout_s: float,
        retry: RetryPolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        super().__init__(api_base, headers, timeout_s, retry, clock)

    def request_body(
        self, spec: ModelSpec, messages: Messages, gen: Mapping[str, Any], kind: str
    ) -> dict[str, Any]:
        """The chat-completion body of a batch line: what the direct client posts, for
        an answer log-probability request too (asked with ``logprobs`` and
        ``top_logprobs``, its allowed answers left out)."""
        return chat_body(spec, messages, gen, kind)

    def reply_fields(
        self, body: Mapping[str, Any], gen: Mapping[str, Any], kind: str
    ) -> ReplyFields:
        """The reply as the direct client reads it: for an answer log-probability
        request, the allowed answers' log-probabilities read by the same rule
        (:func:`prescient.llm.answer_logprobs.top_logprobs_text`)."""
        text, finish, counts = chat_reply_fields(body)
        if kind == ANSWER_LOGPROBS:
            text = top_logprobs_text(request_answers(gen), body["choices"][0])
        return text, finish, counts

    async def upload(self, jsonl: bytes) -> str:
        import aiohttp

        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", jsonl, filename="batch.jsonl", content_type="application/jsonl")
        return str(json.loads(await self._call("POST", "/files", data=form))["id"])

    async def create(self, file_id: str, digest: str) -> str:
        body = {
            "input_file_id": file_id,
            "endpoint": ENDPOINT,
            "completion_window": "24h",
            "metadata": {METADATA_KEY: digest},
        }
        return str(json.loads(await self._call("POST", "/batches", json=body))["id"])

    async def submit(self, bodies: Mapping[str, Mapping[str, Any]], digest: str) -> str:
        return await self.create(await self.upload(request_lines(bodies)), digest)

    async def get(self, batch_id: str) -> dict[str, Any]:
        return dict(json.loads(await self._call("GET", f"/batches/{batch_id}")))

    async def poll(self, batch_id: str) -> BatchState:
        info = await self.get(batch_id)
        return BatchState(str(info["status"]), info["status"] in TERMINAL, info)

    async def find(self, digest: str) -> str | None:
        """The id of the batch created with this digest's metadata, if the server has one."""
        after: str | None = None
        while True:
            query = "?limit=100" + (f"&after={after}" if after else "")
            page = json.loads(await self._call("GET", "/batches" + query))
            for b in page.get("data", []):
                if (b.get("metadata") or {}).get(METADATA_KEY) == digest:
                    return str(b["id"])
            if not page.get("has_more") or not page.get("data"):
                return None
            after = str(page["data"][-1]["id"])

    async def content(self, file_id: str) -> bytes:
        return await self._call("GET", f"/files/{file_id}/content")

    async def results(self, state: BatchState, wanted: set[str]) -> dict[str, Outcome]:
        """The outcomes in the batch's output and error files."""
        out: dict[str, Outcome] = {}
        for field in ("output_file_id", "error_file_id"):
            if state.info.get(field):
                out.update(read_results(await self.content(str(state.info[field])), wanted))
        return out


def request_lines(bodies: Mapping[str, Mapping[str, Any]]) -> bytes:
    """The batch's input file: one request line per ledger key, in key order."""
    lines = (
        json.dumps(
            {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": dict(bodies[key])},
            sort_keys=True,
            separators=(",", ":"),
        )
        for key in sorted(bodies)
    )
    return ("\n".join(lines) + "\n").encode("utf-8")


def read_results(raw: bytes, wanted: set[str]) -> dict[str, Outcome]:
    """The outcomes in an output or error file, for the keys asked for."""
    out: dict[str, Outcome] = {}
    for key, rec in keyed_records(raw, wanted):
        resp = rec.get("response") or {}
        status = int(resp.get("status_code") or 0)
        if rec.get("error") or status >= 400 or not resp.get("body"):
            detail = rec.get("error") or (resp.get("body") or {}).get("error") or status
            out[key] = Outcome(None, f"batch request failed: {json.dumps(detail)[:300]}")
        else:
            out[key] = Outcome(dict(resp["body"]), None)
    return out


def chat_reply_fields(body: Mapping[str, Any]) -> ReplyFields:
    """Text, finish reason and token counts of a chat-completion body (the reasoning
    tokens too, where the provider reports them)."""
    choice = body["choices"][0]
    usage = body.get("usage") or {}
    counts = {k: int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens")}
    counts.update(reasoning_tokens(usage))
    return str(choice["message"].get("content") or ""), choice.get("finish_reason"), counts
