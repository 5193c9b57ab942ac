"""``base.through``: the last day of news the benchmark covers, the bound of every window.

A continuously updated benchmark advances one parameter a day (``python -m prescient
update --through YYYY-MM-DD``). The crawl, ingest, selection and construction windows
keep their own ``date_end`` (null: open); the window each of those stages uses ends at
the earlier of its own end and ``base.through``, so a window tuned for a demo or a
study stays as it is and the daily bound applies on top. With ``base.through`` null
nothing is bounded.

Adding days never changes an earlier day: selection is seeded per day, construction
builds each article's questions from that article (and earlier days), retrieval for a
question sees only articles before its resolution date, and every model reply comes
from the stage's ledger, so the new days are the only ones that cost model calls.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from prescient.dates import parse_day
from prescient.settings import ParamsError, section

THROUGH = "base.through"
"""The parameter's dotted name (stages that respect it declare it in dvc.yaml)."""


def read_through(params: Mapping[str, Any]) -> dt.date | None:
    """``base.through`` of the composed params (None: no bound).

    Raises:
        ParamsError: missing, or not a day.
    """
    value = section(params, THROUGH)
    if value is None:
        return None
    try:
        return parse_day(value, THROUGH)
    except ValueError as exc:
        raise ParamsError(f"{exc}; set it in conf/config.yaml or with -S '{THROUGH}=...'") from None


def capped(end: dt.date | None, through: dt.date | None) -> dt.date | None:
    """The end of a window bounded by ``through`` (either may be None: open)."""
    if end is None:
        return through
    if through is None:
        return end
    return min(end, through)
