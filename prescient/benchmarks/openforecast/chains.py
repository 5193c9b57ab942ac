"""Complex event chains: the table every OpenForecast task is built from.

OpenForecast (COLING 2025, section 3) defines a complex event as a chronologically
ordered chain of atomic events on one topic, each with a timestamp when its sources give
one. Every chain source (the demo timelines, chains linked from a corpus, an imported
file) ends here, in one table with one row per atomic event (:data:`CHAIN_SCHEMA`):

- ``chain_id``, ``chain_title``, ``category``;
- ``event_id``: a stable hash of the chain id, the date and the text, so an event keeps
  its id when other events or chains are added;
- ``seq``: 0-based position in the chain, by date (then by the source's own order);
- ``date`` and ``date_precision``: the first day of the period the source names
  (``yyyy``, ``yyyy-MM`` or ``yyyy-MM-dd``, the paper's timestamp forms) and which of
  ``day``, ``month``, ``year`` it is, so a task never treats "May 2023" as May 1st;
- ``text``: the atomic event, one sentence;
- ``source_article_ids``: ingested articles reporting it (ids of
  ``data/interim/articles.parquet``);
- ``origin``: which source produced the chain.

Bad input rows (no date, an unreadable date, empty text) stop a source with one
:class:`ChainError` that lists every offending row with its reason.
"""

from __future__ import annotations

import calendar
import datetime as dt
import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from prescient import io
from prescient.corpus.normalize import article_id, normalize_url
from prescient.dates import as_date, is_missing

# How precisely an atomic event is dated (the paper's yyyy-MM-dd, yyyy-MM, yyyy).
DAY = "day"
MONTH = "month"
YEAR = "year"

CHAIN_SCHEMA: dict[str, str] = {
    "chain_id": "string",
    "chain_title": "string",
    "category": "string",
    "event_id": "string",
    "seq": "int32",
    "date": "date32[pyarrow]",
    "date_precision": "string",
    "text": "string",
    "source_article_ids": "object",
    "origin": "string",
}
"""Columns of ``data/interim/chains.parquet``, one row per atomic event."""

MAX_LISTED_ROWS = 50
"""Offending rows listed in one error message (the rest are counted)."""

_PARTIAL_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]")


class ChainError(ValueError):
    """A chain source is misconfigured or has bad rows (every one of them is listed)."""


@dataclass(frozen=True)
class EventDate:
    """The period an atomic event is dated to: its first day and its precision."""

    start: dt.date
    precision: str

    @property
    def end(self) -> dt.date:
        """The last day of the period (``start`` for a day)."""
        if self.precision == DAY:
            return self.start
        if self.precision == MONTH:
            last = calendar.monthrange(self.start.year, self.start.month)[1]
            return self.start.replace(day=last)
        return dt.date(self.start.year, 12, 31)


def parse_event_date(value: Any, precision: str | None = None) -> EventDate | None:
    """An event's date from ``yyyy``, ``yyyy-MM`` or ``yyyy-MM-dd`` (a time is ignored).

    Args:
        value: text, or a date/datetime/Timestamp (a day).
        precision: the precision a source states beside the date (``day`` for the demo
            timelines); None infers it from the form of ``value``.

    Returns:
        None when the value is missing or is not one of the three forms, or when a stated
        precision contradicts the form.
    """
    if is_missing(value):
        return None
    if isinstance(value, dt.date | np.datetime64):
        found = EventDate(as_date(value), DAY)
    else:
        text = str(value).strip()
        if _ISO_DAY.match(text):
            text = text[:10]
        m = _PARTIAL_DATE.match(text)
        if m is None:
            return None
        year, month, day = m.groups()
        try:
            if day is not None:
                found = EventDate(dt.date(int(year), int(month), int(day)), DAY)
            elif month is not None:
                found = EventDate(dt.date(int(year), int(month), 1), MONTH)
            else:
                found = EventDate(dt.date(int(year), 1, 1), YEAR)
        except ValueError:
            return None
    if precision is not None and found.precision != precision:
        return None
    return found


