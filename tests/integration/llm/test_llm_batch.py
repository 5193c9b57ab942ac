"""Batches against a loopback server with the files and batches endpoints: partial
failures, an expired batch, kills at each step that never submit a batch twice, and a
model's requests cut into jobs submitted together up to a cap."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.batch import (
    BatchError,
    BatchJournal,
    JobLimits,
    Outcome,
    batch_digest,
    line_bytes,
    run_batch,
    split_jobs,
)
from prescient.llm.batch_openai import OpenAIBatchAPI, chat_reply_fields
from tests.support.fake_batches import FakeBatches


def bodies(n: int) -> dict[str, dict[str, Any]]:
    return {
        f"k{i:02d}": {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]}
        for i in range(n)
    }


class Killed(Exception):
    """Stands in for SIGKILL at a chosen step."""


async def no_wait(_: float) -> None:
    return None


def run(
    server: FakeBatches,
    journal: BatchJournal,
    requests: Mapping[str, Mapping[str, Any]],
    sleep: Any = no_wait,
    limits: JobLimits | None = None,
) -> dict[str, Outcome]:
    got: dict[str, Outcome] = {}

    async def record(results: Mapping[str, Outcome]) -> None:
        got.update(results)

    async def go() -> None:
        api = OpenAIBatchAPI(server.url, "sk-test", timeout_s=10)
        try:
            await run_batch(
                "m", requests, api, journal, record, poll_s=0.0, sleep=sleep,
                limits=limits or JobLimits(),
            )  # fmt: skip
        finally:
            await api.aclose()

    asyncio.run(go())
    return got


def test_a_batch_answers_every_request_and_records_its_failures(tmp_path: Path) -> None:
    journal = BatchJournal(tmp_path / "batches.jsonl")
    with FakeBatches(answer=lambda m: f"A:{m[-1]['content']}", fail_keys=frozenset({"k03"})) as s:
        got = run(s, journal, bodies(6))
        assert s.created == 1
        sent = [json.loads(x) for x in s.files["file-in-0"].decode().splitlines()]
    assert [x["custom_id"] for x in sent] == [f"k{i:02d}" for i in range(6)]
    assert sent[0]["url"] == "/v1/chat/completions" and sent[0]["method"] == "POST"
    assert set(got) == set(bodies(6))
    assert got["k03"].body is None and "server error" in str(got["k03"].error)
    text, finish, usage = chat_reply_fields(got["k01"].body or {})
    assert (text, finish, usage) == ("A:q1", "stop", {"prompt_tokens": 7, "completion_tokens": 1})
    (b,) = journal.batches().values()
    assert (b.batch_id, b.collected, b.digest) == ("batch_1", True, batch_digest(bodies(6)))


def test_an_expired_batch_names_the_requests_it_left(tmp_path: Path) -> None:
    with FakeBatches(expire_after=2) as s:
        got = run(s, BatchJournal(tmp_path / "b.jsonl"), bodies(4))
    assert [k for k, v in got.items() if v.body is not None] == ["k00", "k01"]
    assert got["k03"].error == "batch batch_1 expired without answering it"


def test_a_kill_while_polling_resumes_the_same_batch(tmp_path: Path) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")

    async def killed(_: float) -> None:
        raise Killed

    with FakeBatches(polls=3) as s:
        with pytest.raises(Killed):
            run(s, journal, bodies(5), sleep=killed)
        assert s.created == 1 and not journal.batches()[batch_digest(bodies(5))].collected
        got = run(s, journal, bodies(5))
        assert s.created == 1
    assert all(v.body is not None for v in got.values()) and len(got) == 5


def test_a_kill_between_creating_and_recording_finds_the_batch_by_its_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")

    def lost(digest: str, batch_id: str) -> None:
        raise Killed

    with FakeBatches() as s:
        monkeypatch.setattr(journal, "submitted", lost)
        with pytest.raises(Killed):
            run(s, journal, bodies(3))
        monkeypatch.undo()
        assert s.created == 1 and journal.batches()[batch_digest(bodies(3))].batch_id is None
        got = run(s, journal, bodies(3))
        assert s.created == 1
    assert len(got) == 3 and journal.batches()[batch_digest(bodies(3))].batch_id == "batch_1"


def test_a_kill_before_the_answers_are_kept_reads_the_batch_again(tmp_path: Path) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")
    with FakeBatches() as s:

        async def go(record: Any) -> None:
            api = OpenAIBatchAPI(s.url, None, timeout_s=10)
            try:
                await run_batch("m", bodies(2), api, journal, record, 0.0, no_wait)
            finally:
                await api.aclose()

        async def dies(_: Mapping[str, Outcome]) -> None:
            raise Killed

        with pytest.raises(Killed):
            asyncio.run(go(dies))
        got = run(s, journal, bodies(2))
        assert s.created == 1
    assert len(got) == 2


def test_new_requests_beside_a_pending_batch_go_in_a_batch_of_their_own(tmp_path: Path) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")

    async def killed(_: float) -> None:
        raise Killed

    with FakeBatches() as s:
        with pytest.raises(Killed):
            run(s, journal, bodies(2), sleep=killed)
        got = run(s, journal, bodies(4))
        assert s.created == 2
        second = [json.loads(x)["custom_id"] for x in s.files["file-in-1"].decode().splitlines()]
    assert second == ["k02", "k03"] and len(got) == 4


def test_a_batch_that_expired_whole_is_a_new_attempt_which_a_kill_resumes(
    tmp_path: Path,
) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")

    async def killed(_: float) -> None:
        raise Killed

    with FakeBatches(expire_after=0, polls=1) as s:
        got = run(s, journal, bodies(3))
        assert s.created == 1 and all(v.body is None for v in got.values())
        s.expire_after = None
        with pytest.raises(Killed):
            run(s, journal, bodies(3), sleep=killed)
        assert s.created == 2, "a new attempt, not the expired batch reread"
        got = run(s, journal, bodies(3))
        assert s.created == 2, "the pending attempt is polled, not submitted again"
        again = run(s, journal, bodies(3))
        assert s.created == 3, "a collected attempt is not found again"
    assert all(v.body is not None for v in got.values()) and len(got) == 3
    assert all(v.body is not None for v in again.values())
    digests = [b["metadata"]["prescient_batch"] for b in s.batches.values()]
    assert digests == [batch_digest(bodies(3), n) for n in range(3)]
    assert len(set(digests)) == 3 and all(b.collected for b in journal.batches().values())


def test_jobs_are_cut_by_the_limits_and_submitted_together_up_to_the_cap(
    tmp_path: Path,
) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")
    limits = JobLimits(max_requests=3, in_flight=2)
    with FakeBatches(answer=lambda m: f"A:{m[-1]['content']}", polls=1, hold=2) as s:
        got = run(s, journal, bodies(7), limits=limits)
        assert s.created == 3 and s.open_peak == 2, "two jobs out at once, never three"
        jobs = [
            [json.loads(x)["custom_id"] for x in s.files[b["input_file_id"]].decode().splitlines()]
            for b in s.batches.values()
        ]
    assert sorted(jobs) == [["k00", "k01", "k02"], ["k03", "k04", "k05"], ["k06"]]
    assert got["k06"].body is not None and len(got) == 7
    assert all(b.collected for b in journal.batches().values())


def test_a_byte_limit_cuts_jobs_and_a_request_over_it_is_a_job_of_its_own() -> None:
    sizes = {"a": 40, "b": 40, "c": 40, "d": 500, "e": 10}
    got = split_jobs(sorted(sizes), sizes, JobLimits(max_bytes=100))
    assert got == [["a", "b"], ["c"], ["d"], ["e"]]
    body = {"model": "m", "messages": [{"role": "user", "content": "é" * 10}]}
    assert line_bytes("k", body) >= len(json.dumps(body, ensure_ascii=False).encode())


def test_a_kill_resumes_the_pending_job_and_submits_only_the_jobs_never_sent(
    tmp_path: Path,
) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")
    limits = JobLimits(max_requests=2, in_flight=1)

    async def killed(_: float) -> None:
        raise Killed

    with FakeBatches(polls=1) as s:
        with pytest.raises(Killed):
            run(s, journal, bodies(5), sleep=killed, limits=limits)
        assert s.created == 1
        assert [b.keys for b in journal.batches().values()] == [["k00", "k01"]]
        got = run(s, journal, bodies(5), limits=limits)
        assert s.created == 3, "the pending job polled, the other two submitted once"
    assert len(got) == 5 and all(v.body is not None for v in got.values())
    assert [b.keys for b in journal.batches().values()] == [["k00", "k01"], ["k02", "k03"], ["k04"]]


def test_a_job_that_cannot_be_submitted_fails_alone(tmp_path: Path) -> None:
    journal = BatchJournal(tmp_path / "b.jsonl")
    failed: dict[str, str] = {}

    class Refusing(OpenAIBatchAPI):
        async def submit(self, bodies: Mapping[str, Mapping[str, Any]], digest: str) -> str:
            if "k02" in bodies:
                raise BatchError("POST /batches: HTTP 400: too large", 400)
            return await super().submit(bodies, digest)

    async def fail(keys: Sequence[str], exc: Exception) -> None:
        failed.update(dict.fromkeys(keys, str(exc)))

    with FakeBatches() as s:
        got: dict[str, Outcome] = {}

        async def record(results: Mapping[str, Outcome]) -> None:
            got.update(results)

        async def go() -> None:
            api = Refusing(s.url, None, timeout_s=10)
            try:
                await run_batch(
                    "m", bodies(6), api, journal, record, 0.0, no_wait,
                    limits=JobLimits(max_requests=2, in_flight=3), failed=fail,
                )  # fmt: skip
            finally:
                await api.aclose()

        asyncio.run(go())
        assert s.created == 2
    assert sorted(failed) == ["k02", "k03"] and "HTTP 400" in failed["k02"]
    assert sorted(got) == ["k00", "k01", "k04", "k05"]
