"""Fig. 6: the expanding-window weighted regression slope."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prescient.benchmarks.daily_oracle.analysis.slope import expanding_slopes
from tests.fixtures.analysis.settings import shipped

NAN = math.nan
MONTHS = np.arange(24240, 24260)  # 2020-01 onwards


def test_a_straight_line_has_its_slope_in_every_window() -> None:
    ma = 0.5 + 0.01 * np.arange(6)  # +1 percentage point per month
    out = expanding_slopes(MONTHS[:6], ma, shipped("slope", start_months=3, min_points=3))
    assert out["n_months"].tolist() == [3, 4, 5, 6]
    assert out["slope_pp_per_month"].tolist() == pytest.approx([1.0] * 4)
    assert out["window_start"].tolist() == ["2020-01"] * 4
    assert out["window_end"].tolist() == ["2020-03", "2020-04", "2020-05", "2020-06"]
    assert out["end_month_start"].tolist()[:2] == ["2020-03-01", "2020-04-01"]
    assert out["end_month_end"].tolist()[:2] == ["2020-04-01", "2020-05-01"]


def test_weights_decay_towards_older_months_by_hand() -> None:
    # y = 50, 52, 51 (%), lambda = 0.5 -> weights .25, .5, 1 for t = 1, 2, 3;
    # weighted means x = 17/7, y = 358/7; Sxy = 1/7, Sxx = 6.5/7 -> slope 2/13
    out = expanding_slopes(
        MONTHS[:3], [0.50, 0.52, 0.51], shipped("slope", start_months=3, decay=0.5, min_points=3)
    )
    assert out["slope_pp_per_month"].tolist() == pytest.approx([2 / 13])
    # unweighted (lambda = 1) the same points give slope 0.5
    flat = expanding_slopes(
        MONTHS[:3], [0.50, 0.52, 0.51], shipped("slope", start_months=3, decay=1.0, min_points=3)
    )
    assert flat["slope_pp_per_month"].tolist() == pytest.approx([0.5])


def test_paper_weights_against_numpy_weighted_polyfit() -> None:
    rng = np.random.default_rng(0)
    ma = 0.6 - 0.002 * np.arange(20) + rng.normal(0, 0.01, 20)
    out = expanding_slopes(MONTHS, ma, shipped("slope"))
    assert out["n_months"].tolist() == list(range(10, 21))
    k = 14
    t = np.arange(1, k + 1)
    # np.polyfit weights multiply residuals, so pass sqrt of the regression weights
    ref = np.polyfit(t, 100 * ma[:k], 1, w=np.sqrt(0.995 ** (k - t)))[0]
    assert out.set_index("n_months").loc[k, "slope_pp_per_month"] == pytest.approx(ref)


def test_window_starts_at_the_first_defined_moving_average() -> None:
    ma = [NAN] * 4 + list(0.5 + 0.01 * np.arange(4))
    out = expanding_slopes(MONTHS[:8], ma, shipped("slope", start_months=3, min_points=3))
    assert out["window_start"].unique().tolist() == ["2020-05"]
    assert out["n_months"].tolist() == [3, 4]


def test_too_few_defined_months_is_a_labelled_gap() -> None:
    ma = [0.5, NAN, 0.52, 0.53]
    out = expanding_slopes(MONTHS[:4], ma, shipped("slope", start_months=3, min_points=3))
    assert out["n_points"].tolist() == [2, 3]
    assert math.isnan(out["slope_pp_per_month"].iloc[0])
    assert not math.isnan(out["slope_pp_per_month"].iloc[1])


def test_series_shorter_than_the_first_window_gives_no_rows() -> None:
    assert expanding_slopes(MONTHS[:2], [0.5, 0.6], shipped("slope")).empty
    assert expanding_slopes([], [], shipped("slope")).empty


def test_calendar_must_be_consecutive() -> None:
    with pytest.raises(ValueError):
        expanding_slopes([1, 2, 4], [0.1, 0.2, 0.3], shipped("slope", start_months=2, min_points=2))
