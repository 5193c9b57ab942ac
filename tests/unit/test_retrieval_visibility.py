"""The visibility rule: [corpus_start, min(resolution_date - gap, rag_cutoff))."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prescient.dates import format_rag_cutoff, parse_rag_cutoff
from prescient.retrieval.visibility import VisibleWindow, visible_window

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
