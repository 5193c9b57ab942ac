"""FreshBench's bias tests, degeneration tests and decline table, by hand, under both
window rules (calendar months and FreshBench's 30-day months)."""

from __future__ import annotations

import datetime as dt
import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from prescient.analysis.schema import ModelInfo, normalize_scores
from prescient.benchmarks.freshbench.analysis import (
    decline_row,
    freshbench,
)
from prescient.benchmarks.freshbench.settings import FreshBenchSettings
from prescient.benchmarks.freshbench.windows import (
    Span,
    Tally,
    freshbench_month,
    post_periods,
    window_span,
)
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import freshbench_settings, section_settings

D = dt.date
RELEASE = D(2024, 1, 1)
# The by-hand tests check the statistic on a few questions: the floor off (its own tests
# below use the shipped floor).
NO_FLOOR = ("min_n=1", "min_outcomes=0")
CALENDAR = freshbench_settings("anchors=[release_date]", *NO_FLOOR)
FRESH = freshbench_settings("anchors=[release_date]", "month_rule=freshbench", *NO_FLOOR)
PRESET = section_settings(
    "freshbench", "analysis=freshbench", *(f"analysis.freshbench.{o}" for o in NO_FLOOR)
)
SHIPPED = freshbench_settings("anchors=[release_date]")


def upper_tail(z: float) -> float:
    """1 - Phi(z) from the standard library, independent of the code under test."""
    return 1.0 - NormalDist().cdf(z)


def days_after(anchor: dt.date, offset: int) -> str:
    return (anchor + dt.timedelta(days=offset)).isoformat()


# --- the month rule ---------------------------------------------------------------------


def test_freshbench_month_is_pythons_round_of_days_over_thirty() -> None:
    days = np.arange(-3000, 3001)
    assert freshbench_month(days).tolist() == [round(int(d) / 30) for d in days]
    # ties go to the even month: 15 days -> 0.5 -> 0, 45 -> 1.5 -> 2, 75 -> 2.5 -> 2
    by_hand = {14: 0, 15: 0, 16: 1, 44: 1, 45: 2, 46: 2, 74: 2, 75: 2, 76: 3, -15: 0, -16: -1}
    assert {d: int(freshbench_month(d)) for d in by_hand} == by_hand
    assert {d: int(freshbench_month(d)) for d in (-45, -75, -585, -615, -1185)} == {
        -45: -2,
        -75: -2,
        -585: -20,
        -615: -20,
        -1185: -40,
    }


@pytest.mark.parametrize("anchor", [D(2024, 1, 1), D(2023, 6, 13), D(2024, 2, 29)])
@pytest.mark.parametrize("window", [(0, 20), (20, 40), (40, 60), (-2, 20), (-4, -2)])
def test_freshbench_spans_hold_exactly_the_days_with_lo_below_m_at_most_hi(
    anchor: dt.date, window: tuple[int, int]
) -> None:
    span = window_span(anchor, window, "freshbench")
    offsets = np.arange(-3000, 3001)
    days = np.array([np.datetime64(anchor) + int(o) for o in offsets], dtype="datetime64[ns]")
    m = freshbench_month(offsets)
    lo, hi = -window[1], -window[0]
    assert (span.mask(days) == ((lo < m) & (m <= hi))).all()


def test_calendar_windows_by_hand() -> None:
    anchor = D(2024, 6, 15)
    assert window_span(anchor, (0, 20), "calendar") == Span(D(2022, 10, 15), anchor)
    assert window_span(anchor, (20, 40), "calendar") == Span(D(2021, 2, 15), D(2022, 10, 15))
    # a month-end anchor keeps to month ends (clamped), as calendar months do
    assert window_span(D(2024, 3, 31), (0, 1), "calendar") == Span(D(2024, 2, 29), D(2024, 3, 31))


