"""A real HTTP server on 127.0.0.1 that speaks OpenAI's files and batches endpoints.

``POST /v1/files`` (multipart, ``purpose=batch``), ``POST /v1/batches``,
``GET /v1/batches`` (newest first, with metadata), ``GET /v1/batches/<id>`` and
``GET /v1/files/<id>/content``. A batch stays ``in_progress`` for ``polls`` reads of its
status, then ends: ``completed``, or ``expired`` when ``expire_after`` is set (only that
many of its requests answered). Requests whose ``custom_id`` is in ``fail_keys`` land in
the error file with status 500. A line asked with ``logprobs`` is answered as the fake
chat server answers it (``chat_logprobs``, :mod:`tests.support.fake_openai`), so a batched
reply and a direct one can be compared. ``open_peak`` is the most batches in progress
at once; with ``hold`` set, no batch ends before that many were created (or, so that a
client submitting one at a time still finishes, before it was read 200 times more).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.fake_openai import ChatLogprobs, completion_with_logprobs

Answer = Callable[[list[dict[str, Any]]], str]


class FakeBatches:
    """The server; a context manager that starts and stops it.

    Attributes:
        files: uploaded and produced files by id.
        batches: every batch by id, in creation order.
        created: batches created.
        polls: status reads of any batch.
    """

    def __init__(
        self,
        answer: Answer = lambda messages: "Yes",
        polls: int = 2,
        fail_keys: frozenset[str] = frozenset(),
        expire_after: int | None = None,
        ended: str = "expired",
        chat_logprobs: ChatLogprobs | None = None,
        hold: int = 0,
    ) -> None:
        self.answer, self.n_polls = answer, polls
        self.fail_keys, self.expire_after = fail_keys, expire_after
        self.ended = ended  # the status of a batch cut short: expired or cancelled
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.chat_logprobs = chat_logprobs
        self.hold = hold
        self.created = self.polls = 0
        self.open = self.open_peak = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeBatches:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _finish(self, batch: dict[str, Any]) -> None:
        lines = self.files[batch["input_file_id"]].decode().splitlines()
        out, err = [], []
        for i, line in enumerate(x for x in lines if x.strip()):
            req = json.loads(line)
            key = req["custom_id"]
            if self.expire_after is not None and i >= self.expire_after:
                continue
            if key in self.fail_keys:
                body = {"error": {"message": "server error", "type": "server_error"}}
                err.append({"custom_id": key, "response": {"status_code": 500, "body": body}})
                continue
            if req["body"].get("logprobs") and self.chat_logprobs is not None:
                positions = self.chat_logprobs(req["body"]["messages"])
                top = int(req["body"].get("top_logprobs") or 0)
                body = completion_with_logprobs(i, req["body"], positions, top)
                out.append({"custom_id": key, "response": {"status_code": 200, "body": body}})
                continue
            text = self.answer(req["body"]["messages"])
            body = {
                "id": f"chatcmpl-{i}",
                "object": "chat.completion",
                "model": req["body"]["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8},
            }
            out.append({"custom_id": key, "response": {"status_code": 200, "body": body}})
        for field, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                fid = f"file-out-{sum(f.startswith('file-out-') for f in self.files)}"
                self.files[fid] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[field] = fid
        batch["status"] = self.ended if self.expire_after is not None else "completed"
        self.open -= 1

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

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with fake._lock:
                    if self.path == "/v1/files":
                        head = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
                        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                            head + body
                        )
                        parts = {
                            p.get_param("name", header="content-disposition"): p
                            for p in msg.iter_parts()
                        }
                        if parts["purpose"].get_content().strip() != "batch":
                            return self._send(400, {"error": "purpose must be batch"})
                        fid = f"file-in-{sum(f.startswith('file-in-') for f in fake.files)}"
                        fake.files[fid] = parts["file"].get_payload(decode=True)
                        return self._send(200, {"id": fid, "object": "file"})
                    if self.path == "/v1/batches":
                        req = json.loads(body)
                        if req.get("input_file_id") not in fake.files:
                            return self._send(404, {"error": "no such file"})
                        fake.created += 1
                        fake.open += 1
                        fake.open_peak = max(fake.open_peak, fake.open)
                        bid = f"batch_{fake.created}"
                        fake.batches[bid] = {
                            "id": bid,
                            "object": "batch",
                            "status": "in_progress",
                            "endpoint": req["endpoint"],
                            "input_file_id": req["input_file_id"],
                            "metadata": req.get("metadata") or {},
                            "output_file_id": None,
                            "error_file_id": None,
                            "_polls": 0,
                        }
                        return self._send(200, _public(fake.batches[bid]))
                self._send(404, {"error": "not found"})

            def do_GET(self) -> None:
                with fake._lock:
                    path = self.path.split("?")[0]
                    if path == "/v1/batches":
                        data = [_public(b) for b in reversed(fake.batches.values())]
                        return self._send(200, {"object": "list", "data": data, "has_more": False})
                    if path.startswith("/v1/batches/"):
                        batch = fake.batches.get(path.rsplit("/", 1)[1])
                        if batch is None:
                            return self._send(404, {"error": "no such batch"})
                        fake.polls += 1
                        batch["_polls"] += 1
                        due = batch["_polls"] > fake.n_polls
                        held = fake.created < fake.hold and batch["_polls"] <= fake.n_polls + 200
                        if batch["status"] == "in_progress" and due and not held:
                            fake._finish(batch)
                        return self._send(200, _public(batch))
                    if path.startswith("/v1/files/") and path.endswith("/content"):
                        fid = path.split("/")[3]
                        if fid not in fake.files:
                            return self._send(404, {"error": "no such file"})
                        return self._send(200, None, raw=fake.files[fid])
                self._send(404, {"error": "not found"})

        return Handler


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}
