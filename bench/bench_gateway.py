"""Benchmark: gateway throughput against a loopback server, ledger replay, local model speed.

Each batch is 10 x concurrency requests (``--rounds``) to a server that answers after
200 ms, so the ideal rate is concurrency / 0.2 s. Beside every gateway batch, a bare
aiohttp client sends the same batch to the same server (a fresh session, as the gateway
opens one per batch): the rate it reaches is what this machine allows, and the gateway's
rate over it is the number that does not move with other work on the machine. Targets, at
concurrency 32, 128 and 256: at least 95% of the ideal rate, and of the bare client's;
a second run of the same batch is 100% ledger hits with zero requests reaching the
server. The table gives medians over ``--runs`` runs, and the CPU milliseconds per call
of the gateway's process and of the bare client (the server runs in its own process, so
it is not counted); then the embedded model's speed for a ~500-token prompt and a
100-token answer.

    .venv/bin/python bench/bench_gateway.py                 # everything
    .venv/bin/python bench/bench_gateway.py --skip-local --providers hosted_vllm
    .venv/bin/python bench/bench_gateway.py --skip-local --transport litellm   # litellm only
    .venv/bin/python bench/bench_gateway.py --skip-local --concurrency 1 8 32 --runs 1
    .venv/bin/python bench/bench_gateway.py --long 100000 --providers hosted_vllm

``--long N`` is the memory check instead: N requests sent through one gateway in
batches of ``--rounds`` x concurrency (the last of ``--concurrency``), the process's RSS
sampled after every batch. It reports the RSS at the start (after the first batch:
imports, connections and buffers are in place by then), the middle and the end, the
growth per request from the first batch on, and, beside it, the deep size of the
ledger's index per entry (where each answer's line is, kept in memory, so the index
grows by one key and one int per request and nothing else should grow). The rate and CPU per call over the
whole run come with it.

With ``--transport auto`` (the default, as in ``llm.transport``) these OpenAI-compatible
providers go through the direct client; ``litellm`` measures litellm's own path.

The server is ``bench/loopback_server.py`` (``--server aiohttp``, the default: one event
loop, so it leaves the client its share of a small machine, as a model server on its own
hardware does) or the test suite's ``tests.support.fake_openai`` (``--server threads``: a
thread per connection, which on two cores takes CPU the client then lacks). ``--pin``
gives the server the last CPU and the client the others. A batch's fixed work (planning
its keys, opening and closing its connections) weighs on a short batch: ``--rounds 40``
(10,240 requests at concurrency 256, about 8 s) is nearer an evaluate cell at the
paper's size (31,510 questions).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


SERVERS = {
    "threads": ["-m", "tests.support.fake_openai"],
    "aiohttp": [str(ROOT / "bench" / "loopback_server.py")],
}
"""The loopback servers: the test suite's (a thread per connection) and a lean one on
one event loop (``bench/loopback_server.py``)."""


class RemoteServer:
    """The fake server in its own process, so it does not share the gateway's GIL.

    Args:
        latency: seconds before each reply.
        kind: which server (:data:`SERVERS`).
        pin: give the server the last CPU and this process the others (Linux), so the
            client measured does not share its cores with the server, as it would not
            with a real model server on its own machine.
    """

    def __init__(self, latency: float, kind: str = "threads", pin: bool = False) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, *SERVERS[kind], str(latency)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        self.pinned = ""
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        if pin and len(cpus) > 1:
            os.sched_setaffinity(self.proc.pid, {cpus[-1]})
            os.sched_setaffinity(0, set(cpus[:-1]))
            self.pinned = f"server on CPU {cpus[-1]}, client on CPU {cpus[:-1]}"

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
ROUNDS = [10]


def gateway(spec: ModelSpec, ledger: Path) -> Gateway:
    settings = llm_settings(progress=False, transport=TRANSPORT[0])
    return Gateway({spec.name: spec}, ledger, stage="bench", settings=settings)


def throughput(
    server: RemoteServer, provider: str, concurrency: int, tmp: Path, run: int
) -> dict[str, float]:
    """One batch of ROUNDS x concurrency requests (at least 20), then the same batch again."""
    n = max(20, concurrency * ROUNDS[0])
    # gpt-4o-mini: a model litellm can price, so its cost path is the one an API run takes.
    model = "gpt-4o-mini" if provider == "openai" else "bench-model"
    spec = model_spec(
        "fake", f"{provider}/{model}", api_base=server.url, concurrency=concurrency, params={}
    )
    tag = f"{provider} c{concurrency} run {run}"
    reqs = [LLMRequest("fake", [{"role": "user", "content": f"{tag} q{i}"}]) for i in range(n)]
    ledger = tmp / f"{provider}-c{concurrency}-{run}.jsonl"
    gw = gateway(spec, ledger)
    before, scpu0 = server.requests, server.cpu_s()
    cpu0, t0 = time.process_time(), time.perf_counter()
    out = gw.complete_many(reqs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    gw.close()
    server_cpu = server.cpu_s() - scpu0
    assert all(r.ok for r in out), [r.error for r in out if not r.ok][:3]
    seen = server.requests - before
    assert seen == n, f"the server saw {seen} requests for a batch of {n}"
    before = server.requests
    t0 = time.perf_counter()
    again = gateway(spec, ledger).complete_many(reqs)
    replay = time.perf_counter() - t0
    hits = sum(r.from_ledger for r in again)
    reached = server.requests - before
    return {
        "rate": n / wall,
        "cpu_ms": 1000 * cpu / n,
        "server_cpu_ms": 1000 * server_cpu / n,
        "hits": hits / n,
        "reached": reached,
        "replay_s": replay,
    }


def bare(server: RemoteServer, concurrency: int) -> dict[str, float]:
    """The reference: a bare aiohttp client sending the same batch to the same server.

    As the gateway does for a batch, it opens a fresh session (no connection cap: the
    semaphore is the limit) and sends ROUNDS x concurrency requests, at most ``concurrency``
    at a time, posting the JSON body and parsing the JSON reply; nothing else. What it
    reaches is what this machine and server allow at that concurrency.
    """
    import asyncio

    import aiohttp

    n = max(20, concurrency * ROUNDS[0])
    url = server.url + "/chat/completions"
    headers = {"Content-Type": "application/json"}

    async def run() -> float:
        sem = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def one(i: int) -> None:
                async with sem:
                    body = {"model": "m", "messages": [{"role": "user", "content": f"bare {i}"}]}
                    async with session.post(url, data=json.dumps(body), headers=headers) as r:
                        json.loads(await r.read())

            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return time.perf_counter() - t0

    cpu0 = time.process_time()
    wall = asyncio.run(run())
    return {"rate": n / wall, "cpu_ms": 1000 * (time.process_time() - cpu0) / n}


def report(provider: str, rows: dict[int, list[tuple[dict[str, float], dict[str, float]]]]) -> None:
    """The table: medians over the runs of each concurrency (the run-by-run ratios too)."""
    print(
        f"\n{provider}: medians of {max(len(r) for r in rows.values())} runs; "
        "ideal = concurrency / latency; bare = bare aiohttp in the same run"
    )
    print(
        f"{'conc':>5} {'ideal/s':>8} {'gateway/s':>10} {'bare/s':>8} {'gw/ideal':>9} "
        f"{'bare/ideal':>10} {'gw/bare':>8} {'gw CPU ms':>10} {'bare CPU ms':>12} "
        f"{'rerun hits':>10} {'gw/bare by run':>16}"
    )
    for c, runs in rows.items():
        ideal = c / LATENCY
        gw = statistics.median(g["rate"] for g, _ in runs)
        ref = statistics.median(b["rate"] for _, b in runs)
        ratios = [g["rate"] / b["rate"] for g, b in runs]
        print(
            f"{c:>5} {ideal:>8.0f} {gw:>10.1f} {ref:>8.1f} {100 * gw / ideal:>8.1f}% "
            f"{100 * ref / ideal:>9.1f}% {100 * statistics.median(ratios):>7.1f}% "
            f"{statistics.median(g['cpu_ms'] for g, _ in runs):>10.3f} "
            f"{statistics.median(b['cpu_ms'] for _, b in runs):>12.3f} "
            f"{100 * min(g['hits'] for g, _ in runs):>9.0f}% "
            f"{' '.join(f'{100 * r:.0f}' for r in ratios):>16}"
        )
        assert all(g["hits"] == 1.0 and g["reached"] == 0 for g, _ in runs), "rerun missed"


def rss_bytes() -> int:
    """This process's resident set size (Linux /proc; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def deep_size(obj: object, seen: set[int] | None = None) -> int:
    """Bytes of ``obj`` and everything it holds (dicts, lists, tuples), each object once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, list | tuple):
        size += sum(deep_size(v, seen) for v in obj)
    return size


def long_run(server: RemoteServer, provider: str, total: int, concurrency: int, tmp: Path) -> None:
    """``total`` requests through one gateway in batches; RSS after every batch."""
    size = max(20, concurrency * ROUNDS[0])
    model = "gpt-4o-mini" if provider == "openai" else "bench-model"
    spec = model_spec(
        "fake", f"{provider}/{model}", api_base=server.url, concurrency=concurrency, params={}
    )
    gw = gateway(spec, tmp / f"{provider}-long.jsonl")
    samples: list[tuple[int, int]] = []  # (requests sent so far, RSS)
    sent, cpu0, t0 = 0, time.process_time(), time.perf_counter()
    while sent < total:
        n = min(size, total - sent)
        reqs = [
            LLMRequest("fake", [{"role": "user", "content": f"long {provider} q{sent + i}"}])
            for i in range(n)
        ]
        out = gw.complete_many(reqs)
        assert all(r.ok and not r.from_ledger for r in out), [r.error for r in out][:3]
        del reqs, out
        sent += n
        samples.append((sent, rss_bytes()))
        if len(samples) % 10 == 0:
            print(f"  {sent} requests: RSS {samples[-1][1] / 2**20:.1f} MiB", flush=True)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    index = getattr(gw.ledger, "_ok", {})
    index_bytes = deep_size(index)
    gw.close()
    (n0, start), (nm, middle), (n1, end) = samples[0], samples[len(samples) // 2], samples[-1]
    growth = (end - start) / max(1, n1 - n0)
    per_entry = index_bytes / max(1, len(index))
    mib = 2**20
    print(
        f"\n{provider} long run: {sent} requests in batches of {size} at concurrency "
        f"{concurrency}: {sent / wall:.1f} req/s, {1000 * cpu / sent:.3f} ms CPU/call\n"
        f"RSS after {n0} requests {start / mib:.1f} MiB, after {nm} {middle / mib:.1f} MiB, "
        f"after {n1} {end / mib:.1f} MiB: {growth:.0f} bytes per request\n"
        f"ledger index: {len(index)} entries, {index_bytes / mib:.1f} MiB deep, "
        f"{per_entry:.0f} bytes per entry; growth beyond it {growth - per_entry:.0f} bytes "
        "per request"
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
    ap.add_argument("--concurrency", nargs="+", type=int, default=[32, 128, 256])
    ap.add_argument(
        "--runs", type=int, default=3, help="runs of each concurrency (medians are reported)"
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=10,
        help="a batch is this many times the concurrency (requests each slot sends in turn)",
    )
    ap.add_argument(
        "--long",
        type=int,
        metavar="N",
        help="the memory check instead: N requests through one gateway (module doc)",
    )
    ap.add_argument(
        "--server",
        choices=sorted(SERVERS),
        default="aiohttp",
        help="the loopback server: a lean aiohttp one or the test suite's (threads)",
    )
    ap.add_argument(
        "--pin",
        action="store_true",
        help="the server on the last CPU, the client on the others (RemoteServer)",
    )
    ap.add_argument(
        "--transport",
        choices=["auto", "litellm"],
        default="auto",
        help="llm.transport: auto (direct client for these providers) or litellm",
    )
    args = ap.parse_args()
    TRANSPORT[0] = args.transport
    ROUNDS[0] = args.rounds
    os.environ.setdefault("OPENAI_API_KEY", "bench-unused")
    print(
        f"loopback server latency {1000 * LATENCY:.0f} ms; transport {args.transport}; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    with (
        tempfile.TemporaryDirectory() as d,
        RemoteServer(LATENCY, args.server, args.pin) as server,
    ):
        tmp = Path(d)
        print(f"server: {args.server}{'; ' + server.pinned if server.pinned else ''}")
        for provider in args.providers:
            # Warm up imports, clients and the server's threads outside the measurement.
            warm = model_spec(
                "fake", f"{provider}/warm", api_base=server.url, concurrency=8, params={}
            )
            gateway(warm, tmp / "warm.jsonl").complete_many(
                [
                    LLMRequest("fake", [{"role": "user", "content": f"warm {provider} {i}"}])
                    for i in range(16)
                ]
            )
            if args.long:
                long_run(server, provider, args.long, args.concurrency[-1], tmp)
                continue
            bare(server, max(args.concurrency))
            rows: dict[int, list[tuple[dict[str, float], dict[str, float]]]] = {}
            for run in range(1, args.runs + 1):
                for c in args.concurrency:
                    # Gateway and bare client back to back, in alternating order, so both
                    # see the same machine (other work on it moves both).
                    if run % 2:
                        g, b = throughput(server, provider, c, tmp, run), bare(server, c)
                    else:
                        b, g = bare(server, c), throughput(server, provider, c, tmp, run)
                    rows.setdefault(c, []).append((g, b))
                    print(
                        f"{provider} c{c} run {run}: gateway {g['rate']:6.1f} req/s "
                        f"({g['cpu_ms']:.3f} ms CPU/call, server {g['server_cpu_ms']:.2f}), "
                        f"bare {b['rate']:6.1f} req/s ({b['cpu_ms']:.3f} ms CPU/call); "
                        f"rerun {100 * g['hits']:.0f}% ledger hits, {g['reached']:.0f} "
                        f"requests reached the server, {g['replay_s']:.3f} s",
                        flush=True,
                    )
            report(provider, rows)
        if not args.skip_local and not args.long:
            local_speed(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
