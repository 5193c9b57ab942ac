"""The gateway's parts alone: token bucket and limits, retry policy and Retry-After,
secret scrubbing, transport choice, failure reports."""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from prescient.llm.direct import DirectTransport
from prescient.llm.endpoints import EndpointPools, SpreadTransport
from prescient.llm.failures import FailureReport
from prescient.llm.limits import Limits, TokenBucket
from prescient.llm.providers import InProcessTransport
from prescient.llm.retry import RetryPolicy, describe, is_retryable, retry_after
from prescient.llm.scrub import Scrubber
from prescient.llm.transport_base import InternalServerError, RateLimitError, Timeout
from prescient.llm.transports import (
    TRANSPORT_MODULES,
    TransportSet,
    make_transport,
    refusal,
    transport_kind,
)
from tests.support.llm import FakeClock, model_spec


def test_bucket_allows_one_seconds_burst_then_paces_in_arrival_order() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rpm=120, clock=clock.monotonic)  # 2 per second, burst of 2
    waits = [bucket.reserve() for _ in range(5)]
    assert waits == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.5])
    clock.now_s += 10.0  # idle time refills only up to the burst size
    assert [bucket.reserve() for _ in range(3)] == pytest.approx([0.0, 0.0, 0.5])


def test_bucket_with_slow_rate_has_a_burst_of_one() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rpm=30, clock=clock.monotonic)  # one every 2 s
    assert [bucket.reserve() for _ in range(3)] == pytest.approx([0.0, 2.0, 4.0])
    clock.now_s += 3.0
    assert bucket.reserve() == pytest.approx(3.0)
    with pytest.raises(ValueError):
        TokenBucket(rpm=0)


def test_limits_cap_concurrency_per_model_and_pace_on_the_clock() -> None:
    clock = FakeClock()
    limits = Limits(clock)
    inside = {"a": 0, "b": 0}
    peak = {"a": 0, "b": 0}
    starts: list[float] = []

    async def one(model: str, concurrency: int) -> None:
        async with limits.slot(model, concurrency):
            await limits.pace(model, 60.0 if model == "a" else None)
            if model == "a":
                starts.append(clock.now_s)
            inside[model] += 1
            peak[model] = max(peak[model], inside[model])
            await asyncio.sleep(0.001)
            inside[model] -= 1

    async def run() -> None:
        await asyncio.gather(*(one("a", 2) for _ in range(5)), *(one("b", 3) for _ in range(6)))

    asyncio.run(run())
    assert peak == {"a": 2, "b": 3}
    # a: 60 rpm = one per second, burst of one: the 2nd..5th start 1, 2, 3, 4 s later;
    # b has no rate limit and never waits.
    assert sorted(starts) == pytest.approx([0.0, 1.0, 2.0, 3.0, 4.0])
    assert len(clock.sleeps) == 4 and clock.now_s == pytest.approx(4.0)


class Err(Exception):
    def __init__(self, headers: dict[str, str], attr: str = "litellm_response_headers") -> None:
        super().__init__("limited")
        setattr(self, attr, httpx.Headers(headers))


