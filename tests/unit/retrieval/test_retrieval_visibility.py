"""The visibility rule: [corpus_start, min(resolution_date - gap, rag_cutoff, forecast_date))."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prescient.dates import format_rag_cutoff, parse_rag_cutoff
from prescient.retrieval.visibility import VisibleWindow, describe_rule, visible_window

days = st.dates(min_value=dt.date(2018, 1, 1), max_value=dt.date(2026, 12, 31))


@given(res=days, cutoff=st.none() | days, gap=st.integers(0, 5), start=st.none() | days, d=days)
def test_window_is_the_documented_half_open_interval(
    res: dt.date, cutoff: dt.date | None, gap: int, start: dt.date | None, d: dt.date
) -> None:
    w = visible_window(res, cutoff, gap_days=gap, corpus_start=start)
    end = res - dt.timedelta(days=gap)
    if cutoff is not None:
        end = min(end, cutoff)
    assert w.end == end
    expected = (start is None or d >= start) and d < end
    assert w.contains(d) is expected
    # Nothing dated on or after the resolution date is ever visible, whatever the cutoff.
    if d >= res:
        assert not w.contains(d)
    if cutoff is not None and d >= cutoff:
        assert not w.contains(d)


@given(res=days)
def test_boundary_days_with_the_default_gap(res: dt.date) -> None:
    """gap = 1 (the paper's formula): the last visible day is resolution_date - 2."""
    w = visible_window(res)
    assert w.contains(res - dt.timedelta(days=2))
    assert not w.contains(res - dt.timedelta(days=1))
    assert not w.contains(res)
    # gap = 0 (the paper's prose): the day before becomes visible, the day itself never.
    w0 = visible_window(res, gap_days=0)
    assert w0.contains(res - dt.timedelta(days=1))
    assert not w0.contains(res)


@given(res=days, offset=st.integers(-400, 400))
def test_boundary_days_of_the_rag_cutoff(res: dt.date, offset: int) -> None:
    """The cutoff day itself is invisible, the day before it visible (if before res - 1)."""
    cutoff = res + dt.timedelta(days=offset)
    w = visible_window(res, cutoff)
    assert not w.contains(cutoff)
    before = cutoff - dt.timedelta(days=1)
    assert w.contains(before) is (before <= res - dt.timedelta(days=2))


def test_corpus_start_is_inclusive() -> None:
    w = visible_window(dt.date(2020, 1, 10), corpus_start=dt.date(2020, 1, 1))
    assert w == VisibleWindow(dt.date(2020, 1, 1), dt.date(2020, 1, 9))
    assert w.contains(dt.date(2020, 1, 1)) and not w.contains(dt.date(2019, 12, 31))
    assert w.contains(dt.date(2020, 1, 8)) and not w.contains(dt.date(2020, 1, 9))


def test_negative_gap_is_refused() -> None:
    with pytest.raises(ValueError, match="on or after the resolution date"):
        visible_window(dt.date(2024, 1, 1), gap_days=-1)


def test_cutoff_parsing_round_trips() -> None:
    assert parse_rag_cutoff("dynamic") is None
    assert parse_rag_cutoff(None) is None
    assert parse_rag_cutoff("2023-09-01") == dt.date(2023, 9, 1)
    assert parse_rag_cutoff(dt.datetime(2023, 9, 1, 12)) == dt.date(2023, 9, 1)
    assert format_rag_cutoff(None) == "dynamic"
    assert format_rag_cutoff(dt.date(2024, 3, 1)) == "2024-03-01"
    with pytest.raises(ValueError, match="neither"):
        parse_rag_cutoff("last week")


@given(
    res=days,
    cutoff=st.none() | days,
    gap=st.integers(0, 5),
    start=st.none() | days,
    ahead=st.integers(0, 800),
    d=days,
)
def test_the_forecast_date_ends_the_window_at_the_earliest_bound(
    res: dt.date, cutoff: dt.date | None, gap: int, start: dt.date | None, ahead: int, d: dt.date
) -> None:
    """A question asked ``ahead`` days before it resolves sees nothing dated on or after
    the day it was asked, nor on or after res - gap or the cutoff; without a forecast date
    the window is the one of the resolution date alone."""
    forecast = res - dt.timedelta(days=ahead)
    w = visible_window(res, cutoff, gap_days=gap, corpus_start=start, forecast_date=forecast)
    bounds = [res - dt.timedelta(days=gap), forecast] + ([cutoff] if cutoff else [])
    assert w.end == min(bounds)
    assert w.start == start
    if d >= forecast or d >= res - dt.timedelta(days=gap) or (cutoff and d >= cutoff):
        assert not w.contains(d)
    else:
        assert w.contains(d) is (start is None or d >= start)
    # A forecast date never widens the window; none leaves it as it was.
    plain = visible_window(res, cutoff, gap_days=gap, corpus_start=start)
    assert w.end <= plain.end
    assert (
        visible_window(res, cutoff, gap_days=gap, corpus_start=start, forecast_date=None) == plain
    )
    # The forecast day itself is never visible, the day before is when nothing else binds.
    assert not w.contains(forecast)
    before = forecast - dt.timedelta(days=1)
    if (start is None or before >= start) and before < plain.end:
        assert w.contains(before)


def test_a_market_question_does_not_see_the_news_before_it_resolved() -> None:
    """Asked 15 January, resolved 20 June: rag_dynamic used to see news up to 18 June."""
    w = visible_window(dt.date(2024, 6, 20), None, forecast_date=dt.date(2024, 1, 15))
    assert w.end == dt.date(2024, 1, 15)
    assert w.contains(dt.date(2024, 1, 14)) and not w.contains(dt.date(2024, 1, 15))
    assert not w.contains(dt.date(2024, 6, 18))


def test_the_rule_in_words_names_the_gap() -> None:
    assert describe_rule(1) == (
        "[corpus start, min(resolution date - 1 day(s), RAG cutoff, forecast date))"
    )
