"""The analysis settings: the shipped config and its FreshBench preset compose into typed
settings, and a value the analysis cannot use stops with a line naming the parameter."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from prescient.analysis.pipeline import load_all
from prescient.settings import ParamsError
from tests.fixtures.analysis.settings import analysis_settings, composed, parts, section_settings


def load_analysis(p: dict[str, Any]) -> tuple[Any, int, dict[str, Any]]:
    """Every analysis setting as the analyze stage validates them."""
    return load_all(p, parts())


def test_shipped_config_composes_into_the_paper_defaults_and_demo_budgets() -> None:
    s, seed, own = load_analysis(composed())
    assert seed == composed()["base"]["seed"]
    assert s.scores == "data/processed/scores.parquet"
    assert (s.moving_average.window, s.moving_average.kind) == (5, "trailing")
    assert (own["slope"].start_months, own["slope"].step_months, own["slope"].decay) == (
        10,
        1,
        0.995,
    )
    assert s.moving_average.min_periods == 1  # the paper's curves
    assert (own["table3"].yearly, own["table3"].windows) == ("pooled", "paper")
    assert (own["table3"].pre_months, own["table3"].post_months) == (24, 7)
    assert own["headline"].exclude_baselines
    assert (s.date_start, s.date_end) == (None, None)
    assert s.anderson_schooler.window_days == 20  # demo budget (paper: 100)
    fb = own["freshbench"]
    assert (fb.month_rule, fb.present_months) == ("calendar", (0, 20))
    assert fb.past_windows_months == ((20, 40), (40, 60), (60, 80))
    assert (fb.reference, fb.periods, fb.period_months) == ("present", "anchored", 2)
    assert (fb.decline_periods, fb.decline_round_digits) == (1, None)


def test_the_freshbench_preset_changes_only_the_freshbench_tests() -> None:
    default, preset = analysis_settings(), analysis_settings("analysis=freshbench")
    fb, default_fb = (
        section_settings("freshbench", "analysis=freshbench"),
        section_settings("freshbench"),
    )
    assert (fb.month_rule, fb.reference, fb.periods, fb.period_months) == (
        "freshbench",
        "pre_anchor",
        "calendar",
        2,
    )
    assert (fb.decline_periods, fb.decline_round_digits, fb.anchors) == (2, 2, ("release_date",))
    assert (fb.present_months, fb.past_windows_months) == (
        default_fb.present_months,
        default_fb.past_windows_months,
    )
    assert preset.model_dump() == default.model_dump()
    for name in ("table3", "slope", "headline"):
        assert section_settings(name, "analysis=freshbench") == section_settings(name)


def test_overrides_reach_the_settings() -> None:
    overrides = (
        "analysis.scores=elsewhere/scores.parquet",
        "analysis.moving_average.kind=centered",
        "analysis.freshbench.past_windows_months=[[20,30]]",
    )
    s = analysis_settings(*overrides)
    assert s.scores == "elsewhere/scores.parquet"
    assert s.moving_average.kind == "centered"
    assert section_settings("freshbench", *overrides).past_windows_months == ((20, 30),)


@pytest.mark.parametrize(
    ("override", "names"),
    [
        ("present_months=[0,20.5]", ["analysis.freshbench.present_months", "whole months"]),
        ("past_windows_months=[[20,40.5]]", ["past_windows_months", "whole months"]),
        ("present_months=[20,0]", ["present_months", "a < b"]),
        ("present_months=[-1,20]", ["present_months", "month_rule freshbench"]),
        ("past_windows_months=[[10,30]]", ["past_windows_months", "overlap", "[0, 20]"]),
        ("past_windows_months=[[20,40],[30,50]]", ["past_windows_months", "overlap"]),
        ("month_rule=lunar", ["analysis.freshbench.month_rule", "calendar", "freshbench"]),
        ("anchors=[birthday]", ["analysis.freshbench.anchors"]),
        ("anchors=[]", ["analysis.freshbench.anchors"]),
        ("reference=future", ["analysis.freshbench.reference"]),
        ("significance=[0.01,0.05]", ["analysis.freshbench.significance", "decreasing"]),
        ("periods=calendar", []),  # valid
        ("decline_periods=0", ["analysis.freshbench.decline_periods"]),
    ],
)
def test_invalid_freshbench_settings_name_the_parameter(override: str, names: list[str]) -> None:
    p = composed(f"analysis.freshbench.{override}")
    if not names:
        load_analysis(p)
        return
    with pytest.raises(ParamsError) as err:
        load_analysis(p)
    message = str(err.value)
    assert "\n" not in message
    for name in names:
        assert name in message, message


def test_negative_months_are_allowed_under_freshbench_months_only() -> None:
    fb = section_settings(
        "freshbench",
        "analysis.freshbench.month_rule=freshbench",
        "analysis.freshbench.present_months=[-1,20]",
    )
    assert fb.present_months == (-1, 20)


def test_calendar_periods_must_tile_the_year() -> None:
    p = composed("analysis.freshbench.periods=calendar", "analysis.freshbench.period_months=5")
    with pytest.raises(ParamsError, match="analysis.freshbench.period_months.*tile a year"):
        load_analysis(p)
    p = composed("analysis.freshbench.period_months=5")  # anchored periods may take any width
    assert load_analysis(p)[2]["freshbench"].period_months == 5


def test_other_sections_are_checked_too() -> None:
    with pytest.raises(ParamsError, match="analysis.moving_average: min_periods"):
        load_analysis(composed("analysis.moving_average.min_periods=9"))
    with pytest.raises(ParamsError, match="analysis.bootstrap.confidence"):
        load_analysis(composed("analysis.bootstrap.confidence=1.5"))
    with pytest.raises(ParamsError, match="analysis.surprise is not a parameter"):
        load_analysis(composed("+analysis.surprise=1"))


def test_the_daily_oracle_preset_sets_the_papers_period_and_combines_with_freshbench() -> None:
    default, preset = analysis_settings(), analysis_settings("analysis=daily_oracle_paper")
    assert (preset.date_start, preset.date_end) == (dt.date(2020, 1, 1), dt.date(2024, 12, 31))
    paper = "analysis=daily_oracle_paper"
    assert section_settings("table3", paper) == section_settings("table3")
    assert preset.moving_average == default.moving_average
    assert section_settings("freshbench", paper) == section_settings("freshbench")
    both = "analysis=[daily_oracle_paper,freshbench]"
    assert analysis_settings(both).date_start == dt.date(2020, 1, 1)
    assert section_settings("freshbench", both).month_rule == "freshbench"


def test_the_period_and_table3_options_are_checked() -> None:
    with pytest.raises(ParamsError, match="analysis.date_end: .*before date_start"):
        load_analysis(composed("analysis.date_start=2024-01-01", "analysis.date_end=2023-12-31"))
    with pytest.raises(ParamsError, match="analysis.date_start"):
        load_analysis(composed("analysis.date_start=20240101"))
    with pytest.raises(ParamsError, match="analysis.table3.windows"):
        load_analysis(composed("analysis.table3.windows=some_months"))
    with pytest.raises(ParamsError, match="analysis.table3.pre_months"):
        load_analysis(composed("analysis.table3.pre_months=0"))
    t3 = section_settings(
        "table3", "analysis.table3.yearly=mean_of_months", "analysis.table3.windows=all_months"
    )
    assert (t3.yearly, t3.windows) == ("mean_of_months", "all_months")
