"""The gateway through litellm and a real loopback HTTP server: ledger, retries, keys."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest

from prescient.llm.gateway import Gateway, GatewaySettings
from prescient.llm.ledger import Ledger, read_entries, request_key
from prescient.llm.providers import SCRIPTS, baseline_answer, offered_choices
from prescient.llm.registry import ModelConfigError, ModelSpec
from prescient.llm.types import LLMRequest
from tests.support.fake_openai import FakeOpenAI

SECRET = "sk-test-0123456789-very-secret"


def make_gateway(
    server: FakeOpenAI, ledger: Path, monkeypatch: pytest.MonkeyPatch, **kw: object
) -> Gateway:
    monkeypatch.setenv("PRESCIENT_TEST_KEY", SECRET)
    spec = ModelSpec(
        name="fake",
        litellm_model="openai/fake-model",
        api_base=server.url,
        api_key_env="PRESCIENT_TEST_KEY",
        params={"temperature": 0.0, "max_tokens": 16},
        concurrency=int(kw.pop("concurrency", 8)),  # type: ignore[call-overload]
        timeout_s=float(kw.pop("timeout_s", 5.0)),  # type: ignore[arg-type]
    )
    settings = GatewaySettings(
        max_tries=int(kw.pop("max_tries", 4)),
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        progress=False,
    )  # type: ignore[call-overload]
    return Gateway({"fake": spec}, ledger, stage="test", settings=settings)


def req(i: int, **params: object) -> LLMRequest:
    return LLMRequest(
        "fake",
        [{"role": "user", "content": f"question {i}"}],
        template="t",
        template_version="1",
        params=params,
    )


def test_identical_requests_hit_the_ledger_and_param_changes_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        first = gw.complete_many([req(i) for i in range(5)])
        assert [r.text for r in first] == [f"echo: question {i}" for i in range(5)]
        assert server.requests == 5
        again = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many(
            [req(i) for i in range(5)]
        )
        assert server.requests == 5 and all(r.from_ledger for r in again)
        assert [r.text for r in again] == [r.text for r in first]
        make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many(
            [req(0, temperature=0.7)]
        )
        assert server.requests == 6


def test_duplicates_in_one_batch_cost_one_call_and_results_keep_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(latency_s=0.05) as server:
        out = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many(
            [req(3), req(1), req(3), req(2)]
        )
        assert [r.text for r in out] == [
            "echo: question 3",
            "echo: question 1",
            "echo: question 3",
            "echo: question 2",
        ]
        assert server.requests == 3


@pytest.mark.parametrize("fault", ["429", "500", "malformed", "truncated"])
def test_transient_faults_are_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    with FakeOpenAI() as server:
        server.queue([fault, fault])
        (res,) = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many([req(1)])
        assert res.ok and res.text == "echo: question 1"
        assert server.requests == 3
        entries = list(read_entries(tmp_path / "l.jsonl"))
        assert len(entries) == 1 and entries[0]["tries"] == 3 and entries[0]["error"] is None


def test_persistent_failure_is_recorded_not_cached_and_retried_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        server.queue(["500"] * 3)
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch, max_tries=3)
        results = gw.complete_many([req(2)])
        assert not results[0].ok and results[0].text is None
        assert "InternalServerError" in (results[0].error or "") or "500" in (
            results[0].error or ""
        )
        entries = list(read_entries(tmp_path / "l.jsonl"))
        assert entries[-1]["error"] and entries[-1]["response"] is None
        rerun = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many([req(2)])
        assert rerun[0].ok and not rerun[0].from_ledger and server.requests == 4


def test_hanging_server_times_out_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(hang_s=3.0) as server:
        server.queue(["hang", "hang"])
        (res,) = make_gateway(
            server, tmp_path / "l.jsonl", monkeypatch, timeout_s=0.5, max_tries=2
        ).complete_many([req(1)])
        assert not res.ok and res.error


def test_keys_come_from_the_environment_and_never_reach_ledger_or_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI() as server:
        server.queue(["500"])
        make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many([req(1)])
        assert server.auth_headers[-1] == f"Bearer {SECRET}"
    assert SECRET not in (tmp_path / "l.jsonl").read_text()
    assert SECRET not in caplog.text


def test_missing_key_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI() as server:
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        monkeypatch.delenv("PRESCIENT_TEST_KEY")
        with pytest.raises(ModelConfigError, match="PRESCIENT_TEST_KEY"):
            gw.complete_many([req(1)])
        with pytest.raises(ModelConfigError, match="not in the registry"):
            gw.complete_many([LLMRequest("nope", [{"role": "user", "content": "x"}])])


def test_key_ignores_transport_fields_but_not_generation_params() -> None:
    msgs = [{"role": "user", "content": "hi"}]
    base = request_key("openai/x", msgs, {"temperature": 0})
    assert base == request_key("openai/x", msgs, {"temperature": 0, "timeout": 9, "api_key": "k"})
    assert base != request_key("openai/x", msgs, {"temperature": 0.1})
    assert base != request_key("openai/y", msgs, {"temperature": 0})


def test_ledger_skips_and_repairs_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    led.append({"key": "a", "response": "A", "error": None})
    with open(path, "ab") as fh:
        fh.write(b'{"key": "b", "resp')  # a writer killed mid-line
    led2 = Ledger(path)
    assert led2.get("a") is not None and led2.get("b") is None
    led2.append({"key": "c", "response": "C", "error": None})
    assert [e["key"] for e in read_entries(path)] == ["a", "c"]
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_concurrent_writers_do_not_corrupt_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    ledgers = [Ledger(path) for _ in range(4)]

    def write(n: int) -> None:
        for i in range(200):
            ledgers[n].append({"key": f"{n}-{i}", "response": "x" * (i * 37 % 5000), "error": None})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = [e["key"] for e in read_entries(path)]
    assert len(keys) == 800 and len(set(keys)) == 800


def test_baselines_read_the_offered_choices() -> None:
    mc = [{"role": "user", "content": "Which?\n(a) one\n(b) two\n(c) three\n(d) four\nAnswer:"}]
    tf = [{"role": "user", "content": "Will it happen by May 2024?"}]
    assert offered_choices(mc) == ["(a)", "(b)", "(c)", "(d)"]
    assert offered_choices(tf) == ["Yes", "No"]
    assert baseline_answer("always-yes", tf) == "Yes"
    assert baseline_answer("first-choice", mc) == "(a)"
    picks = {
        baseline_answer(
            "random", [{"role": "user", "content": f"Q{i}\n(a) x\n(b) y\n(c) z\n(d) w"}]
        )
        for i in range(60)
    }
    assert picks == {"(a)", "(b)", "(c)", "(d)"}
    assert baseline_answer("random", mc) == baseline_answer("random", mc)


def test_scripted_provider_goes_through_litellm(tmp_path: Path) -> None:
    SCRIPTS["upper"] = lambda messages, params: messages[-1]["content"].upper()
    spec = ModelSpec(name="s", litellm_model="scripted/upper", concurrency=4)
    gw = Gateway(
        {"s": spec}, tmp_path / "l.jsonl", stage="t", settings=GatewaySettings(progress=False)
    )
    out = gw.complete_many([LLMRequest("s", [{"role": "user", "content": "abc"}])])
    assert out[0].ok and out[0].text == "ABC"
