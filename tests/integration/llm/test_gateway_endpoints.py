"""A model served at several endpoints: two loopback OpenAI-compatible servers share the
requests, a failing or dead one's requests are retried on the other, the counts add up,
and the ledger key does not depend on which endpoint answered. Both transports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prescient.llm.endpoints import EndpointPool
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.registry import ModelConfigError, ModelSpec
from prescient.llm.types import LLMRequest
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import FakeClock, llm_settings, model_entry, model_spec


def gateway(api_base: Any, ledger: Path, transport: str, **llm: Any) -> Gateway:
    spec = model_spec(
        "replicated",
        "hosted_vllm/fake-model",
        api_base=api_base,
        params={"temperature": 0.0, "max_tokens": 16},
        concurrency=4,
        timeout_s=5.0,
    )
    settings = llm_settings(
        max_tries=4,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        progress=False,
        transport=transport,
        **llm,
    )
    return Gateway({"replicated": spec}, ledger, stage="test", settings=settings)


def reqs(n: int) -> list[LLMRequest]:
    return [
        LLMRequest("replicated", [{"role": "user", "content": f"question {i}"}], template="t")
        for i in range(n)
    ]


@pytest.mark.parametrize("transport", ["auto", "litellm"])
def test_two_replicas_share_the_requests_and_a_rerun_asks_neither(
    tmp_path: Path, transport: str
) -> None:
    with FakeOpenAI(latency_s=0.02) as a, FakeOpenAI(latency_s=0.02) as b:
        with gateway([a.url, b.url], tmp_path / "l.jsonl", transport) as gw:
            results = gw.complete_many(reqs(20))
        assert all(r.ok for r in results)
        assert [r.text for r in results] == [f"echo: question {i}" for i in range(20)]
        assert a.requests > 0 and b.requests > 0
        assert a.requests + b.requests == 20
        assert len(list(read_entries(tmp_path / "l.jsonl"))) == 20
        with gateway([b.url, a.url], tmp_path / "l.jsonl", transport) as gw:
            again = gw.complete_many(reqs(20))
        assert all(r.from_ledger for r in again) and a.requests + b.requests == 20


@pytest.mark.parametrize("transport", ["auto", "litellm"])
def test_a_failing_replica_s_requests_are_retried_on_the_other(
    tmp_path: Path, transport: str
) -> None:
    with FakeOpenAI() as a, FakeOpenAI() as b:
        a.fail_when = lambda body: "500"  # every request to a fails
        with gateway([a.url, b.url], tmp_path / "l.jsonl", transport) as gw:
            results = gw.complete_many(reqs(12))
            calls, retries = gw.stats.calls, gw.stats.retries
        assert all(r.ok for r in results)
        assert 1 <= a.requests <= 4  # at most the first requests in flight hit it
        assert b.requests == 12  # every request was answered by b
        assert calls == a.requests + b.requests and retries == a.requests
        entries = list(read_entries(tmp_path / "l.jsonl"))
        assert sum(e["tries"] for e in entries) == a.requests + b.requests
        assert all(e["error"] is None for e in entries)


@pytest.mark.parametrize("transport", ["auto", "litellm"])
def test_a_dead_replica_costs_one_retry_per_request_sent_to_it(
    tmp_path: Path, transport: str
) -> None:
    dead = FakeOpenAI()
    dead_url = dead.url
    dead.httpd.server_close()  # nothing listens there: connections are refused
    with FakeOpenAI() as live:
        with gateway([dead_url, live.url], tmp_path / "l.jsonl", transport) as gw:
            results = gw.complete_many(reqs(10))
            pool = gw.endpoints.pool(gw.spec("replicated"))
        assert all(r.ok for r in results) and live.requests == 10
        assert pool.sent == [pool.failed[0], 10] and 1 <= pool.failed[0] <= 4


def test_the_ledger_key_does_not_depend_on_the_endpoints(tmp_path: Path) -> None:
    with FakeOpenAI() as a, FakeOpenAI() as b:
        with gateway([a.url, b.url], tmp_path / "l.jsonl", "auto") as gw:
            gw.complete_many(reqs(4))
            spread_keys = [gw.key_for(r) for r in reqs(4)]
        # A single endpoint elsewhere serves the same model: every request is a hit.
        with gateway("http://127.0.0.1:9/v1", tmp_path / "l.jsonl", "auto") as gw:
            assert [gw.key_for(r) for r in reqs(4)] == spread_keys
            assert all(r.from_ledger for r in gw.complete_many(reqs(4)))
    text = (tmp_path / "l.jsonl").read_text()
    assert a.url not in text and b.url not in text


def test_an_endpoint_list_is_validated() -> None:
    entry = model_entry("m", "hosted_vllm/m")
    spec = ModelSpec.from_dict("m", {**entry, "api_base": ["http://a/v1", "http://b/v1"]})
    assert spec.endpoints == ("http://a/v1", "http://b/v1")
    assert ModelSpec.from_dict("m", {**entry, "api_base": ["http://a/v1"]}).api_base == (
        "http://a/v1"
    )
    assert ModelSpec.from_dict("m", {**entry, "api_base": None}).endpoints == (None,)
    with pytest.raises(ModelConfigError, match="at least one endpoint"):
        ModelSpec.from_dict("m", {**entry, "api_base": []})
    with pytest.raises(ModelConfigError, match="lists an endpoint twice"):
        ModelSpec.from_dict("m", {**entry, "api_base": ["http://a/v1", "http://a/v1"]})


def test_the_pool_picks_the_least_busy_in_turn_and_skips_one_cooling_down() -> None:
    clock = FakeClock()
    pool = EndpointPool(["a", "b", "c"], clock, cooldown_s=10.0)
    assert [pool.acquire() for _ in range(4)] == [0, 1, 2, 0]  # in turn while equal
    pool.release(1, failed=False)
    assert pool.acquire() == 1  # fewest in flight
    for i in (0, 0, 1, 2):
        pool.release(i, failed=False)
    assert pool.inflight == [0, 0, 0]
    i = pool.acquire()
    pool.release(i, failed=True)  # endpoint 2 (in turn) fails: passed over
    assert i == 2
    assert [pool.acquire() for _ in range(4)] == [0, 1, 0, 1]
    clock.now_s = 10.0
    assert pool.acquire() == 2  # cooled down, and the least busy
    for i in (0, 1, 0, 1, 2):
        pool.release(i, failed=True)
    assert pool.acquire() == 0  # all cooling down: the one that recovers first
