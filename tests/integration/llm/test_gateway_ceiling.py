"""The cost ceiling (llm.max_cost_usd) against a loopback OpenAI-compatible server and a
model entry with a price: where it stops, what finishes, what is never recorded, what a
rerun with a higher ceiling sends, and how the stage fails.

Prices are $1 a token so the arithmetic is by hand: the fake server reports 10 prompt +
3 completion tokens ($13 a reply); a request "question i" (10 bytes for i < 10) is
bounded at 10 + 8 = 18 prompt tokens (a token per byte, 8 for the template), plus
max_tokens 4: a worst case of $22. Then servers that count adversarially: the bound
holds where the old estimate (bytes / 3) did not, and a provider that bills past it
stops the stage with the numbers.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.ceiling import NOT_SENT_CEILING
from prescient.llm.failures import FAILED_CALLS_EXIT
from prescient.llm.gateway import Gateway, stage_failed
from prescient.llm.ledger import read_entries
from prescient.llm.registry import ModelConfigError
from prescient.llm.types import LLMRequest
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import llm_settings, model_spec

DOLLAR_A_TOKEN = {"prompt_usd_per_mtok": 1e6, "completion_usd_per_mtok": 1e6}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESCIENT_TEST_KEY", "sk-test")


def gateway(
    server: FakeOpenAI,
    ledger: Path,
    ceiling: float | None,
    *,
    concurrency: int = 1,
    price: dict[str, Any] | None = DOLLAR_A_TOKEN,
    max_failed_share: float = 0.0,
    transport: str = "auto",
) -> Gateway:
    models = {
        "paid": model_spec(
            "paid",
            "openai/paid-model",
            api_base=server.url,
            api_key_env="PRESCIENT_TEST_KEY",
            params={"temperature": 0.0, "max_tokens": 4},
            concurrency=concurrency,
            price=price,
        ),
        "free": model_spec("free", "baseline/always-yes", params={"max_tokens": 4}),
    }
    settings = llm_settings(
        max_tries=1,
        progress=False,
        max_cost_usd=ceiling,
        max_failed_share=max_failed_share,
        transport=transport,
    )
    return Gateway(models, ledger, stage="test", settings=settings)


def req(i: int, model: str = "paid") -> LLMRequest:
    return LLMRequest(model, [{"role": "user", "content": f"question {i}"}])


@pytest.mark.parametrize("transport", ["auto", "litellm"])
def test_the_ceiling_stops_sending_and_leaves_the_rest_out_of_the_ledger(
    tmp_path: Path, transport: str
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeOpenAI() as server:
        # $13 + $13 + $13 spent; the fourth's worst case ($39 + $22 = $61) passes $50.
        with gateway(server, ledger, 50.0, transport=transport) as gw:
            out = gw.complete_many([req(i) for i in range(6)])
            assert server.requests == 3
            assert [r.ok for r in out] == [True] * 3 + [False] * 3
            assert all(str(r.error).startswith(NOT_SENT_CEILING) for r in out[3:])
            assert "llm.max_cost_usd=50 reached: $39.0000 spent" in str(out[3].error)
            assert [r.cost for r in out[:3]] == [13.0] * 3
            assert gw.ceiling.spent_usd == 39.0 and gw.stats.cost_usd == 39.0
            assert (gw.stats.not_sent, gw.stats.sent, gw.stats.failures) == (3, 3, 3)
            assert gw.stats.run_record()["not_sent"] == 3
        entries = list(read_entries(ledger))
        assert sorted(e["key"] for e in entries) == sorted(r.key for r in out[:3])
        assert [e["cost"] for e in entries] == [13.0] * 3

        # A higher ceiling sends only the rest: the three paid answers are served.
        with gateway(server, ledger, 100.0, transport=transport) as gw:
            again = gw.complete_many([req(i) for i in range(6)])
        assert server.requests == 6, "each request is paid once"
        assert [r.from_ledger for r in again] == [True] * 3 + [False] * 3
        assert all(r.ok for r in again) and len(list(read_entries(ledger))) == 6


def test_requests_in_flight_finish_and_are_recorded(tmp_path: Path) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeOpenAI(latency_s=0.2) as server, gateway(server, ledger, 60.0, concurrency=2) as gw:
        out = gw.complete_many([req(i) for i in range(8)])
    # Two go out at once ($44 reserved); the third fits once one is back ($13 + $22 +
    # $22 = $57); with two back ($26) and the third still out, the fourth would reach
    # $26 + $22 + $22 = $70. The third finishes and is recorded.
    assert server.requests == 3 and sum(r.ok for r in out) == 3
    stopped = str(next(r.error for r in out if not r.ok))
    assert "$26.0000 spent, up to $22.0000 in flight, the next request up to $22.0000" in stopped
    assert len(list(read_entries(ledger))) == 3


def test_a_ceiling_of_zero_sends_nothing_but_free_models_answer(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeOpenAI() as server, gateway(server, ledger, 0.0) as gw:
        with caplog.at_level(logging.WARNING):
            out = gw.complete_many([req(0), req(1), req(1), req(2, "free")])
        assert server.requests == 0
        assert [r.ok for r in out] == [False, False, False, True]
        assert gw.stats.not_sent == 3 and out[3].text == "Yes"
    # held back is said as such, never as a failure of requests nobody sent
    assert "3 of 4 requests not sent (held back by the cost ceiling)" in caplog.text
    assert "requests failed" not in caplog.text
    assert [e["model"] for e in read_entries(ledger)] == ["free"]


def test_an_unpriced_paid_model_under_a_ceiling_is_refused_before_any_call(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as server:
        with (
            gateway(server, tmp_path / "l.jsonl", 10.0, price=None) as gw,
            pytest.raises(ModelConfigError, match="'paid' .* no known price.*price:"),
        ):
            gw.complete_many([req(0)])
        assert server.requests == 0
        with gateway(server, tmp_path / "l.jsonl", None, price=None) as gw:
            assert gw.complete(req(0)).ok and gw.complete(req(0)).cost is None


def test_a_stage_with_requests_not_sent_fails_whatever_the_tolerance(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out_file = tmp_path / "predictions.parquet"
    out_file.write_bytes(b"an earlier run's output")
    with (
        FakeOpenAI() as server,
        gateway(server, tmp_path / "l.jsonl", 30.0, max_failed_share=1.0) as gw,
    ):
        gw.complete_many([req(i) for i in range(4)])
        with caplog.at_level(logging.ERROR):
            assert stage_failed(gw, logging.getLogger("test"), [out_file])
        report = gw.failure_report()
    assert FAILED_CALLS_EXIT == 3 and not out_file.exists()
    assert report.exceeded and report.not_sent == 3 and report.metrics()["not_sent"] == 3
    assert "3 of 4 requests were not sent" in caplog.text
    assert "$13.0000 spent of llm.max_cost_usd=30" in caplog.text
    assert "-S 'llm.max_cost_usd=...'" in caplog.text


def digits(i: int) -> LLMRequest:
    """A prompt of 60 digits: 68 tokens at most by the bound, 28 by bytes / 3 + 8."""
    return LLMRequest("paid", [{"role": "user", "content": f"{i:02d}" * 30}])


def per_char(body: dict[str, Any], text: str) -> tuple[int, int]:
    """A tokenizer that spends a token on every character, plus 7 for the template."""
    chars = sum(len(str(m["content"])) for m in body["messages"])
    return chars + 7, 4


@pytest.mark.parametrize("ceiling", [100.0, 250.0, 400.0])
def test_a_server_that_counts_a_token_per_character_never_crosses_the_ceiling(
    tmp_path: Path, ceiling: float
) -> None:
    # Each reply costs 67 + 4 = $71 against a worst case of 68 + 4 = $72; with the old
    # estimate (28 + 4 = $32) the gateway would have sent past every ceiling here.
    with (
        FakeOpenAI(usage=per_char) as server,
        gateway(server, tmp_path / "l.jsonl", ceiling, concurrency=4) as gw,
    ):
        out = gw.complete_many([digits(i) for i in range(8)])
        assert gw.ceiling.spent_usd <= ceiling and gw.ceiling.overrun is None
        assert sum(r.ok for r in out) == server.requests == int(ceiling // 72)


@pytest.mark.parametrize(
    ("usage", "counted"),
    [
        (lambda body, text: (200, 3), "200 prompt tokens counted against a bound of 18"),
        (lambda body, text: (18, 9), "9 completion tokens against max_tokens 4"),
    ],
)
def test_a_provider_billing_past_the_bound_stops_the_stage_with_the_numbers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, usage: Any, counted: str
) -> None:
    out_file = tmp_path / "predictions.parquet"
    out_file.write_bytes(b"an earlier run's output")
    with (
        FakeOpenAI(usage=usage) as server,
        gateway(server, tmp_path / "l.jsonl", 1000.0, max_failed_share=1.0) as gw,
    ):
        out = gw.complete_many([req(i) for i in range(5)])
        assert server.requests == 1 and out[0].ok  # the overbilled reply is kept
        assert all(str(r.error).startswith(NOT_SENT_CEILING) for r in out[1:])
        with caplog.at_level(logging.ERROR):
            assert stage_failed(gw, logging.getLogger("test"), [out_file])
    assert not out_file.exists()
    assert "model 'paid' billed $" in caplog.text and counted in caplog.text
    assert "for a request bounded at $22.000000" in caplog.text
