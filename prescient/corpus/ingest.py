"""Turn raw rows into the article table every later stage uses.

Every physical unit of the input is either in the output or counted under exactly one
drop reason (:mod:`prescient.corpus.accounting` keeps the count). Checks run in a fixed
order (:mod:`prescient.corpus.rows`, then :func:`settle`, which places ``base.through``
among them) and a row is counted under the first one it fails; a row that passed its checks
but came from a gzip member that then failed its checksum is never kept
(``corrupt_gzip``).

Every output is a function of the parameters and the input alone: no check reads the
clock.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from tqdm import tqdm

from prescient.arrival import known_from
from prescient.corpus import physical
from prescient.corpus.accounting import IngestReport, IngestStopError, check_drops
from prescient.corpus.language import KeptLanguages
from prescient.corpus.normalize import TEXT_DIGEST, article_id
from prescient.corpus.physical import Damage
from prescient.corpus.readers import read_rows
from prescient.corpus.rows import Detector, Outcome, detect_language, row_outcome
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.corpus.spill import Deferred, DiskSpill, MemorySpill, Spill
from prescient.corpus.table import MonthParts, part_name
from prescient.corpus.titles import mastheads, strip_title_suffixes
from prescient.corpus.units import Unit
from prescient.dates import month_index

if TYPE_CHECKING:
    from prescient.corpus.kept_files import KeptFiles

logger = logging.getLogger(__name__)

ARTICLE_COLUMNS = (
    "article_id",
    "date",
    "title",
    "text",
    "url",
    "source_domain",
    "arrived",
    TEXT_DIGEST,
)
"""The article table's columns. ``text_sha256`` is the hex SHA-256 of ``text``
(:func:`~prescient.corpus.normalize.text_hash`, by which exact duplicates are found): a
stage that keeps work between runs names it by this column, not by reading every text."""

_MASTHEAD_LOG_DOMAINS = 10
"""Source domains whose mastheads the stage logs (the most frequent first)."""


@dataclass(slots=True)
class _Candidate:
    order: int
    where: str
    date: dt.date
    arrived: dt.date | None
    title: str
    text_hash: str
    url: str | None
    norm_url: str | None
    source_domain: str | None
    file_no: int
    members: tuple[int, int]


def settle(
    o: Outcome, s: IngestSettings, report: IngestReport, order: int
) -> tuple[_Candidate, str | Deferred] | None:
    """Count a row's outcome under ``s.through``: None for a drop, else the candidate and
    its normalised text (or the reference to a kept one)."""
    ex = s.examples_per_reason
    if o.drop is not None:
        report.drop(o.drop[0], o.where, ex, o.drop[1])
        return None
    if s.through is not None and o.known is not None and o.known > s.through:
        report.drop("after_through", o.where, ex, f"known from {o.known}, through {s.through}")
        return None
    if o.late_drop is not None:
        report.drop(o.late_drop[0], o.where, ex, o.late_drop[1])
        return None
    for note in o.notes:
        report.notes[note] += 1
    assert o.date is not None
    cand = _Candidate(
        order,
        o.where,
        o.date,
        o.arrived,
        o.title,
        o.text_hash,
        o.url,
        o.norm_url,
        o.source_domain,
        o.file_no,
        o.members,
    )
    return cand, o.text


def _retract(candidates: list[_Candidate], report: IngestReport, limit: int) -> list[_Candidate]:
    """Candidates of members that failed their checksum are counted, not kept."""
    kept = []
    for c in candidates:
        if report.is_corrupt(c.file_no, c.members):
            report.drop(physical.CORRUPT_GZIP, c.where, limit, "its gzip member is corrupt")
        else:
            kept.append(c)
    return kept


def _deduplicate(
    candidates: list[_Candidate], report: IngestReport, limit: int
) -> list[dict[str, Any]]:
    """Keep the first copy of each URL and each text: the first known
    (:func:`~prescient.arrival.known_from`), then the earliest dated, then the first read,
    so a copy that arrives later never replaces one already in use."""
    candidates.sort(key=lambda c: (known_from(c.date, c.arrived), c.date, c.order))
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    records: list[dict[str, Any]] = []
    for c in candidates:
        aid = article_id(c.norm_url, c.title, c.date)
        th = c.text_hash
        if aid in seen_ids:
            report.drop("duplicate_url", c.where, limit, c.norm_url or c.title[:60])
            continue
        if th in seen_text:
            report.drop("duplicate_text", c.where, limit, c.title[:60])
            continue
        seen_ids.add(aid)
        seen_text.add(th)
        records.append(
            {
                "article_id": aid,
                "date": c.date,
                "title": c.title,
                "order": c.order,
                "url": c.url,
                "source_domain": c.source_domain,
                "arrived": c.arrived if c.arrived is not None else c.date,
                TEXT_DIGEST: th,
            }
        )
    return records


def _strip_mastheads(
    records: list[dict[str, Any]], s: IngestSettings, report: IngestReport
) -> None:
    """Titles of the kept articles lose their outlet's masthead suffix, counted per
    source domain from the day the suffix became one (:mod:`prescient.corpus.titles`);
    ids stay those of the titles read."""
    if s.title_suffix_min_count is None or not records:
        return
    titles = [r["title"] for r in records]
    domains = [r["source_domain"] for r in records]
    found = mastheads(titles, s.title_suffix_separators, s.title_suffix_min_count, domains)
    if not found:
        return
    known = [known_from(r["date"], r["arrived"]) for r in records]
    stripped = strip_title_suffixes(
        titles,
        s.title_suffix_separators,
        s.title_suffix_min_count,
        domains,
        drop_ellipsis=False,
        days=known,
    )
    for r, title in zip(records, stripped, strict=True):
        if title != r["title"]:
            report.titles_stripped += 1
            r["title"] = title
    report.mastheads = {(str(d) if d is not None else None): m for d, m in found.items()}


def ingest_rows(
    units: Iterable[Unit], settings: IngestSettings, *, date_format: str | None
) -> tuple[pd.DataFrame, IngestReport]:
    """Filter, normalise and de-duplicate rows into the article table.

    De-duplication keeps the first known copy (then the earliest dated, then the first
    read) of each normalised URL and of each exact normalised text; ``article_id`` collisions (same
    title and date, no URL) count as ``duplicate_url`` since the id stands for the URL.
    The kept articles' titles then lose their source domain's masthead suffix
    (``ingest.title_suffix_*``; the id of an article without URL is that of the title
    as read).

    Args:
        units: the source's rows and damage events, in input order.
        settings: the filters.
        date_format: strptime format of the date field (None: ISO 8601 and common forms).

    Returns:
        The article table sorted by (date, article_id), and the accounting.
    """
    spill = MemorySpill()
    records, report = _decide(units, settings, date_format, spill)
    frames = list(_month_frames(records, spill))
    return (pd.concat(frames, ignore_index=True) if frames else articles_frame([])), report


def _decide(
    units: Iterable[Unit | Outcome],
    settings: IngestSettings,
    date_format: str | None,
    spill: Spill,
    kept: KeptLanguages | None = None,
) -> tuple[list[dict[str, Any]], IngestReport]:
    """Every row checked, the kept ones de-duplicated and their titles cleaned: the
    article records without their texts, which wait in ``spill`` under their input order.
    ``kept``: language verdicts of earlier runs (the same records either way)."""
    detect = kept.detect if kept is not None else detect_language
    report = IngestReport(max_date=settings.max_date)
    limit = settings.examples_per_reason
    candidates: list[_Candidate] = []
    for unit in tqdm(units, desc="ingest", unit=" rows", mininterval=2.0):
        if isinstance(unit, Damage):
            logger.warning("%s: %s (%s)", unit.where, unit.reason, unit.detail)
            report.record_damage(unit)
            if unit.reason == physical.CORRUPT_GZIP and report.corrupt_members:
                candidates = _retract(candidates, report, limit)
            continue
        report.rows_read += 1
        outcome = (
            unit if isinstance(unit, Outcome) else row_outcome(unit, settings, date_format, detect)
        )
        checked = settle(outcome, settings, report, report.rows_read)
        if checked is None:
            continue
        cand, text = checked
        if report.is_corrupt(cand.file_no, cand.members):
            report.drop(physical.CORRUPT_GZIP, cand.where, limit, "its gzip member is corrupt")
            continue
        candidates.append(cand)
        spill.put(month_index(cand.date), cand.order, text)
    if kept is not None:
        kept.save()
        logger.info(
            "kept work: %d language verdicts from the store, %d detected",
            kept.reused,
            kept.detected,
        )
    records = _deduplicate(candidates, report, limit)
    del candidates
    _strip_mastheads(records, settings, report)
    return records, report


def _month_frames(records: list[dict[str, Any]], spill: Spill) -> Iterator[pd.DataFrame]:
    """The article table one month of dates at a time, in order: together, the table
    sorted by (date, article_id); each month's texts read back from ``spill`` alone."""
    for _name, _rows, frame in _months(records, spill):
        yield frame()


