"""Where a question falls: FreshBench's windows before a model's anchor date, the
periods after it, and the questions and correct answers each span holds.

Two rules place a question in the window "a-b months before the anchor"
(``analysis.freshbench.month_rule``); both give half-open day ranges ``[start, end)``,
written into the tables as ``*_start`` / ``*_end``:

=============  ==============================================  ===========================
rule           a question resolved on day d is in the window   present window 0-20
=============  ==============================================  ===========================
``calendar``   ``anchor - b months <= d < anchor - a months``  the 20 calendar months
               (calendar months, day of month kept, clamped    before the anchor, ending
               to the month's end)                             the day before it
``freshbench`` ``-b < m <= -a`` with ``m = round((d -          from 584 days before the
               anchor).days / 30)``, Python's round (half to   anchor to 15 days after it
               even): 30-day months                            (m = -19 ... 0)
=============  ==============================================  ===========================

Under ``freshbench`` a question 15 days after the anchor has m = round(0.5) = 0 and
counts as present; 16 days after, m = 1. 45 days (1.5) and 75 days (2.5) both give m = 2.
The 30-day months drift from calendar months: the present window reaches 584 days back
where 20 calendar months are about 609, so the windows' first days fall on other dates
than the calendar rule's (the tests pin both sides of every boundary).

Reading the paper for the ``freshbench`` rule:

* Section 4.1.1 sorts questions into a model's past, present and future by close time
  against the release date, and calls the present the questions closing "near" the
  release, "around" the launch: not only before it. Section 4.1.2 and Table 2 name the
  windows "0-20" (the reference), "20-40", "40-60" and "60-80 months before release".
  The paper prints no month arithmetic: the 30-day months rounded half to even, and the
  ``lo < m <= hi`` reading of the signed window pairs ``(-20, 0)``, ``(-40, -20)``, ...
  that FreshBench's repository states its windows in, are FreshBench's analysis code.
  The text agrees with them (a present window reaching past the release) and with
  nothing narrower. That is the ``freshbench`` rule; ``calendar`` is this project's.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient import dates
from prescient.analysis.schema import as_datetime64, iso
from prescient.benchmarks.freshbench.settings import ANCHORED, CALENDAR
from prescient.stats import wilson_interval

DAYS_PER_MONTH = 30
"""FreshBench's month, in days."""


def freshbench_month(days: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """FreshBench's month of a day offset: ``round(days / 30)``, ties to even.

    Integer arithmetic, identical to Python's ``round(days / 30)`` on every integer
    (a tie is exactly 15 days past a multiple of 30; the test checks the identity).
    """
    q, r = np.divmod(np.asarray(days, dtype=np.int64), DAYS_PER_MONTH)
    half = DAYS_PER_MONTH // 2
    month: npt.NDArray[np.int64] = q + ((r > half) | ((r == half) & (q % 2 == 1)))
    return month


def _first_day_from(month: int) -> int:
    """The smallest day offset with ``freshbench_month(d) >= month``."""
    tie = DAYS_PER_MONTH * month - DAYS_PER_MONTH // 2
    return next(d for d in (tie, tie + 1) if int(freshbench_month(d)) >= month)


def _last_day_until(month: int) -> int:
    """The largest day offset with ``freshbench_month(d) <= month``."""
    tie = DAYS_PER_MONTH * month + DAYS_PER_MONTH // 2
    return next(d for d in (tie, tie - 1) if int(freshbench_month(d)) <= month)


@dataclass(frozen=True)
class Span:
    """The days ``[start, end)``; ``start`` None is open (every earlier day)."""

    start: dt.date | None
    end: dt.date

    def mask(self, days: npt.NDArray[np.datetime64]) -> npt.NDArray[np.bool_]:
        inside = days < as_datetime64(self.end)
        if self.start is not None:
            inside &= days >= as_datetime64(self.start)
        return inside

    def columns(self, prefix: str) -> dict[str, str]:
        """``<prefix>_start`` and ``<prefix>_end`` as ``YYYY-MM-DD`` (open: ``""``)."""
        return {f"{prefix}_start": iso(self.start), f"{prefix}_end": self.end.isoformat()}


def window_span(anchor: dt.date, window: tuple[int, int], month_rule: str) -> Span:
    """The days of the window ``[a, b]`` months before ``anchor`` (module docstring)."""
    a, b = window
    if month_rule == CALENDAR:
        return Span(dates.add_months(anchor, -b), dates.add_months(anchor, -a))
    first = _first_day_from(-b + 1)
    last = _last_day_until(-a)
    return Span(anchor + dt.timedelta(days=first), anchor + dt.timedelta(days=last + 1))


def post_periods(anchor: dt.date, rule: str, months: int, last_day: dt.date) -> list[Span]:
    """Consecutive periods of ``months`` months up to the one holding ``last_day``.

    ``anchored``: ``[anchor + k months, anchor + (k + 1) months)`` (times ``months``);
    ``calendar``: fixed calendar periods aligned to January, the first one holding the
    anchor date (it starts before the anchor, as in FreshBench's Table 3).
    """
    if rule == ANCHORED:

        def start(k: int) -> dt.date:
            return dates.add_months(anchor, k * months)
    else:
        first = dates.month_index(anchor) - dates.month_index(anchor) % months

        def start(k: int) -> dt.date:
            return dates.month_start(first + k * months)

    spans: list[Span] = []
    while start(len(spans)) <= last_day:
        spans.append(Span(start(len(spans)), start(len(spans) + 1)))
    return spans


@dataclass(frozen=True)
class Tally:
    """Questions scored and answered correctly in one span."""

    n: int
    n_correct: int

    @property
    def accuracy(self) -> float:
        return self.n_correct / self.n if self.n else math.nan

    def columns(self, suffix: str) -> dict[str, float | int]:
        """``acc_``, ``n_``, ``n_correct_``, ``ci_low_``, ``ci_high_`` + suffix (Wilson 95%)."""
        low, high = wilson_interval(self.n_correct, self.n)
        return {
            f"acc_{suffix}": self.accuracy,
            f"n_{suffix}": self.n,
            f"n_correct_{suffix}": self.n_correct,
            f"ci_low_{suffix}": float(low),
            f"ci_high_{suffix}": float(high),
        }


@dataclass(frozen=True)
class Outcomes:
    """The resolution days and correctness of one series' questions."""

    days: npt.NDArray[np.datetime64]
    correct: npt.NDArray[np.bool_]

    @classmethod
    def of(cls, part: pd.DataFrame) -> Outcomes:
        return cls(
            part["resolution_date"].to_numpy(dtype="datetime64[ns]"),
            part["correct"].to_numpy(dtype=bool),
        )

    @property
    def last_day(self) -> dt.date:
        return dates.as_date(self.days.max())

    def tally(self, span: Span) -> Tally:
        mask = span.mask(self.days)
        return Tally(int(mask.sum()), int(self.correct[mask].sum()))