def test_both_rules_on_both_sides_of_every_boundary() -> None:
    """Which window a question falls in, a day before and on each boundary."""
    windows = {"present": (0, 20), "20-40": (20, 40), "40-60": (40, 60)}

    def where(rule: str, day: dt.date) -> str:
        days = np.array([np.datetime64(day, "ns")])
        hits = [n for n, w in windows.items() if window_span(RELEASE, w, rule).mask(days)[0]]
        assert len(hits) <= 1
        return hits[0] if hits else "after" if day >= RELEASE else "earlier"

    calendar = {
        D(2024, 1, 1): "after",  # the release day: after the present window
        D(2023, 12, 31): "present",
        D(2022, 5, 1): "present",  # anchor - 20 calendar months
        D(2022, 4, 30): "20-40",
        D(2020, 9, 1): "20-40",
        D(2020, 8, 31): "40-60",
        D(2023, 1, 1): "present",  # 1 January closings a year and two years back
        D(2022, 1, 1): "20-40",
    }
    fresh = {
        D(2024, 1, 1): "present",  # day 0: m = 0
        D(2024, 1, 16): "present",  # day 15: round(0.5) = 0
        D(2024, 1, 17): "after",  # day 16: m = 1
        D(2022, 5, 27): "present",  # day -584: round(-19.47) = -19
        D(2022, 5, 26): "20-40",  # day -585: round(-19.5) = -20, ties to even
        D(2020, 10, 4): "20-40",  # day -1184: m = -39
        D(2020, 10, 3): "40-60",  # day -1185: round(-39.5) = -40
        D(2023, 1, 1): "present",  # day -365: round(-12.17) = -12
        D(2022, 1, 1): "20-40",  # day -730: m = -24
        D(2021, 1, 1): "20-40",  # day -1095: round(-36.5) = -36, ties to even
    }
    assert {d: where("calendar", d) for d in calendar} == calendar
    assert {d: where("freshbench", d) for d in fresh} == fresh


def test_windows_reaching_past_the_anchor_under_freshbench() -> None:
    # [-2, 20]: present up to m = 2 (day 75 = 2.5 -> 2 is in, day 76 out);
    # [-4, -2]: 2 < m <= 4 (day 75 is out, day 76 in; day 45 = 1.5 -> 2 is out)
    near = window_span(RELEASE, (-2, 20), "freshbench")
    later = window_span(RELEASE, (-4, -2), "freshbench")
    assert near.end == RELEASE + dt.timedelta(days=76)
    assert later == Span(RELEASE + dt.timedelta(days=76), RELEASE + dt.timedelta(days=136))


def test_post_anchor_periods() -> None:
    # FreshBench's Table 3: fixed two-month calendar periods, the first holding the release
    assert post_periods(D(2023, 6, 13), "calendar", 2, D(2023, 9, 1)) == [
        Span(D(2023, 5, 1), D(2023, 7, 1)),
        Span(D(2023, 7, 1), D(2023, 9, 1)),
        Span(D(2023, 9, 1), D(2023, 11, 1)),
    ]
    assert post_periods(D(2024, 6, 15), "anchored", 2, D(2024, 10, 20)) == [
        Span(D(2024, 6, 15), D(2024, 8, 15)),
        Span(D(2024, 8, 15), D(2024, 10, 15)),
        Span(D(2024, 10, 15), D(2024, 12, 15)),
    ]
    assert post_periods(D(2024, 6, 15), "anchored", 2, D(2024, 6, 14)) == []


# --- a hand-made table -------------------------------------------------------------------


def _scores() -> pd.DataFrame:
    """One model released 2024-01-01; TF questions placed around the boundaries."""
    rows = []
    day = {off: days_after(RELEASE, off) for off in (15, -584, -585)}
    rows += score_rows("m", "closed_book", None, day[15], "tf", "cccc")  # 2024-01-16
    rows += score_rows("m", "closed_book", None, day[-584], "tf", "ccccww")  # 2022-05-27
    rows += score_rows("m", "closed_book", None, day[-585], "tf", "cw")  # 2022-05-26
    rows += score_rows("m", "closed_book", None, "2021-01-10", "tf", "cccwwwww")
    rows += score_rows("m", "closed_book", None, "2024-02-20", "tf", "wwwwww")
    rows += score_rows("m", "closed_book", None, "2024-04-30", "tf", "cww")
    rows += score_rows("m", "closed_book", None, "2024-07-01", "tf", "cc")
    rows += score_rows("undated", "closed_book", None, "2024-01-05", "tf", "cc")
    return normalize_scores(scores_frame(rows), exclude_errors=True)


MODELS = {
    "m": ModelInfo("m", None, RELEASE, "registry"),
    "undated": ModelInfo("undated", None, None, "unknown"),
}


def _bias(settings: FreshBenchSettings) -> pd.DataFrame:
    result = freshbench(_scores(), MODELS, settings)
    return result.bias.query("model == 'm' and qtype == 'tf'").set_index("window")


