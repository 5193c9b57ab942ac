"""The gateway through a real loopback HTTP server, on both transports: ledger, faults,
limits, keys. Waits are asserted on a fake clock and on request counts, never on how
long a run took."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.registry import ModelConfigError, ModelRegistry
from prescient.llm.types import LLMRequest
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import FakeClock, llm_settings, model_spec

SECRET = "sk-test-0123456789-very-secret"


def make_gateway(
    server: FakeOpenAI,
    ledger: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    concurrency: int = 8,
    timeout_s: float = 5.0,
    max_tries: int = 4,
    rpm: float | None = None,
    provider: str = "openai",
    clock: FakeClock | None = None,
    progress: bool = False,
) -> Gateway:
    monkeypatch.setenv("PRESCIENT_TEST_KEY", SECRET)
    spec = model_spec(
        "fake",
        f"{provider}/fake-model",
        api_base=server.url,
        api_key_env="PRESCIENT_TEST_KEY",
        params={"temperature": 0.0, "max_tokens": 16},
        concurrency=concurrency,
        timeout_s=timeout_s,
        rpm=rpm,
    )
    settings = llm_settings(
        max_tries=max_tries,
        backoff_base_s=0.01,
        backoff_max_s=2.0,
        progress=progress,
        transport=TRANSPORT[0],
    )
    return Gateway({"fake": spec}, ledger, stage="test", settings=settings, clock=clock)


TRANSPORT = ["auto"]


@pytest.fixture(autouse=True, params=["auto", "litellm"])
def transport(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test runs on both transports: the direct client (``auto`` for these
    OpenAI-compatible providers) and litellm; behaviour must not differ."""
    TRANSPORT[0] = request.param
    yield request.param
    TRANSPORT[0] = "auto"


def req(i: int, **params: Any) -> LLMRequest:
    return LLMRequest(
        "fake",
        [{"role": "user", "content": f"question {i}"}],
        template="t",
        template_version="1",
        params=params,
        tags={"question_id": i},
    )


@pytest.mark.parametrize("provider", ["openai", "hosted_vllm"])
def test_rerun_makes_zero_requests_and_any_param_change_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeOpenAI() as server:
        first = make_gateway(server, ledger, monkeypatch, provider=provider).complete_many(
            [req(i) for i in range(6)]
        )
        assert [r.text for r in first] == [f"echo: question {i}" for i in range(6)]
        assert server.requests == 6 and not any(r.from_ledger for r in first)
        assert [r.usage for r in first] == [
            {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
        ] * 6
        assert server.bodies[0]["max_tokens"] == 16 and server.bodies[0]["temperature"] == 0

        again = make_gateway(server, ledger, monkeypatch, provider=provider).complete_many(
            [req(i) for i in range(6)]
        )
        assert server.requests == 6, "a rerun must not reach the server"
        assert all(r.from_ledger for r in again)
        assert [(r.text, r.key, r.usage) for r in again] == [
            (r.text, r.key, r.usage) for r in first
        ]

        changed = make_gateway(server, ledger, monkeypatch, provider=provider).complete_many(
            [req(0, temperature=0.7), req(1, max_tokens=17), req(2, seed=3)]
        )
        assert server.requests == 9 and not any(r.from_ledger for r in changed)
    entries = list(read_entries(ledger))
    assert len(entries) == 9
    e = entries[0]
    assert e["model"] == "fake" and e["litellm_model"] == f"{provider}/fake-model"
    assert e["template"] == "t" and e["template_version"] == "1"
    assert e["tags"] == {"question_id": e["tags"]["question_id"]}
    assert e["params"] == {"temperature": 0.0, "max_tokens": 16}
    assert e["finish_reason"] == "stop" and e["error"] is None and e["tries"] == 1
    assert e["latency_s"] >= 0 and e["timestamp"].endswith("+00:00")


def test_results_keep_order_and_duplicates_cost_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(latency_s=0.02) as server:
        order = [3, 1, 3, 2, 0, 1]
        out = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many(
            [req(i) for i in order]
        )
        assert [r.text for r in out] == [f"echo: question {i}" for i in order]
        assert [r.request.tags["question_id"] for r in out] == order
        assert server.requests == 4


@pytest.mark.parametrize("fault", ["429", "500", "malformed", "truncated"])
def test_transient_faults_are_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    with FakeOpenAI() as server:
        server.queue([fault, fault])
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        (res,) = gw.complete_many([req(1)])
        assert res.ok and res.text == "echo: question 1"
        assert server.requests == 3 and gw.stats.retries == 2
        entries = list(read_entries(tmp_path / "l.jsonl"))
        assert len(entries) == 1 and entries[0]["tries"] == 3 and entries[0]["error"] is None


def test_retry_after_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    with FakeOpenAI(retry_after="0.8") as server:
        server.queue(["429", "500"])
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch, clock=clock)
        (res,) = gw.complete_many([req(1)])
        assert res.ok and server.requests == 3
    # The server asked for 0.8 s after the 429; after the 500 (no header) the gateway's
    # own second backoff is 0.02 s nominal, jittered by 0.5-1.5.
    assert clock.sleeps[0] == 0.8 and 0.01 <= clock.sleeps[1] <= 0.03
    assert len(clock.sleeps) == 2


