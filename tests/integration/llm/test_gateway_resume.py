"""A run killed with SIGKILL resumes without repeating finished calls, from an intact ledger."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.types import LLMRequest
from prescient.plumbing.llm_cli import stats, verify
from tests.conftest import ROOT
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import llm_settings, model_spec

N = 60
CHILD = textwrap.dedent(
    """
    import sys
    from prescient.llm.gateway import Gateway
    from prescient.llm.types import LLMRequest
    from tests.support.llm import llm_settings, model_spec
    url, ledger, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    spec = model_spec("fake", "openai/fake-model", api_base=url, concurrency=4)
    gw = Gateway({"fake": spec}, ledger, stage="kill", settings=llm_settings(progress=False))
    gw.complete_many([LLMRequest("fake", [{"role": "user", "content": f"q{i}"}]) for i in range(n)])
    """
)


def batch() -> list[LLMRequest]:
    return [LLMRequest("fake", [{"role": "user", "content": f"q{i}"}]) for i in range(N)]


def test_sigkill_mid_batch_then_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = tmp_path / "kill.jsonl"
    env = dict(os.environ, OPENAI_API_KEY="unused", PYTHONPATH=str(ROOT))
    with FakeOpenAI(latency_s=0.1) as server:
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, server.url, str(ledger), str(N)], env=env, cwd=ROOT
        )
        deadline = time.time() + 60
        while time.time() < deadline and (
            not ledger.exists() or ledger.read_bytes().count(b"\n") < 12
        ):
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait() == -signal.SIGKILL
        finished = {e["key"] for e in read_entries(ledger)}
        assert 12 <= len(finished) < N, "the kill should land mid-batch"
        # The worst moment to die is mid-write: leave a torn line as such a kill would.
        with open(ledger, "ab") as fh:
            fh.write(b'{"key": "0123", "response": "half a li')
        asked_before = server.requests

        spec = model_spec("fake", "openai/fake-model", api_base=server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "unused")
        gw = Gateway({"fake": spec}, ledger, stage="kill", settings=llm_settings(progress=False))
        out = gw.complete_many(batch())
        assert all(r.ok for r in out)
        assert [r.text for r in out] == [f"echo: q{i}" for i in range(N)]
        assert {r.key for r in out if r.from_ledger} == finished
        assert server.requests - asked_before == N - len(finished)  # nothing finished is re-asked

        rerun = Gateway(
            {"fake": spec}, ledger, stage="kill", settings=llm_settings(progress=False)
        ).complete_many(batch())
        assert all(r.from_ledger for r in rerun) and server.requests - asked_before == N - len(
            finished
        )
    assert verify([str(ledger)]) == (N, [])  # the torn line was cut, nothing else damaged
    assert stats([str(ledger)])["fake"]["ok"] == N
