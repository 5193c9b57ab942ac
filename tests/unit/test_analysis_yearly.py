"""Table 3: yearly averages and average YoY change, with the definitions written in
prescient/analysis/yearly.py, on a table small enough to check by hand."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from prescient import dates
from prescient.analysis.monthly import monthly_accuracy
from prescient.analysis.schema import ModelInfo, normalize_scores
from prescient.analysis.yearly import average_yoy, bc_interval, table3, yearly_averages
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
    out = average_yoy(m, n, k, None, NO_BOOT, 0)
    # pairs: Jan (-20%), Feb (-25%); Apr 2020 has accuracy 0 and is skipped
    assert out["all"].value == pytest.approx(-22.5)
    assert out["all"].n_pairs == 2
    assert math.isnan(out["pre"].value) and math.isnan(out["post"].value)
    assert math.isnan(out["all"].ci_low)


def test_pre_and_post_cutoff_split_by_the_later_month() -> None:
    m, n, k = _months(HAND)
    # cutoff mid-January 2021: January is pre-cutoff (its first day is before the
    # cutoff), February onwards post-cutoff
    out = average_yoy(m, n, k, _month("2021-01"), NO_BOOT, 0)
    assert (out["pre"].value, out["pre"].n_pairs) == (pytest.approx(-20.0), 1)
    assert (out["post"].value, out["post"].n_pairs) == (pytest.approx(-25.0), 1)
    assert out["all"].value == pytest.approx(-22.5)
    # cutoff in December 2020: both pairs are post-cutoff, none pre
    early = average_yoy(m, n, k, _month("2020-12"), NO_BOOT, 0)
    assert early["pre"].n_pairs == 0 and math.isnan(early["pre"].value)
    assert early["post"].value == pytest.approx(-22.5)


def test_yearly_average_is_the_mean_of_monthly_accuracies() -> None:
    scores = normalize_scores(
        scores_frame(monthly_series("m", "closed_book", None, "tf", HAND)), exclude_errors=True
    )
    monthly = monthly_accuracy(scores, shipped("moving_average"))
    yearly = yearly_averages(monthly).query("qtype == 'tf'").set_index("year")
    # 2020: (.5 + .8 + 0) / 3 (not pooled 9/19); 2021: (.4 + .6 + .9 + .5) / 4
    assert yearly.loc[2020, "accuracy"] == pytest.approx(1.3 / 3)
    assert yearly.loc[2021, "accuracy"] == pytest.approx(0.6)
    assert yearly.loc[2020, "n_months"] == 3 and yearly.loc[2021, "n_months"] == 4
    assert yearly.loc[2020, "n_questions"] == 19


def test_table3_row_by_hand() -> None:
    scores = normalize_scores(
        scores_frame(monthly_series("m", "closed_book", None, "tf", HAND)), exclude_errors=True
    )
    monthly = monthly_accuracy(scores, shipped("moving_average"))
    models = {"m": ModelInfo("m", dt.date(2021, 1, 15), None, "registry")}
    t3 = table3(monthly, models, NO_BOOT, seed=1)
    tf = t3.query("qtype == 'tf'").iloc[0]
    assert tf["knowledge_cutoff"] == "2021-01-15"
    assert tf["acc_2020"] == pytest.approx(100 * 1.3 / 3)
    assert tf["acc_2021"] == pytest.approx(60.0)
    assert (tf["yoy_pre"], tf["yoy_post"], tf["yoy_all"]) == pytest.approx((-20.0, -25.0, -22.5))
    assert (tf["yoy_pre_pairs"], tf["yoy_post_pairs"], tf["yoy_all_pairs"]) == (1, 1, 2)
    # the table holds no MC question (a True/False benchmark): no MC series at all
    assert t3.query("qtype == 'mc'").empty and len(t3) == 1


def test_bootstrap_is_seeded_and_shrinks_with_more_questions() -> None:
    boot = shipped("bootstrap", reps=2000)
    small = {"2020-01": (6, 10), "2020-02": (7, 10), "2021-01": (5, 10), "2021-02": (6, 10)}
    large = {k: (v[0] * 100, v[1] * 100) for k, v in small.items()}
    m, n, k = _months(small)
    a = average_yoy(m, n, k, None, boot, 7)["all"]
    b = average_yoy(m, n, k, None, boot, 7)["all"]
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    # estimate: mean(-1/6, -1/7) * 100 = -15.476...
    assert a.value == pytest.approx(-100 * (1 / 6 + 1 / 7) / 2)
    m2, n2, k2 = _months(large)
    c = average_yoy(m2, n2, k2, None, boot, 7)["all"]
    assert c.value == pytest.approx(a.value)
    assert c.ci_low < c.value < c.ci_high
    assert (c.ci_high - c.ci_low) < (a.ci_high - a.ci_low) / 5


def test_bootstrap_of_a_degenerate_series_collapses_on_the_estimate() -> None:
    m, n, k = _months({"2020-01": (10, 10), "2021-01": (10, 10)})
    out = average_yoy(m, n, k, None, shipped("bootstrap", reps=200), 3)["all"]
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
