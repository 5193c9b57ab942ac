"""The article table on disk: one Parquet file per month of dates, written again only
when its month's rows change.

``ingest`` writes the table as a directory (``articles.parquet/``, the layout pyarrow,
pandas and Spark read as one table): ``YYYY-MM.parquet`` for every month that has
articles, sorted by (date, article_id) within it (row groups of :data:`ROW_GROUP_ROWS`
rows), so the files in name order are the table in row order, and ``_parts.json`` (:data:`prescient.io.TABLE_MANIFEST`), which
names each part's rows by a digest (:func:`month_key`), and gives its row count, its
size in bytes and its :func:`prescient.io.frame_checksum`. ``pd.read_parquet`` on the
directory reads the whole table; the project's readers go through
:class:`prescient.io.ParquetTable`, which also reads a table in one file.

A daily update brings one new day: its month's part is written again, and every other
part is the same rows as before, so it is kept as it is (linked into the new directory,
not encoded and digested again, and DVC finds its hash in its state database rather
than reading it). The whole directory is replaced at once (:func:`prescient.io.atomic_dir`),
so a reader, or a killed run, never sees a mix of old and new parts. A part is kept only
when its recorded key, size and file agree; the key also covers the code and library
that turn rows into bytes (:func:`_writer_digest`), so a kept part is always the bytes
a fresh write would give.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io

logger = logging.getLogger(__name__)

FORMAT = 1
"""What ``_parts.json`` holds."""
ROW_GROUP_ROWS = 1024
"""Rows of a part's row group, about two days of news at the paper's size: a reader of
a few articles' texts (the annotation sample's, FreshBench's drawn documents) decodes
the row groups that hold them, not whole months."""


def part_name(month: int) -> str:
    """A month's part name, ``YYYY-MM`` (``month``: :func:`prescient.dates.month_index`)."""
    return f"{month // 12:04d}-{month % 12 + 1:02d}"


def _writer_digest(empty: pd.DataFrame, writers: Iterable[Callable[..., Any]]) -> bytes:
    """What turns a month's rows into a file's bytes besides the rows: the table's
    columns and dtypes, the functions that build and write the frame (their source), the
    page options, the row groups' size and the Parquet library's version."""
    import pyarrow as pa

    h = hashlib.sha256(b"article table part\n")
    h.update(json.dumps([[c, str(t)] for c, t in empty.dtypes.items()]).encode())
    h.update(str(pa.Schema.from_pandas(empty, preserve_index=False)).encode())
    for fn in (*writers, io.write_parquet_parts):
        h.update(inspect.getsource(fn).encode())
    h.update(json.dumps([io.TEXT_PAGES, ROW_GROUP_ROWS], sort_keys=True).encode())
    h.update(pa.__version__.encode())
    return h.digest()


def month_key(writer: bytes, rows: Iterable[Iterable[Any]]) -> str:
    """A month part's key: the writer's digest (:func:`_writer_digest`) and the month's
    rows (every column but the text, which its digest column stands for), in any order:
    each row's values as text (a day in ISO form, whatever its class), its ``repr``
    quoting them, so no two rows read alike, sorted."""
    lines = sorted(repr([v if v is None or type(v) is str else str(v) for v in r]) for r in rows)
    h = hashlib.sha256(writer)
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()


def read_manifest(out: Path) -> dict[str, dict[str, Any]]:
    """The parts ``_parts.json`` of the table directory ``out`` records (none: a table
    in one file, no directory, or a manifest that cannot be read, which keeps no part)."""
    try:
        found = json.loads((out / io.TABLE_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        return {}
    parts = found.get("parts")
    return parts if isinstance(parts, dict) else {}


class MonthParts:
    """Write the article table as month parts into ``out``, keeping the unchanged ones.

    Args:
        out: the table directory (an older table there, a directory or a single file,
            is replaced when :meth:`write` completes).
        empty: the table's columns and dtypes, no rows.
        writers: the functions whose code decides a part's bytes (see
            :func:`_writer_digest`).
        written: called with each part file written and its checksum (a kept part
            was reported when it was written).
    """

    def __init__(
        self,
        out: Path,
        empty: pd.DataFrame,
        writers: Iterable[Callable[..., Any]],
        written: Callable[[Path, str], None] | None = None,
    ) -> None:
        self.out = out
        self.empty = empty
        self.on_written = written
        self.writer = _writer_digest(empty, writers)
        self.old = read_manifest(out) if out.is_dir() else {}
        self.kept = 0
        self.written = 0

    def _reusable(self, name: str, key: str) -> Path | None:
        was = self.old.get(name)
        file = self.out / f"{name}.parquet"
        if not isinstance(was, dict) or was.get("key") != key:
            return None
        try:
            size = file.stat().st_size
        except OSError:
            return None
        return file if size == was.get("bytes") else None

    def write(
        self, months: Iterable[tuple[str, list[list[Any]], Callable[[], pd.DataFrame]]]
    ) -> str:
        """Write the table: each month's name, its rows' key values (:func:`month_key`)
        and a function building its frame (called only for a part written again), in
        month order. Returns the table's checksum (:func:`prescient.io.parts_checksum`)."""
        parts: dict[str, dict[str, Any]] = {}
        with io.atomic_dir(self.out) as tmp:
            for name, rows, frame in months:
                key = month_key(self.writer, rows)
                target = tmp / f"{name}.parquet"
                found = self._reusable(name, key)
                if found is not None:
                    _link(found, target)
                    parts[name] = dict(self.old[name])
                    self.kept += 1
                    continue
                df = frame()
                digest = io.write_parquet_parts(
                    target, [df], self.empty, text=True, row_group_rows=ROW_GROUP_ROWS
                )
                if self.on_written is not None:
                    self.on_written(target, digest.hexdigest())
                parts[name] = {
                    "key": key,
                    "rows": len(df),
                    "bytes": target.stat().st_size,
                    "checksum": digest.hexdigest(),
                }
                self.written += 1
            if not parts:  # no article: one empty part keeps the columns
                digest = io.write_parquet_parts(tmp / "empty.parquet", [], self.empty, text=True)
                parts["empty"] = {
                    "key": month_key(self.writer, []),
                    "rows": 0,
                    "bytes": (tmp / "empty.parquet").stat().st_size,
                    "checksum": digest.hexdigest(),
                }
            manifest = {"format": FORMAT, "parts": parts}
            (tmp / io.TABLE_MANIFEST).write_text(
                json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8"
            )
        logger.info("article table: %d month parts kept, %d written", self.kept, self.written)
        return io.parts_checksum({n: p["checksum"] for n, p in parts.items()})


def _link(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source`` (a copy where the file system has none)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
