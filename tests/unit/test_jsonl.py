"""JSON Lines as people write them (numbered lines, blank lines skipped, failures named),
and the one line parser every reader of machine-written logs shares."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from prescient.jsonl import JsonLine, LineError, json_lines, parse_json


def test_lines_are_numbered_in_the_file_and_failures_named(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text(
        '\ufeff{"a": 1}\n'  # a byte order mark is no part of the first line
        "\n"
        "   \n"
        "[1, 2]\n"
        "{not json\n"
        f"{deep}\n"
        f"{'9' * 5000}\n"
        '"last"',  # no final newline
        encoding="utf-8",
    )
    lines = list(json_lines(path))
    assert [ln.number for ln in lines] == [1, 4, 5, 6, 7, 8]
    assert lines[0] == JsonLine(1, {"a": 1})
    assert lines[1] == JsonLine(4, [1, 2])
    assert lines[2] == JsonLine(5, None, "Expecting property name enclosed in double quotes")
    assert lines[3] == JsonLine(6, None, "nested too deeply")
    assert lines[4].value is None and lines[4].error is not None
    assert lines[4].error.startswith("Exceeds the limit (4300 digits)")
    assert lines[5] == JsonLine(8, "last")


def test_an_empty_file_has_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    assert list(json_lines(path)) == []


# -- one parser of a line for every reader --------------------------------------------

BAD_LINES = {
    "deep nesting": b"[" * 200_000 + b"]" * 200_000,
    "deep nesting in an object": b'{"a": ' + b"[" * 200_000,
    "invalid UTF-8": b'{"a": "\xff"}',
    "a UTF-8 encoded surrogate": b'{"a": "\xed\xa0\x80"}',
    "a lone surrogate": b'{"a": "x\\ud800"}',
    "an array": b'["a", 1]',
    "a torn line": b'{"a": 1, "b": "cut he',
}
WHY = {
    "deep nesting": "nested too deeply",
    "deep nesting in an object": "nested too deeply",
    "invalid UTF-8": "not UTF-8 (byte 7)",
    "a UTF-8 encoded surrogate": "not UTF-8 (byte 7)",
    "a lone surrogate": "a lone surrogate",
    "an array": "a JSON list, not an object",
    "a torn line": "not JSON (Unterminated string starting at)",
}


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_the_line_parser_names_why_a_line_is_not_an_object(kind: str) -> None:
    with pytest.raises(LineError) as err:
        parse_json(BAD_LINES[kind], surrogates=False, want_object=True)
    assert str(err.value).startswith(WHY[kind].removesuffix(")").removesuffix(" at"))
    assert parse_json(b'{"a": "\\u00e9"}', surrogates=False, want_object=True) == {"a": "é"}
    # A reader that keeps replies as they came takes a lone surrogate as it is.
    assert parse_json(b'{"a": "x\\ud800"}') == {"a": "x\ud800"}


def _run(sent: int) -> bytes:
    return json.dumps({"stage": "s", "ledger": "l.jsonl", "sent": sent}).encode()


def _journal_record() -> bytes:
    keys = ["k1"]
    return json.dumps({"event": "submitting", "digest": "d1", "model": "m", "keys": keys}).encode()


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_every_machine_written_reader_skips_and_names_a_bad_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    """The run log (``ledger runs`` and the update's count), the batch journal, the
    corpus reader and the ledger read the same bad line the same way: the good lines
    around it are kept and the bad one is named."""
    from prescient.corpus.readers import read_jsonl
    from prescient.llm.batch import BatchJournal
    from prescient.llm.ledger_format import parse_line
    from prescient.plumbing.llm_cli import read_runs
    from prescient.plumbing.update import calls_sent

    bad = BAD_LINES[kind]
    log = tmp_path / "runs.jsonl"
    log.write_bytes(_run(2) + b"\n" + bad + b"\n" + _run(3) + b"\n")
    skipped: list[str] = []
    assert [r["sent"] for r in read_runs(log, skipped)] == [2, 3]
    assert skipped == [f"line 2: {WHY[kind]}"] or skipped[0].startswith("line 2: not JSON")
    with caplog.at_level(logging.WARNING):
        assert calls_sent(log, 0) == {"l.jsonl": 5}
    assert any("line 2:" in r.getMessage() for r in caplog.records)
    caplog.clear()

    journal = tmp_path / "l.jsonl.batches"
    journal.write_bytes(_journal_record() + b"\n" + bad + b"\n")
    with caplog.at_level(logging.WARNING):
        assert list(BatchJournal(journal).batches()) == ["d1"]
    assert any(f"{journal}: line 2 skipped" in r.getMessage() for r in caplog.records)

    # The corpus reader counts the line under a named reason, with its file and line.
    news = tmp_path / "news.jsonl"
    article = {"date": "2024-05-01", "title": "t", "text": "x", "url": "u", "source_domain": "d"}
    news.write_bytes(json.dumps(article).encode() + b"\n" + bad + b"\n")
    units = list(read_jsonl(news, {f: f for f in article}, max_bytes=1 << 22))
    reasons = [getattr(u, "reason", None) for u in units]
    assert reasons[0] is None and reasons[1] in ("malformed_json", "invalid_utf8"), reasons
    assert len(units) == 2 and getattr(units[1], "detail", "")

    entry, problem = parse_line(bad)
    if kind == "a lone surrogate":  # a reply may hold one: kept, then checked as an entry
        assert entry is None and problem is not None and "surrogate" not in problem
    else:
        assert entry is None and problem is not None
        assert problem.startswith(("unreadable line", "not UTF-8", "not a ledger entry"))