def test_retry_after_in_seconds_ms_and_http_date() -> None:
    assert retry_after(Err({"retry-after": "7"})) == 7.0
    assert retry_after(Err({"Retry-After": "1.5"}, attr="headers")) == 1.5
    assert retry_after(Err({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    now = dt.datetime(2024, 5, 1, 12, 0, 0, tzinfo=dt.UTC)
    later = now + dt.timedelta(seconds=30)
    assert retry_after(Err({"retry-after": email.utils.format_datetime(later)}), now) == 30.0
    assert retry_after(Err({"retry-after": "soon"})) is None
    assert retry_after(Err({})) is None
    assert retry_after(ValueError("no headers")) is None


def test_backoff_is_exponential_jittered_capped_and_server_led() -> None:
    policy = RetryPolicy(5, backoff_base_s=1.0, backoff_max_s=5.0, rng=random.Random(7))
    plain = ValueError("x")
    for attempt, nominal in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (8, 5.0)]:
        delays = [policy.delay(attempt, plain) for _ in range(200)]
        assert min(delays) >= 0.5 * nominal and max(delays) <= 1.5 * nominal
        assert max(delays) - min(delays) > 0.2 * nominal  # jitter spreads them
    assert policy.delay(1, Err({"retry-after": "3"})) == 3.0
    assert policy.delay(1, Err({"retry-after": "600"})) == 5.0  # capped by backoff_max_s


def test_what_is_retried() -> None:
    headers: dict[str, str] = {}
    assert is_retryable(RateLimitError(429, "slow", headers))
    assert is_retryable(InternalServerError(503, "down", headers))
    assert is_retryable(Timeout("late")) and is_retryable(ConnectionResetError())
    for status in (400, 401, 403, 404, 422):
        err = Exception("client")
        err.status_code = status  # type: ignore[attr-defined]
        assert not is_retryable(err), status
    for status in (408, 409, 429, 500, 502):
        err = Exception("server")
        err.status_code = status  # type: ignore[attr-defined]
        assert is_retryable(err), status
    assert not is_retryable(ValueError("a bug")) and not is_retryable(ZeroDivisionError())


def test_describe_keeps_the_type_and_first_line() -> None:
    class RateLimitErrorX(Exception):
        pass

    exc = RateLimitErrorX("litellm.RateLimitErrorX: litellm.RateLimitErrorX: slow down\nmore")
    assert describe(exc) == "RateLimitErrorX: slow down"
    assert len(describe(ValueError("x" * 2000))) == 500


def test_scrubber_hides_named_and_secret_looking_variables() -> None:
    env = {
        "MY_PROVIDER_CRED": "abcdef-123456",  # named by a registry entry
        "SOME_TOKEN": "tok-987654321",  # looks like a secret
        "HOME": "/home/someone-long",  # neither
        "SHORT_KEY": "12345",  # too short to scrub safely
    }
    scrub = Scrubber.from_env(["MY_PROVIDER_CRED"], env)
    text = "auth abcdef-123456 and tok-987654321 at /home/someone-long, pin 12345"
    assert scrub(text) == "auth *** and *** at /home/someone-long, pin 12345"
    assert Scrubber(["abc-long-secret", "abc-long"])("x abc-long-secret y") == "x *** y"


@pytest.mark.parametrize(
    ("litellm_model", "api_base", "mode", "kind"),
    [
        ("openai/gpt-4o", None, "auto", "direct"),
        ("hosted_vllm/m", "http://127.0.0.1:8000/v1", "auto", "direct"),
        ("hosted_vllm/m", None, "auto", "litellm"),  # no endpoint to post to
        ("openai/gpt-4o", None, "litellm", "litellm"),
        ("anthropic/claude", None, "auto", "litellm"),
        ("local/smollm2-135m", None, "auto", "in_process"),
        ("baseline/random", None, "litellm", "in_process"),
        ("scripted/echo", None, "auto", "in_process"),
    ],
)
def test_transport_choice(litellm_model: str, api_base: str | None, mode: str, kind: str) -> None:
    assert transport_kind(model_spec("m", litellm_model, api_base=api_base), mode) == kind


@pytest.mark.parametrize(
    ("litellm_model", "api_base", "transport", "refused"),
    [
        ("hosted_vllm/m", "http://127.0.0.1:8000/v1", "completions", None),
        ("openai/m", "http://127.0.0.1:8000/v1", "completions", None),
        ("text-completion-openai/m", "http://h/v1", "completions", None),
        ("local/smollm2-135m", None, "in_process", None),
        ("scripted/words", None, "in_process", None),
        ("openai/gpt-4o", None, None, "hosted chat-completions API"),
        ("anthropic/claude", None, None, "serves chat completions only"),
        ("baseline/random", None, None, "not a language model"),
    ],
)
def test_log_probability_requests_go_to_completions_servers_or_are_refused(
    litellm_model: str, api_base: str | None, transport: str | None, refused: str | None
) -> None:
    spec = model_spec("m", litellm_model, api_base=api_base)
    reason = refusal(spec, "logprobs")
    assert refusal(spec, "chat") is None
    if refused is None:
        assert reason is None
        for mode in ("auto", "litellm"):
            assert transport_kind(spec, mode, "logprobs") == transport
    else:
        assert reason is not None and refused in reason
    assert "unknown request kind" in str(refusal(spec, "embeddings"))


def test_transport_set_makes_one_transport_per_kind_and_spreads_replicas() -> None:
    transports = TransportSet("auto", EndpointPools(FakeClock(), cooldown_s=30.0))
    local = transports.for_model(model_spec("a", "scripted/echo"))
    assert isinstance(local, InProcessTransport)
    assert transports.for_model(model_spec("b", "baseline/random")) is local
    one = transports.for_model(model_spec("c", "openai/gpt-4o"))
    assert isinstance(one, DirectTransport)
    bases = ["http://127.0.0.1:8001/v1", "http://127.0.0.1:8002/v1"]
    two = transports.for_model(model_spec("d", "hosted_vllm/m", api_base=bases))
    assert isinstance(two, SpreadTransport) and two.inner is one and two.pool.bases == bases
    assert sorted(TRANSPORT_MODULES) == ["completions", "direct", "in_process", "litellm"]
    # Log-probability requests of the same model go to its completions endpoints.
    scores = transports.for_model(model_spec("d", "hosted_vllm/m", api_base=bases), "logprobs")
    assert isinstance(scores, SpreadTransport) and scores.pool.bases == bases
    assert type(scores.inner).__name__ == "CompletionsTransport"
    assert transports.for_model(model_spec("a", "scripted/echo"), "logprobs") is local
    with pytest.raises(ValueError, match="unknown transport 'grpc'"):
        make_transport("grpc")


def test_a_batch_of_in_process_models_loads_no_network_transport() -> None:
    code = textwrap.dedent(
        """
        import sys
        from prescient.llm.transports import TransportSet
        from tests.support.llm import model_spec
        TransportSet("auto").for_model(model_spec("m", "baseline/random"))
        print(sorted(m for m in ("litellm", "aiohttp", "prescient.llm.litellm_transport")
                     if m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[3],  # the repository: its modules import from it
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.strip() == "[]"


def test_failure_report_against_the_tolerance() -> None:
    report = FailureReport(
        requests=40,
        failed=3,
        max_failed_share=0.05,
        failed_by_model={"gpt": 3},
        first_errors=("gpt: InternalServerError: boom (HTTP 500)",),
    )
    assert report.failed_share == 0.075 and report.exceeded
    assert report.metrics() == {
        "requests": 40,
        "failed": 3,
        "failed_share": 0.075,
        "max_failed_share": 0.05,
        "failed_by_model": {"gpt": 3},
    }
    text = report.summary("construct")
    assert "3 of 40 model calls failed (7.5%" in text and "gpt (3)" in text
    assert "InternalServerError: boom" in text and "the stage fails" in text
    assert not FailureReport(40, 2, 0.05).exceeded  # 5% is within 5%
    assert not FailureReport(0, 0, 0.0).exceeded and FailureReport(1, 1, 0.0).exceeded