def test_bias_tests_by_hand_under_freshbench_months() -> None:
    near = _bias(FRESH).loc["20-40"]
    # present m = -19..0: 2024-01-16 (4 of 4) and 2022-05-27 (4 of 6): 8 of 10
    # 20-40: 2022-05-26 (1 of 2) and 2021-01-10 (3 of 8): 4 of 10
    assert (near["n_correct_present"], near["n_present"]) == (8, 10)
    assert (near["n_correct_past"], near["n_past"]) == (4, 10)
    assert (near["present_start"], near["present_end"]) == ("2022-05-27", "2024-01-17")
    assert (near["window_start"], near["window_end"]) == ("2020-10-04", "2022-05-27")
    # se = sqrt(.4 * .6 / 10 + .8 * .2 / 10) = sqrt(.04) = .2; z = (.8 - .4) / .2 = 2
    assert near["z_neophilia"] == pytest.approx(2.0)
    assert near["p_neophilia"] == pytest.approx(0.0227501, abs=1e-7)
    assert near["p_neophilia"] == pytest.approx(upper_tail(2.0))
    assert near["z_nostalgia"] == pytest.approx(-2.0)
    assert near["p_nostalgia"] == pytest.approx(0.9772499, abs=1e-7)
    assert near["verdict"] == "Neophilia *" and near["month_rule"] == "freshbench"
    far = _bias(FRESH).loc["40-60"]
    assert far["n_past"] == 0 and far["status"] == "no questions" and far["verdict"] == "-"
    assert math.isnan(far["p_nostalgia"]) and math.isnan(far["ci_low_past"])


def test_bias_tests_by_hand_under_calendar_months() -> None:
    near = _bias(CALENDAR).loc["20-40"]
    # present [2022-05-01, 2024-01-01): 2022-05-27 (4 of 6) and 2022-05-26 (1 of 2): 5 of 8
    # 20-40 [2020-09-01, 2022-05-01): 2021-01-10: 3 of 8
    assert (near["n_correct_present"], near["n_present"]) == (5, 8)
    assert (near["n_correct_past"], near["n_past"]) == (3, 8)
    # se = sqrt(2 * .625 * .375 / 8) = .2420615; z = .25 / se = 1.0327956
    z = 0.25 / math.sqrt(2 * 0.625 * 0.375 / 8)
    assert z == pytest.approx(1.0327956, abs=1e-7)
    assert near["z_neophilia"] == pytest.approx(z)
    assert near["p_neophilia"] == pytest.approx(0.15085, abs=1e-5)
    assert near["p_neophilia"] == pytest.approx(upper_tail(z))
    assert near["verdict"] == "-" and near["month_rule"] == "calendar"
    # the Wilson interval of 5 of 8, by its formula
    z95 = NormalDist().inv_cdf(0.975)
    centre = (0.625 + z95**2 / 16) / (1 + z95**2 / 8)
    half = z95 / (1 + z95**2 / 8) * math.sqrt(0.625 * 0.375 / 8 + z95**2 / 256)
    assert near["ci_low_present"] == pytest.approx(centre - half)
    assert near["ci_high_present"] == pytest.approx(centre + half)


def test_degeneration_and_decline_by_hand_under_the_freshbench_preset() -> None:
    assert (PRESET.month_rule, PRESET.reference, PRESET.periods) == (
        "freshbench",
        "pre_anchor",
        "calendar",
    )
    assert (PRESET.decline_periods, PRESET.decline_round_digits) == (2, 2)
    result = freshbench(_scores(), MODELS, PRESET)
    deg = result.degeneration.query("model == 'm' and qtype == 'tf'").set_index("period")
    assert deg["period_start"].tolist() == [
        "2024-01-01",
        "2024-03-01",
        "2024-05-01",
        "2024-07-01",
    ]
    # reference: every question before 2024-01-01: 4 + 1 + 3 of 6 + 2 + 8 = 8 of 16
    assert (deg.loc[0, "n_correct_reference"], deg.loc[0, "n_reference"]) == (8, 16)
    assert (deg.loc[0, "reference_start"], deg.loc[0, "reference_end"]) == ("", "2024-01-01")
    # Jan-Feb: 4 of 10; se = sqrt(.25/16 + .24/10) = sqrt(.039625); z = .1 / se
    z0 = 0.1 / math.sqrt(0.039625)
    assert (deg.loc[0, "n_correct_future"], deg.loc[0, "n_future"]) == (4, 10)
    assert deg.loc[0, "z"] == pytest.approx(z0) and z0 == pytest.approx(0.50236, abs=1e-5)
    assert deg.loc[0, "p"] == pytest.approx(upper_tail(z0)) and deg.loc[0, "mark"] == ""
    # Mar-Apr: 1 of 3; se = sqrt(.015625 + (2/9)/3); z = (1/2 - 1/3) / se = 0.55649
    z1 = (0.5 - 1 / 3) / math.sqrt(0.015625 + 2 / 27)
    assert deg.loc[1, "z"] == pytest.approx(z1) and z1 == pytest.approx(0.55649, abs=1e-5)
    assert deg.loc[2, "status"] == "no questions"
    # Jul-Aug: 2 of 2 against .5: se = sqrt(.25/16) = .125, z = (.5 - 1) / .125 = -4
    assert deg.loc[3, "z"] == pytest.approx(-4.0)
    assert deg.loc[3, "p"] == pytest.approx(upper_tail(-4.0))
    assert set(deg["period_rule"]) == {"calendar"} and set(deg["reference"]) == {"pre_anchor"}
    row = result.decline.query("model == 'm' and qtype == 'tf'").iloc[0]
    # Table 4: pre .50; first post = mean(.40, round(1/3, 2) = .33) = .365; 27% decline
    assert row["pre_accuracy"] == pytest.approx(0.5) and row["n_pre"] == 16
    assert row["post_accuracy"] == pytest.approx(0.365)
    assert (row["post_start"], row["post_end"], row["n_post_periods"]) == (
        "2024-01-01",
        "2024-05-01",
        2,
    )
    assert row["n_post"] == 13
    assert row["decline"] == pytest.approx(0.135)
    assert row["pct_decline"] == pytest.approx(27.0)
    assert (row["rounding"], row["status"]) == ("2 decimals", "ok")


