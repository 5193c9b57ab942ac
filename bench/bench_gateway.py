"""Benchmark: gateway throughput against a loopback server, ledger replay, local model speed.

Targets (issue 4): at concurrency 32 with 200 ms server latency, at least 90% of the
ideal rate (concurrency / latency); a second run of the same batch is 100% ledger hits
with zero requests reaching the server. Also reports CPU milliseconds per call and the
embedded model's tokens/s for a ~500-token prompt and a 100-token answer.

    .venv/bin/python bench/bench_gateway.py [--skip-local]
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

from prescient.llm.gateway import Gateway, GatewaySettings  # noqa: E402
from prescient.llm.registry import ModelSpec  # noqa: E402
from prescient.llm.types import LLMRequest  # noqa: E402


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

    def __enter__(self) -> RemoteServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


LATENCY = 0.2


def throughput(server: RemoteServer, concurrency: int, tmp: Path) -> None:
    n = max(20, concurrency * 10)
    spec = ModelSpec(
        name="fake", litellm_model="openai/fake-model", api_base=server.url, concurrency=concurrency
    )
    reqs = [
        LLMRequest("fake", [{"role": "user", "content": f"c{concurrency} q{i}"}]) for i in range(n)
    ]
    ledger = tmp / f"c{concurrency}.jsonl"
    gw = Gateway({"fake": spec}, ledger, stage="bench", settings=GatewaySettings(progress=False))
    before, cpu0, t0 = server.requests, time.process_time(), time.perf_counter()
    out = gw.complete_many(reqs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    assert all(r.ok for r in out), [r.error for r in out if not r.ok][:3]
    ideal = concurrency / LATENCY
    rate = n / wall
    print(
        f"concurrency {concurrency:>2}: {n:>4} requests in {wall:6.2f} s = {rate:6.1f} req/s, "
        f"ideal {ideal:6.1f} -> {100 * rate / ideal:5.1f}% ; CPU {1000 * cpu / n:5.2f} ms/call ; "
        f"server saw {server.requests - before}"
    )
    before = server.requests
    gw2 = Gateway({"fake": spec}, ledger, stage="bench", settings=GatewaySettings(progress=False))
    t0 = time.perf_counter()
    again = gw2.complete_many(reqs)
    hits = sum(r.from_ledger for r in again)
    print(
        f"    rerun: {hits}/{n} ledger hits ({100 * hits / n:.0f}%), "
        f"{server.requests - before} requests reached the server, {time.perf_counter() - t0:.2f} s"
    )


def local_speed(tmp: Path) -> None:
    spec = ModelSpec(
        name="smol",
        litellm_model="local/smollm2-135m",
        params={"temperature": 0.0, "max_tokens": 100, "min_tokens": None},
    )
    para = (
        "The harbour authority met on Tuesday to discuss the breakwater, the ferry timetable and the budget "
        "for the coming year, and members asked many questions about costs and delays. "
    )
    prompt = para * 16 + "\nWrite a long, detailed summary of the meeting described above."
    gw = Gateway(
        {"smol": spec}, tmp / "local.jsonl", stage="bench", settings=GatewaySettings(progress=False)
    )
    gw.complete_many(
        [LLMRequest("smol", [{"role": "user", "content": "warm up"}], params={"max_tokens": 4})]
    )
    t0 = time.perf_counter()
    (res,) = gw.complete_many([LLMRequest("smol", [{"role": "user", "content": prompt}])])
    wall = time.perf_counter() - t0
    u = res.usage
    print(
        f"local smollm2-135m: prompt {u.get('prompt_tokens')} tokens, answer {u.get('completion_tokens')} tokens "
        f"in {wall:.2f} s -> {u.get('completion_tokens', 0) / wall:.1f} answer tokens/s "
        f"({u.get('total_tokens', 0) / wall:.0f} total tokens/s)"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-local", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "bench-unused")
    with tempfile.TemporaryDirectory() as d, RemoteServer(LATENCY) as server:
        tmp = Path(d)
        for c in (1, 8, 32, 64):
            throughput(server, c, tmp)
        if not args.skip_local:
            local_speed(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
