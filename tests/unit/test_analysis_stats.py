"""Statistical building blocks against hand-computed and published values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prescient.stats import (
    linear_fit,
    normal_sf,
    one_sided_z_test,
    significance_mark,
    weighted_slope,
    wilson_interval,
)


def test_wilson_interval_matches_published_values() -> None:
    # Wilson (1927) score interval, 95%: 8/10 -> (0.4902, 0.9433), 2/4 -> (0.1500, 0.8500),
    # 0/10 -> (0, 0.2775) (Newcombe 1998, Table I).
    low, high = wilson_interval([8, 2, 0], [10, 4, 10])
    assert low == pytest.approx([0.4902, 0.1500, 0.0], abs=1e-4)
    assert high == pytest.approx([0.9433, 0.8500, 0.2775], abs=1e-4)


def test_wilson_interval_is_nan_without_questions() -> None:
    low, high = wilson_interval([0], [0])
    assert math.isnan(low[0]) and math.isnan(high[0])


def test_z_test_by_hand() -> None:
    # se = sqrt(.6*.4/100 + .5*.5/100) = sqrt(.0049) = .07; z = .1 / .07
    t = one_sided_z_test(0.6, 100, 0.5, 100)
    assert t.z == pytest.approx(1.4285714, abs=1e-6)
    # 1 - Phi(1.428571) from the normal table (Phi(1.43) = .92364, Phi(1.42) = .92220)
    assert t.p == pytest.approx(0.07656, abs=2e-5)
    assert t.status == "ok"
    # symmetric: swapping the samples gives -z and 1 - p
    back = one_sided_z_test(0.5, 100, 0.6, 100)
    assert back.z == pytest.approx(-t.z)
    assert back.p == pytest.approx(1 - t.p)


def test_z_test_undefined_cases_are_labelled_not_infinite() -> None:
    assert one_sided_z_test(1.0, 5, 1.0, 7).status == "zero variance"
    assert math.isnan(one_sided_z_test(1.0, 5, 0.0, 7).p)
    empty = one_sided_z_test(0.5, 10, math.nan, 0)
    assert empty.status == "no questions" and math.isnan(empty.z)


def test_normal_sf_tail() -> None:
    assert normal_sf(0.0) == 0.5
    assert normal_sf(1.959963984540054) == pytest.approx(0.025, abs=1e-12)
    assert normal_sf(-2.0) == pytest.approx(0.9772499, abs=1e-7)


@pytest.mark.parametrize(
    ("p", "mark"),
    [
        (0.2, ""),
        (0.05, ""),
        (0.049, "*"),
        (0.01, "*"),
        (0.005, "**"),
        (0.0009, "***"),
        (math.nan, ""),
    ],
)
def test_significance_marks_use_strict_thresholds(p: float, mark: str) -> None:
    assert significance_mark(p) == mark


def test_weighted_slope_by_hand() -> None:
    # x = 1,2,3; y = 1,3,2; w = 1,1,2: xw = 2.25, yw = 2, Sxy = 1.0, Sxx = 2.75
    assert weighted_slope([1, 2, 3], [1, 3, 2], [1, 1, 2]) == pytest.approx(1 / 2.75)
    assert math.isnan(weighted_slope([1], [1], [1]))
    assert math.isnan(weighted_slope([2, 2], [1, 3], [1, 1]))


def test_linear_fit_by_hand() -> None:
    # slope 9.5/5 = 1.9, intercept 0, SS_res = .70, SS_tot = 18.75
    fit = linear_fit([1, 2, 3, 4], [2, 4, 5, 8])
    assert fit.slope == pytest.approx(1.9)
    assert fit.intercept == pytest.approx(0.0, abs=1e-12)
    assert fit.r2 == pytest.approx(1 - 0.70 / 18.75)
    assert fit.n == 4


def test_linear_fit_agrees_with_numpy_polyfit() -> None:
    rng = np.random.default_rng(3)
    x = np.arange(30, dtype=float)
    y = 0.3 * x + rng.normal(size=30)
    fit = linear_fit(x, y)
    slope, intercept = np.polyfit(x, y, 1)
    assert (fit.slope, fit.intercept) == pytest.approx((slope, intercept))
    assert fit.r2 == pytest.approx(np.corrcoef(x, y)[0, 1] ** 2)