def test_decline_without_rounding_and_with_one_period() -> None:
    exact = freshbench(_scores(), MODELS, PRESET.model_copy(update={"decline_round_digits": None}))
    row = exact.decline.query("model == 'm' and qtype == 'tf'").iloc[0]
    assert row["post_accuracy"] == pytest.approx((0.4 + 1 / 3) / 2)
    assert row["pct_decline"] == pytest.approx(100 * (0.5 - (0.4 + 1 / 3) / 2) / 0.5)
    # the shipped default: the present window against the first period with questions
    default = freshbench(_scores(), MODELS, CALENDAR)
    row = default.decline.query("model == 'm' and qtype == 'tf'").iloc[0]
    # present [2022-05-01, 2024-01-01): 5 of 8; first anchored period [01-01, 03-01): 4 of 10
    assert (row["pre_accuracy"], row["post_accuracy"]) == (pytest.approx(0.625), pytest.approx(0.4))
    assert row["pct_decline"] == pytest.approx(36.0)
    assert (row["reference"], row["period_rule"], row["rounding"]) == (
        "present",
        "anchored",
        "none",
    )


def test_models_without_a_release_date_are_skipped_not_guessed() -> None:
    result = freshbench(_scores(), MODELS, CALENDAR)
    assert result.skipped.to_dict("records") == [
        {"model": "undated", "anchor": "release_date", "reason": "no release date"}
    ]
    for table in (result.bias, result.degeneration, result.decline):
        assert "undated" not in set(table["model"])


def test_pooled_type_and_missing_types() -> None:
    result = freshbench(_scores(), MODELS, CALENDAR)
    # only TF questions: 'all' equals TF and MC has no rows at all
    assert set(result.decline["qtype"]) == {"tf", "all"}
    tf = result.bias.query("qtype == 'tf'")["p_neophilia"].to_numpy()
    pooled = result.bias.query("qtype == 'all' and model == 'm'")["p_neophilia"].to_numpy()
    assert tf == pytest.approx(pooled, nan_ok=True)


def test_knowledge_cutoff_anchor_when_set() -> None:
    models = {"m": ModelInfo("m", D(2023, 7, 1), RELEASE, "registry"), "undated": MODELS["undated"]}
    result = freshbench(_scores(), models, freshbench_settings())
    assert set(result.decline.query("model == 'm'")["anchor"]) == {
        "release_date",
        "knowledge_cutoff",
    }
    kc = result.decline.query("model == 'm' and anchor == 'knowledge_cutoff' and qtype == 'tf'")
    # present [2021-11-01, 2023-07-01): 6 (2022-05-27) + 2 (2022-05-26) questions
    assert kc.iloc[0]["n_pre"] == 8
    assert len(result.skipped) == 2


def test_empty_scores() -> None:
    result = freshbench(normalize_scores(scores_frame([]), True), MODELS, CALENDAR)
    assert result.bias.empty and result.decline.empty and result.skipped.empty
    assert "month_rule" in result.bias.columns


