"""Retry timing, Retry-After, Content-Range, and the crawl settings from the real config."""

from __future__ import annotations

import email.utils

import pytest

from prescient.crawl.download import parse_content_range
from prescient.crawl.fetch import RetryPolicy, backoff_delay, parse_retry_after
from prescient.crawl.settings import CrawlSettings
from prescient.plumbing import params
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT

POLICY = RetryPolicy(max_tries=5, backoff_base_s=2.0, backoff_max_s=10.0, timeout_s=1.0)


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    for failures, base in ((1, 2.0), (2, 4.0), (3, 8.0), (4, 10.0), (9, 10.0)):
        waits = [backoff_delay(POLICY, failures, None) for _ in range(200)]
        assert all(0.5 * base <= w < 1.5 * base for w in waits)
        assert max(waits) - min(waits) > 0.1 * base  # jittered, not constant


def test_retry_after_wins_and_is_capped() -> None:
    assert backoff_delay(POLICY, 1, 7.0) == 7.0
    assert backoff_delay(POLICY, 3, 0.0) == 0.0
    assert backoff_delay(POLICY, 1, 3600.0) == 10.0


def test_parse_retry_after_seconds_and_http_dates() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = 1_700_000_000.0
    later = email.utils.formatdate(now + 120, usegmt=True)
    assert parse_retry_after(later, now=now) == 120.0
    earlier = email.utils.formatdate(now - 120, usegmt=True)
    assert parse_retry_after(earlier, now=now) == 0.0


def test_parse_content_range() -> None:
    assert parse_content_range("bytes 100-199/200") == (100, 200)
    assert parse_content_range("bytes 0-0/*") == (0, None)
    assert parse_content_range("bytes */200") is None
    assert parse_content_range(None) is None


def test_settings_from_the_shipped_config() -> None:
    p = params.compose(ROOT)
    s = load_settings(CrawlSettings, p, "crawl")
    assert s.base_url == "https://data.commoncrawl.org/"
    assert s.url("/crawl-data/CC-NEWS/2024/01/warc.paths.gz") == (
        "https://data.commoncrawl.org/crawl-data/CC-NEWS/2024/01/warc.paths.gz"
    )
    assert s.date_start <= s.date_end
    assert s.retry_policy() == RetryPolicy(
        s.max_tries, s.backoff_base_s, s.backoff_max_s, s.timeout_s
    )
    mirror = load_settings(
        CrawlSettings, params.compose(ROOT, ["crawl.base_url=http://127.0.0.1:9"]), "crawl"
    )
    assert mirror.url("crawl-data/x") == "http://127.0.0.1:9/crawl-data/x"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("crawl.date_end=2024-11-30", "crawl.date_end: is before date_start 2024-12-01"),
        ("crawl.base_url=ftp://x", "crawl.base_url: expected an http"),
        ("crawl.concurrency=0", "crawl.concurrency: Input should be greater than or equal to 1"),
        ("crawl.date_start=20241201", "crawl.date_start: expected a day as YYYY-MM-DD"),
        ("+crawl.workers=3", "crawl.workers is not a parameter of this stage"),
    ],
)
def test_bad_settings_name_the_parameter(override: str, message: str) -> None:
    p = params.compose(ROOT, ["crawl.date_start=2024-12-01", override])
    with pytest.raises(ParamsError, match=message):
        load_settings(CrawlSettings, p, "crawl")


def test_downloads_and_model_calls_share_one_retry_policy() -> None:
    from prescient.llm import retry

    assert isinstance(POLICY.backoff, retry.RetryPolicy)
    assert (POLICY.backoff.max_tries, POLICY.backoff.backoff_base_s) == (5, 2.0)
    assert POLICY.backoff.backoff_max_s == 10.0 and POLICY.backoff is POLICY.backoff
    transient = [
        s for s in (400, 403, 404, 408, 409, 425, 429, 500, 503) if retry.retryable_status(s)
    ]
    assert transient == [408, 409, 425, 429, 500, 503]
