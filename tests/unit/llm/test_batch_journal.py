"""The batch journal's reader survives any line, naming what it skips, and a torn last
line is cut before the next append."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from prescient.llm.batch import BatchJournal, JournalBatch, attempt_of, batch_digest

GOOD = [
    {"event": "submitting", "digest": "d1", "model": "m", "keys": ["a", "b"]},
    {"event": "submitted", "digest": "d1", "batch_id": "batch_1"},
]

BAD = {
    "not JSON": b"{not json",
    "an array": b'["submitting", "d2"]',
    "a number": b"42",
    "a string": b'"submitting"',
    "a missing field": b'{"event": "submitting", "digest": "d2", "model": "m"}',
    "a key not a string": b'{"event": "submitting", "digest": "d2", "model": "m", "keys": [1]}',
    "a wrong type": b'{"event": "submitted", "digest": "d1", "batch_id": 7}',
    "a digest not a string": b'{"event": "collected", "digest": ["d1"]}',
    "an unknown event": b'{"event": "lost", "digest": "d1"}',
    "an unhashable event": b'{"event": ["collected"], "digest": "d1"}',
    "deep nesting": b"[" * 100000,
    "deep nesting in an object": b'{"event": "collected", "digest": ' + b"[" * 100000,
    "invalid UTF-8": b'{"event": "collected", "digest": "d1\xff"}',
    "a UTF-8 encoded surrogate": b'{"event": "collected", "digest": "\xed\xa0\x80"}',
    "a lone surrogate": b'{"event": "collected", "digest": "d1\\ud800"}',
    "a lone surrogate key": (
        b'{"event": "submitting", "digest": "d3", "model": "m", "keys": ["\\udfff"]}'
    ),
}


def lines(*records: dict[str, object]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_line_that_is_no_record_is_skipped_and_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    path = tmp_path / "l.jsonl.batches"
    path.write_bytes(lines(GOOD[0]) + BAD[kind] + b"\n" + lines(GOOD[1]))
    with caplog.at_level(logging.WARNING):
        found = BatchJournal(path).batches()
    assert found == {"d1": JournalBatch("d1", "m", ["a", "b"], "batch_1")}
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.startswith(f"{path}: line 2 skipped: ")


def test_every_bad_line_at_once_leaves_the_good_ones(tmp_path: Path) -> None:
    path = tmp_path / "j"
    path.write_bytes(lines(GOOD[0]) + b"\n".join(BAD.values()) + b"\n" + lines(GOOD[1]))
    journal = BatchJournal(path)
    assert journal.batches()["d1"].batch_id == "batch_1"
    journal.collected("d1", "completed")
    assert journal.batches()["d1"].collected


def test_a_torn_last_line_is_cut_before_the_next_append(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "j"
    whole = lines(*GOOD)
    path.write_bytes(whole + b'{"event": "collected", "dig')
    journal = BatchJournal(path)
    with caplog.at_level(logging.WARNING):
        assert not journal.batches()["d1"].collected
        journal.collected("d1", "completed")
    assert any(f"{path}: line 3 torn" in r.getMessage() for r in caplog.records)
    assert path.read_bytes() == whole + lines(
        {"digest": "d1", "event": "collected", "status": "completed"}
    ).replace(b" ", b"")
    assert journal.batches()["d1"].collected


def test_a_torn_only_line_is_cut_to_an_empty_journal(tmp_path: Path) -> None:
    path = tmp_path / "j"
    path.write_bytes(b'{"event": "subm')
    journal = BatchJournal(path)
    assert journal.batches() == {}
    journal.submitting(JournalBatch("d9", "m", ["k"]))
    assert journal.batches() == {"d9": JournalBatch("d9", "m", ["k"])}
    assert path.read_bytes().count(b"\n") == 1


def test_a_missing_journal_knows_no_batches(tmp_path: Path) -> None:
    assert BatchJournal(tmp_path / "none").batches() == {}


def test_an_attempt_counts_the_collected_batches_of_the_same_keys() -> None:
    known = [
        JournalBatch("x", "m", ["b", "a"], "batch_1", collected=True),
        JournalBatch("y", "m", ["a", "b"], "batch_2", collected=True),
        JournalBatch("z", "m", ["a", "b"], "batch_3"),  # pending: no attempt yet
        JournalBatch("w", "m", ["a"], "batch_4", collected=True),  # other keys
    ]
    assert attempt_of(["a", "b"], known) == 2
    assert batch_digest(["b", "a"]) == batch_digest(["a", "b"], 0)
    assert len({batch_digest(["a", "b"], n) for n in range(3)}) == 3
