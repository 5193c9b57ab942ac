"""Dates, months and RAG cutoffs: the one place that reads and writes them.

Three kinds of date reading, each with its own strictness:

- :func:`as_date` / :func:`optional_date`: values already in a table (date, datetime,
  Timestamp, datetime64, ISO text);
- :func:`parse_date`: dates as data files write them (ISO 8601 with or without a time,
  common textual forms, or one strptime format), None when unreadable; relative words
  such as "today" are refused, so no output depends on the day a stage runs;
- :func:`parse_day`: a day in configuration (``YYYY-MM-DD``), with an error naming the
  parameter.

Months are integers (``year * 12 + month - 1``) so consecutive months differ by one.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import numpy as np
import pandas as pd

DYNAMIC = "dynamic"
"""The RAG cutoff spelled for "no cutoff beyond the visibility rule"."""

_TEXT_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%d %B %Y",
    "%d %b %Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%a, %d %b %Y %H:%M:%S %Z",
    "%a, %d %b %Y %H:%M:%S %z",
    "%a, %d %b %Y",
    "%B %d %Y",
    "%b. %d, %Y",
)
_YEAR = re.compile(r"(?<!\d)(19|20)\d{2}(?!\d)")
_COMPACT = re.compile(r"(?:19|20)\d{6}")


def is_missing(value: Any) -> bool:
    """None, NaN, NaT, pd.NA or blank text."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) and np.isnan(value):
        return True
    if isinstance(value, np.datetime64) and np.isnat(value):
        return True
    return isinstance(value, str) and not value.strip()


def as_date(value: Any) -> dt.date:
    """A calendar day from what tables hold: date, datetime/Timestamp (its day),
    numpy datetime64, or text starting with YYYY-MM-DD.

    Raises:
        ValueError: a missing value or text that is not an ISO date.
    """
    if isinstance(value, dt.datetime):  # pd.Timestamp included
        if value is pd.NaT:
            raise ValueError("missing date (NaT)")
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise ValueError("missing date (NaT)")
        return pd.Timestamp(value).date()
    return dt.date.fromisoformat(str(value)[:10])


def optional_date(value: Any) -> dt.date | None:
    """:func:`as_date`, with None for a missing value (None, NaT, NaN, pd.NA, blank)."""
    return None if is_missing(value) else as_date(value)


def parse_date(value: Any, date_format: str | None = None) -> dt.date | None:
    """The day a data file's date value names, or None when it cannot be read.

    Accepts date/datetime objects, ISO 8601 text (with or without a time and offset:
    the calendar day as written is kept, not converted to UTC, because that is the day
    the source dated it) and the unambiguous textual forms above. With ``date_format``
    only that strptime format is accepted. Relative words ("today", "now") and numbers
    are not dates.
    """
    if is_missing(value):
        return None
    if isinstance(value, dt.datetime | dt.date | np.datetime64):
        return as_date(value)
    if not isinstance(value, str):
        return None
    s = " ".join(value.split())
    if date_format:
        try:
            return dt.datetime.strptime(s, date_format).date()
        except ValueError:
            return None
    if _COMPACT.fullmatch(s):  # 20240301
        try:
            return dt.datetime.strptime(s, "%Y%m%d").date()
        except ValueError:
            return None
    if not _YEAR.search(s):
        return None
    iso = s[:-1] + "+00:00" if s.endswith("Z") else s
    try:
        return dt.datetime.fromisoformat(iso).date()
    except ValueError:
        pass
    for fmt in _TEXT_FORMATS:
        try:
            return dt.datetime.strptime(s, fmt).date()
        except ValueError:
            continue
    return None


def parse_day(value: Any, where: str) -> dt.date:
    """A configured day (``YYYY-MM-DD`` text or a date).

    Raises:
        ValueError: naming ``where`` (the parameter) and the expected form.
    """
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not a day (expected YYYY-MM-DD)") from None


def parse_rag_cutoff(value: object) -> dt.date | None:
    """``dynamic`` (or None) -> None; a date or ``YYYY-MM-DD`` text -> that date.

    Raises:
        ValueError: neither ``dynamic`` nor an ISO date.
    """
    if value is None:
        return None
    if isinstance(value, dt.date):
        return as_date(value)
    text = str(value).strip()
    if text.lower() == DYNAMIC:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"rag cutoff {value!r} is neither {DYNAMIC!r} nor YYYY-MM-DD") from exc


def format_rag_cutoff(cutoff: dt.date | None) -> str:
    """The inverse of :func:`parse_rag_cutoff`: ``dynamic`` or ``YYYY-MM-DD``."""
    return DYNAMIC if cutoff is None else cutoff.isoformat()


def month_index(day: dt.date) -> int:
    """Months since year 0 (``year * 12 + month - 1``)."""
    return day.year * 12 + day.month - 1


def month_indices(ts: pd.Series) -> pd.Series:
    """:func:`month_index` of a datetime column."""
    months: pd.Series = ts.dt.year * 12 + ts.dt.month - 1
    return months


def month_label(index: int) -> str:
    """``YYYY-MM`` of a month index."""
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def month_start(index: int) -> dt.date:
    """First day of a month index."""
    return dt.date(index // 12, index % 12 + 1, 1)


def add_months(day: dt.date, months: int) -> dt.date:
    """``day`` moved by whole calendar months, clamped to the target month's last day."""
    index = month_index(day) + months
    first = month_start(index)
    nxt = month_start(index + 1)
    return first.replace(day=min(day.day, (nxt - first).days))
