"""Two processes on one ledger pay for each request once, and a killed one blocks nobody."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from prescient.llm.cache import window_size
from prescient.llm.ledger import read_entries
from prescient.plumbing.llm_cli import audit, verify
from tests.conftest import ROOT
from tests.support.fake_openai import FakeOpenAI

CHILD = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from prescient.llm.gateway import Gateway
    from prescient.llm.types import LLMRequest
    from tests.support.llm import llm_settings, model_spec
    url, ledger, n, go, concurrency = sys.argv[1:6]
    spec = model_spec("fake", "hosted_vllm/m", api_base=url, concurrency=int(concurrency))
    gw = Gateway({"fake": spec}, ledger, stage="shared", settings=llm_settings(progress=False))
    reqs = [LLMRequest("fake", [{"role": "user", "content": f"q{i}"}]) for i in range(int(n))]
    print("ready", flush=True)
    while not Path(go).exists():  # both processes start their batch together
        time.sleep(0.005)
    out = gw.complete_many(reqs)
    gw.close()
    print(json.dumps({
        "ok": sum(r.ok for r in out),
        "texts": [r.text for r in out],
        "hits": sum(r.from_ledger for r in out),
        "waited": gw.cache.waited,
    }), flush=True)
    """
)


def start(url: str, ledger: Path, n: int, go: Path, concurrency: int) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [url, str(ledger), str(n), str(go), str(concurrency)]
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, *args], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def finish(proc: subprocess.Popen[str]) -> dict[str, object]:
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def test_two_processes_pay_for_each_request_once(tmp_path: Path) -> None:
    n = 40
    ledger, go = tmp_path / "shared.jsonl", tmp_path / "go"
    with FakeOpenAI(latency_s=0.1) as server:
        a = start(server.url, ledger, n, go, 4)
        b = start(server.url, ledger, n, go, 4)
        go.touch()
        ra, rb = finish(a), finish(b)
        assert server.requests == n, "each request is paid for once"
    expected = [f"echo: q{i}" for i in range(n)]
    assert ra["texts"] == expected and rb["texts"] == expected
    # Each request was asked by one process and served to the other from the ledger.
    assert ra["hits"] + rb["hits"] == n  # type: ignore[operator]
    assert ra["waited"] + rb["waited"] >= 1  # type: ignore[operator]  # they did overlap
    entries = list(read_entries(ledger))
    assert len(entries) == n and len({e["key"] for e in entries}) == n
    assert verify([str(ledger)]) == (n, [])
    assert audit([str(ledger)]).unverifiable == 0  # every entry carries its answer's hash


def test_a_killed_process_leaves_no_claim_behind(tmp_path: Path) -> None:
    n = 30
    ledger, go = tmp_path / "shared.jsonl", tmp_path / "go"
    with FakeOpenAI(latency_s=0.3) as server:
        doomed = start(server.url, ledger, n, go, 3)
        survivor = start(server.url, ledger, n, go, 3)
        go.touch()
        deadline = time.time() + 60
        while time.time() < deadline and (
            not ledger.exists() or ledger.read_bytes().count(b"\n") < 6
        ):
            time.sleep(0.01)
        doomed.send_signal(signal.SIGKILL)  # mid-batch, holding claims on calls in flight
        assert doomed.wait() == -signal.SIGKILL
        result = finish(survivor)
        # Nothing waits forever; at most the keys the doomed process held a claim on are
        # asked twice, since their answers died with it: its calls in flight and the
        # answers still waiting for their ledger write (its claim window).
        assert result["ok"] == n
        assert n <= server.requests <= n + window_size(("fake", 3))
    assert result["texts"] == [f"echo: q{i}" for i in range(n)]
    assert len({e["key"] for e in read_entries(ledger)}) == n
