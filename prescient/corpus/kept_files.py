"""Ingest's work kept per input file: a file read once is not read again.

A crawl arrives as files (CC-NEWS's WARC files, a daily feed's file of the day), and a
file once written does not change: a daily update adds files. Reading a file (gzip,
JSON or WARC parsing, HTML extraction) and checking its rows (normalising every text,
detecting its language) is most of ``ingest``'s cost, and it grows with the archive.
So each file's outcomes, everything :func:`prescient.corpus.rows.row_outcome` decided
for its rows (the drop reason, or the checked article with its normalised text) and the
damaged stretches between them, in file order, are kept in DVC's cache directory
(``<DVC cache>/prescient/ingest/files``, :mod:`prescient.kept`) and fed to the same
accounting, de-duplication and table writing as a fresh read: the article table and the
metrics are the same bytes with or without them. The texts are kept apart
(``<DVC cache>/prescient/ingest/texts``, under the same name) and read only when the
article table's month that holds them is written again
(:class:`prescient.corpus.spill.Deferred`): a daily update reads the new day's file and
the texts of its month, not the archive's.

A file's part is named by the digest of exactly what its outcomes depend on:

- its bytes (SHA-256 of the file, read whole; a crawl manifest's recorded digest is
  checked against it too) and its path (which the examples of the metrics name);
- the corpus settings and every ingest setting except ``base.through``, which is applied
  after the kept outcomes (:func:`~prescient.corpus.ingest.settle`; the outcomes hold the
  day each row is known from), so a file's part serves every later day;
- the code that reads and checks rows (the modules in :data:`_CODE`) and the versions of
  the language detector, the HTML extractor and numpy.

A file larger than :data:`MAX_FILE_CHARS` bytes, or whose texts exceed that many
characters (a corpus of one large file), is read every run and not kept, so memory holds
at most that much. With ``ingest.engine: ray``
WARC files are read on the cluster and not kept here. Parts are checked when read and
written whole; a damaged or missing part is a file read again. The directory may be
deleted at any time.
"""

from __future__ import annotations

import datetime as dt
import functools
import importlib.metadata
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from prescient import arrival, dates, io
from prescient.corpus import (
    language,
    normalize,
    physical,
    readers,
    rows,
    sources,
    units,
    warc,
    warc_records,
)
from prescient.corpus.physical import Damage
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.corpus.sources import InputFile, check_digest, corpus_files
from prescient.corpus.spill import Deferred, TextSource
from prescient.kept import (
    KeptStore,
    code_of,
    digest,
    pack_strings,
    unpack_strings,
)

logger = logging.getLogger(__name__)

FORMAT = 2
"""What a file's part holds; part of every name."""
MAX_FILE_CHARS = 64_000_000
"""Bytes one file may take on disk, and characters of text it may hold, and still be kept
(about 130 MB of memory while it is read)."""
KIND = "files"
"""A file's part: its outcomes without their texts."""
TEXTS = "texts"
"""A file's kept rows' texts, under the same name as its part: read only when ingest
writes a month of their dates again (:class:`prescient.corpus.spill.Deferred`)."""
LEVEL = 6
"""zstd's level for the ingest store (:class:`prescient.kept.KeptStore`): a file's part
is written once and holds its texts, so a higher level than the default pays: on the
scale benchmark's text about 2.9x at about 80 MB/s, against 2.4x at level 1 (a sixth
less disk for a second copy of the corpus's texts)."""

_CODE = (rows, language, normalize, physical, readers, sources, units, warc, warc_records, dates)
_CODE_ALSO = (arrival,)
_LIBRARIES = ("py3langid", "trafilatura", "numpy")

Detector = Callable[[str, dt.date], str]


def _versions() -> bytes:
    found = []
    for name in _LIBRARIES:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} -")
    return "; ".join(found).encode()


