"""Rate limiting and retry timing: the token bucket, Retry-After parsing, backoff."""

from __future__ import annotations

import datetime as dt
import email.utils

import httpx
import pytest

from prescient.llm.gateway import Gateway, GatewaySettings, TokenBucket, _retry_after


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_one_seconds_burst_then_paces_in_arrival_order() -> None:
    clock = Clock()
    bucket = TokenBucket(rpm=120, clock=clock)  # 2 per second, burst of 2
    waits = [bucket.reserve() for _ in range(5)]
    assert waits == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.5])
    clock.now += 10.0  # idle time refills only up to the burst size
    assert [bucket.reserve() for _ in range(3)] == pytest.approx([0.0, 0.0, 0.5])


def test_bucket_with_slow_rate_has_a_burst_of_one() -> None:
    clock = Clock()
    bucket = TokenBucket(rpm=30, clock=clock)  # one every 2 s
    assert [bucket.reserve() for _ in range(3)] == pytest.approx([0.0, 2.0, 4.0])
    clock.now += 3.0
    assert bucket.reserve() == pytest.approx(3.0)
    with pytest.raises(ValueError):
        TokenBucket(rpm=0)


class Err(Exception):
    def __init__(self, headers: dict[str, str], attr: str = "litellm_response_headers") -> None:
        super().__init__("limited")
        setattr(self, attr, httpx.Headers(headers))


def test_retry_after_in_seconds_ms_and_http_date() -> None:
    assert _retry_after(Err({"retry-after": "7"})) == 7.0
    assert _retry_after(Err({"Retry-After": "1.5"}, attr="headers")) == 1.5
    assert _retry_after(Err({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30)
    parsed = _retry_after(Err({"retry-after": email.utils.format_datetime(later)}))
    assert parsed is not None and 28 <= parsed <= 31
    assert _retry_after(Err({"retry-after": "soon"})) is None
    assert _retry_after(Err({})) is None
    assert _retry_after(ValueError("no headers")) is None


def test_backoff_is_exponential_jittered_capped_and_server_led(tmp_path: object) -> None:
    gw = Gateway(
        {},
        f"{tmp_path}/l.jsonl",
        stage="t",
        settings=GatewaySettings(backoff_base_s=1.0, backoff_max_s=5.0, progress=False),
    )
    plain = ValueError("x")
    for attempt, nominal in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (8, 5.0)]:
        delays = [gw._backoff(attempt, plain) for _ in range(200)]
        assert min(delays) >= 0.5 * nominal and max(delays) <= 1.5 * nominal
        assert max(delays) - min(delays) > 0.2 * nominal  # jitter spreads them
    assert gw._backoff(1, Err({"retry-after": "3"})) == 3.0
    assert gw._backoff(1, Err({"retry-after": "600"})) == 5.0  # capped by backoff_max_s
