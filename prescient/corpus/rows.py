"""The checks of one input row, in their fixed order: what a row is (a drop reason, or an
article with its normalised text), decided from the row and the ingest settings alone.

The check of ``base.through`` is not among them: :func:`prescient.corpus.ingest.settle`
applies it in its place, so a row's outcome does not change as the days move on and a
file's outcomes can be kept between runs (:mod:`prescient.corpus.kept_files`). No check
reads the clock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prescient.arrival import known_from
from prescient.corpus import language
from prescient.corpus.normalize import (
    domain_of,
    normalize_text,
    normalize_title,
    normalize_url,
    text_hash,
)
from prescient.corpus.settings import IngestSettings
from prescient.corpus.spill import Deferred
from prescient.corpus.units import RawRow
from prescient.dates import parse_date


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


def _arrival(row: RawRow) -> tuple[dt.date | None, str, str]:
    """(arrived, reason, detail): the day the row entered the corpus (its fetch day for a
    WARC record, the mapped ``arrived`` column for a file; None: on its date), or the
    reason it is not usable."""
    if row.fetched is not None:
        return row.fetched, "", ""
    raw = row.fields.get("arrived")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, "", ""
    arrived = parse_date(raw)
    if arrived is None:
        return None, "unparseable_arrival", repr(raw)[:80]
    return arrived, "", ""


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


Detector = Callable[[str, dt.date], str]
"""The language of what the detector reads of an article of a given day."""


def detect_language(text: str, day: dt.date) -> str:
    """The language of an article of ``day`` (:func:`prescient.corpus.language.detect`)."""
    return language.detect(text)


@dataclass(slots=True)
class Outcome:
    """What a row's checks decided, before ``base.through`` is applied: a function of the
    row and the settings other than ``through`` alone, so a file's outcomes can be kept
    between runs (:mod:`prescient.corpus.kept_files`) while the day moves on. ``text``
    is the normalised text, or, for a row of a kept file, a reference to it
    (:class:`~prescient.corpus.spill.Deferred`).

    ``drop`` is the first check before the ``through`` check that the row fails (reason,
    detail), ``late_drop`` the first after it; ``known`` is the day it is known from
    (None when a date check failed). The article's fields are set only for a row that
    fails no check.
    """

    where: str
    members: tuple[int, int]
    file_no: int
    drop: tuple[str, str] | None = None
    known: dt.date | None = None
    late_drop: tuple[str, str] | None = None
    date: dt.date | None = None
    arrived: dt.date | None = None
    title: str = ""
    text_hash: str = ""
    url: str | None = None
    norm_url: str | None = None
    source_domain: str | None = None
    notes: tuple[str, ...] = ()
    text: str | Deferred = ""


def row_outcome(
    row: RawRow, s: IngestSettings, date_format: str | None, detect: Detector = detect_language
) -> Outcome:
    """Apply the per-row checks in their fixed order, all but the ``through`` check
    (:func:`settle` applies it in its place)."""
    out = Outcome(row.where, row.members, row.file_no)
    if row.reason:
        out.drop = (row.reason, row.detail)
        return out
    f = row.fields
    try:
        text_raw = _as_text("text", f.get("text"))
        title_raw = _as_text("title", f.get("title"))
        url_raw = _as_text("url", f.get("url"))
        domain_raw = _as_text("source_domain", f.get("source_domain"))
    except _FieldError as exc:
        out.drop = (exc.reason, exc.detail)
        return out
    text = normalize_text(text_raw or "")
    if not text:
        out.drop = ("empty_text", "")
        return out
    title = normalize_title(title_raw or "")
    if not title:
        out.drop = ("missing_title", "")
        return out
    date, reason, detail = _check_date(row, s, date_format)
    if date is None:
        out.drop = (reason, detail)
        return out
    arrived, reason, detail = _arrival(row)
    if reason:
        out.drop = (reason, detail)
        return out
    out.known = known_from(date, arrived)
    if len(text) <= s.min_chars:
        out.late_drop = ("text_too_short", f"{len(text)} chars")
        return out
    if len(text) >= s.max_chars:
        out.late_drop = ("text_too_long", f"{len(text)} chars")
        return out
    if any(title.startswith(p) for p in s.drop_title_prefixes):
        out.late_drop = ("title_prefix", title[:80])
        return out
    url = url_raw.strip() if url_raw and url_raw.strip() else None
    domain = (domain_raw or "").strip().lower().removeprefix("www.") or domain_of(url)
    if s.source_domains is not None and (domain or "") not in s.source_domains:
        out.late_drop = ("source_not_allowed", str(domain))
        return out
    if s.languages is not None:
        lang = detect(language.article_text(title, text, s.language_chars), date)
        if lang not in s.languages:
            out.late_drop = ("language_not_allowed", f"{lang}: {title[:60]}")
            return out
    out.date, out.arrived, out.title, out.text = date, arrived, title, text
    out.text_hash = text_hash(text)
    out.url, out.norm_url, out.source_domain = url, normalize_url(url), domain or None
    out.notes = tuple(row.notes)
    return out