def _months(
    records: list[dict[str, Any]], spill: Spill
) -> Iterator[tuple[str, list[list[Any]], Callable[[], pd.DataFrame]]]:
    """Each month of dates, in order: its part name, its rows' values but the text
    (the key of :class:`~prescient.corpus.table.MonthParts`), and a function building
    its frame with the texts read back from ``spill`` (a part kept as it is never reads
    them)."""
    by_month: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        by_month.setdefault(month_index(r["date"]), []).append(r)
    names = [c for c in ARTICLE_COLUMNS if c != "text"]
    for month in sorted(by_month):
        rows = by_month.pop(month)

        def frame(month: int = month, rows: list[dict[str, Any]] = rows) -> pd.DataFrame:
            texts = spill.texts(month)
            # new columns: the records stay without texts, so a written month's texts are freed
            columns = {c: [r[c] for r in rows] for c in names}
            columns["text"] = [texts[r["order"]] for r in rows]
            del texts
            return articles_frame(columns)

        yield part_name(month), [[r[c] for c in names] for r in rows], frame


def read_units(
    corpus: CorpusSettings,
    settings: IngestSettings,
    files: KeptFiles | None = None,
    detect: Detector = detect_language,
) -> Iterator[Unit | Outcome]:
    """The source's units from the configured engine: WARC files on Ray with
    ``ingest.engine: ray`` (the same units, in the same order), anything else here, with
    the outcomes of files read before from ``files`` when given
    (:class:`~prescient.corpus.kept_files.KeptFiles`)."""
    on_ray = settings.engine == "ray" and corpus.format == "warc"
    if files is not None and not on_ray:
        return files.units(corpus, settings, detect)
    if on_ray:
        from prescient.corpus.ray_engine import read_rows_ray

        return read_rows_ray(
            corpus,
            settings.ray,
            max_record_bytes=settings.max_record_bytes,
            extraction=settings.extraction.spec(),
        )
    if settings.engine == "ray":
        logger.info("ingest.engine ray distributes WARC files; %s is read here", corpus.format)
    return read_rows(
        corpus, max_record_bytes=settings.max_record_bytes, extraction=settings.extraction.spec()
    )