def test_client_errors_are_not_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI() as server:
        server.queue(["400"])
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        (res,) = gw.complete_many([req(1)])
        assert not res.ok and res.error and res.error.startswith("BadRequestError")
        assert server.requests == 1 and gw.stats.calls == 1


def test_persistent_failure_is_recorded_not_cached_and_retried_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        server.queue(["500"] * 3)
        # One at a time, so the first request meets all three faults.
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch, max_tries=3, concurrency=1)
        ok_and_failed = gw.complete_many([req(2), req(3)])
        failed = next(r for r in ok_and_failed if not r.ok)
        assert failed.text is None and failed.error and "InternalServerError" in failed.error
        assert sum(r.ok for r in ok_and_failed) == 1 and gw.stats.failures == 1
        entries = list(read_entries(tmp_path / "l.jsonl"))
        bad = [e for e in entries if e["error"]]
        assert len(bad) == 1 and bad[0]["response"] is None and bad[0]["tries"] == 3
        before = server.requests
        rerun = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many(
            [req(2), req(3)]
        )
        assert all(r.ok for r in rerun)
        assert server.requests - before == 1  # only the failed one is asked again
        assert [r.from_ledger for r in rerun] == [r.ok for r in ok_and_failed]


def test_hanging_server_times_out_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(hang_s=3.0) as server:
        server.queue(["hang", "hang"])
        (res,) = make_gateway(
            server, tmp_path / "l.jsonl", monkeypatch, timeout_s=0.4, max_tries=2
        ).complete_many([req(1)])
        # A hang ends in a 500 after 3 s: a Timeout error means the client gave up first.
        assert not res.ok and res.error and "Timeout" in res.error
        assert server.requests == 2


def test_concurrency_limit_is_respected_and_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(latency_s=0.1) as server:
        out = make_gateway(server, tmp_path / "l.jsonl", monkeypatch, concurrency=3).complete_many(
            [req(i) for i in range(12)]
        )
        assert all(r.ok for r in out)
        # Never more than 3 at once, and 3 at once at some point (12 requests of 0.1 s).
        assert server.max_inflight == 3 and server.requests == 12


def test_requests_per_minute_are_paced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    with FakeOpenAI() as server:
        gw = make_gateway(
            server, tmp_path / "l.jsonl", monkeypatch, concurrency=32, rpm=600, clock=clock
        )
        gw.complete_many([req(i) for i in range(20)])
        # 10 per second with a burst of 10: ten start at once, the rest 0.1 s apart.
        assert sorted(clock.sleeps) == pytest.approx([0.1 * k for k in range(1, 11)])
        assert clock.now_s == pytest.approx(1.0)
        gw.complete_many([req(i) for i in range(20, 25)])
        # The bucket remembers the first batch: no fresh burst, five more 0.1 s apart.
        assert sorted(clock.sleeps[10:]) == pytest.approx([0.1 * k for k in range(1, 6)])
        assert clock.now_s == pytest.approx(1.5)
        assert server.requests == 25


