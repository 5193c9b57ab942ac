"""What the analysis says about the evaluated questions: sources, horizons, duplicates,
True/False-only imports and Table 3 intervals that miss their estimate."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from prescient.analysis.horizon import bucket_label, buckets
from prescient.analysis.schema import (
    ScoresSchemaError,
    drop_duplicate_scores,
    normalize_scores,
)
from prescient.analysis.sources import UNNAMED, question_info, source_table
from prescient.benchmarks.daily_oracle.analysis.yearly import (
    YoYSummary,
    bc_interval,
    percentile_interval,
)
from prescient.benchmarks.daily_oracle.report import table3_display
from prescient.settings import ParamsError
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

SETTINGS = analysis_settings()
EDGES = (0, 7, 30, 90, 180, 365)


def _questions(rows: list[dict[str, object]]) -> pd.DataFrame:
    """An evaluated table's question columns for the score rows' ids."""
    ids = list(dict.fromkeys(str(r["question_id"]) for r in rows))
    by_id = {str(r["question_id"]): r for r in rows}
    return pd.DataFrame(
        {
            "question_id": ids,
            "qtype": [by_id[i]["qtype"] for i in ids],
            "resolution_date": [by_id[i]["resolution_date"] for i in ids],
        }
    )


def test_buckets_are_half_open_day_ranges() -> None:
    days = pd.Series([0, 6, 7, 29, 30, 364, 365, 2000, np.nan])
    b = buckets(days, EDGES)
    assert b["bucket"].tolist()[:8] == [
        "0-6 days",
        "0-6 days",
        "7-29 days",
        "7-29 days",
        "30-89 days",
        "180-364 days",
        "365+ days",
        "365+ days",
    ]
    assert pd.isna(b["bucket"].iloc[8])
    assert b["bucket_low_days"].tolist()[:3] == [0.0, 0.0, 7.0]
    assert math.isinf(b["bucket_high_days"].iloc[6]) and math.isnan(b["bucket_low_days"].iloc[8])
    assert bucket_label(30, 90) == "30-89 days"


def test_accuracy_by_horizon_by_hand() -> None:
    """Four market questions: two asked 3 days ahead (1 right), two asked 100 days ahead
    (both right), scored by one model; Daily Oracle questions have no horizon."""
    rows = score_rows("m", "closed_book", None, "2024-06-10", "tf", "cw", prefix="mk")
    rows += score_rows("m", "closed_book", None, "2024-06-20", "tf", "cc", prefix="mk2")
    rows += score_rows("m", "closed_book", None, "2024-06-20", "mc", "w", prefix="do")
    scores = scores_frame(rows)
    q = _questions(rows)
    q["source"] = ["markets"] * 4 + ["daily_oracle"]
    q["forecast_date"] = [dt.date(2024, 6, 7)] * 2 + [dt.date(2024, 3, 12)] * 2 + [None]
    q["category"] = ["Politics", "Politics", "Sports", None, "Science & Tech"]
    result = run_analysis(scores, q, None, {}, SETTINGS, SEED)
    h = result.tables["horizon_accuracy"]
    tf = h.query("qtype == 'tf'").set_index("bucket")
    assert tf.loc["0-6 days", ["n", "n_correct"]].tolist() == [2, 1]
    assert tf.loc["90-179 days", ["n", "n_correct"]].tolist() == [2, 2]
    assert tf.loc["0-6 days", "accuracy"] == pytest.approx(0.5)
    # Wilson 1/2: (0.0945, 0.9055)
    assert (tf.loc["0-6 days", "ci_low"], tf.loc["0-6 days", "ci_high"]) == pytest.approx(
        (0.0945, 0.9055), abs=1e-4
    )
    assert set(h["source"]) == {"markets"}  # the undated question has no horizon
    assert set(h["qtype"]) == {"all", "tf"}
    sources = result.tables["dataset_sources"].set_index("source")
    assert sources.loc["markets", ["n", "n_tf", "n_mc", "n_with_forecast_date"]].tolist() == [
        4,
        4,
        0,
        4,
    ]
    assert sources.loc["markets", "horizon_median_days"] == pytest.approx((3 + 100) / 2)
    assert sources.loc["markets", "n_categories"] == 2
    assert sources.loc["daily_oracle", "n_with_forecast_date"] == 0
    counts = result.tables["dataset_horizons"]
    assert counts[["bucket", "n"]].values.tolist() == [["0-6 days", 2], ["90-179 days", 2]]
    cats = result.tables["dataset_source_categories"]
    assert cats.query("source == 'markets'")[["category", "n"]].values.tolist() == [
        ["Politics", 2],
        ["(missing)", 1],
        ["Sports", 1],
    ]
    cells = result.tables["cells"].set_index("source")
    assert cells.loc["markets", "n"] == 4 and cells.loc["daily_oracle", "n_source_questions"] == 1


def test_excluded_sources_stay_out_of_the_time_series_only() -> None:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "cc", prefix="do")
    rows += score_rows("m", "closed_book", None, "2024-01-10", "tf", "ww", prefix="of")
    q = _questions(rows).assign(source=["daily_oracle"] * 2 + ["openforecast"] * 2)
    result = run_analysis(scores_frame(rows), q, None, {}, SETTINGS, SEED)
    jan = result.tables["monthly_accuracy"].query("month == '2024-01'").iloc[0]
    assert (jan["n"], jan["accuracy"]) == (2, 1.0)  # Daily Oracle's questions alone
    cells = result.tables["cells"].set_index("source")["n"].to_dict()
    assert cells == {"daily_oracle": 2, "openforecast": 2}
    assert any("2 scored rows of sources ['openforecast'] are left out" in n for n in result.notes)
    assert result.provenance["time_series_sources"] == "daily_oracle"
    assert result.metrics["sources"]["openforecast"] == {"n": 2, "tf": 2, "mc": 0}


def test_a_true_false_import_has_no_empty_mc_series_and_counts_only_real_gaps() -> None:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "cw")
    rows += score_rows("m", "closed_book", None, "2024-03-10", "tf", "c")
    result = run_analysis(scores_frame(rows), None, None, {}, SETTINGS, SEED)
    assert set(result.tables["monthly_accuracy"]["qtype"]) == {"tf"}
    assert any(n.startswith("1 of 3 series-months have no questions") for n in result.notes)


def test_the_scores_table_describes_its_own_questions() -> None:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "mc", "cw")
    scores = scores_frame(rows).assign(
        source="their_bench", category=["Sports", None], forecast_date=["2024-01-01", None]
    )
    info = question_info(scores, None)
    assert info["source"].tolist() == ["their_bench"] * 2
    assert info["horizon_days"].tolist()[0] == 9 and math.isnan(info["horizon_days"].tolist()[1])
    assert source_table(info).loc[0, ["n", "n_mc", "n_categories"]].tolist() == [2, 2, 1]
    # without a source column the questions are 'unnamed'
    assert set(question_info(scores_frame(rows), None)["source"]) == {UNNAMED}


def test_a_questions_table_must_hold_every_scored_question() -> None:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "cw")
    q = _questions(rows).iloc[:1]
    with pytest.raises(ValueError, match="1 scored questions are not in the questions table"):
        question_info(scores_frame(rows), q)
    late = _questions(rows).assign(forecast_date=[dt.date(2024, 2, 1), None])
    with pytest.raises(ValueError, match="forecast date after their resolution date"):
        question_info(scores_frame(rows), late)


def test_duplicate_rows_are_refused_with_the_fix_or_dropped_and_counted() -> None:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "cw")
    dup = scores_frame([*rows, {**rows[0], "correct": False}, {**rows[0], "correct": True}])
    with pytest.raises(ScoresSchemaError) as err:
        normalize_scores(dup, exclude_errors=True)
    assert "-S analysis.duplicates=keep_first (or keep_last)" in str(err.value)
    assert str(err.value).startswith("3 rows score the same question twice in one cell")
    first, n_first = drop_duplicate_scores(dup, "keep_first")
    last, n_last = drop_duplicate_scores(dup, "keep_last")
    assert (n_first, n_last) == (2, 2) and len(first) == len(last) == 2
    q0 = rows[0]["question_id"]
    assert bool(first.loc[first["question_id"] == q0, "correct"].item()) is True  # row 1
    assert bool(last.loc[last["question_id"] == q0, "correct"].item()) is True  # row 4
    assert drop_duplicate_scores(dup, "error") == (dup, 0)
    settings = analysis_settings("analysis.duplicates=keep_first")
    result = run_analysis(dup, None, None, {}, settings, SEED)
    assert result.metrics["duplicates_dropped"] == 2
    assert any("2 scored rows repeated" in n for n in result.notes)
    with pytest.raises(ParamsError, match="analysis.duplicates"):
        analysis_settings("analysis.duplicates=keep_all")


def test_intervals_that_miss_their_estimate_are_flagged() -> None:
    """A statistic biased under resampling can leave every replicate on one side of the
    estimate; the bias-corrected interval then sits in the far tail and excludes it."""
    replicates = np.linspace(-4.5, -1.5, 301)  # every replicate below -0.99
    low, high = bc_interval(replicates, -0.99, 0.95)
    summary = YoYSummary(-0.99, 12, low, high)
    assert high < -0.99 and summary.ci_excludes
    plow, phigh = percentile_interval(replicates, -0.99, 0.95)
    assert (plow, phigh) == pytest.approx(np.quantile(replicates, [0.025, 0.975]))
    assert YoYSummary(-3.0, 12, plow, phigh).ci_excludes is False
    assert YoYSummary(1.0, 0, math.nan, math.nan).ci_excludes is False
    t3 = pd.DataFrame(
        {
            "model": ["m"],
            "cell": ["closed_book"],
            "qtype": ["tf"],
            "knowledge_cutoff": [""],
            "acc_2024": [50.0],
            **{f"yoy_{r}": [-0.99] for r in ("pre", "post", "all")},
            **{f"yoy_{r}_low": [-4.41] for r in ("pre", "post", "all")},
            **{f"yoy_{r}_high": [-1.68] for r in ("pre", "post", "all")},
            **{f"yoy_{r}_ci_excludes": [r == "all"] for r in ("pre", "post", "all")},
        }
    )
    shown = table3_display(t3)
    assert shown.loc[0, "Avg YoY"] == "-0.99 [-4.41, -1.68] †"
    assert shown.loc[0, "Pre-cutoff YoY"] == "-0.99 [-4.41, -1.68]"


def test_horizon_buckets_must_start_at_zero_and_increase() -> None:
    for bad in ("[7,30]", "[0,30,30]", "[0,1.5]", "[]"):
        with pytest.raises(ParamsError, match="analysis.horizon.buckets_days"):
            analysis_settings(f"analysis.horizon.buckets_days={bad}")