def ingest_corpus(
    corpus: CorpusSettings, settings: IngestSettings
) -> tuple[pd.DataFrame, IngestReport]:
    """Read, check and de-duplicate a corpus source; stop when the configuration is wrong.

    Raises:
        CorpusConfigError: the source cannot be read as configured.
        IngestStopError: the source holds no row at all (an empty file, naming it), or
            see :func:`~prescient.corpus.accounting.check_drops` (the examples are
            logged first).
    """
    spill = MemorySpill()
    records, report = _decide(read_units(corpus, settings), settings, corpus.date_format, spill)
    _stop_if_wrong(corpus, settings, report)
    frames = list(_month_frames(records, spill))
    return (pd.concat(frames, ignore_index=True) if frames else articles_frame([])), report


def ingest_corpus_to(
    corpus: CorpusSettings,
    settings: IngestSettings,
    out: Path,
    kept: KeptLanguages | None = None,
    files: KeptFiles | None = None,
    written: Callable[[Path, str], None] | None = None,
) -> tuple[pd.DataFrame, IngestReport, str]:
    """:func:`ingest_corpus`, writing the article table to directory ``out`` as month
    parts (:class:`~prescient.corpus.table.MonthParts`: a month whose rows are unchanged
    keeps its file; the directory is replaced at once): the texts wait in a
    :class:`~prescient.corpus.spill.DiskSpill` beside ``out`` until their month is
    written, so memory holds one month of text, not the corpus. Nothing is written when
    the stage stops.

    ``kept``: language verdicts of earlier runs (:class:`~prescient.corpus.language.KeptLanguages`);
    ``files``: the outcomes of input files read before
    (:class:`~prescient.corpus.kept_files.KeptFiles`). The same table either way.
    ``written``: called with each part file written and its checksum.

    Returns:
        The table's ``date`` and ``source_domain`` columns (for the metrics), the
        accounting and the table's checksum (:func:`~prescient.io.parquet_checksum`).
    """
    spill = DiskSpill(out.parent)
    try:
        detect = kept.detect if kept is not None else detect_language
        records, report = _decide(
            read_units(corpus, settings, files, detect), settings, corpus.date_format, spill, kept
        )
        if files is not None:
            logger.info("%s", files.summary())
        _stop_if_wrong(corpus, settings, report)
        summary = pd.DataFrame(
            {
                "date": [r["date"] for r in records],
                "source_domain": pd.Series([r["source_domain"] for r in records], dtype="string"),
            }
        )
        parts = MonthParts(out, articles_frame([]), (articles_frame, _months), written)
        checksum = parts.write(_months(records, spill))
    finally:
        spill.close()
    return summary, report, checksum


