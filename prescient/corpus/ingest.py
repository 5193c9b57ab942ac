"""Turn raw rows into the article table every later stage uses.

The accounting invariant: every input row is either in the output or counted under
exactly one drop reason, so ``rows_read == rows_kept + sum(dropped.values())``.
Checks run in a fixed order and a row is counted under the first one it fails.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from tqdm import tqdm

from prescient.corpus.normalize import (
    article_id,
    domain_of,
    normalize_text,
    normalize_title,
    normalize_url,
    parse_date,
    text_hash,
)
from prescient.corpus.readers import RawRow

logger = logging.getLogger(__name__)

ARTICLE_COLUMNS = ("article_id", "date", "title", "text", "url", "source_domain")

# Every reason a row can be dropped for, in the order the checks run (reader-level
# reasons first). Listed so the metrics always show every reason, zeros included.
DROP_REASONS: tuple[str, ...] = (
    "invalid_utf8",
    "malformed_json",
    "malformed_row",
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
    "duplicate_url",
    "duplicate_text",
)


@dataclass(frozen=True)
class IngestSettings:
    """Filters of the ingest stage (params section ``ingest``; see conf/config.yaml)."""

    min_chars: int = 800
    max_chars: int = 10_000
    drop_title_prefixes: Sequence[str] = ("Opinion",)
    source_domains: Sequence[str] | None = None
    date_start: dt.date | None = None
    date_end: dt.date | None = None
    max_date: dt.date | None = None
    date_format: str | None = None
    examples_per_reason: int = 3

    @classmethod
    def from_params(cls, ingest: dict[str, Any], corpus: dict[str, Any]) -> IngestSettings:
        """Build from the ``ingest`` and ``corpus`` params sections, validating dates."""

        def day(key: str) -> dt.date | None:
            raw = ingest.get(key)
            if raw is None:
                return None
            parsed = parse_date(str(raw))
            if parsed is None:
                raise ValueError(f"params ingest.{key}={raw!r} is not a date (use YYYY-MM-DD)")
            return parsed

        domains = ingest.get("source_domains")
        return cls(
            min_chars=int(ingest.get("min_chars", 800)),
            max_chars=int(ingest.get("max_chars", 10_000)),
            drop_title_prefixes=tuple(ingest.get("drop_title_prefixes") or ()),
            source_domains=tuple(d.lower() for d in domains) if domains else None,
            date_start=day("date_start"),
            date_end=day("date_end"),
            max_date=day("max_date"),
            date_format=corpus.get("date_format"),
            examples_per_reason=int(ingest.get("examples_per_reason", 3)),
        )


@dataclass
class IngestReport:
    """Where every input row went."""

    rows_read: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    max_date: dt.date | None = None

    def drop(self, reason: str, where: str, limit: int, detail: str = "") -> None:
        self.dropped[reason] += 1
        if len(self.examples[reason]) < limit:
            self.examples[reason].append(f"{where}{': ' + detail if detail else ''}")


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


def _as_text(value: Any) -> str | None:
    """A field as a string; None for absent; raises TypeError for structured values."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise TypeError(type(value).__name__)


def _check_row(
    row: RawRow, s: IngestSettings, report: IngestReport, order: int
) -> _Candidate | None:
    """Apply the per-row checks; count and return None on the first failure."""
    ex = s.examples_per_reason
    if row.reason:
        report.drop(row.reason, row.where, ex)
        return None
    f = row.fields
    try:
        text_raw = _as_text(f.get("text"))
        title_raw = _as_text(f.get("title"))
        url_raw = _as_text(f.get("url"))
        domain_raw = _as_text(f.get("source_domain"))
    except TypeError as exc:
        report.drop("invalid_field_type", row.where, ex, f"a field holds a {exc}")
        return None
    text = normalize_text(text_raw or "")
    if not text:
        report.drop("empty_text", row.where, ex)
        return None
    title = normalize_title(title_raw or "")
    if not title:
        report.drop("missing_title", row.where, ex)
        return None
    raw_date = f.get("date")
    if raw_date is None or (isinstance(raw_date, str) and not raw_date.strip()):
        report.drop("missing_date", row.where, ex)
        return None
    date = parse_date(raw_date, s.date_format)
    if date is None:
        report.drop("unparseable_date", row.where, ex, repr(raw_date)[:80])
        return None
    if report.max_date is not None and date > report.max_date:
        report.drop("future_date", row.where, ex, date.isoformat())
        return None
    if s.date_start and date < s.date_start:
        report.drop("before_date_start", row.where, ex, date.isoformat())
        return None
    if s.date_end and date > s.date_end:
        report.drop("after_date_end", row.where, ex, date.isoformat())
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
    norm_url = normalize_url(url)
    domain = (domain_raw or "").strip().lower() or domain_of(url)
    if domain and domain.startswith("www."):
        domain = domain[4:]
    if s.source_domains is not None and (domain or "") not in s.source_domains:
        report.drop("source_not_allowed", row.where, ex, str(domain))
        return None
    for note in row.notes:
        report.notes[note] += 1
    return _Candidate(order, row.where, date, title, text, url, norm_url, domain or None)


def ingest_rows(
    rows: Iterable[RawRow], settings: IngestSettings, *, today: dt.date | None = None
) -> tuple[pd.DataFrame, IngestReport]:
    """Filter, normalise and de-duplicate rows into the article table.

    De-duplication keeps the earliest copy (by date, then input order) of each
    normalised URL and of each exact normalised text; ``article_id`` collisions (same
    title and date, no URL) count as ``duplicate_url`` since the id stands for the URL.

    Args:
        rows: the source's rows, in input order.
        settings: the filters.
        today: reference day for ``future_date`` when ``settings.max_date`` is unset.

    Returns:
        The article table sorted by (date, article_id), and the accounting.
    """
    report = IngestReport(max_date=settings.max_date or today or dt.date.today())
    candidates: list[_Candidate] = []
    for order, row in enumerate(tqdm(rows, desc="ingest", unit=" rows", mininterval=2.0)):
        report.rows_read += 1
        cand = _check_row(row, settings, report, order)
        if cand is not None:
            candidates.append(cand)

    candidates.sort(key=lambda c: (c.date, c.order))
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    records: list[dict[str, Any]] = []
    ex = settings.examples_per_reason
    for c in candidates:
        aid = article_id(c.norm_url, c.title, c.date)
        th = text_hash(c.text)
        if aid in seen_ids:
            report.drop("duplicate_url", c.where, ex, c.norm_url or c.title[:60])
            continue
        if th in seen_text:
            report.drop("duplicate_text", c.where, ex, c.title[:60])
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
    return articles_frame(records), report


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
        "notes": dict(sorted(report.notes.items())),
        "per_year": per_year,
        "per_source": per_source,
        "date_min": df["date"].min().isoformat() if len(df) else None,
        "date_max": df["date"].max().isoformat() if len(df) else None,
        "future_after": report.max_date.isoformat() if report.max_date else None,
        "checksum": checksum,
    }


def log_examples(report: IngestReport) -> None:
    """Log a few examples of each drop reason, so a surprising count can be checked."""
    for reason, examples in sorted(report.examples.items()):
        logger.info("dropped %d as %s, e.g.:", report.dropped[reason], reason)
        for e in examples:
            logger.info("    %s", e)
