"""JSON Lines: one parser of a line for every reader, every failure named.

:func:`parse_json` is how every JSON Lines reader of the project reads a line: the
model-call ledger, the batch journal, the response store's run log, and the files people
write or edit (:func:`json_lines`). A line fails with :class:`LineError`, whose message
says why: not UTF-8 (and where), not JSON, nested too deeply (a recursion the parser
cannot finish), a lone surrogate (``"\\ud800"``, where a reader asks for text that can
be written again), not an object (where a reader asks for one). Each reader then skips
the line and names it (file and line), or stops with that name, by its own rule.

Manifests, annotators' ratings, chain timelines and imported question or chain files are
read line by line with :func:`json_lines`; a line that is not JSON must be reported with
its file line (and the reader decides whether it stops or lists every bad line), so the
user can open the file at that line. Blank lines are skipped (an editor's trailing
newline is no error), and a byte order mark at the start is ignored.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

logger = logging.getLogger(__name__)


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


NESTED = "nested too deeply"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class LineError(ValueError):
    """A line that is not what its reader asks for; the message says why.

    Attributes:
        reason: the why without its kind: the byte of bad UTF-8 (``byte 7``) or the
            parser's message for a line that is not JSON, else the message itself.
        not_utf8: the line is not UTF-8.
    """

    def __init__(self, message: str, reason: str | None = None, not_utf8: bool = False) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason
        self.not_utf8 = not_utf8


def _problem(exc: ValueError | RecursionError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, RecursionError):
        return NESTED
    return str(exc).split(";")[0]  # e.g. an integer longer than Python's digit limit


def parse_json(raw: bytes | str, *, surrogates: bool = True, want_object: bool = False) -> Any:
    """The JSON value of one line.

    Args:
        raw: the line (bytes are decoded as UTF-8).
        surrogates: False: a string holding a lone surrogate (an escape JSON allows but
            UTF-8 cannot write) fails the line.
        want_object: a value that is not a JSON object fails the line.

    Raises:
        LineError: ``not UTF-8 (byte N)``, ``not JSON (why)``, ``nested too deeply``,
            ``a lone surrogate``, or ``a JSON list, not an object``.
    """
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte {exc.start}"
            raise LineError(f"not UTF-8 ({where})", where, not_utf8=True) from None
    try:
        value = json.loads(raw)
        # A lone surrogate can only come from a \uD800-\uDFFF escape: only a line that
        # has one is written out again to find it.
        if not surrogates and _SURROGATE_ESCAPE.search(raw):
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        raise LineError(NESTED) from None
    except UnicodeEncodeError:
        raise LineError("a lone surrogate") from None
    except ValueError as exc:  # JSONDecodeError, and integers over Python's digit limit
        why = _problem(exc)
        raise LineError(f"not JSON ({why})", why) from None
    if want_object and not isinstance(value, dict):
        kind = {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
            type(value), "number"
        )
        raise LineError(f"a JSON {kind}, not an object")
    return value


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
                value = json.loads(raw)
            except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
                yield JsonLine(number, None, _problem(exc))
            else:
                yield JsonLine(number, value)


def cut_partial_tail(fh: IO[bytes], path: str | os.PathLike[str]) -> int:
    """Truncate a partial last line left by a killed writer of an append-only JSON Lines
    file (``fh`` open for appending and reading, under the writer's lock); returns the
    end of the file."""
    size = fh.seek(0, os.SEEK_END)
    if size == 0:
        return 0
    fh.seek(size - 1)
    if fh.read(1) == b"\n":
        return size
    pos = size - 1
    while pos > 0:
        step = min(4096, pos)
        fh.seek(pos - step)
        chunk = fh.read(step)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            pos = pos - step + nl + 1
            break
        pos -= step
    logger.warning("%s: cutting a partial last line of %d bytes", Path(path), size - pos)
    fh.truncate(pos)
    return fh.seek(0, os.SEEK_END)