class KeptFiles:
    """Input files' outcomes, kept between runs (module docstring).

    Args:
        store: the kept store (``<DVC cache>/prescient/ingest``).
        corpus: the source.
        settings: the ingest settings (``through`` is not part of any name).
    """

    def __init__(self, store: KeptStore, corpus: CorpusSettings, settings: IngestSettings) -> None:
        self.store = store
        # ``path`` is left out: each file's own path is part of its name.
        source = corpus.model_dump(mode="json", exclude={"path"})
        rules = settings.model_dump(mode="json", exclude={"through"})
        self.config = digest(
            b"ingest files",
            str(FORMAT).encode(),
            json.dumps(source, sort_keys=True).encode(),
            json.dumps(rules, sort_keys=True).encode(),
            code_of(*_CODE, *_CODE_ALSO),
            _versions(),
        )
        self.reused = self.read = self.too_large = self.texts_read = 0
        # each kept file whose texts may be asked for: the file, its number, its sha256
        # and how many texts its part holds
        self._kept: dict[bytes, tuple[InputFile, int, str, int]] = {}
        self._reading: tuple[CorpusSettings, IngestSettings, Detector] | None = None

    def units(
        self, corpus: CorpusSettings, settings: IngestSettings, detect: Detector
    ) -> Iterator[Damage | rows.Outcome]:
        """Every file's damaged stretches and row outcomes, in file order: the kept ones
        from the store (their texts deferred: :meth:`texts`), the others read (and then
        kept)."""
        self._reading = (corpus, settings, detect)
        for file_no, item in enumerate(corpus_files(corpus)):
            if item.path.stat().st_size > MAX_FILE_CHARS:
                self.too_large += 1
                self.read += 1
                yield from _read(corpus, settings, item, file_no, detect)
                continue
            sha = io.file_sha256(item.path)
            name = digest(self.config, str(item.path).encode(), sha.encode())
            stored = self.store.read(KIND, name)
            unpacked = _unpack(stored, file_no, str(item.path), self, name) if stored else None
            if unpacked is not None:
                check_digest(item, sha)
                events, count = unpacked
                self._kept[name] = (item, file_no, sha, count)
                self.reused += 1
                yield from events
                continue
            log: list[Damage | rows.Outcome] | None = []
            chars = 0
            for event in _read(corpus, settings, item, file_no, detect):
                if log is not None:
                    log.append(event)
                    chars += len(str(event.text)) if isinstance(event, rows.Outcome) else 0
                    if chars > MAX_FILE_CHARS:
                        log = None
                        self.too_large += 1
                yield event
            self.read += 1
            if log is not None:
                _check_unchanged(item, sha)
                meta, texts = _pack(log)
                self.store.write(TEXTS, name, pack_strings(texts))  # the texts first
                self.store.write(KIND, name, [meta])

    def texts(self, key: bytes) -> list[str]:
        """The texts of the kept file whose part is named ``key``, in the order of its
        kept rows (:class:`prescient.corpus.spill.TextSource`). Texts missing from the
        store, or failing its checks, are read from the file again (and kept again)."""
        item, file_no, sha, count = self._kept[key]
        self.texts_read += 1
        stored = self.store.read(TEXTS, key)
        if stored is not None and len(stored) == 2:
            try:
                found = unpack_strings(stored[0], stored[1])
            except ValueError:
                found = []
            if len(found) == count:
                return found
        logger.warning(
            "kept work: the texts of %s are not in the store; reading it again", item.path
        )
        assert self._reading is not None
        corpus, settings, detect = self._reading
        texts = [
            e.text
            for e in _read(corpus, settings, item, file_no, detect)
            if isinstance(e, rows.Outcome) and e.drop is None and e.late_drop is None
        ]
        _check_unchanged(item, sha)
        read = [t for t in texts if isinstance(t, str)]  # a file read fresh holds no reference
        if len(read) != count or len(texts) != count:
            raise sources.ChecksumError(
                f"{item.path}: {len(texts)} articles read where its kept part holds {count}. "
                f"Fix: delete {self.store.root} (kept work only) and run the stage again."
            )
        self.store.write(TEXTS, key, pack_strings(read))
        return read

    def summary(self) -> str:
        """One line for the log: what was reused and read."""
        large = f" ({self.too_large} too large to keep)" if self.too_large else ""
        return (
            f"kept work: {self.reused} input files from the store, {self.read} read{large}; "
            f"the texts of {self.texts_read} kept files read"
        )


