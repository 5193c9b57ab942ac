"""Each partition's context tables, kept between runs (params ``retrieval.reuse``).

``retrieve`` writes, for every partition of the evaluation (a month of resolution dates,
:mod:`prescient.evaluation.partitions`) and every setting, the context table its
questions are shown. A daily update changes one partition; the others' tables are the
same bytes as the day before, yet building them reads the text of every article any
question was shown, most of the archive. So the files a partition's tables were
written as are kept (``<DVC cache>/prescient/contexts``, :mod:`prescient.kept`) and
written again as they are, and only the other partitions' articles are read and their
tables built. DVC's cache already holds every file the stage wrote (its outputs), so a
part keeps a file's MD5 and the bytes are read from there, checked against it: no
second copy of the contexts on disk.

A partition's part is named by the digest of exactly what its tables depend on: its
question rows, its rows of the retrieval table, the articles they can show (each
article's id, date, title and the SHA-256 of its text, ``text_sha256`` of the article
table), the settings and the words kept per article, and the code that builds and
writes the tables (with pandas' and pyarrow's versions). Each (partition, setting) file
is a part of its own, with the counts the metrics' summary adds up from (so they are the
same numbers); a partition is taken from the store only when every setting's file is
there (a file gone from DVC's cache, after ``dvc gc``, is built again).
No output depends on the store: the files are the bytes the tables would be written as.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from prescient import io
from prescient.corpus.normalize import TEXT_DIGEST
from prescient.evaluation import contexts as contexts_module
from prescient.evaluation.contexts import articles_shown, build_contexts
from prescient.evaluation.partitions import CONTEXTS, rows_of
from prescient.evaluation.settings import EvalSettings
from prescient.kept import KeptStore, code_of, digest
from prescient.retrieval.search import RetrievalSettings

STORE_NAME = "contexts"
"""The store's name under DVC's cache directory (:meth:`prescient.kept.KeptStore.in_cache`)."""
logger = logging.getLogger(__name__)

FORMAT = 1
"""What a part holds; part of every name."""
KIND = "partitions"


def _versions() -> bytes:
    import pyarrow

    return f"pandas {pd.__version__} pyarrow {pyarrow.__version__}".encode()


def kept_settings(retrieval: RetrievalSettings, grid: EvalSettings) -> dict[str, Any]:
    """What decides a partition's context tables besides its inputs: the settings'
    definitions and the words kept per article (``retrieval`` and ``eval`` params)."""
    return {
        "settings": [[s.kind, s.name] for s in grid.settings],
        "max_words": retrieval.max_words,
        "gold_max_words": retrieval.gold_max_words,
    }


class PartitionWriter:
    """Writes each partition's context table of a setting under ``root``
    (``<root>/<partition>/contexts/<setting>.parquet``) and gives back the bytes written.

    Args:
        root: the partitions' directory.
        partition_of: each question's partition.
    """

    def __init__(self, root: Path, partition_of: Mapping[str, str]) -> None:
        self.root = root
        self.partition_of = partition_of

    def path(self, label: str, setting: str) -> Path:
        return self.root / label / CONTEXTS / f"{setting}.parquet"

    def write(self, setting: str, table: pd.DataFrame, labels: Sequence[str]) -> None:
        """Write ``table``'s rows of each partition in ``labels`` (those without a row
        get an empty table)."""
        of = table["question_id"].astype(str).map(self.partition_of).to_numpy()
        for label in labels:
            part = table.loc[of == label].reset_index(drop=True)
            io.write_parquet(self.path(label, setting), part, text=True)

    def read(self, label: str, setting: str) -> bytes:
        """The bytes of a file written."""
        return self.path(label, setting).read_bytes()

    def put(self, label: str, setting: str, data: bytes) -> None:
        """Write a kept file as it is."""
        path = self.path(label, setting)
        path.parent.mkdir(parents=True, exist_ok=True)
        with io.atomic_path(path) as tmp:
            Path(tmp).write_bytes(data)


def summary_counts(table: pd.DataFrame, questions: int) -> list[int]:
    """What :func:`prescient.evaluation.contexts.context_summary` adds up from, for one
    partition: questions with context, context rows, questions."""
    return [int(table["question_id"].nunique()), len(table), questions]


def merged_summary(counts: Sequence[Sequence[int]]) -> dict[str, Any]:
    """:func:`prescient.evaluation.contexts.context_summary` of the partitions together,
    from their :func:`summary_counts` (the same numbers)."""
    with_context = sum(c[0] for c in counts)
    rows = sum(c[1] for c in counts)
    n = sum(c[2] for c in counts)
    return {
        "questions_with_context": with_context,
        "questions_without_context": n - with_context,
        "mean_articles": round(float(rows) / n, 4) if n else 0.0,
    }


class KeptContexts:
    """Partitions' context files, kept between runs (module docstring).

    Args:
        store: the kept store (``<DVC cache>/prescient/contexts``).
        settings: what decides the tables besides their inputs (the settings' definitions
            and the words kept per article), as JSON-able values.
        files: DVC's cache of files by MD5 (``<DVC cache>/files/md5``), which holds every
            context file the stage wrote once DVC has saved its outputs: a part then keeps
            the file's MD5 rather than its bytes (no second copy), and a file gone from
            DVC's cache (``dvc gc``) is built again. None: the bytes are kept.
    """

    def __init__(self, store: KeptStore, settings: Any, files: Path | None = None) -> None:
        self.store = store
        self.files = files
        self.config = digest(
            b"contexts",
            str(FORMAT).encode(),
            json.dumps(settings, sort_keys=True, default=str).encode(),
            code_of(contexts_module, io, sys.modules[__name__]),
            _versions(),
        )
        self.reused = self.built = 0

    def name(self, questions: pd.DataFrame, retrieval: pd.DataFrame, shown: pd.DataFrame) -> bytes:
        """A partition's name: its questions, its retrieval rows and the articles they
        can show (``article_id``, ``date``, ``title``, ``text_sha256``, sorted by id)."""
        articles = shown.sort_values("article_id", kind="stable").reset_index(drop=True)
        return digest(
            self.config,
            io.frame_checksum(questions.reset_index(drop=True)).encode(),
            io.frame_checksum(retrieval.reset_index(drop=True)).encode(),
            io.frame_checksum(articles).encode(),
        )

    def read(self, name: bytes, setting: str) -> tuple[bytes, list[int]] | None:
        """A partition's file of one setting and its summary counts, or None when the part
        is missing or damaged."""
        arrays = self.store.read(KIND, digest(name, setting.encode("utf-8")))
        if arrays is None or len(arrays) != 2 or arrays[0].shape != (3,):
            return None
        data = arrays[1].tobytes()
        if len(data) == 32 and not data.strip(b"0123456789abcdef"):
            data = self._cached(data.decode("ascii"))
        if data[:4] != b"PAR1" or data[-4:] != b"PAR1":
            return None
        return data, [int(x) for x in arrays[0]]

    def _cached(self, md5: str) -> bytes:
        """The file of MD5 ``md5`` in DVC's cache, b"" when absent or not those bytes."""
        if self.files is None:
            return b""
        try:
            data = (self.files / md5[:2] / md5[2:]).read_bytes()
        except OSError:
            return b""
        return data if hashlib.md5(data).hexdigest() == md5 else b""

    def write(self, name: bytes, setting: str, data: bytes, counts: Sequence[int]) -> None:
        """Keep a partition's file of one setting (its MD5 with DVC's cache, else its
        bytes), with its summary counts."""
        if self.files is not None:
            data = hashlib.md5(data).hexdigest().encode("ascii")
        self.store.write(
            KIND,
            digest(name, setting.encode("utf-8")),
            [np.array(counts, dtype=np.int64), np.frombuffer(data, dtype=np.uint8).copy()],
        )


