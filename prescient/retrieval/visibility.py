"""The visibility rule: which articles a question may see (Daily Oracle, ICML 2025, section 4.1).

This module is the only place that decides it. A question resolved on ``resolution_date``
and evaluated under RAG cutoff ``rag_cutoff`` may see the articles dated in the half-open
window::

    [corpus_start, min(resolution_date - gap, rag_cutoff, forecast_date))

With the default ``gap`` of one day this is the paper's formula and code,
``[01/01/2019, min(d_res - 1, d_R))``: the last visible day is the earlier of
``resolution_date - 2 days`` and ``rag_cutoff - 1 day``. The paper's prose ("up to the
day before") would be ``gap = 0``; we follow the formula because it is what produced the
published numbers and because it keeps a full day between the newest evidence and the
event, so an article published late on the day before (or time-zone skew in the crawl)
cannot carry the answer. A negative gap would let articles of the resolution day itself
in, so it is rejected: no setting of this rule lets an article dated on or after the
resolution date reach a prompt.

``forecast_date`` is the day the forecast is made, for questions that have one (an
imported forecasting question's open or freeze date). Daily Oracle's own questions are
written from the resolution day's article, so the resolution date is their only bound;
a question asked in January and resolved in June must not see June's news, so its
window also ends at the forecast date (exclusive, like the cutoff: the forecast is made
with the news of the days before it).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

RULE = "[corpus start, min(resolution date - {gap} day(s), RAG cutoff, forecast date))"
"""The rule in words; :func:`describe_rule` fills in the gap."""


@dataclass(frozen=True)
class VisibleWindow:
    """Articles with ``start <= date < end`` are visible (``start`` None: no lower bound)."""

    start: dt.date | None
    end: dt.date

    def contains(self, date: dt.date) -> bool:
        """True when an article dated ``date`` may be shown for the question."""
        return (self.start is None or date >= self.start) and date < self.end


def visible_window(
    resolution_date: dt.date,
    rag_cutoff: dt.date | None = None,
    *,
    gap_days: int = 1,
    corpus_start: dt.date | None = None,
    forecast_date: dt.date | None = None,
) -> VisibleWindow:
    """The half-open window of article dates a question may see.

    Args:
        resolution_date: the question's resolution date (its source article's day).
        rag_cutoff: the RAG cutoff date, exclusive; None for the ``dynamic`` setting.
        gap_days: days between the window's exclusive end and the resolution date
            (1 reproduces the paper; must be >= 0).
        corpus_start: first day of the retrieval corpus (inclusive); None: no bound.
        forecast_date: the day the forecast is made, exclusive; None when the question
            has none (the resolution date and the cutoff bound it alone).

    Returns:
        The window: it ends at the earliest of ``resolution_date - gap_days``,
        ``rag_cutoff`` and ``forecast_date``. It may be empty (``end <= start``) for
        questions resolved or asked at the very start of the corpus, or for cutoffs
        before it.

    Raises:
        ValueError: ``gap_days`` is negative.
    """
    if gap_days < 0:
        raise ValueError(
            f"gap_days must be >= 0 (got {gap_days}): a negative gap would show articles "
            "published on or after the resolution date"
        )
    end = resolution_date - dt.timedelta(days=gap_days)
    if rag_cutoff is not None:
        end = min(end, rag_cutoff)
    if forecast_date is not None:
        end = min(end, forecast_date)
    return VisibleWindow(start=corpus_start, end=end)


def evidence_window(split_date: dt.date, horizon_days: int) -> VisibleWindow:
    """The articles an LRAE judge may read about a forecast made at ``split_date`` (T_k).

    OpenForecast's evaluation (COLING 2025, section 5) checks predictions the gold
    labels miss against news from after the split date: the window holds the articles
    dated in ``[T_k, T_k + horizon_days]``, i.e. half-open ``[T_k, T_k + horizon + 1)``.
    It starts exactly where every :func:`visible_window` of a question resolved on T_k
    has already ended (that window ends at ``T_k - gap_days`` with ``gap_days >= 0``), so
    the evidence the judge sees never reaches a forecasting prompt, and the judge never
    sees an article from before T_k.

    Raises:
        ValueError: ``horizon_days`` is negative.
    """
    if horizon_days < 0:
        raise ValueError(f"horizon_days must be >= 0 (got {horizon_days})")
    return VisibleWindow(start=split_date, end=split_date + dt.timedelta(days=horizon_days + 1))


def describe_rule(gap_days: int) -> str:
    """The rule as the report states it, with the run's gap."""
    return RULE.format(gap=gap_days)
