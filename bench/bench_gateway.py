"""Benchmark: gateway throughput against a loopback server, ledger replay, local model speed.

Targets: with 200 ms server latency, at concurrency 32, at least 90% of the ideal rate
(concurrency / latency); a second run of the same batch is 100% ledger hits with zero
requests reaching the server. Also reports CPU milliseconds per call in the
gateway's process (the server runs in its own process, so it is not counted), and the
embedded model's speed for a ~500-token prompt and a 100-token answer.

    .venv/bin/python bench/bench_gateway.py                 # everything
    .venv/bin/python bench/bench_gateway.py --skip-local --providers hosted_vllm
    .venv/bin/python bench/bench_gateway.py --skip-local --transport litellm   # litellm only

With ``--transport auto`` (the default, as in ``llm.transport``) these OpenAI-compatible
providers go through the direct client; ``litellm`` measures litellm's own path.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient.llm.gateway import Gateway  # noqa: E402
from prescient.llm.registry import ModelSpec  # noqa: E402
from prescient.llm.types import LLMRequest  # noqa: E402
from tests.support.llm import llm_settings, model_spec  # noqa: E402

LATENCY = 0.2


class RemoteServer:
    """The fake server in its own process, so it does not share the gateway's GIL."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fake_openai", str(latency)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    @property
    def requests(self) -> int:
        with urllib.request.urlopen(self.url.rsplit("/v1", 1)[0] + "/stats") as r:
            return int(json.load(r)["requests"])

    def cpu_s(self) -> float:
        """CPU seconds the server process has used (Linux /proc; 0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> RemoteServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


TRANSPORT = ["auto"]


def gateway(spec: ModelSpec, ledger: Path) -> Gateway:
    settings = llm_settings(progress=False, transport=TRANSPORT[0])
    return Gateway({spec.name: spec}, ledger, stage="bench", settings=settings)


def throughput(
    server: RemoteServer, provider: str, concurrency: int, tmp: Path
) -> dict[str, float]:
    """One batch of 10 x concurrency requests (at least 20), then the same batch again."""
    n = max(20, concurrency * 10)
    # gpt-4o-mini: a model litellm can price, so its cost path is the one an API run takes.
    model = "gpt-4o-mini" if provider == "openai" else "bench-model"
    spec = model_spec(
        "fake", f"{provider}/{model}", api_base=server.url, concurrency=concurrency, params={}
    )
    tag = f"{provider} c{concurrency}"
    reqs = [LLMRequest("fake", [{"role": "user", "content": f"{tag} q{i}"}]) for i in range(n)]
    ledger = tmp / f"{provider}-c{concurrency}.jsonl"
    gw = gateway(spec, ledger)
    before, scpu0 = server.requests, server.cpu_s()
    cpu0, t0 = time.process_time(), time.perf_counter()
    out = gw.complete_many(reqs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    server_cpu = server.cpu_s() - scpu0
    assert all(r.ok for r in out), [r.error for r in out if not r.ok][:3]
    seen = server.requests - before
    ideal = concurrency / LATENCY
    rate = n / wall
    print(
        f"{tag:>16}: {n:>4} requests in {wall:6.2f} s = {rate:6.1f} req/s, ideal {ideal:6.1f}"
        f" -> {100 * rate / ideal:5.1f}% ; CPU {1000 * cpu / n:5.2f} ms/call ; server saw {seen}"
        f" (server CPU {1000 * server_cpu / n:4.1f} ms/request)"
    )
    before = server.requests
    t0 = time.perf_counter()
    again = gateway(spec, ledger).complete_many(reqs)
    replay = time.perf_counter() - t0
    hits = sum(r.from_ledger for r in again)
    reached = server.requests - before
    print(
        f"{'rerun':>16}: {hits}/{n} ledger hits ({100 * hits / n:.0f}%), "
        f"{reached} requests reached the server, {replay:.3f} s"
    )
    return {
        "rate": rate,
        "ideal": ideal,
        "cpu_ms": 1000 * cpu / n,
        "hits": hits,
        "reached": reached,
    }


def reference(server: RemoteServer, concurrency: int, cpu_ms: float) -> None:
    """A bare aiohttp client burning ``cpu_ms`` of CPU per call, as the gateway measured.

    If this client gets the same share of ideal as the gateway, the gap to ideal is the
    per-call CPU cost (litellm's, in practice), not the gateway's scheduling.
    """
    import asyncio

    import aiohttp

    def burn(seconds: float) -> None:
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    async def run(n: int) -> float:
        sem = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

            async def one(i: int) -> None:
                async with sem:
                    burn(cpu_ms / 1000 * 0.45)  # request preparation
                    body = {"model": "m", "messages": [{"role": "user", "content": f"r{i}"}]}
                    async with session.post(server.url + "/chat/completions", json=body) as r:
                        await r.json()
                    burn(cpu_ms / 1000 * 0.55)  # response handling

            await asyncio.gather(*(one(i) for i in range(concurrency)))  # warm the pool
            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return n / (time.perf_counter() - t0)

    n = concurrency * 10
    ideal = concurrency / LATENCY
    rate = asyncio.run(run(n))
    print(
        f"{'reference c' + str(concurrency):>16}: bare aiohttp with {cpu_ms:4.2f} ms CPU/call: "
        f"{rate:6.1f} req/s -> {100 * rate / ideal:5.1f}% of ideal"
    )


def local_speed(tmp: Path) -> None:
    """Prompt processing and generation speed of the embedded model (prefix cache defeated)."""
    spec = model_spec(
        "smol", "local/smollm2-135m", params={"temperature": 0.0, "max_tokens": 100}, concurrency=1
    )
    para = (
        "The harbour authority met on Tuesday to discuss the breakwater, the ferry timetable "
        "and the budget for the coming year, and members asked many questions about costs "
        "and delays. "
    )

    def prompt(tag: str) -> str:
        return f"Report {tag}. " + para * 14 + "\nWrite a long, detailed summary of the meeting."

    gw = gateway(spec, tmp / "local.jsonl")
    t0 = time.perf_counter()
    gw.complete_many(
        [LLMRequest("smol", [{"role": "user", "content": "Hi"}], params={"max_tokens": 2})]
    )
    print(f"local smollm2-135m: load + first call {time.perf_counter() - t0:.2f} s")

    t0 = time.perf_counter()
    (pre,) = gw.complete_many(
        [LLMRequest("smol", [{"role": "user", "content": prompt("A")}], params={"max_tokens": 1})]
    )
    t_prompt = time.perf_counter() - t0
    t0 = time.perf_counter()
    (res,) = gw.complete_many([LLMRequest("smol", [{"role": "user", "content": prompt("B")}])])
    wall = time.perf_counter() - t0
    p, c = res.usage.get("prompt_tokens", 0), res.usage.get("completion_tokens", 0)
    gen_s = max(1e-9, wall - t_prompt)
    print(
        f"local smollm2-135m: prompt {p} tokens + answer {c} tokens in {wall:.2f} s "
        f"({(p + c) / wall:.0f} tokens/s overall); prompt processing "
        f"{pre.usage.get('prompt_tokens', 0) / t_prompt:.0f} tokens/s, generation "
        f"~{c / gen_s:.0f} tokens/s; threads {os.environ.get('PRESCIENT_LLAMA_THREADS', 'default')}"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-local", action="store_true")
    ap.add_argument("--providers", nargs="+", default=["hosted_vllm", "openai"])
    ap.add_argument("--concurrency", nargs="+", type=int, default=[1, 8, 32, 64])
    ap.add_argument(
        "--no-reference",
        dest="reference",
        action="store_false",
        help="skip the bare-aiohttp reference runs at concurrency 32",
    )
    ap.add_argument(
        "--transport",
        choices=["auto", "litellm"],
        default="auto",
        help="llm.transport: auto (direct client for these providers) or litellm",
    )
    args = ap.parse_args()
    TRANSPORT[0] = args.transport
    os.environ.setdefault("OPENAI_API_KEY", "bench-unused")
    print(
        f"loopback server latency {1000 * LATENCY:.0f} ms; transport {args.transport}; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory() as d, RemoteServer(LATENCY) as server:
        tmp = Path(d)
        for provider in args.providers:
            # Warm up imports, clients and connection pools outside the measurement.
            warm = model_spec(
                "fake", f"{provider}/warm", api_base=server.url, concurrency=8, params={}
            )
            gateway(warm, tmp / "warm.jsonl").complete_many(
                [
                    LLMRequest("fake", [{"role": "user", "content": f"warm {provider} {i}"}])
                    for i in range(16)
                ]
            )
            for c in args.concurrency:
                figures = throughput(server, provider, c, tmp)
                if c == 32 and args.reference:
                    reference(server, c, 0.0)
                    reference(server, c, figures["cpu_ms"])
        if not args.skip_local:
            local_speed(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