def test_keys_come_from_the_environment_and_never_reach_ledger_or_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("LiteLLM", "httpx", "openai", "aiohttp"):  # the most verbose they get
        caplog.set_level(logging.DEBUG, logger=name)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    for name in ("", "LiteLLM", "litellm", "httpx", "openai"):
        logging.getLogger(name).addHandler(handler)
    try:
        with FakeOpenAI() as server:
            server.queue(["500", "429", "hang"])
            gw = make_gateway(
                server, tmp_path / "l.jsonl", monkeypatch, timeout_s=0.3, max_tries=3, concurrency=1
            )
            results = gw.complete_many([req(1), req(2)])
            gw.close()
            assert set(server.auth_headers) == {f"Bearer {SECRET}"}
    finally:
        for name in ("", "LiteLLM", "litellm", "httpx", "openai"):
            logging.getLogger(name).removeHandler(handler)
    assert any(not r.ok for r in results)  # errors were produced and logged
    texts = {
        "ledger": (tmp_path / "l.jsonl").read_text(),
        "captured logs": caplog.text,
        "log stream": stream.getvalue(),
        "errors": repr([r.error for r in results]),
    }
    assert "failed" in caplog.text
    if TRANSPORT[0] == "litellm":
        # litellm's own debug records were captured too (they describe every request).
        assert any(r.name == "LiteLLM" and r.levelno == logging.DEBUG for r in caplog.records)
    for where, text in texts.items():
        assert SECRET not in text, f"the key leaked into the {where}"
        assert SECRET[:12] not in text, f"part of the key leaked into the {where}"


def test_missing_key_stops_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        monkeypatch.delenv("PRESCIENT_TEST_KEY")
        with pytest.raises(
            ModelConfigError, match="set the environment variable PRESCIENT_TEST_KEY"
        ):
            gw.complete_many([req(1)])
        with pytest.raises(ModelConfigError, match="not in the registry"):
            gw.complete_many([LLMRequest("nope", [{"role": "user", "content": "x"}])])
        assert server.requests == 0


def test_callable_from_inside_an_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)

        async def caller() -> tuple[list[str | None], list[str | None]]:
            sync_inside_loop = gw.complete_many([req(1)])  # e.g. from a notebook
            native = await gw.acomplete_many([req(1), req(2)])
            return [r.text for r in sync_inside_loop], [r.text for r in native]

        sync_texts, async_texts = asyncio.run(caller())
        assert sync_texts == ["echo: question 1"]
        assert async_texts == ["echo: question 1", "echo: question 2"]
        assert server.requests == 2


def test_progress_bar_reports_hits_and_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as server:
        make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many([req(1)])
        server.queue(["500"])
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch, max_tries=1, progress=True)
        gw.complete_many([req(1), req(2)], desc="demo batch")
    err = capsys.readouterr().err
    assert "demo batch" in err and "2/2" in err and "hits=1" in err and "failed=1" in err


def test_concurrent_batches_on_one_loop_share_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI(latency_s=0.05) as server:
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch, concurrency=2)

        async def both() -> list[list[Any]]:
            return list(
                await asyncio.gather(
                    gw.acomplete_many([req(i) for i in range(6)]),
                    gw.acomplete_many([req(i) for i in range(6, 12)]),
                )
            )

        first, second = asyncio.run(both())
        assert [r.text for r in first + second] == [f"echo: question {i}" for i in range(12)]
        assert server.max_inflight == 2 and server.requests == 12
        assert gw.complete_many([]) == []


def test_switching_transport_keeps_every_ledger_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    other = "litellm" if transport == "auto" else "auto"
    with FakeOpenAI() as server:
        first = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        assert all(r.ok for r in first.complete_many([req(1), req(2)]))
        first.close()
        TRANSPORT[0] = other
        again = make_gateway(server, tmp_path / "l.jsonl", monkeypatch).complete_many(
            [req(1), req(2)]
        )
        assert all(r.from_ledger for r in again) and server.requests == 2


