"""JSON Lines as people write them: numbered lines, blank lines skipped, failures named."""

from __future__ import annotations

from pathlib import Path

from prescient.jsonl import JsonLine, json_lines


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