def stable_id(*parts: object) -> str:
    """16 hex digits of the sha256 of the parts (ids, not seeds: seeds use derive_seed)."""
    text = "\x1f".join(p.isoformat() if isinstance(p, dt.date) else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def event_id(chain_id: str, date: EventDate, text: str) -> str:
    """The stable id of an atomic event."""
    return stable_id("event", chain_id, date.start, date.precision, " ".join(text.split()))


@dataclass(frozen=True)
class AtomicEvent:
    """An atomic event as a source reads it, before ordering and ids.

    Attributes:
        chain_id: the chain it belongs to.
        chain_title: the chain's title.
        category: the chain's category (None: unknown).
        date: its date and precision.
        text: one sentence.
        source_article_ids: ingested articles reporting it.
        order: its position in the source (ties between equal dates keep it).
    """

    chain_id: str
    chain_title: str
    category: str | None
    date: EventDate
    text: str
    source_article_ids: tuple[str, ...]
    order: int


@dataclass(frozen=True)
class BadRow:
    """One input row a source cannot use: where it is and why."""

    where: str
    reason: str


def raise_bad_rows(bad: Sequence[BadRow], source: str, fix: str) -> None:
    """Stop with one error listing every bad row (the first :data:`MAX_LISTED_ROWS`).

    Raises:
        ChainError: when ``bad`` is not empty.
    """
    if not bad:
        return
    lines = [f"  {b.where}: {b.reason}" for b in bad[:MAX_LISTED_ROWS]]
    if len(bad) > MAX_LISTED_ROWS:
        lines.append(f"  ... and {len(bad) - MAX_LISTED_ROWS} more")
    raise ChainError(f"{source}: {len(bad)} bad row(s); {fix}\n" + "\n".join(lines))


def url_article_ids(
    urls: Iterable[Any], known: Mapping[str, str] | set[str]
) -> tuple[tuple[str, ...], int]:
    """Ids of the ingested articles behind ``urls`` (the ingest stage's id rule).

    Returns:
        (ids of ingested articles, in URL order without repeats; number of URLs that
        match no ingested article).
    """
    ids: dict[str, None] = {}
    missing = 0
    for url in urls:
        norm = normalize_url(None if is_missing(url) else str(url))
        if norm is None:
            missing += 1
            continue
        aid = article_id(norm, "", dt.date.min)  # the date only matters without a URL
        if aid in known:
            ids[aid] = None
        else:
            missing += 1
    return tuple(ids), missing


def chronological(events: Sequence[AtomicEvent]) -> list[AtomicEvent]:
    """Events in time order, keeping the source's order where the dates allow it.

    A source's order (``order``) is kept when every event may precede the next one,
    i.e. its period starts no later than the next one ends ("March 2022" may come before
    or after "2022-03-08"); otherwise events are sorted by the first day of their period,
    ties in source order.
    """
    in_order = sorted(events, key=lambda e: e.order)
    if all(a.date.start <= b.date.end for a, b in zip(in_order, in_order[1:], strict=False)):
        return in_order
    return sorted(in_order, key=lambda e: (e.date.start, e.order))


def chain_frame(events: Iterable[AtomicEvent], origin: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The chains table from a source's events.

    Within a chain, events are in :func:`chronological` order; an exact repeat (same date, precision and text) is dropped and
    counted. A chain's title and category are those of its first event in source order;
    chains whose rows disagree are counted.

    Returns:
        (the table, counts: ``duplicate_events``, ``conflicting_titles``,
        ``conflicting_categories``).
    """
    by_chain: dict[str, list[AtomicEvent]] = defaultdict(list)
    for e in events:
        by_chain[e.chain_id].append(e)
    rows: dict[str, list[Any]] = {c: [] for c in CHAIN_SCHEMA}
    counts: Counter[str] = Counter()
    for cid in sorted(by_chain):
        chain = sorted(by_chain[cid], key=lambda e: e.order)
        title, category = chain[0].chain_title, chain[0].category
        counts["conflicting_titles"] += len({e.chain_title for e in chain}) > 1
        counts["conflicting_categories"] += len({e.category for e in chain}) > 1
        seen: set[str] = set()
        ordered = chronological(chain)
        seq = 0
        for e in ordered:
            eid = event_id(cid, e.date, e.text)
            if eid in seen:
                counts["duplicate_events"] += 1
                continue
            seen.add(eid)
            rows["chain_id"].append(cid)
            rows["chain_title"].append(title)
            rows["category"].append(category)
            rows["event_id"].append(eid)
            rows["seq"].append(seq)
            rows["date"].append(e.date.start)
            rows["date_precision"].append(e.date.precision)
            rows["text"].append(" ".join(e.text.split()))
            rows["source_article_ids"].append(list(e.source_article_ids))
            rows["origin"].append(origin)
            seq += 1
    counts.setdefault("duplicate_events", 0)
    counts.setdefault("conflicting_titles", 0)
    counts.setdefault("conflicting_categories", 0)
    return io.typed_frame(CHAIN_SCHEMA, rows), dict(counts)


def chain_stats(chains: pd.DataFrame, thresholds: Sequence[int] = (5, 10)) -> dict[str, Any]:
    """Sizes of the chains: events and distinct dates per chain, precision counts."""
    if chains.empty:
        return {
            "chains": 0,
            "events": 0,
            "events_per_chain": None,
            "dates_per_chain": None,
            **{f"chains_with_at_least_{t}_dates": 0 for t in thresholds},
            "date_precision": {},
        }
    grouped = chains.groupby("chain_id")
    n_events = grouped.size()
    n_dates = grouped["date"].nunique()

    def describe(s: pd.Series) -> dict[str, float]:
        return {
            "min": int(s.min()),
            "median": float(s.median()),
            "mean": round(float(s.mean()), 3),
            "max": int(s.max()),
        }

    return {
        "chains": int(len(n_events)),
        "events": int(len(chains)),
        "events_per_chain": describe(n_events),
        "dates_per_chain": describe(n_dates),
        **{f"chains_with_at_least_{t}_dates": int((n_dates >= t).sum()) for t in thresholds},
        "date_precision": {
            str(k): int(v) for k, v in chains["date_precision"].value_counts().sort_index().items()
        },
    }