def _read(
    corpus: CorpusSettings,
    settings: IngestSettings,
    item: InputFile,
    file_no: int,
    detect: Detector,
) -> Iterator[Damage | rows.Outcome]:
    """A file read and its rows checked."""
    for unit in readers.read_file(
        corpus,
        item,
        file_no,
        max_record_bytes=settings.max_record_bytes,
        extraction=settings.extraction.spec(),
    ):
        yield (
            unit
            if isinstance(unit, Damage)
            else rows.row_outcome(unit, settings, corpus.date_format, detect)
        )


def _check_unchanged(item: InputFile, sha: str) -> None:
    """A file that changed while it was read is not kept under its earlier digest."""
    now = io.file_sha256(item.path)
    if now != sha:
        raise sources.ChecksumError(
            f"{item.path}: its bytes changed while it was read (sha256 {sha} before, {now} "
            "after). Fix: run the stage again once nothing writes the file."
        )


def _day(value: dt.date | None) -> str | None:
    return None if value is None else value.isoformat()


def _pack(log: list[Damage | rows.Outcome]) -> tuple[np.ndarray, list[str]]:
    """A file's events as a part: their fields as JSON; and the kept rows' texts."""
    entries: list[Any] = []
    texts: list[str] = []
    for e in log:
        if isinstance(e, Damage):
            entries.append({"damage": [e.reason, e.member, e.offset, e.produced, e.detail]})
            continue
        row = [e.where, e.members[0], e.members[1], e.drop, _day(e.known), e.late_drop]
        if e.drop is None and e.late_drop is None:
            row += [
                _day(e.date),
                _day(e.arrived),
                e.title,
                e.text_hash,
                e.url,
                e.norm_url,
                e.source_domain,
                list(e.notes),
            ]
            texts.append(str(e.text))
        entries.append(row)
    meta = json.dumps(entries, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return np.frombuffer(meta, dtype=np.uint8).copy(), texts


def _pair(value: Any) -> tuple[str, str] | None:
    return None if value is None else (str(value[0]), str(value[1]))


@functools.cache
def _date(value: str | None) -> dt.date | None:
    """A day as written by :func:`_day` (a corpus holds a few thousand distinct days, each
    read once and shared: a date is immutable)."""
    return None if value is None else dt.date.fromisoformat(value)


def _unpack(
    arrays: list[np.ndarray], file_no: int, path: str, source: TextSource, name: bytes
) -> tuple[list[Damage | rows.Outcome], int] | None:
    """The events of a part, for the file now at ``file_no``, each kept row's text
    deferred to ``source`` under ``name``, and the number of texts; None when the part
    does not hold what :func:`_pack` writes."""
    if len(arrays) != 1:
        return None
    try:
        entries = json.loads(arrays[0].tobytes().decode("utf-8"))
        count = 0
        events: list[Damage | rows.Outcome] = []
        for row in entries:
            if isinstance(row, dict):
                reason, member, offset, produced, detail = row["damage"]
                events.append(
                    Damage(file_no, path, reason, int(member), int(offset), bool(produced), detail)
                )
                continue
            o = rows.Outcome(
                row[0], (int(row[1]), int(row[2])), file_no, _pair(row[3]), _date(row[4])
            )
            o.late_drop = _pair(row[5])
            if o.drop is None and o.late_drop is None:
                o.date, o.arrived = _date(row[6]), _date(row[7])
                o.title, o.text_hash, o.url, o.norm_url = row[8], row[9], row[10], row[11]
                o.source_domain, o.notes = row[12], tuple(row[13])
                o.text = Deferred(source, name, count)
                count += 1
            events.append(o)
    except (ValueError, TypeError, KeyError, IndexError):
        logger.warning("a kept part of %s does not read as one; the file is read again", path)
        return None
    return events, count
