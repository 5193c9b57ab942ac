"""The declared proper scores and calibration measures by hand, and a measure declared in
a test reaching the score stage's rows, the ``proper_scores`` table and the metrics
without an edit anywhere else."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from prescient import proper_metrics
from prescient.analysis.proper import proper_scores_table, score_columns
from prescient.evaluation.forecasts import row_score_values, row_scores
from prescient.proper_metrics import (
    BRIER,
    ECE,
    ECE_MASS,
    HIGHER,
    LOG_SCORE,
    LOWER,
    MURPHY,
    SKILL_BASE,
    SKILL_UNIFORM,
    CalibrationMeasure,
    ItemScore,
    registered,
)
from prescient.proper_scores import Draws, reliability
from tests.fixtures.analysis.forecasts import (
    NO_REPS,
    REPS,
    TF_P,
    TF_Y,
    frame_of,
    questions_of,
    tf_mc_rows,
)
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

SHIPPED_COLUMNS = [
    "model",
    "setting",
    "rag_cutoff",
    "cell",
    "elicitation",
    "qtype",
    "n",
    "n_uniform_fill",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "brier",
    "brier_low",
    "brier_high",
    "log_score",
    "log_low",
    "log_high",
    "brier_uniform",
    "skill_uniform",
    "skill_uniform_low",
    "skill_uniform_high",
    "brier_base",
    "skill_base",
    "skill_base_low",
    "skill_base_high",
    "calibration",
    "ece",
    "ece_low",
    "ece_high",
    "ece_mass",
    "murphy_brier",
    "reliability",
    "resolution",
    "uncertainty",
    "within_bin",
]
"""The header of ``proper_scores.csv`` as the declarations give it."""

TF_YES = (np.asarray(TF_Y) == 0).astype(float)  # outcome index 0 is Yes


def _m(*rows: list[float]) -> np.ndarray:
    return np.array(rows, dtype=float)


def _y(*outcomes: int) -> np.ndarray:
    return np.array(outcomes, dtype=np.int64)


def test_every_declaration_says_what_it_reads_which_way_is_better_and_its_source() -> None:
    names = [m.name for m in proper_metrics.declared()]
    shipped = ["brier", "log_score", "skill_uniform", "skill_base", "ece", "ece_mass", "murphy"]
    assert names == shipped
    assert len(set(names)) == len(names)
    for metric in proper_metrics.declared():
        assert metric.direction in (LOWER, HIGHER)
        assert metric.reads and metric.definition
    assert (BRIER.direction, SKILL_BASE.direction) == (LOWER, HIGHER)
    assert score_columns() == SHIPPED_COLUMNS


def test_brier_by_hand() -> None:
    # TF, P(Yes) = 0.7, answer No: (0.7 - 0)^2 = 0.49, half the sum over both options
    assert BRIER.rule(_m([0.7, 0.3]), _y(1), False)[0] == pytest.approx(0.49)
    # MC (0.1, 0.2, 0.6, 0.1), answer (c): 0.01 + 0.04 + 0.16 + 0.01 = 0.22
    assert BRIER.rule(_m([0.1, 0.2, 0.6, 0.1]), _y(2), True)[0] == pytest.approx(0.22)
    # an MC question of two options sums, it does not halve: 0.36 + 0.36
    assert BRIER.rule(_m([0.6, 0.4]), _y(1), True)[0] == pytest.approx(0.72)


def test_log_score_by_hand() -> None:
    assert LOG_SCORE.rule(_m([0.7, 0.3]), _y(1), False)[0] == pytest.approx(-math.log(0.3))
    certain_wrong = LOG_SCORE.rule(_m([0.0, 1.0]), _y(0), False)[0]
    assert certain_wrong == pytest.approx(-math.log(1e-6))  # clipped: 13.8, not infinity


def test_reference_forecasts_by_hand() -> None:
    freq = np.array([0.5, 0.25, 0.25, 0.0])
    assert list(SKILL_UNIFORM.reference(freq, 4)) == pytest.approx([0.25] * 4)
    assert list(SKILL_BASE.reference(freq, 3)) == pytest.approx([0.5, 0.25, 0.25])
    assert list(SKILL_BASE.reference(freq, 2)) == pytest.approx([2 / 3, 1 / 3])
    # no answer known among the positions a question has: uniform
    assert list(SKILL_BASE.reference(np.array([0.0, 0.0, 1.0]), 2)) == pytest.approx([0.5] * 2)


def test_calibration_measures_by_hand() -> None:
    p = np.asarray(TF_P, dtype=float)  # 0.9, 0.6, 0.3, 0.6 against Yes, Yes, No, Yes
    # bins {0.3}: 0 Yes, {0.6, 0.6}: 2 Yes, {0.9}: 1 Yes -> (0.3 + 2 * 0.4 + 0.1) / 4
    assert ECE.rule(p, TF_YES, 10) == pytest.approx((0.3,))
    # two equal-mass bins, edges (0.3, 0.6, 0.9): {0.6, 0.3, 0.6} observed 2/3 against a
    # mean forecast of 0.5, and {0.9} observed 1: (3 * 1/6 + 0.1) / 4
    assert ECE_MASS.rule(p, TF_YES, 2) == pytest.approx((0.15,))
    # Murphy: reliability (0.09 + 2 * 0.16 + 0.01) / 4; resolution = uncertainty = 3/16
    assert MURPHY.rule(p, TF_YES, 10) == pytest.approx((0.105, 0.105, 0.1875, 0.1875, 0.0))
    assert MURPHY.columns[0] == "murphy_brier"
    # resamples: the questions as drawn (0.3 again) and question 0 four times (|4 - 3.6| / 4)
    assert ECE.replicates is not None
    idx = np.array([[0, 1, 2, 3], [0, 0, 0, 0]], dtype=np.int64)
    draws = Draws(idx, slice(0, 2))
    assert list(ECE.replicates(p, TF_YES, 10)(draws)) == pytest.approx([0.3, 0.1])
    assert ECE_MASS.replicates is None


def test_the_score_stage_rows_are_the_declared_scores() -> None:
    assert row_score_values((0.7, 0.3), 1, "tf") == pytest.approx(
        {"brier": 0.49, "log_score": -math.log(0.3)}
    )
    assert row_scores((0.6, 0.4), 1, "mc") == pytest.approx((0.72, -math.log(0.4)))


def _spherical(m: np.ndarray, y: np.ndarray, mc: bool) -> np.ndarray:
    """The spherical score ``p_y / ||p||`` (higher is better)."""
    out: np.ndarray = m[np.arange(y.size), y] / np.sqrt((m**2).sum(axis=1))
    return out


def _max_gap(p: np.ndarray, y: np.ndarray, bins: int) -> tuple[float, ...]:
    """The largest |observed - forecast| over the non-empty equal-width bins."""
    r = reliability(p, y, bins)
    return (float(np.abs(r.observed - r.forecast).max()),)


SPHERICAL = ItemScore(
    "spherical", "spherical", HIGHER, "p_y / ||p||, a test's own score.", _spherical
)
MAX_GAP = CalibrationMeasure(
    "mce", ("mce",), LOWER, "The largest bin's calibration gap, a test's own.", _max_gap
)


def test_a_measure_declared_in_a_test_reaches_every_output() -> None:
    rows, outcomes = tf_mc_rows()
    # TF rows (P(Yes), outcome): (0.9, Yes), (0.6, Yes), (0.3, No), (0.6, Yes)
    tf_spherical = (
        0.9 / math.sqrt(0.82)
        + 0.6 / math.sqrt(0.52)
        + 0.7 / math.sqrt(0.58)
        + 0.6 / math.sqrt(0.52)
    ) / 4
    with registered(SPHERICAL, MAX_GAP):
        # the score stage scores each forecast with it
        assert row_score_values((0.5, 0.5), 0, "tf")["spherical"] == pytest.approx(
            0.5 / math.sqrt(0.5)
        )
        # proper_scores: after the shipped item scores, with its interval; the calibration
        # measure after the shipped ones
        columns = score_columns()
        at = columns.index("spherical")
        stems = ["log_high", "spherical", "spherical_low", "spherical_high"]
        assert columns[at - 1 : at + 3] == stems
        assert columns[-1] == "mce"
        table = proper_scores_table(frame_of(rows, outcomes), 10, REPS, SEED)
        assert list(table.columns) == columns
        tf = table.loc[table["qtype"] == "tf"].iloc[0]
        assert tf["spherical"] == pytest.approx(tf_spherical)
        assert tf["spherical_low"] <= tf["spherical"] <= tf["spherical_high"]
        # bins {0.3}: gap 0.3, {0.6, 0.6}: 0.4, {0.9}: 0.1
        assert tf["mce"] == pytest.approx(0.4)
        # the metrics of the analyze stage, per model, cell and elicitation
        result = run_analysis(
            pd.DataFrame(rows), questions_of(rows, outcomes), None, None, analysis_settings(), SEED
        )
        entry = result.metrics["proper_scores"]["models"]["m"]["closed_book"]
        assert set(entry["verbal_probability"]) == {"n", "brier", "log_score", "spherical"}
    # withdrawn after the block: the shipped header again
    assert score_columns() == SHIPPED_COLUMNS
    assert "spherical" not in row_score_values((0.5, 0.5), 0, "tf")
    assert list(proper_scores_table(frame_of(rows, outcomes), 10, NO_REPS, SEED).columns) == (
        SHIPPED_COLUMNS
    )


def test_a_name_is_declared_once() -> None:
    with pytest.raises(ValueError, match="declared already"):
        proper_metrics.register(ItemScore("brier", "b", LOWER, "again", _spherical))
