"""Turn raw rows into the article table every later stage uses.

The accounting invariant: every physical unit of the input (line, CSV record, Parquet
row, WARC record) is either in the output or counted under exactly one drop reason, so
``rows_read == rows_kept + sum(dropped.values())``. Checks run in a fixed order and a
row is counted under the first one it fails. Damaged stretches of files (a cut or
corrupt gzip member, an unreadable Parquet footer) are listed with file and byte
offset; a row that passed its checks but came from a gzip member that then failed its
checksum is never kept (``corrupt_gzip``).

Every output is a function of the parameters and the input alone: no check reads the
clock.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from tqdm import tqdm

from prescient.corpus import language, physical
from prescient.corpus.normalize import (
    article_id,
    domain_of,
    normalize_text,
    normalize_title,
    normalize_url,
    text_hash,
)
from prescient.corpus.physical import Damage
from prescient.corpus.readers import read_rows
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.corpus.titles import mastheads, strip_title_suffixes
from prescient.corpus.units import RawRow, Unit
from prescient.dates import parse_date

logger = logging.getLogger(__name__)

ARTICLE_COLUMNS = ("article_id", "date", "title", "text", "url", "source_domain")

# Every reason a row can be dropped for, in the order the checks run (reader-level
# reasons first). Listed so the metrics always show every reason, zeros included.
DROP_REASONS: tuple[str, ...] = (
    "blank_line",
    "invalid_utf8",
    "malformed_json",
    "malformed_row",
    "record_too_large",
    "truncated_record",
    "corrupt_gzip",
    "corrupt_parquet",
    "malformed_record",
    "corrupt_record",
    "not_a_response",
    "host_not_allowed",
    "http_error_status",
    "non_html_response",
    "html_too_large",
    "unparseable_html",
    "invalid_field_type",
    "empty_text",
    "missing_title",
    "missing_date",
    "unparseable_date",
    "future_date",
    "before_date_start",
    "after_date_end",
    "text_too_short",
    "text_too_long",
    "title_prefix",
    "source_not_allowed",
    "language_not_allowed",
    "duplicate_url",
    "duplicate_text",
)

_DAMAGED_FILE = "the file is damaged: fetch it again (corpus.path)"
REASON_FIX: Mapping[str, str] = {
    "blank_line": "the input is mostly blank lines: check corpus.path",
    "invalid_utf8": "the input is not UTF-8: convert it (corpus.path)",
    "malformed_json": "the input is not JSON Lines: check corpus.format and corpus.path",
    "malformed_row": "the input does not parse as CSV with its header: check corpus.format",
    "record_too_large": "raise ingest.max_record_bytes, or check corpus.format",
    "truncated_record": _DAMAGED_FILE,
    "corrupt_gzip": _DAMAGED_FILE,
    "corrupt_parquet": _DAMAGED_FILE,
    "malformed_record": _DAMAGED_FILE,
    "corrupt_record": _DAMAGED_FILE,
    "html_too_large": "raise ingest.max_record_bytes",
    "unparseable_html": "the pages hold no article text: check corpus.path and corpus.glob",
    "invalid_field_type": "map text columns in corpus.columns (title, text, url)",
    "empty_text": "set corpus.columns.text to the column holding the article text",
    "missing_title": "set corpus.columns.title to the column holding the headline",
    "missing_date": "set corpus.columns.date to the column holding the publication date",
    "unparseable_date": "set corpus.date_format (strptime) or corpus.columns.date",
    "future_date": "set ingest.max_date (null: no bound) or ingest.max_days_after_crawl",
    "text_too_short": "lower ingest.min_chars, or check corpus.columns.text",
    "text_too_long": "raise ingest.max_chars",
    "title_prefix": "change ingest.drop_title_prefixes",
}
"""The parameter to look at when a reason drops (nearly) everything. Reasons missing
here select rather than signal a mistake (an allow-list, a date window, WARC records
that are not pages, duplicates) and never stop the stage on their own."""


_MASTHEAD_LOG_DOMAINS = 10
"""Source domains whose mastheads the stage logs (the most frequent first)."""


class IngestStopError(ValueError):
    """The configuration drops everything, or nearly everything, for one reason."""


@dataclass
class IngestReport:
    """Where every input unit went."""

    rows_read: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    damage: list[dict[str, Any]] = field(default_factory=list)
    corrupt_members: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    max_date: dt.date | None = None
    mastheads: dict[str | None, dict[str, int]] = field(default_factory=dict)
    titles_stripped: int = 0

    def drop(self, reason: str, where: str, limit: int, detail: str = "") -> None:
        self.dropped[reason] += 1
        if len(self.examples[reason]) < limit:
            self.examples[reason].append(f"{where}{': ' + detail if detail else ''}")

    def record_damage(self, d: Damage) -> None:
        logger.warning("%s: %s (%s)", d.where, d.reason, d.detail)
        self.damage.append(
            {
                "file": d.path,
                "reason": d.reason,
                "byte": d.offset,
                "member": d.member,
                "detail": d.detail,
            }
        )
        if d.reason == physical.CORRUPT_GZIP:
            self.corrupt_members[d.file_no].add(d.member)

    def is_corrupt(self, file_no: int, members: tuple[int, int]) -> bool:
        bad = self.corrupt_members.get(file_no)
        if not bad:
            return False
        return any(m in bad for m in range(members[0], members[1] + 1))


@dataclass
class _Candidate:
    order: int
    where: str
    date: dt.date
    title: str
    text: str
    url: str | None
    norm_url: str | None
    source_domain: str | None
    file_no: int
    members: tuple[int, int]


class _FieldError(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def _as_text(name: str, value: Any) -> str | None:
    """A field as text; None for absent. Numbers are not text (a NaN title is no title)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _FieldError("invalid_field_type", f"{name} holds a {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _FieldError("invalid_utf8", f"{name} holds a lone surrogate") from None
    return value


def _check_date(
    row: RawRow, s: IngestSettings, date_format: str | None
) -> tuple[dt.date | None, str, str]:
    """(date, reason, detail): the publication day, or the reason it is not usable."""
    raw = row.fields.get("date")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, "missing_date", ""
    date = parse_date(raw, date_format)
    if date is None:
        return None, "unparseable_date", repr(raw)[:80]
    if s.max_date is not None and date > s.max_date:
        return None, "future_date", f"{date} after ingest.max_date {s.max_date}"
    if row.fetched is not None and date > row.fetched + dt.timedelta(days=s.max_days_after_crawl):
        return None, "future_date", f"{date}, fetched {row.fetched}"
    if s.date_start and date < s.date_start:
        return None, "before_date_start", date.isoformat()
    if s.date_end and date > s.date_end:
        return None, "after_date_end", date.isoformat()
    return date, "", ""


def _check_row(
    row: RawRow, s: IngestSettings, date_format: str | None, report: IngestReport, order: int
) -> _Candidate | None:
    """Apply the per-row checks; count and return None on the first failure."""
    ex = s.examples_per_reason
    if row.reason:
        report.drop(row.reason, row.where, ex, row.detail)
        return None
    f = row.fields
    try:
        text_raw = _as_text("text", f.get("text"))
        title_raw = _as_text("title", f.get("title"))
        url_raw = _as_text("url", f.get("url"))
        domain_raw = _as_text("source_domain", f.get("source_domain"))
    except _FieldError as exc:
        report.drop(exc.reason, row.where, ex, exc.detail)
        return None
    text = normalize_text(text_raw or "")
    if not text:
        report.drop("empty_text", row.where, ex)
        return None
    title = normalize_title(title_raw or "")
    if not title:
        report.drop("missing_title", row.where, ex)
        return None
    date, reason, detail = _check_date(row, s, date_format)
    if date is None:
        report.drop(reason, row.where, ex, detail)
        return None
    if len(text) <= s.min_chars:
        report.drop("text_too_short", row.where, ex, f"{len(text)} chars")
        return None
    if len(text) >= s.max_chars:
        report.drop("text_too_long", row.where, ex, f"{len(text)} chars")
        return None
    if any(title.startswith(p) for p in s.drop_title_prefixes):
        report.drop("title_prefix", row.where, ex, title[:80])
        return None
    url = url_raw.strip() if url_raw and url_raw.strip() else None
    domain = (domain_raw or "").strip().lower().removeprefix("www.") or domain_of(url)
    if s.source_domains is not None and (domain or "") not in s.source_domains:
        report.drop("source_not_allowed", row.where, ex, str(domain))
        return None
    if s.languages is not None:
        lang = language.detect(language.article_text(title, text, s.language_chars))
        if lang not in s.languages:
            report.drop("language_not_allowed", row.where, ex, f"{lang}: {title[:60]}")
            return None
    for note in row.notes:
        report.notes[note] += 1
    return _Candidate(
        order,
        row.where,
        date,
        title,
        text,
        url,
        normalize_url(url),
        domain or None,
        row.file_no,
        row.members,
    )


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
    """Keep the earliest copy (by date, then input order) of each URL and each text."""
    candidates.sort(key=lambda c: (c.date, c.order))
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    records: list[dict[str, Any]] = []
    for c in candidates:
        aid = article_id(c.norm_url, c.title, c.date)
        th = text_hash(c.text)
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
                "text": c.text,
                "url": c.url,
                "source_domain": c.source_domain,
            }
        )
    return records


