"""The proper scores' figures and report tables: drawn from the analysis tables (read
back from CSV as plot and report read them), the same bytes every time, and a line in
place of an empty figure."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from prescient.analysis.leaderboard import leaderboard_table
from prescient.analysis.proper import monthly_brier, proper_scores_table
from prescient.analysis.proper_calibration import reliability_table
from prescient.analysis.proper_figures import PROPER_FIGURES
from prescient.analysis.proper_paired import paired_table
from prescient.analysis.proper_report import PROPER_REPORT_TABLES
from prescient.report.table_files import read_tables
from prescient.settings import Bootstrap
from tests.fixtures.analysis.forecasts import frame_of, paired_rows, row
from tests.fixtures.analysis.settings import SEED, shipped

PNG = b"\x89PNG\r\n\x1a\n"


def written_tables(tmp_path: Path) -> dict[str, pd.DataFrame]:
    rows, outcomes = paired_rows()
    rows += [
        row("m0", "mc", [0.7, 0.1, 0.1, 0.1], 0, "a", "label", day="2024-03-02"),
        row("m0", "mc", [0.4, 0.3, 0.2, 0.1], 2, "a", "verbal_probability", day="2024-03-02"),
    ]
    f = frame_of(rows, {**outcomes, "m0": 0})
    reps = Bootstrap(reps=50, confidence=0.95)
    ma = shipped("moving_average")
    months = (int(f["month"].min()), int(f["month"].max()))
    tables = {
        "proper_scores": proper_scores_table(f, 10, reps, SEED),
        "proper_monthly": monthly_brier(f, ma, months, reps, SEED),
        "proper_reliability": reliability_table(f, 10),
        "proper_paired": paired_table(f, reps, SEED, 0.05),
    }
    tables["leaderboard"] = leaderboard_table(tables["proper_scores"])
    for name, table in tables.items():
        table.to_csv(tmp_path / f"{name}.csv", index=False, float_format="%.10g")
    return read_tables(tmp_path)


def test_every_figure_draws_the_same_bytes_twice(tmp_path: Path) -> None:
    tables = written_tables(tmp_path)
    for spec in PROPER_FIGURES:
        assert spec.drawable(tables)
        assert spec.why_empty(tables) == ""
        first = spec.png(tables)
        assert first.startswith(PNG)
        assert spec.png(tables) == first


def test_empty_tables_say_why_instead_of_drawing() -> None:
    for spec in PROPER_FIGURES:
        assert spec.why_empty({}) != ""


def test_the_report_tables_join_values_with_their_intervals(tmp_path: Path) -> None:
    tables = written_tables(tmp_path)
    assert tables["proper_scores"]["elicitation"].iloc[0] == "label"  # text, as written
    shown = {spec.name: spec.display(tables[spec.name]) for spec in PROPER_REPORT_TABLES}
    scores = shown["proper_scores"]
    crowd_tf = scores.loc[(scores["Model"] == "crowd") & (scores["Type"] == "TF")]
    # the crowd's P(Yes) = 0.6 on ten Yes questions: Brier 0.16 every time, so the
    # bootstrap interval is the value itself
    assert crowd_tf["Brier"].iloc[0] == "0.160 [0.160, 0.160]"
    # The leaderboard shows the same TF Brier in its own column, MC on its own scale.
    board = shown["leaderboard"]
    crowd = board.loc[board["Model"] == "crowd"].iloc[0]
    assert crowd["Brier TF"] == "0.160 [0.160, 0.160]" and crowd["Unreadable"] == "0"
    assert list(board.columns[:4]) == ["Model", "Setting", "Asked for", "Brier TF"]
    paired = shown["proper_paired"].set_index(["Model A", "Model B"])
    assert paired.loc[("b", "crowd"), "More accurate"] == "crowd"
    assert paired.loc[("a", "b"), "n both"] == "10"
    assert paired.loc[("a", "b"), "McNemar p"] == "0.125"


def test_the_brier_figure_draws_one_curve_per_model_in_one_setting(tmp_path: Path) -> None:
    from prescient.analysis.proper_figures import brier_by_month

    tables = written_tables(tmp_path)
    monthly = tables["proper_monthly"]
    other = monthly.assign(cell="gold", setting="gold")  # a second setting: not drawn
    fig = brier_by_month({**tables, "proper_monthly": pd.concat([monthly, other])})
    models = set(monthly["model"].astype(str))
    for ax in fig.axes:
        curves = [t for t in ax.get_legend_handles_labels()[1] if not t.startswith("uninformed")]
        assert set(curves) <= models and len(curves) == len(set(curves))
    assert "closed_book" in fig._suptitle.get_text()  # type: ignore[union-attr]
