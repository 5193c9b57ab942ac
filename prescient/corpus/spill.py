"""Where ingest keeps article texts while it decides which articles to keep.

Which articles are kept is decided over the whole corpus (the first known copy of each
story wins, mastheads count an outlet's titles), but the decision needs no text: only
each text's hash. So ingest hands every candidate's text to a spill, keyed by its input
order and filed under the month of its date, and holds small records in memory; the
article table is then written month by month, each month's texts read back alone. At
the paper's size (1.25 million articles, about 7 GB of text) the stage holds one month
of text at a time instead of all of it.

A text that is kept already (an input file read on an earlier run, whose texts are in
ingest's kept work, :mod:`prescient.corpus.kept_files`) comes as a :class:`Deferred`
reference instead: it is read only if its month is written again, so a daily update,
which writes one month, reads that month's kept texts and no others.

:class:`MemorySpill` keeps the texts in a dict (small inputs, tests);
:class:`DiskSpill` writes them to zstd-compressed Arrow files in a temporary directory
once the texts buffered pass a byte budget.
"""

from __future__ import annotations

import concurrent.futures
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pyarrow as pa
import pyarrow.ipc as ipc

FLUSH_BYTES = 128 * 1024 * 1024
"""Texts buffered in memory before a :class:`DiskSpill` writes them out."""


class TextSource(Protocol):
    """Where deferred texts are read: every text kept under ``key``, in order."""

    def texts(self, key: bytes) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Deferred:
    """A text not read yet: the ``index``-th of the texts ``source`` holds under ``key``."""

    source: TextSource
    key: bytes
    index: int


def resolve(deferred: Iterable[tuple[int, Deferred]]) -> dict[int, str]:
    """Deferred texts by order, each source's key read once (in the order first asked)."""
    by_key: dict[tuple[int, bytes], list[tuple[int, Deferred]]] = {}
    for order, d in deferred:
        by_key.setdefault((id(d.source), d.key), []).append((order, d))
    out: dict[int, str] = {}
    for pairs in by_key.values():
        texts = pairs[0][1].source.texts(pairs[0][1].key)
        out.update((order, texts[d.index]) for order, d in pairs)
    return out


class Spill(Protocol):
    def put(self, month: int, order: int, text: str | Deferred) -> None: ...

    def texts(self, month: int) -> dict[int, str]: ...

    def close(self) -> None: ...


class MemorySpill:
    """Every text in memory."""

    def __init__(self) -> None:
        self._by_month: dict[int, dict[int, str | Deferred]] = defaultdict(dict)

    def put(self, month: int, order: int, text: str | Deferred) -> None:
        self._by_month[month][order] = text

    def texts(self, month: int) -> dict[int, str]:
        found = self._by_month.pop(month, {})
        out = {o: t for o, t in found.items() if isinstance(t, str)}
        out.update(resolve((o, t) for o, t in found.items() if isinstance(t, Deferred)))
        return out

    def close(self) -> None:
        self._by_month.clear()


class DiskSpill:
    """Texts in Arrow files under a temporary directory inside ``parent`` (removed on
    :meth:`close`), one or more files per month. A full buffer is written while the next
    fills, so memory holds up to two buffers of ``flush_bytes``."""

    def __init__(self, parent: Path, flush_bytes: int | None = None) -> None:
        parent.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix=".ingest-spill-", dir=parent))
        self.flush_bytes = FLUSH_BYTES if flush_bytes is None else flush_bytes
        self._orders: dict[int, list[int]] = defaultdict(list)
        self._texts: dict[int, list[str]] = defaultdict(list)
        self._buffered = 0
        self._files: dict[int, list[Path]] = defaultdict(list)
        self._deferred: dict[int, list[tuple[int, Deferred]]] = defaultdict(list)
        # a full buffer is written on another thread (its compression runs without the
        # GIL) while the next one fills; one write at a time, waited for before reading
        self._writer = concurrent.futures.ThreadPoolExecutor(1)
        self._writing: concurrent.futures.Future[None] | None = None

    def put(self, month: int, order: int, text: str | Deferred) -> None:
        if isinstance(text, Deferred):  # kept elsewhere already: only the reference
            self._deferred[month].append((order, text))
            return
        self._orders[month].append(order)
        self._texts[month].append(text)
        self._buffered += len(text)
        if self._buffered >= self.flush_bytes:
            self._flush()

    def _flush(self) -> None:
        self._wait()
        batch = [(month, self._orders[month], self._texts[month]) for month in sorted(self._orders)]
        for month, _, _ in batch:
            self._files[month].append(self.root / f"{month}-{len(self._files[month])}.arrow")
        paths = [self._files[month][-1] for month, _, _ in batch]
        self._writing = self._writer.submit(_write_batch, batch, paths)
        self._orders = defaultdict(list)
        self._texts = defaultdict(list)
        self._buffered = 0

    def _wait(self) -> None:
        if self._writing is not None:
            writing, self._writing = self._writing, None
            writing.result()

    def texts(self, month: int) -> dict[int, str]:
        self._wait()
        out: dict[int, str] = {}
        for path in self._files.pop(month, []):
            with ipc.open_file(path) as reader:
                table = reader.read_all()
            out.update(zip(table["order"].to_pylist(), table["text"].to_pylist(), strict=True))
            path.unlink()
        out.update(zip(self._orders.pop(month, []), self._texts.pop(month, []), strict=True))
        out.update(resolve(self._deferred.pop(month, [])))
        return out

    def close(self) -> None:
        try:
            self._wait()
        finally:
            self._writer.shutdown()
            shutil.rmtree(self.root, ignore_errors=True)


def _write_batch(batch: list[tuple[int, list[int], list[str]]], paths: list[Path]) -> None:
    """Write each month's buffered texts to its spill file."""
    options = ipc.IpcWriteOptions(compression="zstd")
    for (_, orders, texts), path in zip(batch, paths, strict=True):
        table = pa.table(
            {"order": pa.array(orders, pa.int64()), "text": pa.array(texts, pa.large_string())}
        )
        with ipc.new_file(path, table.schema, options=options) as writer:
            writer.write_table(table)
