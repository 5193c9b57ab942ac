"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API.

Tests and benchmarks point litellm at it (``openai/<model>`` with ``api_base``), so
requests go through litellm, the OpenAI client and the network stack. Faults are queued
and consumed one per request: ``429`` (with Retry-After), ``500``, ``hang`` (no answer
for ``hang_s``), ``malformed`` (200 with a body that is not JSON) and ``truncated``
(a body shorter than its Content-Length).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(
        self,
        latency_s: float = 0.0,
        answer: Callable[[list[dict[str, str]]], str] | None = None,
        hang_s: float = 5.0,
    ) -> None:
        self.latency_s = latency_s
        self.hang_s = hang_s
        self.answer = answer or (lambda messages: f"echo: {messages[-1]['content'][:40]}")
        self.faults: deque[str] = deque()
        self.requests = 0
        self.auth_headers: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; with Nagle's algorithm and
            # delayed ACKs that costs ~40 ms per response on keep-alive connections.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                """``/stats``: how many completions were asked for (for out-of-process use)."""
                self._send(200, {"requests": server.requests})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests += 1
                    server.auth_headers.append(self.headers.get("Authorization", ""))
                    server.bodies.append(body)
                    fault = server.faults.popleft() if server.faults else None
                if server.latency_s:
                    time.sleep(server.latency_s)
                if fault == "429":
                    self._send(
                        429,
                        {"error": {"message": "rate limited", "type": "rate_limit"}},
                        {"Retry-After": "0"},
                    )
                elif fault == "500":
                    self._send(500, {"error": {"message": "boom", "type": "server_error"}})
                elif fault == "hang":
                    time.sleep(server.hang_s)
                    self._send(500, {"error": {"message": "too late"}})
                elif fault == "malformed":
                    self._raw(200, b"{not json at all", "application/json")
                elif fault == "truncated":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "500")
                    self.end_headers()
                    self.wfile.write(b'{"id": "x", "choices": [')
                    self.wfile.flush()
                    self.close_connection = True
                else:
                    text = server.answer(body.get("messages", []))
                    self._send(
                        200,
                        {
                            "id": f"chatcmpl-{server.requests}",
                            "object": "chat.completion",
                            "created": int(time.time()),
                            "model": body.get("model", "fake"),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {
                                "prompt_tokens": 10,
                                "completion_tokens": 3,
                                "total_tokens": 13,
                            },
                        },
                    )

            def _send(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                self._raw(status, json.dumps(obj).encode(), "application/json", headers)

            def _raw(
                self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                # The client may have given up (a timeout test): nothing to report then.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def queue(self, faults: Iterable[str]) -> None:
        with self._lock:
            self.faults.extend(faults)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def main() -> None:
    """Run standalone (for subprocess tests): prints the URL, serves until killed."""
    import sys

    latency = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    with FakeOpenAI(latency_s=latency) as server:
        print(server.url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
