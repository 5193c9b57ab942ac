"""Where every input unit of the ingest went: the drop reasons, the report that counts
them, the stop on a configuration that drops (nearly) everything, and the metrics.

The accounting invariant: every physical unit of the input (line, CSV record, Parquet
row, WARC record) is either in the output or counted under exactly one drop reason, so
``rows_read == rows_kept + sum(dropped.values())``. Damaged stretches of files (a cut or
corrupt gzip member, an unreadable Parquet footer) are listed with file and byte
offset. Kept apart from the checks that decide each row (:mod:`prescient.corpus.ingest`,
which also logs what is counted here) so the bookkeeping and its wording can be read,
and tested, on their own.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient.corpus import physical
from prescient.corpus.physical import Damage

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
    "unparseable_arrival",
    "after_through",
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
    "unparseable_arrival": "set corpus.columns.arrived to a column of dates, or null",
    "future_date": "set ingest.max_date (null: no bound) or ingest.max_days_after_crawl",
    "text_too_short": "lower ingest.min_chars, or check corpus.columns.text",
    "text_too_long": "raise ingest.max_chars",
    "title_prefix": "change ingest.drop_title_prefixes",
}
"""The parameter to look at when a reason drops (nearly) everything. Reasons missing
here select rather than signal a mistake (an allow-list, a date window, WARC records
that are not pages, duplicates) and never stop the stage on their own."""


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


def check_drops(report: IngestReport, max_share: float | None) -> None:
    """Stop when the configuration, not the data, decides the outcome.

    Raises:
        IngestStopError: nothing was kept from a non-empty input (an empty one stops in
            :func:`prescient.corpus.ingest.ingest_corpus`, which can name its file), or
            one reason listed in :data:`REASON_FIX` dropped at least ``max_share`` of the
            rows read. The message names the reason, its count, an example and the
            parameter to fix.
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
