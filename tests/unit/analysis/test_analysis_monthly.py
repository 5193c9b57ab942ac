"""Monthly accuracy, refusal rates and moving averages on hand-computed tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prescient.analysis.monthly import monthly_accuracy, moving_average
from prescient.analysis.schema import normalize_scores
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import shipped

NAN = math.nan


def test_trailing_moving_average_skips_gaps_and_needs_min_periods() -> None:
    values = [0.5, NAN, 0.7, 0.6, 0.9, 0.4]
    ma, count = moving_average(values, shipped("moving_average", window=3, min_periods=2))
    # t0: {.5} -> 1 month < 2; t1: {.5} -> gap; t2: (.5+.7)/2; t3: (.7+.6)/2;
    # t4: (.7+.6+.9)/3; t5: (.6+.9+.4)/3
    expected = [NAN, NAN, 0.6, 0.65, 2.2 / 3, 1.9 / 3]
    np.testing.assert_allclose(ma, expected, equal_nan=True)
    assert count.tolist() == [1, 1, 2, 2, 3, 3]


def test_centered_moving_average() -> None:
    values = [0.5, NAN, 0.7, 0.6, 0.9]
    ma, _ = moving_average(
        values, shipped("moving_average", window=3, kind="centered", min_periods=1)
    )
    # t0: {.5}; t1: {.5, .7}; t2: {.7, .6}; t3: {.7, .6, .9}; t4: {.6, .9}
    np.testing.assert_allclose(ma, [0.5, 0.6, 0.65, 2.2 / 3, 0.75])


def test_five_month_paper_default_averages_the_months_there_are() -> None:
    ma, count = moving_average([0.1, 0.2, NAN, 0.4, 0.5, 0.6], shipped("moving_average"))
    np.testing.assert_allclose(ma, [0.1, 0.15, 0.15, 0.7 / 3, 0.3, 1.7 / 4])
    assert count.tolist() == [1, 2, 2, 3, 4, 4]
    full, _ = moving_average(
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], shipped("moving_average", min_periods=5)
    )
    np.testing.assert_allclose(full, [NAN, NAN, NAN, NAN, 0.3, 0.4], equal_nan=True)


def test_moving_average_settings_reject_nonsense() -> None:
    with pytest.raises(ValueError):
        shipped("moving_average", kind="weighted")
    with pytest.raises(ValueError):
        shipped("moving_average", window=3, min_periods=4)


def _hand_table() -> tuple:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "ccw")
    rows += score_rows("m", "closed_book", None, "2024-01-20", "tf", "r")
    rows += score_rows("m", "closed_book", None, "2024-03-02", "tf", "cc")
    rows += score_rows("m", "closed_book", None, "2024-01-05", "mc", "c")
    rows += score_rows("m", "rag", "2023-12-01", "2024-03-05", "tf", "pc")
    scores = normalize_scores(scores_frame(rows), exclude_errors=True)
    return scores, monthly_accuracy(scores, shipped("moving_average", window=2, min_periods=1))


def test_monthly_accuracy_counts_refusals_as_wrong_and_reports_them() -> None:
    _, monthly = _hand_table()
    jan = monthly.query("cell == 'closed_book' and qtype == 'tf' and month == '2024-01'").iloc[0]
    # 4 TF questions in January: 2 correct, 1 wrong, 1 refused
    assert (jan["n"], jan["n_correct"], jan["n_refused"], jan["n_answered"]) == (4, 2, 1, 3)
    assert jan["accuracy"] == pytest.approx(0.5)
    assert jan["refusal_rate"] == pytest.approx(0.25)
    assert jan["accuracy_excl_refusals"] == pytest.approx(2 / 3)
    # Wilson 2/4 = (0.1500, 0.8500); excluding refusals 2/3 = (0.2077, 0.9385)
    assert (jan["ci_low"], jan["ci_high"]) == pytest.approx((0.1500, 0.8500), abs=1e-4)
    assert (jan["excl_ci_low"], jan["excl_ci_high"]) == pytest.approx((0.2077, 0.9385), abs=1e-4)


def test_months_without_questions_are_explicit_gaps() -> None:
    _, monthly = _hand_table()
    # one calendar for every series: Jan..Mar 2024, both types, both cells
    assert sorted(monthly["month"].unique()) == ["2024-01", "2024-02", "2024-03"]
    assert len(monthly) == 2 * 2 * 3
    feb = monthly.query("cell == 'closed_book' and qtype == 'tf' and month == '2024-02'").iloc[0]
    assert feb["n"] == 0
    # the bounds a figure draws the month (or its gap) between; 2024 is a leap year
    assert (feb["month_start"], feb["month_end"]) == ("2024-02-01", "2024-03-01")
    assert math.isnan(feb["accuracy"]) and math.isnan(feb["ci_low"])
    # the RAG cell has no MC question at all: its MC rows exist, all empty
    rag_mc = monthly.query("cell == 'rag_2023-12-01' and qtype == 'mc'")
    assert len(rag_mc) == 3 and rag_mc["n"].sum() == 0 and rag_mc["accuracy"].isna().all()


def test_moving_average_columns_follow_the_calendar() -> None:
    _, monthly = _hand_table()
    tf = monthly.query("cell == 'closed_book' and qtype == 'tf'").set_index("month")
    # window 2, min 1: Jan .5; Feb {Jan} .5; Mar {Feb gap, Mar 1.0} 1.0
    assert tf["accuracy_ma"].tolist() == pytest.approx([0.5, 0.5, 1.0])
    assert tf["ma_months"].tolist() == [1, 1, 1]
    assert tf["refusal_rate_ma"].tolist() == pytest.approx([0.25, 0.25, 0.0])


def test_parse_failures_are_wrong_and_counted() -> None:
    _, monthly = _hand_table()
    mar = monthly.query("cell == 'rag_2023-12-01' and qtype == 'tf' and month == '2024-03'").iloc[0]
    assert (mar["n"], mar["n_correct"], mar["n_parse_failed"]) == (2, 1, 1)


def test_rows_are_in_paper_setting_order() -> None:
    _, monthly = _hand_table()
    assert list(dict.fromkeys(monthly["cell"])) == ["closed_book", "rag_2023-12-01"]
    assert list(dict.fromkeys(monthly["qtype"])) == ["tf", "mc"]


def test_empty_scores_give_an_empty_table_with_columns() -> None:
    scores = normalize_scores(scores_frame([]), exclude_errors=True)
    monthly = monthly_accuracy(scores, shipped("moving_average"))
    assert monthly.empty and "accuracy_ma" in monthly.columns


def test_a_true_false_benchmark_has_no_empty_mc_series() -> None:
    """A table without any MC question gets TF series only: no MC row counted as a gap."""
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "cw")
    rows += score_rows("m", "closed_book", None, "2024-03-10", "tf", "c")
    monthly = monthly_accuracy(
        normalize_scores(scores_frame(rows), exclude_errors=True), shipped("moving_average")
    )
    assert set(monthly["qtype"]) == {"tf"}
    assert monthly["n"].tolist() == [2, 0, 1]  # February is the one gap
