"""Proper scores against scikit-learn and statsmodels, and calibration against hand-computed
bins."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

from prescient.proper_scores import (
    _lower_tail_count,
    brier_items,
    ece,
    holm,
    log_items,
    mcnemar,
    murphy,
    paired_bootstrap,
    reliability,
    skill,
    tf_matrix,
)

P_YES = np.array([0.9, 0.7, 0.7, 0.2, 0.55, 0.05, 1.0, 0.35])
YES = np.array([1, 1, 0, 0, 1, 0, 1, 1])


def test_binary_brier_is_the_squared_error_on_p_yes_as_sklearn_computes_it() -> None:
    items = brier_items(tf_matrix(P_YES), 1 - YES)
    assert items == pytest.approx((P_YES - YES) ** 2)
    assert items.mean() == pytest.approx(brier_score_loss(YES, P_YES))
    assert items[0] == pytest.approx(0.01)  # (0.9 - 1)^2


def test_multiple_choice_brier_sums_over_options_as_sklearn_computes_it() -> None:
    probs = np.array([[0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25], [0.0, 0.0, 0.5, 0.5]])
    outcome = np.array([0, 3, 1])
    items = brier_items(probs, outcome)
    # by hand: 0.09 + 3 * 0.01; 3 * 0.0625 + 0.5625; 1 + 0.25 + 0.25
    assert items == pytest.approx([0.12, 0.75, 1.5])
    assert items.mean() == pytest.approx(brier_score_loss(outcome, probs, labels=[0, 1, 2, 3]))


def test_log_score_matches_sklearn_and_clips_a_zero_forecast() -> None:
    inside = np.clip(P_YES, 0.01, 0.99)
    assert log_items(tf_matrix(inside), 1 - YES).mean() == pytest.approx(log_loss(YES, inside))
    worst = log_items(tf_matrix([0.0]), [0])  # P(Yes) = 0, resolved Yes
    assert worst[0] == pytest.approx(-math.log(1e-6))


def test_skill_against_a_reference() -> None:
    assert skill(0.125, 0.25) == pytest.approx(0.5)
    assert math.isnan(skill(0.1, 0.0))


def test_bad_forecasts_are_refused() -> None:
    with pytest.raises(ValueError, match="summing to 1"):
        brier_items(np.array([[0.6, 0.6]]), [0])
    with pytest.raises(ValueError, match="outcome indices"):
        brier_items(np.array([[0.5, 0.5]]), [2])


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_bins_match_sklearns_calibration_curve(strategy: str) -> None:
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, 400).round(3)
    y = (rng.uniform(0, 1, 400) < p).astype(int)
    r = reliability(p, y, bins=5, strategy=strategy)  # type: ignore[arg-type]
    prob_true, prob_pred = calibration_curve(y, p, n_bins=5, strategy=strategy)
    assert r.observed == pytest.approx(prob_true)
    assert r.forecast == pytest.approx(prob_pred)
    assert r.count.sum() == 400


def test_ece_and_murphy_by_hand_on_binned_forecasts() -> None:
    # Two bins of equal forecasts: 0.2 four times (one Yes), 0.8 four times (two Yes).
    p = np.array([0.2] * 4 + [0.8] * 4)
    y = np.array([1, 0, 0, 0, 1, 1, 0, 0])
    # ECE: 4/8 * |0.25 - 0.2| + 4/8 * |0.5 - 0.8| = 0.025 + 0.15
    assert ece(p, y, bins=10) == pytest.approx(0.175)
    m = murphy(p, y, bins=10)
    base = 3 / 8
    assert m.reliability == pytest.approx(0.5 * 0.05**2 + 0.5 * 0.3**2)
    assert m.resolution == pytest.approx(0.5 * (0.25 - base) ** 2 + 0.5 * (0.5 - base) ** 2)
    assert m.uncertainty == pytest.approx(base * (1 - base))
    assert m.within_bin == pytest.approx(0.0, abs=1e-12)
    assert m.reliability - m.resolution + m.uncertainty == pytest.approx(m.brier)


def test_murphy_parts_add_up_to_brier_on_any_forecasts() -> None:
    m = murphy(P_YES, YES, bins=4)
    assert m.brier == pytest.approx(brier_score_loss(YES, P_YES))
    parts = m.reliability - m.resolution + m.uncertainty + m.within_bin
    assert parts == pytest.approx(m.brier)
    assert m.within_bin != pytest.approx(0.0)


def test_mcnemar_exact_matches_statsmodels() -> None:
    a = np.array([1] * 30 + [1] * 9 + [0] * 2 + [0] * 19, dtype=bool)
    b = np.array([1] * 30 + [0] * 9 + [1] * 2 + [0] * 19, dtype=bool)
    got = mcnemar(a, b)
    table = [[30, 9], [2, 19]]
    assert (got.only_a, got.only_b) == (9, 2)
    assert got.p == pytest.approx(sm_mcnemar(table, exact=True).pvalue)
    assert mcnemar(a, a).p == 1.0


def test_mcnemar_counts_thousands_of_discordant_pairs() -> None:
    # 1,500 questions only A got right, 1,400 only B: beyond a float's 2**1023
    a = np.array([True] * 1500 + [False] * 1400)
    got = mcnemar(a, ~a)
    assert got.p == pytest.approx(sm_mcnemar([[0, 1500], [1400, 0]], exact=True).pvalue)
    assert 0.0 < got.p < 0.1


def test_mcnemar_tail_is_the_exact_sum_of_binomial_coefficients() -> None:
    for n in range(40):
        for k in range(n + 1):
            assert _lower_tail_count(n, k) == sum(math.comb(n, i) for i in range(k + 1))


def test_holm_matches_statsmodels() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])
    assert holm([]).size == 0


def test_paired_bootstrap_keeps_the_pairing_and_is_seeded() -> None:
    a = np.array([1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0])
    b = a - 0.25  # a constant difference: every replicate sees exactly it
    got = paired_bootstrap(a, b, reps=500, seed=7)
    assert (got.mean, got.low, got.high, got.n) == (0.25, 0.25, 0.25, 8)
    assert got.p == 0.0
    noisy = paired_bootstrap(P_YES, 1 - P_YES, reps=500, seed=7)
    assert noisy == paired_bootstrap(P_YES, 1 - P_YES, reps=500, seed=7)
    assert noisy.low < noisy.mean < noisy.high
