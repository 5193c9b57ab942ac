"""Prices, worst cases and the ceiling's arithmetic, by hand; the failure report of a
stage whose requests were held back."""

from __future__ import annotations

import pytest

from prescient.llm.ceiling import (
    NOT_SENT_CEILING,
    CostCeiling,
    NotSent,
    rates,
    reply_cost,
    worst_case,
)
from prescient.llm.failures import FailureReport
from prescient.llm.registry import ModelConfigError
from prescient.llm.types import LLMRequest
from tests.support.llm import model_spec

PRICE = {"prompt_usd_per_mtok": 2.0, "completion_usd_per_mtok": 8.0, "batch_discount": 0.5}
# 9 bytes -> at most 9 tokens (one per byte), + 8 for the one message: 17 prompt tokens.
REQ = LLMRequest("m", [{"role": "user", "content": "123456789"}])


def test_an_entry_price_comes_first_and_its_discount_prices_batches() -> None:
    spec = model_spec("m", "openai/gpt-4o-mini", price=PRICE)
    assert rates(spec) == pytest.approx((2e-6, 8e-6))
    assert rates(spec, batch=True) == pytest.approx((1e-6, 4e-6))
    usage = {"prompt_tokens": 100, "completion_tokens": 10}
    assert reply_cost(spec, usage, reported=99.0) == pytest.approx(100 * 2e-6 + 10 * 8e-6)


def test_litellm_prices_and_its_batch_rates_otherwise() -> None:
    spec = model_spec("m", "openai/gpt-4o-mini")
    assert rates(spec) == pytest.approx((1.5e-7, 6e-7))  # litellm's table
    assert rates(spec, batch=True) == pytest.approx((7.5e-8, 3e-7))  # its *_batches rates
    gpt4 = model_spec("g", "openai/gpt-4")  # no batch rates in the table: the standard ones
    assert rates(gpt4, batch=True) == rates(gpt4) == pytest.approx((3e-5, 6e-5))
    assert reply_cost(spec, {"prompt_tokens": 1}, reported=0.5) == 0.5  # the transport's
    assert rates(model_spec("u", "hosted_vllm/unknown")) is None
    assert rates(model_spec("b", "baseline/always-yes")) == (0.0, 0.0)


def test_worst_case_is_the_prompt_bound_plus_max_tokens() -> None:
    spec = model_spec("m", "openai/x", price=PRICE)
    assert worst_case(spec, REQ, {"max_tokens": 5}) == pytest.approx(17 * 2e-6 + 5 * 8e-6)
    logprobs = LLMRequest("m", REQ.messages, kind="logprobs")
    assert worst_case(spec, logprobs, {}) == pytest.approx(17 * 2e-6)
    # Non-Latin text: a token per byte bounds it (3 bytes a character here).
    greek = LLMRequest("m", [{"role": "user", "content": "αβγ"}])
    assert worst_case(spec, greek, {"max_tokens": 0}) == pytest.approx((6 + 8) * 2e-6)
    assert worst_case(model_spec("u", "hosted_vllm/unknown"), REQ, {"max_tokens": 5}) is None
    with pytest.raises(NotSent, match="no max_tokens"):
        worst_case(spec, REQ, {})


def test_the_ceiling_counts_spent_and_in_flight_and_stays_stopped() -> None:
    spec = model_spec(
        "m", "openai/x", price={"prompt_usd_per_mtok": 1e6, "completion_usd_per_mtok": 0}
    )
    ceiling = CostCeiling(40.0)  # each request: 17 prompt tokens at $1, $17 worst case
    ceiling.admit("a", spec, REQ, {"max_tokens": 1})
    ceiling.admit("b", spec, REQ, {"max_tokens": 1})  # $34 in flight
    with pytest.raises(NotSent, match=r"\$0.0000 spent, up to \$34.0000 in flight"):
        ceiling.admit("c", spec, REQ, {"max_tokens": 1})
    ceiling.settle("a", {"error": None, "cost": 2.0})
    ceiling.settle("b", {"error": "boom", "cost": None})  # a failure costs nothing
    assert (ceiling.spent_usd, ceiling.inflight_usd) == (2.0, 0.0)
    with pytest.raises(NotSent) as held:  # it would fit now, but sending has stopped
        ceiling.admit("d", spec, REQ, {"max_tokens": 1})
    assert str(held.value).startswith(NOT_SENT_CEILING)
    ceiling.admit("e", spec, REQ, {"max_tokens": 1}, sent=True)  # already sent: reserved
    ceiling.settle("e", {"error": None, "cost": None})  # no cost known: its worst case
    assert ceiling.spent_usd == 19.0
    free = model_spec("f", "baseline/always-yes")
    ceiling.admit("f", free, REQ, {"max_tokens": 1})  # free requests are always sent
    assert "2 requests not sent" in ceiling.describe(2)


def test_a_reply_that_cost_more_than_its_bound_stops_sending_and_fails_the_stage() -> None:
    spec = model_spec(
        "m", "openai/x", price={"prompt_usd_per_mtok": 1e6, "completion_usd_per_mtok": 1e6}
    )
    ceiling = CostCeiling(1000.0)
    ceiling.admit("a", spec, REQ, {"max_tokens": 2})  # $19 worst case
    ceiling.settle("a", {"error": None, "cost": 19.0, "usage": {}})  # at the bound: fine
    assert ceiling.overrun is None
    ceiling.admit("b", spec, REQ, {"max_tokens": 2})
    usage = {"prompt_tokens": 40, "completion_tokens": 2}
    ceiling.settle("b", {"error": None, "cost": 42.0, "usage": usage})
    assert ceiling.overrun is not None
    assert "model 'm' billed $42.000000 for a request bounded at $19.000000" in ceiling.overrun
    assert "40 prompt tokens counted against a bound of 17" in ceiling.overrun
    with pytest.raises(NotSent, match="cannot be kept"):
        ceiling.admit("c", spec, REQ, {"max_tokens": 2})
    report = FailureReport(2, 0, 0.5, overrun=ceiling.overrun, spending=ceiling.describe(0))
    assert report.exceeded and "the cost ceiling cannot be kept" in report.summary("s")


def test_no_ceiling_admits_everything_and_checks_no_price() -> None:
    unknown = model_spec("u", "hosted_vllm/unknown")
    ceiling = CostCeiling(None)
    ceiling.check_priced(unknown)
    ceiling.admit("a", unknown, REQ, {})
    with pytest.raises(ModelConfigError, match="conf/model/u.yaml a price"):
        CostCeiling(1.0).check_priced(unknown)
    CostCeiling(0.0).check_priced(model_spec("b", "baseline/always-yes"))


def test_requests_not_sent_fail_the_stage_whatever_the_tolerance() -> None:
    report = FailureReport(10, 3, 1.0, {"m": 3}, ("m: not sent",), not_sent=3, spending="$1 spent")
    assert report.exceeded and report.metrics()["not_sent"] == 3
    assert "3 of 10 requests were not sent" in report.summary("evaluate m")
    assert "not_sent" not in FailureReport(10, 3, 1.0).metrics()
    assert not FailureReport(10, 3, 1.0).exceeded
