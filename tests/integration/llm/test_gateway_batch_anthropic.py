"""Batch mode for an ``anthropic/`` model through the gateway, against a loopback server
that speaks Anthropic's Message Batches endpoints: answers and failed lines land in the
ledger, a failed line is asked again on the rerun, a kill after submitting resumes the
same batch, and the requests are written as the Messages API names their params.

The fake server reports 7 input + 1 output tokens a reply; the entry's price is $1 a
token with a batch discount of 0.5, so a batched reply costs (7 + 1) * 0.5 = $4.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.batch import BatchJournal, Outcome, run_batch
from prescient.llm.batch_anthropic import AnthropicBatchAPI
from prescient.llm.batch_route import journal_path
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.logprobs import CHAT
from prescient.llm.store import open_stage_ledger
from prescient.llm.types import LLMRequest
from tests.support.fake_anthropic_batches import FakeAnthropicBatches
from tests.support.llm import FakeClock, llm_settings, model_spec

PRICE = {"prompt_usd_per_mtok": 1e6, "completion_usd_per_mtok": 1e6, "batch_discount": 0.5}
KEY_VAR = "PRESCIENT_TEST_ANTHROPIC_KEY"
KEY = "sk-ant-test-0123456789"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)


class Killed(BaseException):
    """Stands in for SIGKILL while the stage waits for its batch."""


class KilledWhileWaiting(FakeClock):
    async def sleep(self, seconds: float) -> None:
        raise Killed


def gateway(url: str, ledger: Path, *, clock: FakeClock | None = None) -> Gateway:
    models = {
        "claude": model_spec(
            "claude",
            "anthropic/claude-test",
            api_base=url,
            api_key_env=KEY_VAR,
            params={"temperature": 0.0, "max_tokens": 4},
            batch=True,
            price=PRICE,
        ),
    }
    settings = llm_settings(max_tries=2, progress=False, batch_poll_s=0.01)
    return Gateway(
        models,
        ledger,
        stage="test",
        settings=settings,
        clock=clock or FakeClock(),
        ledger=open_stage_ledger(ledger, None),
    )


def req(i: int) -> LLMRequest:
    return LLMRequest("claude", [{"role": "user", "content": f"q{i}"}], tags={"i": i})


def answer(messages: list[dict[str, Any]]) -> str:
    return f"A:{messages[-1]['content']}"


def test_an_anthropic_batch_records_every_line_and_the_rerun_asks_only_the_failed_one(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeAnthropicBatches(answer=answer) as s:
        with gateway(s.url, ledger) as gw:
            failing = gw.key_for(req(2))
            s.fail_keys = frozenset({failing})
            out = gw.complete_many([req(i) for i in range(4)] + [req(1)])
            assert s.created == 1 and gw.stats.sent == 4
        sent = s.sent(0)
        assert sorted(x["custom_id"] for x in sent) == sorted({r.key for r in out})
        assert sent[0]["params"] == {
            "model": "claude-test",
            "max_tokens": 4,
            "temperature": 0.0,
            "messages": [{"role": "user", "content": sent[0]["params"]["messages"][0]["content"]}],
        }
        assert s.headers["x-api-key"] == KEY and s.headers["anthropic-version"] == "2023-06-01"
        assert [r.text for r in out] == ["A:q0", "A:q1", None, "A:q3", "A:q1"]
        assert not out[2].ok and "overloaded" in str(out[2].error)
        assert not any(r.from_ledger for r in out)
        assert [r.cost for r in out if r.ok] == [4.0] * 4
        entries = {e["key"]: e for e in read_entries(ledger)}
        assert len(entries) == 4 and entries[failing]["error"] == out[2].error
        ok = entries[out[0].key]
        assert ok["response"] == "A:q0" and ok["finish_reason"] == "stop" and ok["tries"] == 1
        assert ok["usage"] == {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}
        assert ok["litellm_model"] == "anthropic/claude-test" and ok["tags"] == {"i": 0}

        s.fail_keys = frozenset()
        with gateway(s.url, ledger) as gw:
            again = gw.complete_many([req(i) for i in range(4)])
        assert s.created == 2, "only the failed request goes in a new batch"
        assert [x["custom_id"] for x in s.sent(1)] == [failing]
        assert [r.from_ledger for r in again] == [True, True, False, True]
        assert [r.text for r in again] == ["A:q0", "A:q1", "A:q2", "A:q3"]


def test_a_stage_killed_after_submitting_polls_the_same_anthropic_batch_when_rerun(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeAnthropicBatches(answer=answer, polls=3) as s:
        with gateway(s.url, ledger, clock=KilledWhileWaiting()) as gw, pytest.raises(Killed):
            gw.complete_many([req(i) for i in range(3)])
        assert s.created == 1 and not list(read_entries(ledger))
        (pending,) = BatchJournal(journal_path(ledger)).batches().values()
        assert pending.batch_id == "msgbatch_1" and not pending.collected

        with gateway(s.url, ledger) as gw:
            out = gw.complete_many([req(i) for i in range(3)])
        assert s.created == 1, "the rerun polls the batch it submitted"
        assert [r.text for r in out] == ["A:q0", "A:q1", "A:q2"]
        assert BatchJournal(journal_path(ledger)).batches()[pending.digest].collected

        polls = s.polls
        with gateway(s.url, ledger) as gw:
            served = gw.complete_many([req(i) for i in range(3)])
        assert all(r.from_ledger for r in served)
        assert (s.created, s.polls) == (1, polls), "answers in the ledger reach no server"


def run(server: FakeAnthropicBatches, journal: BatchJournal, n: int) -> dict[str, Outcome]:
    got: dict[str, Outcome] = {}
    bodies = {
        f"k{i:02d}": {"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": "q"}]}
        for i in range(n)
    }

    async def record(results: Mapping[str, Outcome]) -> None:
        got.update(results)

    async def no_wait(_: float) -> None:
        return None

    async def go() -> None:
        api = AnthropicBatchAPI(server.url + "/v1", KEY, timeout_s=10)
        try:
            await run_batch("m", bodies, api, journal, record, poll_s=0.0, sleep=no_wait)
        finally:
            await api.aclose()

    asyncio.run(go())
    return got


def test_an_ended_batch_names_the_requests_it_did_not_answer(tmp_path: Path) -> None:
    with FakeAnthropicBatches(expire_after=2) as s:
        got = run(s, BatchJournal(tmp_path / "b.jsonl"), 4)
    assert [k for k, v in got.items() if v.body is not None] == ["k00", "k01"]
    assert got["k03"] == Outcome(None, "batch request expired")


def test_the_params_are_written_as_the_messages_api_names_them() -> None:
    api = AnthropicBatchAPI("https://api.anthropic.com/v1", KEY, timeout_s=10)
    assert api.base == "https://api.anthropic.com"
    messages = [
        {"role": "system", "content": "Answer Yes or No."},
        {"role": "user", "content": "Rain?"},
    ]
    gen = {"temperature": 0.0, "stop": "\n", "seed": 3}
    body = api.request_body(model_spec("c", "anthropic/claude-x"), messages, gen, CHAT)
    assert body == {
        "model": "claude-x",
        "max_tokens": 4096,
        "system": "Answer Yes or No.",
        "messages": [{"role": "user", "content": "Rain?"}],
        "temperature": 0.0,
        "stop_sequences": ["\n"],
    }
    message = {
        "content": [{"type": "text", "text": "Ye"}, {"type": "text", "text": "s"}],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 5, "output_tokens": 2},
    }
    assert api.reply_fields(message, gen, CHAT) == (
        "Yes",
        "length",
        {"prompt_tokens": 5, "completion_tokens": 2},
    )


def test_an_anthropic_batch_that_expired_whole_is_sent_again_on_the_rerun(
    tmp_path: Path,
) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")
    with FakeAnthropicBatches(expire_after=0) as s:
        got = run(s, journal, 3)
        assert s.created == 1 and all(v.body is None for v in got.values())
        s.expire_after = None
        got = run(s, journal, 3)
        assert s.created == 2 and all(v.body is not None for v in got.values())
    batches = journal.batches()
    assert len(batches) == 2 and all(b.collected for b in batches.values())
