"""JSON Lines files written or edited by people: every line numbered, every failure named.

Manifests, annotators' ratings, chain timelines and imported question or chain files are
read line by line; a line that is not JSON must be reported with its file line (and
the reader decides whether it stops or lists every bad line), so the user can open the
file at that line. Blank lines are skipped (an editor's trailing newline is no error),
and a byte order mark at the start is ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JsonLine:
    """One non-blank line of a JSON Lines file.

    Attributes:
        number: the line's number in the file, from 1.
        value: the parsed value (any JSON value; None when ``error`` is set).
        error: why the line is not JSON (the parser's message), or None.
    """

    number: int
    value: Any
    error: str | None = None


def _problem(exc: ValueError | RecursionError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(";")[0]  # e.g. an integer longer than Python's digit limit


def json_lines(path: str | os.PathLike[str]) -> Iterator[JsonLine]:
    """Every non-blank line of ``path``, parsed, in file order.

    Raises:
        OSError: the file cannot be opened.
        UnicodeDecodeError: the file is not UTF-8.
    """
    with open(path, encoding="utf-8-sig") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                line = JsonLine(number, json.loads(raw))
            except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
                line = JsonLine(number, None, _problem(exc))
            yield line
