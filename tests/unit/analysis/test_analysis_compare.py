"""Summary metrics whose keys hold no swept value, and the table of accuracy by RAG cutoff."""

from __future__ import annotations

import pandas as pd
import pytest

from prescient.analysis.compare import stable_keys
from prescient.page.contents import analysis_tables
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

DAY = "2024-05-10"


def _scores(cells: dict[tuple[str, str | None], str]) -> pd.DataFrame:
    rows: list[dict[str, object]] = []
    for (setting, cutoff), outcomes in cells.items():
        rows += score_rows("m", setting, cutoff, DAY, "tf", outcomes)
    return scores_frame(rows)


def test_dated_cutoffs_get_keys_without_their_date() -> None:
    assert stable_keys([("closed_book", ""), ("rag", "2024-06-01"), ("rag", "dynamic")]) == {
        "closed_book": "closed_book",
        "rag_2024-06-01": "rag",
        "rag_dynamic": "rag_dynamic",
    }
    # several: by date, not by the order they come in
    keys = stable_keys([("rag", "2024-09-01"), ("gold", ""), ("rag", "2023-12-01")])
    assert keys == {"gold": "gold", "rag_2023-12-01": "rag_1", "rag_2024-09-01": "rag_2"}


def test_the_summary_lines_up_several_cutoffs_by_date() -> None:
    scores = _scores(
        {
            ("closed_book", None): "cwww",  # 1/4
            ("gold", None): "cccw",  # 3/4
            ("rag", "2024-09-01"): "ccww",  # 2/4
            ("rag", "2024-03-01"): "cwww",  # 1/4
            ("rag", "2024-06-01"): "cccc",  # 4/4
            ("rag", "dynamic"): "ccwr",  # 2/4: a refusal is wrong
        }
    )
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    summary = result.summary["m"]
    assert list(summary) == [
        "closed_book",
        "gold",
        "rag_1",
        "rag_1_cutoff",
        "rag_2",
        "rag_2_cutoff",
        "rag_3",
        "rag_3_cutoff",
        "rag_dynamic",
        "n",
    ]
    assert summary == {
        "closed_book": 25.0,
        "gold": 75.0,
        "rag_1": 25.0,
        "rag_1_cutoff": "2024-03-01",
        "rag_2": 100.0,
        "rag_2_cutoff": "2024-06-01",
        "rag_3": 50.0,
        "rag_3_cutoff": "2024-09-01",
        "rag_dynamic": 50.0,
        "n": 4,
    }
    table = result.tables["rag_accuracy"]
    tf = table.loc[table["qtype"] == "tf"]
    assert tf["rag_cutoff"].tolist() == ["2024-03-01", "2024-06-01", "2024-09-01", "dynamic"]
    assert tf["key"].tolist() == ["rag_1", "rag_2", "rag_3", "rag_dynamic"]
    assert tf["accuracy"].tolist() == [0.25, 1.0, 0.5, 0.5]
    assert tf["closed_book_accuracy"].tolist() == [0.25] * 4
    # Wilson 95% for 2 of 4: centre 0.5, half-width 0.35 (z = 1.96)
    half = tf.set_index("rag_cutoff").loc["2024-09-01"]
    assert half["ci_low"] == pytest.approx(0.1500, abs=2e-4)
    assert half["ci_high"] == pytest.approx(0.8500, abs=2e-4)
    # the "all" rows repeat the TF ones (a True/False-only table)
    assert table.loc[table["qtype"] == "all", "accuracy"].tolist() == [0.25, 1.0, 0.5, 0.5]


def test_one_dated_cutoff_is_rag_with_its_cutoff_beside_it() -> None:
    for cutoff, outcomes, acc in (("2024-03-01", "cwww", 25.0), ("2024-09-01", "ccww", 50.0)):
        scores = _scores({("closed_book", None): "cccw", ("rag", cutoff): outcomes})
        result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
        assert result.summary == {
            "m": {"closed_book": 75.0, "rag": acc, "rag_cutoff": cutoff, "n": 4}
        }


def test_the_most_any_setting_scored_is_n() -> None:
    # a failed call is left out of its cell (analysis.exclude_errors): gold scores 3
    scores = _scores({("closed_book", None): "cwww", ("gold", None): "cce"})
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    assert result.summary["m"] == {"closed_book": 25.0, "gold": 100.0, "n": 4}


def test_a_run_without_rag_has_an_empty_cutoff_table_that_says_why() -> None:
    scores = _scores({("closed_book", None): "cw"})
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    assert result.tables["rag_accuracy"].empty
    assert result.summary == {"m": {"closed_book": 50.0, "n": 2}}
    spec = next(t for t in analysis_tables() if t.name == "rag_accuracy")
    assert "eval.settings lists no rag_dynamic" in spec.empty


def test_the_cutoff_table_shows_each_accuracy_with_its_interval() -> None:
    scores = _scores({("closed_book", None): "cwww", ("rag", "2024-09-01"): "ccww"})
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    spec = next(t for t in analysis_tables() if t.name == "rag_accuracy")
    shown = spec.display(result.tables["rag_accuracy"])
    row = shown.iloc[0].to_dict()
    assert row == {
        "Model": "m",
        "Type": "TF",
        "RAG cutoff": "2024-09-01",
        "Acc. (%) [95%]": "50.00 [15.00, 85.00]",
        "n": "4",
        "Closed book (%)": "25.00",
        "Summary key": "rag",
    }
