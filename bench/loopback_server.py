"""An OpenAI-compatible chat server on 127.0.0.1 for throughput benchmarks, on aiohttp.

``tests.support.fake_openai`` answers with a thread per connection: complete (faults,
log-probabilities, text completions) and right for tests, but at a thousand requests a
second its threads take most of a core, which a two-core machine then lacks for the
client being measured. A real model server runs on its own hardware. This one answers
``POST /v1/chat/completions`` after ``latency`` seconds with a one-word reply in the
same JSON as the test server (:func:`tests.support.fake_openai.completion`), on one
event loop, and ``GET /stats`` with the number of completions asked for.

    python bench/loopback_server.py 0.2     # prints its URL, serves until killed
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.fake_openai import completion  # noqa: E402


def main() -> None:
    from aiohttp import web

    latency = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    count = 0

    async def chat(request: web.Request) -> web.Response:
        nonlocal count
        body = json.loads(await request.read())
        count += 1
        n = count
        if latency:
            await asyncio.sleep(latency)
        reply = completion(n, str(body.get("model", "fake")), "Yes")
        return web.Response(body=json.dumps(reply).encode(), content_type="application/json")

    async def stats(request: web.Request) -> web.Response:
        return web.json_response({"requests": count})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/stats", stats)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]

    async def serve() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.SockSite(runner, sock, backlog=1024).start()
        print(f"http://127.0.0.1:{port}/v1", flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
