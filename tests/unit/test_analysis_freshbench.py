"""FreshBench's bias tests, degeneration tests and decline table, by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from prescient.analysis.freshbench import freshbench, future_bins, window_bounds
from prescient.analysis.schema import ModelInfo, normalize_scores
from prescient.analysis.settings import FreshBenchSettings
from tests.fixtures.analysis.frames import score_rows, scores_frame

RELEASE = pd.Timestamp("2024-01-01")
SETTINGS = FreshBenchSettings(anchors=("release_date",))


def test_windows_are_half_open_calendar_months_before_the_anchor() -> None:
    anchor = pd.Timestamp("2024-06-15")
    assert window_bounds(anchor, 0, 20) == (pd.Timestamp("2022-10-15"), anchor)
    assert window_bounds(anchor, 20, 40) == (
        pd.Timestamp("2021-02-15"),
        pd.Timestamp("2022-10-15"),
    )
    bins = future_bins(anchor, 2, pd.Timestamp("2024-10-20"))
    assert bins == [
        (pd.Timestamp("2024-06-15"), pd.Timestamp("2024-08-15")),
        (pd.Timestamp("2024-08-15"), pd.Timestamp("2024-10-15")),
        (pd.Timestamp("2024-10-15"), pd.Timestamp("2024-12-15")),
    ]


def _scores() -> pd.DataFrame:
    rows = []
    # present window [2022-05-01, 2024-01-01): 8 of 10 correct (one on its first day)
    rows += score_rows("m", "closed_book", None, "2022-05-01", "tf", "cccc")
    rows += score_rows("m", "closed_book", None, "2023-12-31", "tf", "ccccww")
    # past window 20-40 [2020-09-01, 2022-05-01): 4 of 10 (one on the day before present)
    rows += score_rows("m", "closed_book", None, "2022-04-30", "tf", "cw")
    rows += score_rows("m", "closed_book", None, "2021-01-10", "tf", "cccwwwww")
    # nothing 40-80 months before; post-release: 1 of 5 in Jan-Feb, 2 of 4 in May-Jun
    rows += score_rows("m", "closed_book", None, "2024-01-01", "tf", "cwwww")
    rows += score_rows("m", "closed_book", None, "2024-06-30", "tf", "ccww")
    rows += score_rows("undated", "closed_book", None, "2024-01-05", "tf", "cc")
    return normalize_scores(scores_frame(rows))


MODELS = {
    "m": ModelInfo("m", None, RELEASE, "registry"),
    "undated": ModelInfo("undated", None, None, "unknown"),
}


def test_bias_tests_by_hand() -> None:
    result = freshbench(_scores(), MODELS, SETTINGS)
    bias = result.bias.query("model == 'm' and qtype == 'tf'").set_index("window")
    near = bias.loc["20-40"]
    assert (near["acc_present"], near["n_present"]) == (pytest.approx(0.8), 10)
    assert (near["acc_past"], near["n_past"]) == (pytest.approx(0.4), 10)
    # se = sqrt(.4*.6/10 + .8*.2/10) = .2; Neophilia z = (.8 - .4) / .2 = 2
    assert near["z_neophilia"] == pytest.approx(2.0)
    assert near["p_neophilia"] == pytest.approx(0.0227501, abs=1e-7)
    assert near["z_nostalgia"] == pytest.approx(-2.0)
    assert near["p_nostalgia"] == pytest.approx(0.9772499, abs=1e-7)
    assert near["verdict"] == "Neophilia *"
    assert near["present_window"] == "0-20"
    far = bias.loc["40-60"]
    assert far["n_past"] == 0 and far["status"] == "no questions" and far["verdict"] == "-"
    assert math.isnan(far["p_nostalgia"])


def test_degeneration_tests_by_hand() -> None:
    result = freshbench(_scores(), MODELS, SETTINGS)
    deg = result.degeneration.query("model == 'm' and qtype == 'tf'").set_index("period")
    assert deg["period_start"].tolist() == ["2024-01-01", "2024-03-01", "2024-05-01"]
    first = deg.loc[0]
    assert (first["acc_future"], first["n_future"]) == (pytest.approx(0.2), 5)
    # se = sqrt(.8*.2/10 + .2*.8/5) = sqrt(.048); z = .6 / se = 2.7386
    assert first["z"] == pytest.approx(0.6 / math.sqrt(0.048))
    assert first["p"] == pytest.approx(0.0030849, abs=1e-6)
    assert first["mark"] == "**"
    assert deg.loc[1, "status"] == "no questions" and deg.loc[1, "mark"] == ""
    third = deg.loc[2]
    # se = sqrt(.016 + .5*.5/4) = sqrt(.0785); z = .3 / se = 1.0707; p = .1421
    assert third["z"] == pytest.approx(0.3 / math.sqrt(0.0785))
    assert third["p"] == pytest.approx(0.14215, abs=1e-4)
    assert third["mark"] == ""


def test_decline_table_by_hand() -> None:
    result = freshbench(_scores(), MODELS, SETTINGS)
    row = result.decline.query("model == 'm' and qtype == 'tf'").iloc[0]
    assert row["pre_release_accuracy"] == pytest.approx(0.8)
    assert row["first_post_accuracy"] == pytest.approx(0.2)
    assert row["first_post_period"] == "2024-01-01..2024-03-01"
    assert row["decline"] == pytest.approx(0.6)
    assert row["pct_decline"] == pytest.approx(75.0)
    assert row["status"] == "ok"


def test_models_without_a_release_date_are_skipped_not_guessed() -> None:
    result = freshbench(_scores(), MODELS, SETTINGS)
    assert result.skipped.to_dict("records") == [
        {"model": "undated", "anchor": "release_date", "reason": "no release date"}
    ]
    for table in (result.bias, result.degeneration, result.decline):
        assert "undated" not in set(table["model"])


def test_pooled_type_and_missing_types() -> None:
    result = freshbench(_scores(), MODELS, SETTINGS)
    # only TF questions: 'all' equals TF and MC has no rows at all
    assert set(result.decline["qtype"]) == {"tf", "all"}
    tf = result.bias.query("qtype == 'tf'")["p_neophilia"].to_numpy()
    pooled = result.bias.query("qtype == 'all' and model == 'm'")["p_neophilia"].to_numpy()
    assert tf == pytest.approx(pooled, nan_ok=True)


def test_knowledge_cutoff_anchor_when_set() -> None:
    models = {
        "m": ModelInfo("m", pd.Timestamp("2023-07-01"), RELEASE, "registry"),
        "undated": MODELS["undated"],
    }
    result = freshbench(_scores(), models, FreshBenchSettings())
    assert set(result.decline.query("model == 'm'")["anchor"]) == {
        "release_date",
        "knowledge_cutoff",
    }
    kc = result.decline.query("model == 'm' and anchor == 'knowledge_cutoff' and qtype == 'tf'")
    # present window [2021-11-01, 2023-07-01): 4 (2022-05-01) + 2 (2022-04-30) questions
    assert kc.iloc[0]["n_pre"] == 6
    assert len(result.skipped) == 2


def test_empty_scores() -> None:
    result = freshbench(normalize_scores(scores_frame([])), MODELS, SETTINGS)
    assert result.bias.empty and result.decline.empty and result.skipped.empty


def test_settings_validate_windows() -> None:
    with pytest.raises(ValueError):
        FreshBenchSettings(past_windows_months=((40, 20),))
    with pytest.raises(ValueError):
        FreshBenchSettings(anchors=("birthday",))
