"""When an article may be used: the arrival rule that keeps the past from changing.

A continuously updated benchmark sees its corpus grow day by day, and a crawl brings some
articles late: CC-NEWS files pages by the time they were fetched, so a page published on
the 10th can arrive with the files of the 20th. If such an article counted from its
stated date, the update that brought it would change what questions of earlier days
retrieved, which articles their day offered for selection, and so their predictions and
scores: a run updated day by day and a run from scratch would disagree.

So every article has two days: ``date``, the publication day it states, and ``arrived``,
the day it entered the corpus (a WARC record's fetch day, WARC-Date; the column
``corpus.columns.arrived`` of a file source; its own date when the source does not say,
as in a dump collected at once). The rule, decided here and nowhere else:

- **An article is known from** ``max(date, arrived)`` (:func:`known_from`). Ingest keeps
  it only when ``base.through`` has reached that day, and retrieval shows it to a question
  only when that day is inside the question's visibility window
  (:mod:`prescient.retrieval.visibility`, applied to this day instead of the stated one).
- **An article is on time** when it arrived at most ``corpus.arrival_grace_days`` after
  its date (:func:`on_time`). Only on-time articles are candidates for their day's
  question construction; a late one is counted (``late_articles`` in the selection's
  metrics) and stays in the corpus for retrieval from the day it arrived.
- **A day is settled** once ``base.through`` is ``arrival_grace_days`` past it
  (:func:`settled_through`): selection and construction cover settled days only, so the
  set of on-time articles of a day is final before any question is made from it.

With these, what a question's day offered is a function of articles known by then, and
an update that brings any article, however late, changes only days after it arrived.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient import dates


def known_from(date: dt.date, arrived: dt.date | None) -> dt.date:
    """The first day an article may be used: the later of its date and its arrival."""
    return date if arrived is None or arrived <= date else arrived


def on_time(date: dt.date, arrived: dt.date | None, grace_days: int) -> bool:
    """True when the article arrived at most ``grace_days`` after its date (or the source
    does not say when it arrived)."""
    return arrived is None or arrived <= date + dt.timedelta(days=grace_days)


def settled_through(through: dt.date | None, grace_days: int) -> dt.date | None:
    """The last day whose on-time articles are all in a corpus that runs through
    ``through`` (None: no bound)."""
    return None if through is None else through - dt.timedelta(days=grace_days)


def day_array(values: Any) -> npt.NDArray[np.datetime64]:
    """Days of a column (dates, date strings or timestamps) as ``datetime64[D]``; a
    column of Arrow dates without nulls (an article table's) is converted whole."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.ArrowDtype):
        import pyarrow as pa

        if pa.types.is_date32(values.dtype.pyarrow_dtype) and not values.hasnans:
            days: npt.NDArray[np.datetime64] = np.asarray(
                pa.array(values).to_numpy(zero_copy_only=False), dtype="datetime64[D]"
            )
            return days
    return np.array([np.datetime64(dates.as_date(v), "D") for v in values], dtype="datetime64[D]")


def known_days(articles: pd.DataFrame) -> npt.NDArray[np.datetime64]:
    """:func:`known_from` of every article of an article table, as ``datetime64[D]``
    (a table without the ``arrived`` column: every article arrived on its date)."""
    days = day_array(articles["date"])
    if "arrived" not in articles.columns:
        return days
    arrived = day_array(articles["arrived"])
    return np.maximum(days, arrived)


def on_time_mask(articles: pd.DataFrame, grace_days: int) -> npt.NDArray[np.bool_]:
    """:func:`on_time` of every article of an article table."""
    if "arrived" not in articles.columns:
        return np.ones(len(articles), dtype=bool)
    days = day_array(articles["date"])
    arrived = day_array(articles["arrived"])
    return arrived <= days + np.timedelta64(grace_days, "D")