def _strip_mastheads(
    records: list[dict[str, Any]], s: IngestSettings, report: IngestReport
) -> None:
    """Titles of the kept articles lose their outlet's masthead suffix, counted per
    source domain (:mod:`prescient.corpus.titles`); ids stay those of the titles read."""
    if s.title_suffix_min_count is None or not records:
        return
    titles = [r["title"] for r in records]
    domains = [r["source_domain"] for r in records]
    found = mastheads(titles, s.title_suffix_separators, s.title_suffix_min_count, domains)
    if not found:
        return
    stripped = strip_title_suffixes(
        titles, s.title_suffix_separators, s.title_suffix_min_count, domains, drop_ellipsis=False
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

    De-duplication keeps the earliest copy (by date, then input order) of each
    normalised URL and of each exact normalised text; ``article_id`` collisions (same
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
    report = IngestReport(max_date=settings.max_date)
    limit = settings.examples_per_reason
    candidates: list[_Candidate] = []
    for unit in tqdm(units, desc="ingest", unit=" rows", mininterval=2.0):
        if isinstance(unit, Damage):
            report.record_damage(unit)
            if unit.reason == physical.CORRUPT_GZIP and report.corrupt_members:
                candidates = _retract(candidates, report, limit)
            continue
        report.rows_read += 1
        cand = _check_row(unit, settings, date_format, report, report.rows_read)
        if cand is None:
            continue
        if report.is_corrupt(cand.file_no, cand.members):
            report.drop(physical.CORRUPT_GZIP, cand.where, limit, "its gzip member is corrupt")
            continue
        candidates.append(cand)
    records = _deduplicate(candidates, report, limit)
    _strip_mastheads(records, settings, report)
    return articles_frame(records), report


def check_drops(report: IngestReport, max_share: float | None) -> None:
    """Stop when the configuration, not the data, decides the outcome.

    Raises:
        IngestStopError: nothing was kept from a non-empty input (an empty one stops in
            :func:`ingest_corpus`, which can name its file), or one reason listed
            in :data:`REASON_FIX` dropped at least ``max_share`` of the rows read. The
            message names the reason, its count, an example and the parameter to fix.
    """
    if report.rows_read == 0:
        return
    kept = report.rows_read - sum(report.dropped.values())
    worst = [
        (n, r)
        for r, n in report.dropped.items()
        if n
        and (
            kept == 0
            or (r in REASON_FIX and max_share is not None and n >= max_share * report.rows_read)
        )
    ]
    if not worst:
        return
    worst.sort(reverse=True)
    parts = []
    for n, reason in worst[:3]:
        example = (report.examples.get(reason) or [""])[0]
        fix = REASON_FIX.get(reason, "check the ingest and corpus parameters")
        parts.append(f"{reason}: {n} of {report.rows_read} rows (e.g. {example}); fix: {fix}")
    head = (
        "no article kept" if kept == 0 else f"one reason drops at least {max_share:.0%} of the rows"
    )
    raise IngestStopError(f"{head}: " + " | ".join(parts))


def read_units(corpus: CorpusSettings, settings: IngestSettings) -> Iterator[Unit]:
    """The source's units from the configured engine: WARC files on Ray with
    ``ingest.engine: ray`` (the same units, in the same order), anything else here."""
    if settings.engine == "ray" and corpus.format == "warc":
        from prescient.corpus.ray_engine import read_rows_ray

        return read_rows_ray(corpus, settings.ray, max_record_bytes=settings.max_record_bytes)
    if settings.engine == "ray":
        logger.info("ingest.engine ray distributes WARC files; %s is read here", corpus.format)
    return read_rows(corpus, max_record_bytes=settings.max_record_bytes)


def ingest_corpus(
    corpus: CorpusSettings, settings: IngestSettings
) -> tuple[pd.DataFrame, IngestReport]:
    """Read, check and de-duplicate a corpus source; stop when the configuration is wrong.

    Raises:
        CorpusConfigError: the source cannot be read as configured.
        IngestStopError: the source holds no row at all (an empty file, naming it), or
            see :func:`check_drops` (the examples are logged first).
    """
    articles, report = ingest_rows(
        read_units(corpus, settings), settings, date_format=corpus.date_format
    )
    log_examples(report)
    if report.rows_read == 0:
        where = f"{corpus.path}" + (f" (corpus.glob={corpus.glob!r})" if corpus.glob else "")
        damaged = f", {len(report.damage)} damaged stretches" if report.damage else ""
        raise IngestStopError(
            f"no article kept: {where} holds no row to read{damaged} (an empty file?); "
            "fix: point corpus.path at the corpus file or directory"
        )
    check_drops(report, settings.max_drop_share)
    return articles, report


def articles_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """The article table with its canonical dtypes and order."""
    import pyarrow as pa

    df = pd.DataFrame.from_records(records, columns=list(ARTICLE_COLUMNS))
    df = df.sort_values(["date", "article_id"], kind="stable").reset_index(drop=True)
    for col in ("article_id", "title", "text", "url", "source_domain"):
        df[col] = df[col].astype("string")
    df["date"] = df["date"].astype(pd.ArrowDtype(pa.date32()))
    return df


def summarize(df: pd.DataFrame, report: IngestReport, checksum: str) -> dict[str, Any]:
    """Metrics of the stage (``reports/metrics/ingest.json``)."""
    dropped = {r: int(report.dropped.get(r, 0)) for r in DROP_REASONS}
    dropped.update({r: int(n) for r, n in report.dropped.items() if r not in dropped})
    years = pd.Series([d.year for d in df["date"]], dtype="int64") if len(df) else None
    per_year = (
        {str(k): int(v) for k, v in years.value_counts().sort_index().items()}
        if years is not None
        else {}
    )
    per_source = {
        str(k): int(v)
        for k, v in df["source_domain"].fillna("(none)").value_counts().sort_index().items()
    }
    return {
        "rows_read": report.rows_read,
        "rows_kept": len(df),
        "dropped": dropped,
        "dropped_total": int(sum(dropped.values())),
        "damage": list(report.damage),
        "notes": dict(sorted(report.notes.items())),
        "per_year": per_year,
        "per_source": per_source,
        "date_min": df["date"].min().isoformat() if len(df) else None,
        "date_max": df["date"].max().isoformat() if len(df) else None,
        "future_after": report.max_date.isoformat() if report.max_date else None,
        "title_mastheads": {
            "titles_stripped": report.titles_stripped,
            "mastheads": sum(len(m) for m in report.mastheads.values()),
            "source_domains": len(report.mastheads),
        },
        "checksum": checksum,
    }


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
