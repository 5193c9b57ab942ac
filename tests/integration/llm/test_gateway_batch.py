"""Batch mode through the gateway (a model entry with ``batch: true``) against a loopback
files and batches server: answers and failed lines land in the ledger, a kill after
submitting resumes the same batch, reruns are served, and the cost ceiling bounds what is
submitted.

The fake server reports 7 prompt + 1 completion tokens a reply; the entry's price is $1 a
token with a batch discount of 0.5, so a batched reply costs (7 + 1) * 0.5 = $4.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.answer_logprobs import (
    ANSWER_LOGPROBS,
    TOP_LOGPROBS,
    AnswerLogprobs,
    answer_distribution,
)
from prescient.llm.batch import BatchError, BatchJournal
from prescient.llm.batch_openai import OpenAIBatchAPI
from prescient.llm.batch_route import journal_path
from prescient.llm.ceiling import NOT_SENT_CEILING
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.registry import ModelConfigError
from prescient.llm.store import open_stage_ledger
from prescient.llm.types import LLMRequest
from tests.support.fake_batches import FakeBatches
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import FakeClock, llm_settings, model_spec

PRICE = {"prompt_usd_per_mtok": 1e6, "completion_usd_per_mtok": 1e6, "batch_discount": 0.5}


class Killed(BaseException):
    """Stands in for SIGKILL while the stage waits for its batch."""


class KilledWhileWaiting(FakeClock):
    async def sleep(self, seconds: float) -> None:
        raise Killed


def gateway(
    url: str,
    ledger: Path,
    *,
    clock: FakeClock | None = None,
    ceiling: float | None = None,
    direct_url: str | None = None,
    cache_dir: Path | None = None,
) -> Gateway:
    models = {
        "bm": model_spec(
            "bm",
            "openai/bm",
            api_base=url,
            params={"temperature": 0.0, "max_tokens": 4},
            batch=True,
            price=PRICE,
        ),
        "direct": model_spec(
            "direct", "openai/direct", api_base=direct_url or url, params={"max_tokens": 4}
        ),
    }
    settings = llm_settings(max_tries=2, progress=False, max_cost_usd=ceiling, batch_poll_s=0.01)
    return Gateway(
        models,
        ledger,
        stage="test",
        settings=settings,
        clock=clock or FakeClock(),
        ledger=open_stage_ledger(ledger, cache_dir),
    )


def req(i: int, model: str = "bm") -> LLMRequest:
    return LLMRequest(model, [{"role": "user", "content": f"q{i}"}], tags={"i": i})


def answer(messages: list[dict[str, str]]) -> str:
    return f"A:{messages[-1]['content']}"


def test_a_batch_that_partly_fails_records_every_line_and_reruns_only_the_failures(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeBatches(answer=answer) as s:
        with gateway(s.url, ledger) as gw:
            failing = gw.key_for(req(2))
            s.fail_keys = frozenset({failing})
            out = gw.complete_many([req(i) for i in range(4)] + [req(1)])
            assert s.created == 1 and gw.stats.sent == 4
        sent = [json.loads(x) for x in s.files["file-in-0"].decode().splitlines()]
        assert sorted(x["custom_id"] for x in sent) == sorted({r.key for r in out})
        assert sent[0]["body"]["model"] == "bm" and sent[0]["body"]["max_tokens"] == 4
        assert [r.text for r in out] == ["A:q0", "A:q1", None, "A:q3", "A:q1"]
        assert not out[2].ok and "server error" in str(out[2].error)
        assert not any(r.from_ledger for r in out)
        assert [r.cost for r in out if r.ok] == [4.0] * 4
        entries = {e["key"]: e for e in read_entries(ledger)}
        assert len(entries) == 4 and entries[failing]["error"] == out[2].error
        ok = entries[out[0].key]
        assert ok["response"] == "A:q0" and ok["tags"] == {"i": 0} and ok["tries"] == 1
        assert ok["usage"] == {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}

        s.fail_keys = frozenset()
        with gateway(s.url, ledger) as gw:
            again = gw.complete_many([req(i) for i in range(4)])
        assert s.created == 2, "only the failed request goes in a new batch"
        second = [json.loads(x)["custom_id"] for x in s.files["file-in-1"].decode().splitlines()]
        assert second == [failing]
        assert [r.from_ledger for r in again] == [True, True, False, True]
        assert [r.text for r in again] == ["A:q0", "A:q1", "A:q2", "A:q3"]


def test_a_stage_killed_after_submitting_polls_the_same_batch_when_rerun(tmp_path: Path) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeBatches(answer=answer, polls=3) as s:
        with gateway(s.url, ledger, clock=KilledWhileWaiting()) as gw, pytest.raises(Killed):
            gw.complete_many([req(i) for i in range(3)])
        assert s.created == 1 and not list(read_entries(ledger))
        (pending,) = BatchJournal(journal_path(ledger)).batches().values()
        assert pending.batch_id == "batch_1" and not pending.collected

        with gateway(s.url, ledger) as gw:
            out = gw.complete_many([req(i) for i in range(3)])
        assert s.created == 1, "the rerun polls the batch it submitted"
        assert [r.text for r in out] == ["A:q0", "A:q1", "A:q2"]
        assert len(list(read_entries(ledger))) == 3
        assert BatchJournal(journal_path(ledger)).batches()[pending.digest].collected

        polls = s.polls
        with gateway(s.url, ledger) as gw:
            served = gw.complete_many([req(i) for i in range(3)])
        assert all(r.from_ledger for r in served) and [r.text for r in served] == [
            r.text for r in out
        ]
        assert (s.created, s.polls) == (1, polls), "answers in the ledger reach no server"


def test_batch_and_direct_requests_travel_side_by_side(tmp_path: Path) -> None:
    with (
        FakeBatches(answer=answer) as s,
        FakeOpenAI(answer=answer) as direct,
        gateway(s.url, tmp_path / "l.jsonl", direct_url=direct.url) as gw,
    ):
        out = gw.complete_many([req(0), req(1, "direct"), req(2)])
    assert [r.text for r in out] == ["A:q0", "A:q1", "A:q2"]
    assert direct.requests == 1 and s.created == 1


def positions(messages: list[dict[str, Any]]) -> list[tuple[str, float, list[tuple[str, float]]]]:
    lean = -0.3 if "q0" in messages[-1]["content"] else -1.9
    return [(" Yes", lean, [(" Yes", lean), (" No", -0.6), (" Maybe", -3.0)])]


def test_answer_logprob_requests_travel_in_the_batch_and_read_as_sent_directly(
    tmp_path: Path,
) -> None:
    def asked(i: int, model: str) -> LLMRequest:
        return LLMRequest(
            model,
            [{"role": "user", "content": f"q{i}"}],
            params={"answers": ["Yes", "No"]},
            kind=ANSWER_LOGPROBS,
        )

    with (
        FakeBatches(answer=answer, chat_logprobs=positions) as s,
        FakeOpenAI(answer=answer, chat_logprobs=positions) as direct,
        gateway(s.url, tmp_path / "l.jsonl", direct_url=direct.url) as gw,
    ):
        batched = gw.complete_many([asked(0, "bm"), asked(1, "bm"), req(2)])
        one_by_one = gw.complete_many([asked(0, "direct"), asked(1, "direct")])
        lines = [json.loads(x) for x in s.files["file-in-0"].decode().splitlines()]
    assert s.created == 1 and len(lines) == 3, "chat and answer log-probabilities in one job"
    asks = [x["body"] for x in lines if x["body"].get("logprobs")]
    assert len(asks) == 2 and all(b["top_logprobs"] == TOP_LOGPROBS for b in asks)
    assert all("answers" not in b for b in asks), "the allowed answers are never sent"
    assert all(r.ok for r in batched + one_by_one)
    assert [r.text for r in batched[:2]] == [r.text for r in one_by_one]
    assert [r.served_model for r in batched] == ["bm", "bm", "bm"]
    assert batched[2].text == "A:q2"
    first = answer_distribution(batched[0].text or "")
    assert first[0] > first[1] and AnswerLogprobs.from_json(batched[0].text or "").method == (
        "top_logprobs"
    )


def test_the_ceiling_bounds_what_a_batch_submits(tmp_path: Path) -> None:
    # A batched request's worst case: (ceil(2/3) + 8 prompt + 4) tokens * $0.5 = $6.5;
    # $15 admits two ($13), the third would reach $19.5.
    ledger = tmp_path / "l.jsonl"
    with FakeBatches(answer=answer) as s:
        with gateway(s.url, ledger, ceiling=15.0) as gw:
            out = gw.complete_many([req(i) for i in range(4)])
            keys = sorted(r.key for r in out)
            assert gw.ceiling.spent_usd == 8.0
        lines = [json.loads(x)["custom_id"] for x in s.files["file-in-0"].decode().splitlines()]
    assert lines == keys[:2], "admitted in key order"
    assert sum(r.ok for r in out) == 2
    assert all(str(r.error).startswith(NOT_SENT_CEILING) for r in out if not r.ok)
    assert len(list(read_entries(ledger))) == 2


def test_an_entry_that_cannot_batch_is_refused_at_the_check(tmp_path: Path) -> None:
    models = {
        "inproc": model_spec("inproc", "baseline/always-yes", batch=True),
        "together": model_spec("together", "together_ai/x/y", batch=True, api_key_env=None),
    }
    with Gateway(
        models, tmp_path / "l.jsonl", stage="t", settings=llm_settings(progress=False)
    ) as gw:
        with pytest.raises(ModelConfigError, match="in-process model answers at once"):
            gw.check(["inproc"])
        with pytest.raises(ModelConfigError, match="set api_base"):
            gw.check(["together"])


def test_the_journal_lives_beside_the_file_the_ledger_appends_to() -> None:
    assert journal_path("data/llm/evaluate/m.jsonl") == Path("data/llm/evaluate/m.jsonl.batches")


def test_in_a_dvc_project_the_journal_sits_beside_the_response_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / ".dvc" / "cache"
    ledger = Path("data/llm/test/bm.jsonl")
    with FakeBatches(answer=answer) as s, gateway(s.url, ledger, cache_dir=cache) as gw:
        out = gw.complete_many([req(0), req(1)])
        gw.finish()
    store = cache / "prescient" / "responses" / ledger
    assert journal_path(store).exists() and not journal_path(ledger).exists()
    snapshot = {e["key"]: e["response"] for e in read_entries(ledger)}
    assert snapshot == {r.key: r.text for r in out} and len(list(read_entries(store))) == 2


def test_a_status_read_failing_for_a_passing_reason_is_retried_and_a_refusal_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = OpenAIBatchAPI._request
    faults: list[str] = []

    async def flaky(self: OpenAIBatchAPI, method: str, path: str, **kw: Any) -> bytes:
        if method == "GET" and path.startswith("/batches/") and "503" not in faults:
            faults.append("503")
            raise BatchError(f"{method} {path}: HTTP 503", 503)
        if method == "POST" and path == "/batches" and "refuse" in faults:
            raise BatchError(f"{method} {path}: HTTP 400: batches are off", 400)
        return await real(self, method, path, **kw)

    monkeypatch.setattr(OpenAIBatchAPI, "_request", flaky)
    ledger = tmp_path / "l.jsonl"
    with FakeBatches(answer=answer) as s:
        with gateway(s.url, ledger) as gw:
            assert gw.complete(req(0)).text == "A:q0"
        assert faults == ["503"] and s.created == 1
        faults.append("refuse")
        with gateway(s.url, ledger) as gw:
            refused = gw.complete(req(1))
        assert s.created == 1
    assert (
        not refused.ok
        and refused.error == "batch: BatchError: POST /batches: HTTP 400: batches are off"
    )
    assert [e["error"] for e in read_entries(ledger)] == [None, refused.error]


def never_twice_at_once(journal: Path) -> None:
    """No key was in two batches the journal had not collected at the same time."""
    open_keys: dict[str, set[str]] = {}
    for line in journal.read_text().splitlines():
        rec = json.loads(line)
        if rec["event"] == "submitting":
            pending = set().union(*open_keys.values()) if open_keys else set()
            assert not pending & set(rec["keys"]), "a key submitted twice at once"
            open_keys[rec["digest"]] = set(rec["keys"])
        elif rec["event"] == "collected":
            open_keys.pop(rec["digest"], None)


@pytest.mark.parametrize("failure", ["expired", "cancelled", "every line 500"])
def test_a_batch_that_failed_as_a_whole_is_sent_again_once_the_server_is_healthy(
    tmp_path: Path, failure: str
) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeBatches(answer=answer, ended=failure) as s:
        for attempt in (1, 2):
            with gateway(s.url, ledger) as gw:
                keys = frozenset(gw.key_for(req(i)) for i in range(3))
                if failure in ("expired", "cancelled"):
                    s.expire_after = 0
                else:
                    s.fail_keys = keys
                out = gw.complete_many([req(i) for i in range(3)])
                assert not any(r.ok for r in out) and s.created == attempt
                assert (gw.stats.sent, gw.stats.sent_failed, gw.stats.collected) == (3, 3, 0)
        s.expire_after, s.fail_keys = None, frozenset()
        with gateway(s.url, ledger) as gw:
            out = gw.complete_many([req(i) for i in range(3)])
            assert (gw.stats.sent, gw.stats.sent_failed) == (3, 0)
            assert "3 sent to models (0 failed" in gw.stats.describe()
        assert s.created == 3, "each rerun is a new attempt, not a reread of the failed one"
        assert [r.text for r in out] == ["A:q0", "A:q1", "A:q2"]
        for n in range(3):
            lines = s.files[f"file-in-{n}"].decode().splitlines()
            sent = [json.loads(x)["custom_id"] for x in lines]
            assert sorted(sent) == sorted(keys) and len(set(sent)) == len(sent)
        digests = {b["metadata"]["prescient_batch"] for b in s.batches.values()}
        assert len(digests) == 3
    journal = BatchJournal(journal_path(ledger)).batches()
    assert len(journal) == 3 and all(b.collected for b in journal.values())
    never_twice_at_once(journal_path(ledger))
    with gateway(s.url, ledger) as gw:
        assert all(r.from_ledger for r in gw.complete_many([req(i) for i in range(3)]))


def test_a_rerun_counts_a_pending_batch_as_collected_not_sent(tmp_path: Path) -> None:
    ledger = tmp_path / "l.jsonl"
    with FakeBatches(answer=answer, polls=3) as s:
        with gateway(s.url, ledger, clock=KilledWhileWaiting()) as gw, pytest.raises(Killed):
            gw.complete_many([req(i) for i in range(3)])
        with gateway(s.url, ledger) as gw:
            out = gw.complete_many([req(i) for i in range(3)] + [req(3)])
            assert (gw.stats.sent, gw.stats.collected) == (1, 3)
            assert "1 sent to models" in gw.stats.describe()
            assert "3 collected from earlier batches (0 failed)" in gw.stats.describe()
        assert s.created == 2 and all(r.ok for r in out)
    never_twice_at_once(journal_path(ledger))
