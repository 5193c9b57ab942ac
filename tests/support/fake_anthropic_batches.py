"""A real HTTP server on 127.0.0.1 that speaks Anthropic's Message Batches endpoints.

``POST /v1/messages/batches`` (``{"requests": [{"custom_id", "params"}]}``),
``GET /v1/messages/batches/<id>`` and ``GET /v1/messages/batches/<id>/results`` (the
batch's ``results_url``). Every request must carry ``x-api-key`` and
``anthropic-version: 2023-06-01``. A batch stays ``in_progress`` for ``polls`` reads of
its status, then ``ended``. Requests whose ``custom_id`` is in ``fail_keys`` come back
``errored``; with ``expire_after`` set, only that many requests are answered and the
rest come back ``expired``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[list[dict[str, Any]]], str]

VERSION = "2023-06-01"


class FakeAnthropicBatches:
    """The server; a context manager that starts and stops it.

    Attributes:
        batches: every batch by id, in creation order (its requests under ``_requests``).
        created: batches created.
        polls: status reads of any batch.
        headers: the headers of the last request.
    """

    def __init__(
        self,
        answer: Answer = lambda messages: "Yes",
        polls: int = 2,
        fail_keys: frozenset[str] = frozenset(),
        expire_after: int | None = None,
    ) -> None:
        self.answer, self.n_polls = answer, polls
        self.fail_keys, self.expire_after = fail_keys, expire_after
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = self.polls = 0
        self.headers: dict[str, str] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeAnthropicBatches:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def sent(self, n: int) -> list[dict[str, Any]]:
        """The requests of the ``n``-th batch created (from 0)."""
        return list(list(self.batches.values())[n]["_requests"])

    def _result(self, i: int, request: dict[str, Any]) -> dict[str, Any]:
        key, params = request["custom_id"], request["params"]
        if self.expire_after is not None and i >= self.expire_after:
            return {"custom_id": key, "result": {"type": "expired"}}
        if key in self.fail_keys:
            error = {"type": "error", "error": {"type": "api_error", "message": "overloaded"}}
            return {"custom_id": key, "result": {"type": "errored", "error": error}}
        message = {
            "id": f"msg_{i}",
            "type": "message",
            "role": "assistant",
            "model": params["model"],
            "content": [{"type": "text", "text": self.answer(params["messages"])}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 7, "output_tokens": 1},
        }
        return {"custom_id": key, "result": {"type": "succeeded", "message": message}}

    def _finish(self, batch: dict[str, Any]) -> None:
        rows = [self._result(i, r) for i, r in enumerate(batch["_requests"])]
        batch["_results"] = "".join(json.dumps(r) + "\n" for r in rows).encode()
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for row in rows:
            counts[row["result"]["type"]] += 1
        batch.update(
            processing_status="ended",
            request_counts=counts,
            results_url=f"{self.url}/v1/messages/batches/{batch['id']}/results",
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, obj: Any, raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self) -> bool:
                fake.headers = {k.lower(): v for k, v in self.headers.items()}
                if not self.headers.get("x-api-key"):
                    self._send(401, {"type": "error", "error": {"message": "no x-api-key"}})
                    return False
                if self.headers.get("anthropic-version") != VERSION:
                    self._send(400, {"type": "error", "error": {"message": "bad version"}})
                    return False
                return True

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self._authorised():
                    return None
                with fake._lock:
                    if self.path != "/v1/messages/batches":
                        return self._send(404, {"error": "not found"})
                    requests = json.loads(body)["requests"]
                    fake.created += 1
                    bid = f"msgbatch_{fake.created}"
                    fake.batches[bid] = {
                        "id": bid,
                        "type": "message_batch",
                        "processing_status": "in_progress",
                        "request_counts": {"processing": len(requests)},
                        "results_url": None,
                        "_requests": requests,
                        "_polls": 0,
                    }
                    return self._send(200, _public(fake.batches[bid]))

            def do_GET(self) -> None:
                if not self._authorised():
                    return None
                with fake._lock:
                    parts = self.path.split("?")[0].strip("/").split("/")
                    if parts[:3] != ["v1", "messages", "batches"] or len(parts) < 4:
                        return self._send(404, {"error": "not found"})
                    batch = fake.batches.get(parts[3])
                    if batch is None:
                        return self._send(404, {"error": "no such batch"})
                    if len(parts) == 5 and parts[4] == "results":
                        if "_results" not in batch:
                            return self._send(400, {"error": "batch still in progress"})
                        return self._send(200, None, raw=batch["_results"])
                    fake.polls += 1
                    batch["_polls"] += 1
                    ended = batch["processing_status"] != "in_progress"
                    if not ended and batch["_polls"] > fake.n_polls:
                        fake._finish(batch)
                    return self._send(200, _public(batch))

        return Handler


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}