def test_both_transports_price_a_known_model_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    with FakeOpenAI() as server:
        gw = make_gateway(server, tmp_path / "l.jsonl", monkeypatch)
        gw.registry = ModelRegistry(
            {"fake": gw.spec("fake").model_copy(update={"litellm_model": "openai/gpt-4o-mini"})}
        )
        (res,) = gw.complete_many([req(1)])
    assert res.ok and res.usage["prompt_tokens"] > 0
    import litellm

    expected = sum(
        litellm.cost_per_token(
            model="gpt-4o-mini",
            prompt_tokens=res.usage["prompt_tokens"],
            completion_tokens=res.usage["completion_tokens"],
        )
    )
    assert res.cost == pytest.approx(expected)


LONE = "ans\ud800wer"
"""A reply holding a lone surrogate: legal in a JSON string, not encodable as UTF-8."""


def test_a_reply_of_any_content_is_stored_and_costs_no_other_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from prescient.plumbing.cli import main

    ledger = tmp_path / "l.jsonl"

    def answer(messages: list[dict[str, Any]]) -> str:
        return LONE if messages[-1]["content"] == "question 0" else "plain"

    with FakeOpenAI(answer=answer) as server:
        first = make_gateway(server, ledger, monkeypatch).complete_many([req(0), req(1)])
        # Stages get text every output file can hold; the ledger keeps the exact reply.
        assert [(r.ok, r.text) for r in first] == [(True, "ans\ufffdwer"), (True, "plain")]
        raw = ledger.read_bytes()
        assert raw.count(b"\n") == 2 and b'"response":"ans\\ud800wer"' in raw
        raw.decode("utf-8")  # the file stays UTF-8
        assert sorted(e["response"] for e in read_entries(ledger)) == sorted([LONE, "plain"])

        again = make_gateway(server, ledger, monkeypatch).complete_many([req(0), req(1)])
        assert server.requests == 2, "a rerun is a ledger hit"
        assert [(r.from_ledger, r.text, r.key) for r in again] == [
            (True, r.text, r.key) for r in first
        ]

    assert main(["ledger", "verify", str(ledger)]) == 0
    assert "2 entries checked, 0 problems" in capsys.readouterr().out
    assert main(["ledger", "stats", str(ledger)]) == 0
    assert json.loads(capsys.readouterr().out)["fake"]["ok"] == 2
    import pandas as pd

    for out in (tmp_path / "all.csv", tmp_path / "all.parquet"):
        assert main(["ledger", "export", str(ledger), "--out", str(out)]) == 0
        read = pd.read_csv(out, keep_default_na=False) if out.suffix == ".csv" else None
        frame = (pd.read_parquet(out) if read is None else read).set_index("response")
        assert frame.loc["plain", "escaped"] == ""
        cell = frame[frame["escaped"] == "response"].index[0]
        assert cell == '"ans\\ud800wer"' and json.loads(cell) == LONE


def test_a_ledger_that_cannot_be_written_stops_the_gateway_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prescient.llm.ledger import LedgerNotWritableError

    (tmp_path / "not-a-dir").write_text("")
    with FakeOpenAI() as server:
        for ledger in (tmp_path / "not-a-dir" / "l.jsonl", tmp_path):
            with pytest.raises(LedgerNotWritableError, match="no model is asked"):
                make_gateway(server, ledger, monkeypatch).complete_many([req(0)])
        assert server.requests == 0


def test_the_server_template_states_the_sampling_a_server_would_default(
    tmp_path: Path,
) -> None:
    """conf/model/local_openai_server.yaml fixes repeat_penalty at the in-process model's
    1.0 (llama-cpp-python's server would apply 1.1), and the direct client sends it."""
    from tests.support.llm import composed

    entry = dict(composed()["models"]["local_openai_server"])
    assert entry["params"]["repeat_penalty"] == 1.0
    with FakeOpenAI() as server:
        entry["api_base"] = server.url
        settings = llm_settings(progress=False, transport="auto")
        with Gateway(
            {"local_openai_server": entry}, tmp_path / "l.jsonl", stage="t", settings=settings
        ) as gateway:
            result = gateway.complete(
                LLMRequest("local_openai_server", [{"role": "user", "content": "Hi"}])
            )
        assert result.ok
        assert server.bodies[0]["repeat_penalty"] == 1.0
        assert server.bodies[0]["temperature"] == 0.0
