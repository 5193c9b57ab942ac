"""Table 3: yearly accuracy and average YoY change, with the definitions written in
prescient/benchmarks/daily_oracle/analysis/yearly.py, on a table small enough to check by hand."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from prescient import dates
from prescient.analysis.monthly import monthly_accuracy
from prescient.analysis.schema import ModelInfo, normalize_scores
from prescient.benchmarks.daily_oracle.analysis.headline import headline_table
from prescient.benchmarks.daily_oracle.analysis.yearly import (
    YoYWindows,
    average_yoy,
    bc_interval,
    table3,
    yearly_averages,
)
from tests.fixtures.analysis.frames import monthly_series, scores_frame
from tests.fixtures.analysis.settings import shipped

# month -> (correct, n). 2020-03 and 2021-04 have no questions.
HAND = {
    "2020-01": (5, 10),  # .5
    "2020-02": (4, 5),  # .8
    "2020-04": (0, 4),  # 0 -> its YoY pair is undefined
    "2021-01": (4, 10),  # .4   YoY vs .5: -20%
    "2021-02": (3, 5),  # .6   YoY vs .8: -25%
    "2021-03": (9, 10),  # .9   no 2020-03
    "2021-05": (1, 2),  # .5   no 2020-05
}
NO_BOOT = shipped("bootstrap", reps=0)
ALL_MONTHS = YoYWindows("all_months", 24, 7)


def _months(table: dict[str, tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = dates.month_indices(pd.to_datetime(pd.Series([f"{k}-01" for k in table]))).to_numpy()
    k = np.array([v[0] for v in table.values()])
    n = np.array([v[1] for v in table.values()])
    return m, n, k


def _month(label: str) -> int:
    y, mo = label.split("-")
    return int(y) * 12 + int(mo) - 1


def test_average_yoy_over_all_months() -> None:
    m, n, k = _months(HAND)
    out = average_yoy(m, n, k, None, NO_BOOT, 0, ALL_MONTHS)
    # pairs: Jan (-20%), Feb (-25%); Apr 2020 has accuracy 0 and is skipped
    assert out["all"].value == pytest.approx(-22.5)
    assert out["all"].n_pairs == 2
    assert math.isnan(out["pre"].value) and math.isnan(out["post"].value)
    assert math.isnan(out["all"].ci_low)


def test_all_months_windows_split_pre_and_post_by_the_later_month() -> None:
    m, n, k = _months(HAND)
    # cutoff mid-January 2021: January is pre-cutoff (its first day is before the
    # cutoff), February onwards post-cutoff
    out = average_yoy(m, n, k, _month("2021-01"), NO_BOOT, 0, ALL_MONTHS)
    assert (out["pre"].value, out["pre"].n_pairs) == (pytest.approx(-20.0), 1)
    assert (out["post"].value, out["post"].n_pairs) == (pytest.approx(-25.0), 1)
    assert out["all"].value == pytest.approx(-22.5)
    # cutoff in December 2020: both pairs are post-cutoff, none pre
    early = average_yoy(m, n, k, _month("2020-12"), NO_BOOT, 0, ALL_MONTHS)
    assert early["pre"].n_pairs == 0 and math.isnan(early["pre"].value)
    assert early["post"].value == pytest.approx(-22.5)


def _hand_monthly() -> pd.DataFrame:
    scores = normalize_scores(
        scores_frame(monthly_series("m", "closed_book", None, "tf", HAND)), exclude_errors=True
    )
    return monthly_accuracy(scores, shipped("moving_average"))


def test_yearly_accuracy_pooled_and_mean_of_months() -> None:
    monthly = _hand_monthly()
    pooled = yearly_averages(monthly, "pooled").query("qtype == 'tf'").set_index("year")
    # 2020: 9 correct of 19 (the paper's); 2021: 17 of 27
    assert pooled.loc[2020, "accuracy"] == pytest.approx(9 / 19)
    assert pooled.loc[2021, "accuracy"] == pytest.approx(17 / 27)
    assert pooled.loc[2020, "n_questions"] == 19 and pooled.loc[2020, "n_correct"] == 9
    means = yearly_averages(monthly, "mean_of_months").query("qtype == 'tf'").set_index("year")
    # 2020: (.5 + .8 + 0) / 3; 2021: (.4 + .6 + .9 + .5) / 4
    assert means.loc[2020, "accuracy"] == pytest.approx(1.3 / 3)
    assert means.loc[2021, "accuracy"] == pytest.approx(0.6)
    assert means.loc[2020, "n_months"] == 3 and means.loc[2021, "n_months"] == 4


def test_paper_windows_are_months_before_and_from_the_cutoff_month() -> None:
    # a YoY of -10% in each month of 2021 (acc .5 in 2020, .45 in 2021), except
    # 2021-06 with -20% (.4): pre = [c-2, c), post = [c, c+3) with c = 2021-06
    table = {f"2020-{mo:02d}": (10, 20) for mo in range(1, 13)}
    table |= {f"2021-{mo:02d}": (9, 20) for mo in range(1, 13)}
    table["2021-06"] = (8, 20)
    m, n, k = _months(table)
    windows = YoYWindows("paper", 2, 3, first=_month("2021-01"), last=_month("2021-12"))
    out = average_yoy(m, n, k, _month("2021-06"), NO_BOOT, 0, windows)
    assert (out["pre"].value, out["pre"].n_pairs) == (pytest.approx(-10.0), 2)
    assert (out["post"].value, out["post"].n_pairs) == (pytest.approx(-40 / 3), 3)
    assert (out["all"].value, out["all"].n_pairs) == (pytest.approx(-130 / 12), 12)
    assert windows.bounds("pre", _month("2021-06")) == (_month("2021-04"), _month("2021-05"))
    # clipped to the YoY range: a cutoff in 2021-11 leaves two post months, 2021-11..12
    late = average_yoy(m, n, k, _month("2021-11"), NO_BOOT, 0, windows)
    assert (late["post"].value, late["post"].n_pairs) == (pytest.approx(-10.0), 2)
    # a cutoff in the range's first month has no pre months
    early = average_yoy(m, n, k, _month("2021-01"), NO_BOOT, 0, windows)
    assert early["pre"].n_pairs == 0 and math.isnan(early["pre"].value)
    assert windows.bounds("pre", _month("2021-01")) is None
    # no cutoff: no pre, no post
    none = average_yoy(m, n, k, None, NO_BOOT, 0, windows)
    assert math.isnan(none["pre"].value) and math.isnan(none["post"].value)


def test_table3_row_by_hand() -> None:
    monthly = _hand_monthly()
    models = {"m": ModelInfo("m", dt.date(2021, 1, 15), None, "registry")}
    # months of 3 to 10 questions: the by-hand figures below the shipped floor
    settings = shipped("table3", windows="all_months", yearly="mean_of_months", min_month_n=1)
    t3 = table3(monthly, models, settings, NO_BOOT, seed=1)
    tf = t3.query("qtype == 'tf'").iloc[0]
    assert tf["knowledge_cutoff"] == "2021-01-15"
    assert tf["acc_2020"] == pytest.approx(100 * 1.3 / 3)
    assert tf["acc_2021"] == pytest.approx(60.0)
    assert (tf["n_2020"], tf["n_2021"]) == (19, 27)
    assert (tf["yoy_pre"], tf["yoy_post"], tf["yoy_all"]) == pytest.approx((-20.0, -25.0, -22.5))
    assert (tf["yoy_pre_pairs"], tf["yoy_post_pairs"], tf["yoy_all_pairs"]) == (1, 1, 2)
    assert (tf["yoy_all_from"], tf["yoy_all_to"]) == ("2021-01", "2021-05")
    assert (tf["yoy_post_from"], tf["yoy_post_to"]) == ("2021-02", "2021-05")
    # the table holds no MC question (a True/False benchmark): no MC series at all
    assert t3.query("qtype == 'mc'").empty and len(t3) == 1
    # the paper's windows: the cutoff month 2021-01 opens Post-cutoff ([c, c+7)), and
    # no YoY month lies before it
    unguarded = shipped("table3", min_month_n=1)
    paper = table3(monthly, models, unguarded, NO_BOOT, seed=1).iloc[0]
    assert paper["acc_2020"] == pytest.approx(100 * 9 / 19)
    assert paper["yoy_pre_pairs"] == 0 and math.isnan(paper["yoy_pre"])
    assert (paper["yoy_post"], paper["yoy_post_pairs"]) == (pytest.approx(-22.5), 2)
    assert (paper["yoy_post_from"], paper["yoy_post_to"]) == ("2021-01", "2021-05")
    assert paper["yoy_pre_from"] == ""


def test_intervals_leave_the_estimates_alone() -> None:
    monthly = _hand_monthly()
    models = {"m": ModelInfo("m", dt.date(2021, 1, 15), None, "registry")}
    unguarded = shipped("table3", min_month_n=1)
    a = table3(monthly, models, unguarded, NO_BOOT, seed=1)
    b = table3(monthly, models, unguarded, shipped("bootstrap", reps=300), seed=1)
    for col in ("acc_2020", "acc_2021", "yoy_pre", "yoy_post", "yoy_all"):
        assert a[col].equals(b[col]), col
    assert a["yoy_all_low"].isna().all() and b["yoy_all_low"].notna().all()


def test_headline_is_first_against_last_month_over_the_same_models() -> None:
    rows = monthly_series("a", "closed_book", None, "tf", {"2020-01": (8, 10), "2020-03": (6, 10)})
    rows += monthly_series("b", "closed_book", None, "tf", {"2020-01": (4, 10), "2020-03": (3, 10)})
    rows += monthly_series("c", "closed_book", None, "tf", {"2020-03": (9, 10)})  # no 2020-01
    rows += monthly_series("r", "closed_book", None, "tf", {"2020-01": (5, 10), "2020-03": (5, 10)})
    rows += monthly_series("a", "gold", None, "tf", {"2020-01": (1, 10), "2020-03": (1, 10)})
    scores = normalize_scores(scores_frame(rows), exclude_errors=True)
    monthly = monthly_accuracy(scores, shipped("moving_average"))
    models = {"r": ModelInfo("r", None, None, "registry", baseline=True)}
    out = headline_table(monthly, models, shipped("headline", min_month_n=10)).iloc[0]
    assert (out["first_month"], out["last_month"]) == ("2020-01", "2020-03")
    assert out["models"] == "a, b" and out["n_models"] == 2
    assert out["first_accuracy"] == pytest.approx(60.0)  # (80 + 40) / 2
    assert out["last_accuracy"] == pytest.approx(45.0)  # (60 + 30) / 2
    assert out["change_pct"] == pytest.approx(-25.0)
    assert (out["n_first"], out["n_last"]) == (20, 20)
    assert out["left_out"] == "c (no questions in 2020-01), r (baseline)"
    with_baselines = headline_table(
        monthly, models, shipped("headline", exclude_baselines=False, min_month_n=10)
    )
    assert with_baselines.iloc[0]["models"] == "a, b, r"
    assert out["fewest"] == 10 and out["change_status"] == ""
    # the shipped floor (30 questions a month): the means stay, the change is left out
    floored = headline_table(monthly, models, shipped("headline")).iloc[0]
    assert floored["first_accuracy"] == pytest.approx(60.0)
    assert math.isnan(floored["change_pct"])
    assert floored["change_status"] == "too few: a model's month of 10 questions (< 30)"


def test_a_yoy_average_from_a_thin_month_is_left_out_with_the_reason() -> None:
    monthly = _hand_monthly()
    models = {"m": ModelInfo("m", dt.date(2021, 1, 15), None, "registry")}
    unguarded = table3(monthly, models, shipped("table3", min_month_n=1), NO_BOOT, 1).iloc[0]
    fewest = int(unguarded["yoy_all_fewest"])
    assert fewest > 0 and unguarded["yoy_all_status"] == ""
    at = table3(monthly, models, shipped("table3", min_month_n=fewest), NO_BOOT, 1).iloc[0]
    assert at["yoy_all"] == unguarded["yoy_all"]  # the floor itself is enough
    above = shipped("table3", min_month_n=fewest + 1)
    boot = shipped("bootstrap", reps=50)
    out = table3(monthly, models, above, boot, 1).iloc[0]
    assert math.isnan(out["yoy_all"]) and math.isnan(out["yoy_all_low"])
    assert out["yoy_all_pairs"] == unguarded["yoy_all_pairs"]  # what was there, still said
    assert out["yoy_all_status"] == f"too few: a month of {fewest} questions (< {fewest + 1})"
    # a regime without pairs is empty for that reason, not for the floor
    assert out["yoy_pre_status"] == "" and out["yoy_pre_pairs"] == 0


def test_bootstrap_is_seeded_and_shrinks_with_more_questions() -> None:
    boot = shipped("bootstrap", reps=2000)
    small = {"2020-01": (6, 10), "2020-02": (7, 10), "2021-01": (5, 10), "2021-02": (6, 10)}
    large = {k: (v[0] * 100, v[1] * 100) for k, v in small.items()}
    m, n, k = _months(small)
    a = average_yoy(m, n, k, None, boot, 7, ALL_MONTHS)["all"]
    b = average_yoy(m, n, k, None, boot, 7, ALL_MONTHS)["all"]
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    # estimate: mean(-1/6, -1/7) * 100 = -15.476...
    assert a.value == pytest.approx(-100 * (1 / 6 + 1 / 7) / 2)
    m2, n2, k2 = _months(large)
    c = average_yoy(m2, n2, k2, None, boot, 7, ALL_MONTHS)["all"]
    assert c.value == pytest.approx(a.value)
    assert c.ci_low < c.value < c.ci_high
    assert (c.ci_high - c.ci_low) < (a.ci_high - a.ci_low) / 5


def test_bootstrap_of_a_degenerate_series_collapses_on_the_estimate() -> None:
    m, n, k = _months({"2020-01": (10, 10), "2021-01": (10, 10)})
    out = average_yoy(m, n, k, None, shipped("bootstrap", reps=200), 3, ALL_MONTHS)["all"]
    assert (out.value, out.ci_low, out.ci_high) == (0.0, 0.0, 0.0)


def test_bias_corrected_interval_by_hand() -> None:
    # Replicates 1..100 and an estimate at their median: z0 = 0, plain percentiles.
    reps = np.arange(1.0, 101.0)
    low, high = bc_interval(reps, 50.5, 0.90)
    assert (low, high) == pytest.approx(tuple(np.quantile(reps, [0.05, 0.95])))
    # All replicates above the estimate: the interval moves to the lowest replicates.
    low2, high2 = bc_interval(reps, 0.0, 0.90)
    assert high2 < high and low2 == pytest.approx(1.0)
    assert all(math.isnan(x) for x in bc_interval(np.array([]), 1.0, 0.95))
