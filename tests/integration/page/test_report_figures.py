"""Figures draw the analysis tables' columns as they are, and text from the data as it
is written: a `$` in a model, category or source name neither crashes matplotlib's
mathtext nor turns into math."""

from __future__ import annotations

from io import BytesIO

import pandas as pd
import pytest
from matplotlib.text import Text

from prescient.benchmarks.daily_oracle.dataset_figures import fig1_dataset_pies
from prescient.benchmarks.freshbench.figures import freshbench_points
from prescient.page.contents import analysis_figures
from prescient.report.figures import literal_text
from tests.fixtures.analysis.frames import sparse_demo
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

DOLLAR_MODEL = "acme$_$7b"  # "_" between two `$` is invalid mathtext: a crash
DOLLAR_CATEGORY = "$5 bills & $10 coins"  # "5 bills & " would silently be set as math


@pytest.fixture(scope="module")
def dollar_tables() -> dict[str, pd.DataFrame]:
    scores, questions, articles = sparse_demo()
    scores["model"] = scores["model"].replace({"outside_model": DOLLAR_MODEL})
    questions["category"] = questions["category"].replace({"Sports": DOLLAR_CATEGORY})
    registry = {"smollm2_135m": {"knowledge_cutoff": "2024-03-15", "release_date": "2024-03-20"}}
    return run_analysis(scores, questions, articles, registry, analysis_settings(), SEED).tables


def test_every_figure_draws_names_with_dollar_signs(dollar_tables: dict[str, pd.DataFrame]) -> None:
    for spec in analysis_figures():
        png = spec.png(dollar_tables)
        assert png.startswith(b"\x89PNG"), spec.name


def test_dollar_signs_are_drawn_literally(dollar_tables: dict[str, pd.DataFrame]) -> None:
    with literal_text():
        fig = fig1_dataset_pies(dollar_tables)
        fig.canvas.draw()
    texts = [t for t in fig.findobj(Text) if "$" in t.get_text()]
    assert any(DOLLAR_CATEGORY in t.get_text() for t in texts)
    assert texts and not any(t.get_parse_math() for t in texts)


def test_without_the_helper_mathtext_breaks(dollar_tables: dict[str, pd.DataFrame]) -> None:
    """Negative control: the same figure under matplotlib's defaults fails to render."""
    spec = next(s for s in analysis_figures() if s.name == "fig3_closed_book")
    fig = spec.draw(dollar_tables)
    with pytest.raises(ValueError, match="ParseSyntaxException"):
        fig.savefig(BytesIO(), format="png")


def test_freshbench_points_are_the_tables_columns(dollar_tables: dict[str, pd.DataFrame]) -> None:
    bias = dollar_tables["freshbench_bias"].query(
        "model == 'smollm2_135m' and cell == 'closed_book' and qtype == 'all' "
        "and anchor == 'release_date'"
    )
    degeneration = dollar_tables["freshbench_degeneration"].query(
        "model == 'smollm2_135m' and cell == 'closed_book' and qtype == 'all' "
        "and anchor == 'release_date'"
    )
    # released 2024-03-20: March questions in the present window, April after it
    assert int(bias["n_present"].iloc[0]) == 6 and int(degeneration["n_future"].sum()) == 3
    doctored = bias.assign(ci_low_present=0.123, ci_high_present=0.987)
    points = freshbench_points(doctored, degeneration)
    present = points.loc[points["n"] == 6].iloc[0]
    assert (present["low"], present["high"]) == (0.123, 0.987)
    assert present["acc"] == pytest.approx(float(bias["acc_present"].iloc[0]))
    # the present window [2022-07-20, 2024-03-20): its middle, in months before release
    assert present["x"] == pytest.approx(-10.0, abs=0.1)
    after = points.loc[points["x"] > 0]
    assert (
        after["n"].tolist() == degeneration.loc[degeneration["n_future"] > 0, "n_future"].tolist()
    )


def test_the_freshbench_figure_under_the_preset() -> None:
    scores, questions, articles = sparse_demo()
    registry = {"smollm2_135m": {"knowledge_cutoff": "2024-03-15", "release_date": "2024-03-20"}}
    preset = ("analysis=freshbench",)
    tables = run_analysis(
        scores, questions, articles, registry, analysis_settings(*preset), SEED, overrides=preset
    ).tables
    spec = next(s for s in analysis_figures() if s.name == "freshbench_periods")
    with literal_text():
        fig = spec.draw(tables)
    ax = fig.axes[0]
    assert "freshbench months" in ax.get_xlabel() and "calendar periods" in ax.get_xlabel()
    labels = ax.get_legend_handles_labels()[1]
    assert "accuracy before release (reference)" in labels
    assert spec.png(tables).startswith(b"\x89PNG")
