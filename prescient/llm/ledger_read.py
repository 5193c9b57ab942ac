"""Reading a ledger file: every line with its entry or its problem, or the entries alone.

Readers never raise on content: a damaged line (:func:`prescient.llm.ledger_format.parse_line`)
is skipped and counted with its line number, and a partial last line (an interrupted
write) ends the file; the next writer cuts it off before appending
(:mod:`prescient.llm.ledger`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from prescient.llm.ledger_file import is_compressed, recovered_lines
from prescient.llm.ledger_format import parse_line
from prescient.llm.text_pool import POOLED, TextPool, expand_entry, expand_with, open_pool

logger = logging.getLogger(__name__)


class Line(NamedTuple):
    """One line of a ledger file."""

    number: int
    entry: dict[str, Any] | None
    problem: str | None


PARTIAL = "partial last line (an interrupted write; the next run cuts it)"


def iter_lines(path: str | os.PathLike[str], pool: TextPool | None = None) -> Iterator[Line]:
    """Every line of a ledger: its entry, or what is wrong with it. Never raises on content.

    A line whose texts sit in a text pool (:mod:`prescient.llm.text_pool`: the response
    store's lines, and a stage's ledger's) is read with them back in place, from
    ``pool`` (default: the pool beside a store file); a text the pool lacks, or whose
    bytes changed, is the line's problem.

    A compressed ledger file (a snapshot, or a store file's sealed part:
    :mod:`prescient.llm.ledger_file`) is read as its lines; each damaged stretch of it
    is one problem line, and the lines of the frames after it are read on.

    The audit (``prescient ledger verify``) needs the problems; readers that only want
    the entries use :func:`read_entries`.
    """
    path = Path(path)
    if not path.exists():
        return
    opened: TextPool | None = None  # the pool beside a store file, opened here
    try:
        compressed = is_compressed(path)
        with contextlib.ExitStack() as stack:
            raws: Iterable[bytes | str] = (
                recovered_lines(path) if compressed else stack.enter_context(open(path, "rb"))
            )
            for number, raw in enumerate(raws, start=1):
                if isinstance(raw, str):  # a damaged stretch of a compressed file
                    yield Line(number, None, raw)
                    continue
                if not raw.endswith(b"\n"):
                    yield Line(number, None, PARTIAL)
                    return
                entry, problem = parse_line(raw)
                if entry is not None and POOLED in entry:
                    if pool is None and opened is None:
                        opened = open_pool(path)
                    try:
                        entry = expand_entry(
                            entry, expand_with(pool if pool is not None else opened)
                        )
                    except (ValueError, OSError) as exc:
                        entry, problem = None, f"pooled texts unreadable: {exc}"
                yield Line(number, entry, problem)
    finally:
        if opened is not None:
            opened.close()


def read_entries(
    path: str | os.PathLike[str], pool: TextPool | None = None
) -> Iterator[dict[str, Any]]:
    """Well-formed entries of a ledger file in order (``pool``: see :func:`iter_lines`);
    damaged lines are skipped and logged."""
    skipped: list[str] = []
    for line in iter_lines(path, pool):
        if line.entry is None:
            skipped.append(f"line {line.number}: {line.problem}")
        else:
            yield line.entry
    if skipped:
        logger.warning(
            "%s: skipped %d damaged lines (%s); `python -m prescient ledger verify` lists them",
            path,
            len(skipped),
            "; ".join(skipped[:3]),
        )