@pytest.mark.parametrize(
    ("model", "pre", "periods", "decline", "pct"),
    [
        ("Llama-2-7B", 0.27, [0.26, 0.27, 0.18], 0.01, 1.85),
        ("Gemini-1.5-flash", 0.39, [0.23, 0.22], 0.17, 42.31),
        ("Baichuan2-7B-Chat", 0.37, [0.35, 0.43, 0.31], -0.02, -5.41),
        ("GPT-4o-mini-2024-07-18", 0.48, [0.28], 0.20, 41.67),
    ],
)
def test_the_preset_decline_reproduces_freshbench_table_4(
    model: str, pre: float, periods: list[float], decline: float, pct: float
) -> None:
    """Table 4 from Table 3's accuracies (FreshBench, NAACL 2025, appendix C)."""

    def tally(acc: float) -> Tally:
        return Tally(10_000, round(acc * 10_000) + 37)  # 0.0037 more: rounding removes it

    spans = [Span(D(2024, 1, 1), D(2024, 3, 1))] * len(periods)
    row = decline_row(
        (Span(None, D(2024, 1, 1)), tally(pre)),
        list(zip(spans, (tally(a) for a in periods), strict=True)),
        PRESET,
    )
    assert round(row["decline"], 2) == pytest.approx(decline), model
    assert round(row["pct_decline"], 2) == pytest.approx(pct), model
    assert row["n_post_periods"] == min(2, len(periods))


# --- the floor under every test ----------------------------------------------------------


def _two_groups(before: tuple[int, int], after: tuple[int, int]) -> pd.DataFrame:
    """(correct, n) in the present window (Dec 2023) and the first period after release."""
    rows = score_rows(
        "m",
        "closed_book",
        None,
        "2023-12-10",
        "tf",
        "c" * before[0] + "w" * (before[1] - before[0]),
    )
    rows += score_rows(
        "m", "closed_book", None, "2024-01-10", "tf", "c" * after[0] + "w" * (after[1] - after[0])
    )
    return normalize_scores(scores_frame(rows), True)


def test_shipped_floor_is_documented_in_conf() -> None:
    assert (SHIPPED.min_n, SHIPPED.min_outcomes) == (30, 5)
    assert (section_settings("freshbench", "analysis=freshbench").min_n) == 30


@pytest.mark.parametrize(
    ("present", "future", "status"),
    [
        # the report's case: 15 of 24 against 0 of 1 gave z = 6.32, ***
        ((15, 24), (0, 1), "too few questions (n 24 < min_n 30)"),
        ((15, 30), (4, 30), "too few questions (4 correct of 30 < min_outcomes 5)"),
        ((26, 30), (5, 30), "too few questions (4 wrong of 30 < min_outcomes 5)"),
        ((20, 30), (5, 30), "ok"),
    ],
)
def test_no_test_or_mark_below_the_floor(
    present: tuple[int, int], future: tuple[int, int], status: str
) -> None:
    result = freshbench(_two_groups(present, future), MODELS, SHIPPED)
    deg = result.degeneration.query("qtype == 'tf'").iloc[0]
    assert (deg["n_reference"], deg["n_future"]) == (present[1], future[1])
    assert deg["status"] == status
    if status == "ok":
        # 20/30 against 5/30: se = sqrt(2/9/30 + 5/36/30); z = 0.5 / se
        z = 0.5 / math.sqrt((2 / 9 + 5 / 36) / 30)
        assert deg["z"] == pytest.approx(z) and deg["mark"] == "***"
    else:
        assert math.isnan(deg["z"]) and math.isnan(deg["p"]) and deg["mark"] == ""
    assert deg["acc_future"] == pytest.approx(future[0] / future[1])


def test_bias_rows_below_the_floor_are_not_tested() -> None:
    rows = score_rows("m", "closed_book", None, "2023-12-10", "tf", "c" * 15 + "w" * 9)
    rows += score_rows("m", "closed_book", None, "2021-06-10", "tf", "w")
    rows += score_rows("m", "closed_book", None, "2024-01-10", "tf", "c")
    result = freshbench(normalize_scores(scores_frame(rows), True), MODELS, SHIPPED)
    bias = result.bias.query("qtype == 'tf' and window == '20-40'").iloc[0]
    assert bias["verdict"] == "not tested"
    assert bias["status"] == "too few questions (n 24 < min_n 30)"
    assert math.isnan(bias["p_neophilia"]) and math.isnan(bias["p_nostalgia"])
    decline = result.decline.query("qtype == 'tf'").iloc[0]
    assert decline["status"] == (
        "ok; n pre 24 < min_n 30, n post 1 < min_n 30: too few questions to read a decline"
    )
