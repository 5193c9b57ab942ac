"""Fleiss' kappa, Krippendorff's alpha, rounding and the bootstrap against published
values and a reference implementation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from prescient.annotation.stats import (
    bootstrap,
    bootstrap_indices,
    category_counts,
    fleiss_kappa,
    fleiss_kappa_batch,
    krippendorff_alpha,
    percentile_interval,
    round_mean,
)

# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists each, counts per diagnosis
# (depression, personality disorder, schizophrenia, neurosis, other). Published kappa 0.430.
# Checked row by row against the same data in rater form (R irr's `diagnoses`, also in
# statsmodels' own tests), since it was not recalled from memory with certainty.
FLEISS_1971_DIAGNOSES = [
    [0, 0, 0, 6, 0],
    [0, 3, 0, 0, 3],
    [0, 1, 4, 0, 1],
    [0, 0, 0, 0, 6],
    [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0],
    [0, 0, 4, 0, 2],
    [2, 0, 3, 1, 0],
    [2, 0, 0, 4, 0],
    [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0],
    [1, 1, 0, 4, 0],
    [0, 3, 3, 0, 0],
    [1, 0, 0, 5, 0],
    [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1],
    [3, 0, 0, 1, 2],
    [5, 1, 0, 0, 0],
    [0, 2, 0, 4, 0],
    [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6],
    [0, 1, 0, 5, 0],
    [0, 2, 0, 1, 3],
    [2, 0, 0, 4, 0],
    [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0],
    [4, 0, 0, 0, 2],
    [0, 2, 0, 4, 0],
    [1, 0, 5, 0, 0],
    [0, 0, 0, 0, 6],
]

# The classic worked example (Fleiss 1971 style; Wikipedia "Fleiss' kappa"): 10 subjects,
# 14 raters, 5 categories. Published kappa 0.210.
FLEISS_10X14 = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders x 12 units
# with missing values. Published: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
NAN = math.nan
KRIPPENDORFF_2011 = np.array(
    [
        [1, 1, NAN, 1],
        [2, 2, 3, 2],
        [3, 3, 3, 3],
        [3, 3, 3, 3],
        [2, 2, 2, 2],
        [1, 2, 3, 4],
        [4, 4, 4, 4],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [NAN, 5, 5, 5],
        [NAN, NAN, 1, 1],
        [NAN, 3, NAN, NAN],
    ]
)


def test_fleiss_1971_diagnosis_table_gives_0_430() -> None:
    table = np.array(FLEISS_1971_DIAGNOSES)
    assert table.shape == (30, 5)
    assert (table.sum(axis=1) == 6).all()
    assert round(fleiss_kappa(table), 3) == 0.430


def test_fleiss_classic_10x14_example_gives_0_210() -> None:
    table = np.array(FLEISS_10X14)
    assert (table.sum(axis=1) == 14).all()
    assert round(fleiss_kappa(table), 3) == 0.210


@pytest.mark.parametrize("seed", range(40))
def test_fleiss_kappa_equals_statsmodels_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    subjects, raters, cats = rng.integers(2, 60), rng.integers(2, 12), rng.integers(2, 6)
    ratings = rng.integers(0, cats, size=(subjects, raters))
    table = category_counts(ratings, tuple(range(cats)))
    if np.count_nonzero(table.sum(axis=0)) <= 1:
        pytest.skip("degenerate draw")
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss_kappa(table), abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 40).flatmap(
        lambda n: st.integers(2, 9).flatmap(
            lambda r: st.lists(
                st.lists(st.integers(0, 2), min_size=r, max_size=r), min_size=n, max_size=n
            )
        )
    )
)
def test_fleiss_kappa_equals_statsmodels_hypothesis(ratings: list[list[int]]) -> None:
    table = category_counts(np.array(ratings), (0, 1, 2))
    if np.count_nonzero(table.sum(axis=0)) <= 1:
        assert math.isnan(fleiss_kappa(table))
        return
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss_kappa(table), abs=1e-9)


def test_batch_kappa_equals_single_kappa() -> None:
    rng = np.random.default_rng(7)
    tables = np.stack(
        [category_counts(rng.integers(0, 3, size=(25, 4)), (0, 1, 2)) for _ in range(12)]
    )
    batch = fleiss_kappa_batch(tables)
    assert batch.shape == (12,)
    np.testing.assert_allclose(batch, [fleiss_kappa(t) for t in tables], atol=1e-12)


def test_kappa_is_undefined_when_every_rating_is_the_same() -> None:
    table = [[0, 0, 4]] * 5
    assert math.isnan(fleiss_kappa(table))
    assert math.isnan(fleiss_kappa_batch(np.array([table]))[0])


def test_kappa_hand_values() -> None:
    # 3 raters; items [0,1,2],[0,2,1],[0,0,3] in counts of (0,1,2): P_bar = P_e = 5/9 -> 0.
    assert fleiss_kappa([[0, 1, 2], [0, 2, 1], [0, 0, 3]]) == pytest.approx(0.0, abs=1e-12)
    # Perfect agreement with two categories used -> 1.
    assert fleiss_kappa([[0, 0, 3], [0, 3, 0], [0, 0, 3]]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "table, message",
    [
        ([[1, 2], [2, 2]], "same number"),
        ([[1, 0], [0, 1]], "at least 2"),
        ([[-1, 3], [1, 1]], "non-negative"),
    ],
)
def test_kappa_rejects_invalid_tables(table: list[list[int]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fleiss_kappa(table)


@pytest.mark.parametrize(
    "level, expected",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_alpha_reproduces_published_example(level: str, expected: float) -> None:
    assert round(krippendorff_alpha(KRIPPENDORFF_2011, level), 3) == expected  # type: ignore[arg-type]


def test_krippendorff_nominal_matches_fleiss_on_complete_data() -> None:
    # Without missing data, nominal alpha is Fleiss' kappa with a small-sample correction
    # of expected disagreement (n pairable values): an independent check of both.
    rng = np.random.default_rng(3)
    ratings = rng.integers(0, 3, size=(200, 4)).astype(float)
    ratings[:100, 1] = ratings[:100, 0]
    kappa = fleiss_kappa(category_counts(ratings, (0, 1, 2)))
    alpha = krippendorff_alpha(ratings, "nominal")
    n_values = ratings.size
    # Exact relation for complete data: 1 - alpha = (1 - kappa) * (n - 1) / n.
    assert 1 - alpha == pytest.approx((1 - kappa) * (n_values - 1) / n_values, abs=1e-12)


def test_krippendorff_ignores_unpairable_units_and_handles_no_variation() -> None:
    data = np.array([[1.0, 1.0], [2.0, 2.0], [0.0, NAN]])
    assert krippendorff_alpha(data, "interval") == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha(np.array([[2.0, 2.0], [2.0, 2.0]])))


@pytest.mark.parametrize(
    "total, count, half_up, half_down",
    [
        (1, 2, 1, 0),  # 0.5
        (3, 2, 2, 1),  # 1.5
        (5, 4, 1, 1),  # 1.25
        (7, 4, 2, 2),  # 1.75
        (1, 4, 0, 0),  # 0.25
        (3, 4, 1, 1),  # 0.75
        (4, 3, 1, 1),  # 1.33
        (5, 3, 2, 2),  # 1.67
        (8, 4, 2, 2),  # 2
        (0, 3, 0, 0),
    ],
)
def test_round_mean(total: int, count: int, half_up: int, half_down: int) -> None:
    assert round_mean(total, count, "half_up") == half_up
    assert round_mean(total, count, "half_down") == half_down


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    values = np.array([0.0, 1.0] * 50)
    idx = bootstrap_indices(values.size, 2000, seed=11)
    assert (idx == bootstrap_indices(values.size, 2000, seed=11)).all()
    (iv,) = bootstrap(lambda ix: values[ix].mean(axis=1), idx)
    assert iv.n_valid == 2000
    # Normal approximation: 0.5 +- 1.96 * sqrt(0.25 / 100) = [0.402, 0.598].
    assert iv.low == pytest.approx(0.402, abs=0.02)
    assert iv.high == pytest.approx(0.598, abs=0.02)


def test_percentile_interval_skips_undefined_replicates() -> None:
    iv = percentile_interval([NAN, 1.0, 2.0, 3.0, NAN], level=0.5)
    assert iv.n_valid == 3
    assert (iv.low, iv.high) == (1.5, 2.5)
    assert percentile_interval([NAN]).n_valid == 0