def write_partitioned(
    questions: pd.DataFrame,
    articles: pd.DataFrame | str | Path,
    meta: pd.DataFrame,
    gold: Sequence[str | None],
    table: pd.DataFrame,
    retrieval: RetrievalSettings,
    grid: EvalSettings,
    partitions: Mapping[str, np.ndarray],
    writer: PartitionWriter,
    kept: KeptContexts | None,
) -> dict[str, Any]:
    """Every setting's context table written a partition at a time by ``writer``, the
    kept partitions' files as they are (their articles not read); the settings'
    summaries (:func:`prescient.evaluation.contexts.context_summary`'s numbers).

    Args:
        questions: the evaluated questions, gold articles matched.
        articles: the article table, or its file.
        meta: the table's ids, dates, titles and ``text_sha256`` (without them, nothing
            is kept).
        gold: each question's gold article.
        table: the retrieval table.
        retrieval: params ``retrieval``.
        grid: params ``eval``.
        partitions: label -> positions of the partition's questions.
        writer: writes the files.
        kept: the store of partitions' files (None: every partition built).
    """
    qids = questions["question_id"].astype(str).to_numpy()
    label_of = np.empty(len(questions), dtype=object)
    for label, at in partitions.items():
        label_of[at] = label
    by_question = dict(zip(qids, label_of, strict=True))
    table_label = table["question_id"].astype(str).map(by_question)
    table_rows = rows_of(table_label, list(partitions))  # one pass, not a mask a partition
    names = [s.name for s in grid.settings]
    use_kept = kept is not None and TEXT_DIGEST in meta.columns
    # a kept partition's files are written as soon as they are read: only counts are held
    found: dict[str, dict[str, list[int]]] = {}
    part_names: dict[str, bytes] = {}
    if use_kept:
        assert kept is not None
        keys = meta.set_index(meta["article_id"].astype(str), drop=False)
        for label, at in partitions.items():
            rows = table.take(table_rows[label])
            ids = {g for g in (gold[i] for i in at) if g is not None}
            ids |= set(rows["article_id"].astype(str))
            columns = ["article_id", "date", "title", TEXT_DIGEST]
            shown = keys.loc[sorted(ids), columns].reset_index(drop=True)
            # the source file's checksum, which a new day changes on every row, is no input
            own = questions.take(at).drop(columns=["source_checksum"], errors="ignore")
            name = kept.name(own, rows, shown)
            part_names[label] = name
            stored: dict[str, list[int]] = {}
            for setting_name in names:
                one = kept.read(name, setting_name)
                if one is None:
                    break
                writer.put(label, setting_name, one[0])
                stored[setting_name] = one[1]
            else:
                found[label] = stored
                kept.reused += 1
    build = [label for label in partitions if label not in found]
    at = np.sort(np.concatenate([partitions[label] for label in build] or [np.zeros(0, int)]))
    questions_b = questions.take(at)
    gold_b = [gold[i] for i in at]
    table_b = table.loc[table_label.isin(build).to_numpy()]
    shown = articles_shown(articles, gold_b, table_b, retrieval.max_words)
    sizes = {label: len(partitions[label]) for label in partitions}
    counts: dict[str, dict[str, list[int]]] = {label: {} for label in partitions}
    for setting in grid.settings:
        ctx = build_contexts(
            setting,
            questions_b,
            shown,
            table_b,
            max_words=retrieval.max_words,
            gold_max_words=retrieval.gold_max_words,
            gold_ids=gold_b,
        )
        writer.write(setting.name, ctx, build)
        ctx_label = ctx["question_id"].astype(str).map(by_question).to_numpy()
        for label in build:
            c = summary_counts(ctx.loc[ctx_label == label], sizes[label])
            counts[label][setting.name] = c
            if use_kept:
                assert kept is not None
                kept.write(part_names[label], setting.name, writer.read(label, setting.name), c)
        for label, kept_counts in found.items():
            counts[label][setting.name] = kept_counts[setting.name]
    if use_kept:
        assert kept is not None
        kept.built += len(build)
        logger.info(
            "kept work: %d partitions' contexts from the store, %d built",
            len(found),
            len(build),
        )
    return {name: merged_summary([counts[label][name] for label in partitions]) for name in names}
