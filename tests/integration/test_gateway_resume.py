"""A run killed with SIGKILL resumes without repeating finished calls; the local model generates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from prescient.llm.cli import stats, verify
from prescient.llm.gateway import Gateway, GatewaySettings
from prescient.llm.ledger import read_entries
from prescient.llm.registry import ModelSpec
from prescient.llm.types import LLMRequest
from tests.conftest import ROOT
from tests.support.fake_openai import FakeOpenAI

N = 40
CHILD = textwrap.dedent(
    """
    import sys
    from prescient.llm.gateway import Gateway, GatewaySettings
    from prescient.llm.registry import ModelSpec
    from prescient.llm.types import LLMRequest
    url, ledger = sys.argv[1], sys.argv[2]
    spec = ModelSpec(name="fake", litellm_model="openai/fake-model", api_base=url, concurrency=2)
    gw = Gateway({"fake": spec}, ledger, stage="kill", settings=GatewaySettings(progress=False))
    gw.complete_many([LLMRequest("fake", [{"role": "user", "content": f"q{i}"}]) for i in range(N)])
    """
).replace("range(N)", f"range({N})")


def spec_for(url: str) -> ModelSpec:
    return ModelSpec(name="fake", litellm_model="openai/fake-model", api_base=url, concurrency=2)


def test_sigkill_mid_batch_then_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    ledger = tmp_path / "kill.jsonl"
    with FakeOpenAI(latency_s=0.1) as server:
        env = dict(os.environ, OPENAI_API_KEY="unused", PYTHONPATH=str(ROOT))
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, server.url, str(ledger)], env=env, cwd=ROOT
        )
        deadline = time.time() + 60
        while time.time() < deadline and (
            not ledger.exists() or len(ledger.read_bytes().splitlines()) < 8
        ):
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        done = len(list(read_entries(ledger)))
        assert 8 <= done < N, "the kill should land mid-batch"
        before = server.requests
        gw = Gateway(
            {"fake": spec_for(server.url)},
            ledger,
            stage="kill",
            settings=GatewaySettings(progress=False),
        )
        out = gw.complete_many(
            [LLMRequest("fake", [{"role": "user", "content": f"q{i}"}]) for i in range(N)]
        )
        assert all(r.ok for r in out)
        assert sum(r.from_ledger for r in out) == done
        assert server.requests - before == N - done  # nothing finished is asked again
    n, problems = verify([str(ledger)])
    assert n == N and problems == []
    assert stats([str(ledger)])["fake"]["ok"] == N


@pytest.mark.slow
def test_local_model_really_generates_and_is_deterministic(tmp_path: Path) -> None:
    spec = ModelSpec(
        name="smol",
        litellm_model="local/smollm2-135m",
        params={"temperature": 0.0, "max_tokens": 24},
        concurrency=2,
    )
    msgs = [{"role": "user", "content": "Name the capital city of France in one word."}]
    settings = GatewaySettings(progress=False)
    a = Gateway({"smol": spec}, tmp_path / "a.jsonl", stage="t", settings=settings).complete_many(
        [LLMRequest("smol", msgs), LLMRequest("smol", [{"role": "user", "content": "Say hello."}])]
    )
    b = Gateway({"smol": spec}, tmp_path / "b.jsonl", stage="t", settings=settings).complete_many(
        [LLMRequest("smol", msgs)]
    )
    assert a[0].ok and a[1].ok, (a[0].error, a[1].error)
    assert a[0].text and a[0].text == b[0].text and not b[0].from_ledger
    assert a[0].usage["completion_tokens"] > 0
    assert "paris" in (a[0].text or "").lower()