def _stop_if_wrong(corpus: CorpusSettings, settings: IngestSettings, report: IngestReport) -> None:
    log_examples(report)
    if report.rows_read == 0:
        where = f"{corpus.path}" + (f" (corpus.glob={corpus.glob!r})" if corpus.glob else "")
        damaged = f", {len(report.damage)} damaged stretches" if report.damage else ""
        raise IngestStopError(
            f"no article kept: {where} holds no row to read{damaged} (an empty file?); "
            "fix: point corpus.path at the corpus file or directory"
        )
    check_drops(report, settings.max_drop_share)


def articles_frame(records: list[dict[str, Any]] | dict[str, list[Any]]) -> pd.DataFrame:
    """The article table with its canonical dtypes and order, from article records or
    from the columns' values."""
    import pyarrow as pa

    df = (
        pd.DataFrame(records, columns=list(ARTICLE_COLUMNS))
        if isinstance(records, dict)
        else pd.DataFrame.from_records(records, columns=list(ARTICLE_COLUMNS))
    )
    df = df.sort_values(["date", "article_id"], kind="stable").reset_index(drop=True)
    for col in ("article_id", "title", "text", "url", "source_domain", TEXT_DIGEST):
        df[col] = df[col].astype("string")
    df["date"] = df["date"].astype(pd.ArrowDtype(pa.date32()))
    df["arrived"] = df["arrived"].astype(pd.ArrowDtype(pa.date32()))
    return df


def log_examples(report: IngestReport) -> None:
    """Log a few examples of each drop reason, so a surprising count can be checked."""
    for reason, examples in sorted(report.examples.items()):
        logger.info("dropped %d as %s, e.g.:", report.dropped[reason], reason)
        for e in examples:
            logger.info("    %s", e)
    if report.titles_stripped:
        logger.info(
            "stripped masthead suffixes from %d titles; mastheads, e.g.:", report.titles_stripped
        )
        ranked = sorted(report.mastheads.items(), key=lambda kv: (-sum(kv[1].values()), str(kv[0])))
        for domain, found in ranked[:_MASTHEAD_LOG_DOMAINS]:
            logger.info(
                "    %s: %s",
                domain or "(no domain)",
                ", ".join(f"{m!r} ({n})" for m, n in sorted(found.items(), key=lambda kv: -kv[1])),
            )
