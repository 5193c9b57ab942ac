"""Wording the report derives from its inputs: the Fig. 4 legend from the visibility gap,
the heading of an imported set, intervals only from two samples on, counts one way."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from prescient.benchmarks.daily_oracle.figures import dynamic_label, retrieval_gap
from prescient.page.build import series_title
from prescient.report.tables import fmt_int, fmt_interval, interval_bounds
from prescient.retrieval.visibility import visible_window


def test_the_dynamic_legend_names_the_last_visible_day() -> None:
    # gap 1 (the default): [start, d - 1), so the last visible day is d - 2
    window = visible_window(pd.Timestamp("2024-05-10").date(), gap_days=1)
    assert (pd.Timestamp("2024-05-10") - pd.Timestamp(window.end)).days + 1 == 2
    assert dynamic_label(1) == "RAG up to 2 days before resolution"
    assert dynamic_label(0) == "RAG up to the day before resolution"
    assert dynamic_label(None) == "RAG, no dated cutoff"


@pytest.mark.parametrize(("value", "gap"), [("1", 1), ("0", 0), ("0, 1", None), ("", None)])
def test_the_gap_comes_from_the_provenance_table(value: str, gap: int | None) -> None:
    prov = pd.DataFrame({"key": ["retrieval_gap_days"], "value": [value]})
    assert retrieval_gap({"provenance": prov}) == gap
    assert retrieval_gap({}) is None


@pytest.mark.parametrize(
    ("sources", "title"),
    [
        ("daily_oracle", "Daily Oracle"),
        ("", "Daily Oracle"),
        ("imported", "Question set: imported"),
        ("gjopen, metaculus", "Question sets: gjopen, metaculus"),
        ("daily_oracle, imported", "Daily Oracle and imported"),
        ("unnamed", "Questions of an unnamed source"),
    ],
)
def test_the_series_part_is_named_after_its_sources(sources: str, title: str) -> None:
    assert series_title("Daily Oracle", sources) == title


def test_intervals_need_the_floor_of_samples() -> None:
    assert fmt_interval(1.0, 1.0, 1.0, 2, 100.0, n=1) == "100.00 (n=1: too few for an interval)"
    assert fmt_interval(0.5, 0.2, 0.8, 2, 100.0, n=9) == "50.00 (n=9: too few for an interval)"
    assert fmt_interval(0.5, 0.25, 0.75, 2, 100.0, n=10) == "50.00 [25.00, 75.00]"
    assert fmt_interval(0.5, 0.25, 0.75, 2, 100.0) == "50.00 [25.00, 75.00]"  # n unknown
    assert fmt_interval(math.nan, 0.1, 0.2, n=5) == "–"
    monthly = pd.DataFrame({"n": [9, 10], "ci_low": [0.2, 0.1], "ci_high": [1.0, 0.9]})
    shown = interval_bounds(
        [("n", "n", fmt_int), ("ci_low", "low", str), ("ci_high", "high", str)],
        [("ci_low", "ci_high", "n")],
    )(monthly)
    assert shown["low"].tolist() == ["nan", "0.1"] and shown["high"].tolist() == ["nan", "0.9"]


def test_counts_have_thousands_separators() -> None:
    assert [fmt_int(v) for v in (8370, 12, 1_234_567.0, None)] == ["8,370", "12", "1,234,567", "–"]


def test_a_change_below_the_floor_says_too_few_in_its_place() -> None:
    from prescient.report.tables import interval_columns

    df = pd.DataFrame(
        {"d": [0.5, 0.5], "lo": [0.1, 0.1], "hi": [0.9, 0.9], "n": [9, 10], "v": [1.0, 1.0]}
    )
    intervals = {
        "d_ci": ("d", "lo", "hi", 2, 1.0, "n"),
        "v_ci": ("v", "lo", "hi", 2, 1.0, "n"),
    }
    shown = interval_columns(
        [("d_ci", "Change", str), ("v_ci", "Value", str)], intervals, changes=("d_ci",)
    )(df)
    # the change from nine samples: no number at all; the value keeps its number
    assert shown["Change"].tolist() == ["too few (n=9 < 10)", "0.50 [0.10, 0.90]"]
    assert shown["Value"].tolist() == ["1.00 (n=9: too few for an interval)", "1.00 [0.10, 0.90]"]


def test_a_freshbench_decline_from_too_few_questions_is_not_printed() -> None:
    from prescient.benchmarks.freshbench.analysis import TOO_FEW_DECLINE
    from prescient.benchmarks.freshbench.report_tables import decline_display

    rows = pd.DataFrame(
        {
            "model": ["m", "m"],
            "cell": ["closed_book"] * 2,
            "qtype": ["tf", "mc"],
            "decline": [0.29, 0.05],
            "pct_decline": [46.67, 10.0],
            "status": [f"ok; n post 3 < min_n 30: {TOO_FEW_DECLINE}", "ok"],
        }
    )
    shown = decline_display(rows)
    assert shown["Decline (pp)"].tolist() == ["too few", "5.00"]
    assert shown["Decline (%)"].tolist() == ["too few", "10.00"]
