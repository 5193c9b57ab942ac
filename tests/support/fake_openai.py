"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API.

Tests and benchmarks point litellm at it (``openai/<model>`` or ``hosted_vllm/<model>``
with ``api_base=server.url``), so requests go through litellm, its HTTP client and the
network stack. Use it from any test::

    from tests.support.fake_openai import FakeOpenAI

    with FakeOpenAI(latency_s=0.05, answer=lambda messages: "Yes") as server:
        spec = model_spec("m", "openai/m", api_base=server.url)  # tests/support/llm.py
        ...
        assert server.requests == 3

Faults are queued and consumed one per request, in arrival order:

- ``"429"``: rate limited, with a ``Retry-After: <retry_after>`` header;
- ``"500"``: a server error;
- ``"400"``: a bad request (a client error, which must not be retried);
- ``"hang"``: no answer for ``hang_s`` seconds (then a 500), to trigger client timeouts;
- ``"malformed"``: status 200 with a body that is not JSON;
- ``"truncated"``: status 200 whose body is shorter than its Content-Length.

``fail_when`` (a function of the request's JSON body returning a fault or None) injects
faults by content instead, for every attempt: a server that keeps failing some requests
until the test sets it back to None.
``POST /v1/completions`` (the legacy text-completion endpoint) answers like vLLM with
``echo: true, logprobs: n, max_tokens: 1``: the prompt's tokens from ``tokenize(prompt)``
(``(token text, ln p)`` pairs, special tokens such as a BOS included), the first one's
log-probability null, then one generated token (``echo_generated=False`` leaves it out,
as llama-cpp-python's misaligned echo does). Without ``tokenize`` the endpoint answers
404, as a chat-only server does.

A chat completion asked with ``logprobs: true`` carries ``choices[0].logprobs.content``
from ``chat_logprobs(messages)``: per generated position ``(token, ln p, [(top token,
ln p), ...])``, the top list cut to the request's ``top_logprobs``; the answer's text is
then the positions' tokens joined. Without ``chat_logprobs`` the reply's ``logprobs`` is
null, as from a server that does not report them.

``python -m tests.support.fake_openai [latency_s]`` runs one standalone (it prints its
URL; ``GET /stats`` returns the request count), so a benchmark can keep it out of the
measured process.
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

Answer = Callable[[list[dict[str, Any]]], str]
FailWhen = Callable[[dict[str, Any]], str | None]
Tokenize = Callable[[str], list[tuple[str, float]]]
Position = tuple[str, float, list[tuple[str, float]]]
ChatLogprobs = Callable[[list[dict[str, Any]]], list[Position]]
Usage = Callable[[dict[str, Any], str], tuple[int, int]]
"""How a server counts a chat request's (prompt, completion) tokens from its body and
its reply (default: 10 and 3)."""


def echo(messages: list[dict[str, Any]]) -> str:
    """The default answer: the first 40 characters of the last message, prefixed."""
    return f"echo: {str(messages[-1]['content'])[:40]}" if messages else "echo:"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The default backlog of 5 drops connections when 64 clients connect at once, and a
    # dropped SYN costs the client a one-second retransmit: not what a benchmark measures.
    request_queue_size = 512


class FakeOpenAI:
    """The server; a context manager that starts and stops it.

    Args:
        latency_s: time each request takes before it is answered.
        answer: response text for the request's messages (default: :func:`echo`).
        hang_s: how long a ``"hang"`` fault keeps the client waiting.
        retry_after: the ``Retry-After`` header value a ``"429"`` fault sends.
        tokenize: serves ``/v1/completions`` with echoed log-probabilities (see above).
        chat_logprobs: the generated tokens' log-probabilities of chat completions asked
            with ``logprobs`` (see above).

    Attributes:
        requests: POSTs received (every attempt, faults included).
        max_inflight: the most requests it was handling at once (a request is handled
            until its reply starts going out).
        auth_headers: the ``Authorization`` header of every request.
        bodies: the JSON body of every request.
        timings: ``(received, answered)`` wall-clock times of every request.
    """

    def __init__(
        self,
        latency_s: float = 0.0,
        answer: Answer | None = None,
        hang_s: float = 5.0,
        retry_after: str = "0",
        tokenize: Tokenize | None = None,
        echo_generated: bool = True,
        chat_logprobs: ChatLogprobs | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.usage = usage
        self.chat_logprobs = chat_logprobs
        self.tokenize = tokenize
        self.echo_generated = echo_generated
        self.hang_s = hang_s
        self.retry_after = retry_after
        self.answer: Answer = answer or echo
        self.fail_when: FailWhen | None = None
        self.faults: deque[str] = deque()
        self.requests = 0
        self.inflight = 0
        self.max_inflight = 0
        self.auth_headers: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.timings: list[tuple[float, float]] = []  # (received, answered), time.time()
        self._lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
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
                stats = {
                    "requests": server.requests,
                    "max_inflight": server.max_inflight,
                    "timings": server.timings if self.path.endswith("timings") else None,
                }
                self._send(200, stats)

            def do_POST(self) -> None:
                received = time.time()
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests += 1
                    n = server.requests
                    server.inflight += 1
                    server.max_inflight = max(server.max_inflight, server.inflight)
                    server.auth_headers.append(self.headers.get("Authorization", ""))
                    server.bodies.append(body)
                    fault = server.faults.popleft() if server.faults else None
                    if fault is None and server.fail_when is not None:
                        fault = server.fail_when(body)
                self._handling = True
                try:
                    if server.latency_s:
                        time.sleep(server.latency_s)
                    self._respond(fault, body, n)
                finally:
                    self._answered()
                    with server._lock:
                        server.timings.append((received, time.time()))

            def _answered(self) -> None:
                """The request stops counting as in flight once its reply starts going
                out: the client may read it and send the next request before this
                thread returns, and that is not two requests at once."""
                if getattr(self, "_handling", False):
                    self._handling = False
                    with server._lock:
                        server.inflight -= 1

            def _respond(self, fault: str | None, body: dict[str, Any], n: int) -> None:
                if fault == "429":
                    self._send(
                        429,
                        {"error": {"message": "rate limited", "type": "rate_limit_error"}},
                        {"Retry-After": server.retry_after},
                    )
                elif fault == "500":
                    self._send(500, {"error": {"message": "boom", "type": "server_error"}})
                elif fault == "400":
                    msg = {"message": "bad request", "type": "invalid_request_error"}
                    self._send(400, {"error": msg})
                elif fault == "hang":
                    time.sleep(server.hang_s)
                    self._send(500, {"error": {"message": "too late"}})
                elif fault == "malformed":
                    self._raw(200, b"{not json at all", "application/json")
                elif fault == "truncated":
                    self._answered()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "500")
                    self.end_headers()
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                        self.wfile.write(b'{"id": "x", "choices": [')
                        self.wfile.flush()
                    self.close_connection = True
                elif fault is not None:
                    raise ValueError(f"unknown fault {fault!r}")
                elif self.path.rstrip("/").endswith("/v1/completions"):
                    if server.tokenize is None:
                        self._send(404, {"error": {"message": "no such endpoint"}})
                    else:
                        self._send(
                            200,
                            text_completion(n, body, server.tokenize, server.echo_generated),
                        )
                else:
                    messages = body.get("messages", [])
                    if body.get("logprobs") and server.chat_logprobs is not None:
                        positions = server.chat_logprobs(messages)
                        top = int(body.get("top_logprobs") or 0)
                        self._send(200, completion_with_logprobs(n, body, positions, top))
                    else:
                        text = server.answer(messages)
                        counts = (10, 3) if server.usage is None else server.usage(body, text)
                        self._send(200, completion(n, body.get("model", "fake"), text, counts))

            def _send(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                self._raw(status, json.dumps(obj).encode(), "application/json", headers)

            def _raw(
                self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None
            ) -> None:
                self._answered()
                # The client may have given up (a timeout test): nothing to report then.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)

        return Handler

    @property
    def url(self) -> str:
        """The ``api_base`` to give litellm (``http://127.0.0.1:<port>/v1``)."""
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def queue(self, faults: Iterable[str]) -> None:
        """Inject faults for the next requests, one each, in order."""
        with self._lock:
            self.faults.extend(faults)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(n: int, model: str, text: str, counts: tuple[int, int] = (10, 3)) -> dict[str, Any]:
    """An OpenAI chat.completion object answering ``text``, billed ``counts`` (prompt,
    completion) tokens."""
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": counts[0],
            "completion_tokens": counts[1],
            "total_tokens": counts[0] + counts[1],
        },
    }


def completion_with_logprobs(
    n: int, body: dict[str, Any], positions: list[Position], top: int
) -> dict[str, Any]:
    """A chat.completion whose text is the positions' tokens, with OpenAI's
    ``logprobs.content`` (each position's top list cut to ``top``)."""
    out = completion(n, body.get("model", "fake"), "".join(t for t, _, _ in positions))
    out["choices"][0]["logprobs"] = {
        "content": [
            {
                "token": token,
                "logprob": lp,
                "bytes": list(token.encode("utf-8")),
                "top_logprobs": [
                    {"token": t, "logprob": v, "bytes": list(t.encode("utf-8"))}
                    for t, v in alternatives[:top]
                ],
            }
            for token, lp, alternatives in positions
        ],
        "refusal": None,
    }
    return out


def text_completion(
    n: int, body: dict[str, Any], tokenize: Tokenize, generated: bool = True
) -> dict[str, Any]:
    """An OpenAI text_completion object echoing the prompt with its log-probabilities
    (without the generated token when ``generated`` is False)."""
    prompt = str(body.get("prompt", ""))
    pairs = [*tokenize(prompt), (" the", -1.5)] if body.get("echo") else [(" the", -1.5)]
    n_prompt = len(pairs) - 1 if body.get("echo") else 0
    if body.get("echo") and not generated:
        pairs = pairs[:-1]
    tokens = [t for t, _ in pairs]
    logprobs: list[float | None] = [lp for _, lp in pairs]
    if body.get("echo") and logprobs:
        logprobs[0] = None
    offsets, at = [], 0
    for t in tokens:
        offsets.append(at)
        at += len(t)
    return {
        "id": f"cmpl-{n}",
        "object": "text_completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "text": "".join(tokens),
                "logprobs": {
                    "tokens": tokens,
                    "token_logprobs": logprobs,
                    "text_offset": offsets,
                    "top_logprobs": [
                        None if lp is None else {t: lp}
                        for t, lp in zip(tokens, logprobs, strict=True)
                    ],
                }
                if body.get("logprobs") is not None
                else None,
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": n_prompt, "completion_tokens": 1, "total_tokens": n_prompt + 1},
    }


def main() -> None:
    """Run standalone (for subprocess tests and benchmarks): prints the URL, serves until killed."""
    import sys

    latency = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    with FakeOpenAI(latency_s=latency) as server:
        print(server.url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
