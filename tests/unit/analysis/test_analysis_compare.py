"""Summary metrics whose keys hold no swept value, and the table of accuracy by RAG cutoff."""

from __future__ import annotations

import pandas as pd
import pytest

from prescient.analysis.compare import (
    ELICITATION_KEY,
    PROPER_KEYS,
    plot_tables,
    rag_metrics,
    stable_keys,
    summary_metrics,
)
from prescient.page.contents import analysis_tables
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

DAY = "2024-05-10"


def accuracy_part(summary: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    """Each model's accuracy keys, without the proper scores beside them."""
    proper = {*PROPER_KEYS, ELICITATION_KEY}
    return {m: {k: v for k, v in e.items() if k not in proper} for m, e in summary.items()}


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
    summary = accuracy_part(result.summary)["m"]
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
        assert accuracy_part(result.summary) == {
            "m": {"closed_book": 75.0, "rag": acc, "rag_cutoff": cutoff, "n": 4}
        }
        # one-word answers read as certain: TF Brier is the share answered wrong
        assert result.summary["m"]["brier_tf"] == {"closed_book": 0.25, "rag": 1 - acc / 100}


def test_the_most_any_setting_scored_is_n() -> None:
    # a failed call is left out of its cell (analysis.exclude_errors): gold scores 3
    scores = _scores({("closed_book", None): "cwww", ("gold", None): "cce"})
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    assert accuracy_part(result.summary)["m"] == {"closed_book": 25.0, "gold": 100.0, "n": 4}


def test_a_run_without_rag_has_an_empty_cutoff_table_that_says_why() -> None:
    scores = _scores({("closed_book", None): "cw"})
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    assert result.tables["rag_accuracy"].empty
    assert accuracy_part(result.summary) == {"m": {"closed_book": 50.0, "n": 2}}
    assert result.rag == {}
    spec = next(t for t in analysis_tables() if t.name == "rag_accuracy")
    assert "eval.settings lists no rag_dynamic" in spec.empty


def test_the_cutoff_table_shows_each_accuracy_with_its_interval() -> None:
    scores = _scores({("closed_book", None): "cwww", ("rag", "2024-09-01"): "ccccc" + "wwwww"})
    result = run_analysis(scores, None, None, {}, analysis_settings(), SEED)
    spec = next(t for t in analysis_tables() if t.name == "rag_accuracy")
    shown = spec.display(result.tables["rag_accuracy"])
    row = shown.iloc[0].to_dict()
    # Wilson 95% for 5 of 10: centre 0.5, half-width 0.2634
    assert row == {
        "Model": "m",
        "Type": "TF",
        "RAG cutoff": "2024-09-01",
        "Acc. (%) [95%]": "50.00 [23.66, 76.34]",
        "n": "10",
        "Closed book (%)": "25.00",
        "Summary key": "rag",
    }


def _board(rows: list[tuple[str, str, str, str, float, float]]) -> pd.DataFrame:
    """Leaderboard rows: (model, cell, elicitation, rag_cutoff, brier_tf, brier_mc)."""
    out = []
    for model, cell, elicitation, cutoff, tf, mc in rows:
        setting = cell.split("_")[0] if cell.startswith("rag") else cell
        out.append(
            {
                "model": model,
                "setting": setting,
                "rag_cutoff": cutoff,
                "cell": cell,
                "elicitation": elicitation,
                "brier_tf": tf,
                "n_tf": 5,
                "brier_mc": mc,
                "log_score": 0.7,
                "accuracy": 0.5,
                "n": 10,
                "n_uniform_fill": 2 if elicitation == "verbal_probability" else 0,
            }
        )
    return pd.DataFrame(out)


def _accuracy(models: list[str], cells: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model": m, "setting": s, "rag_cutoff": c, "cell": cell, "qtype": "all"}
            | {"accuracy": 0.5, "n": 10}
            for m in models
            for s, c, cell in cells
        ]
    )


CELLS = [("closed_book", "", "closed_book"), ("rag", "2024-06-01", "rag_2024-06-01")]


def test_each_model_is_headlined_by_its_own_probabilities_not_its_best_row() -> None:
    board = _board(
        [
            # the one-word answers score best, but the token probabilities headline
            ("a", "closed_book", "label", "", 0.10, 0.5),
            ("a", "closed_book", "token_logprobs", "", 0.30, 0.9),
            ("a", "closed_book", "verbal_probability", "", 0.20, float("nan")),
            ("a", "rag_2024-06-01", "token_logprobs", "2024-06-01", 0.25, 0.8),
            ("a", "rag_2024-06-01", "label", "2024-06-01", 0.05, 0.4),
            # stated probabilities without token ones: those
            ("b", "closed_book", "verbal_probability", "", 0.22, float("nan")),
            ("b", "closed_book", "label", "", 0.12, 1.0),
            ("b", "rag_2024-06-01", "verbal_probability", "2024-06-01", 0.21, 0.7),
        ]
    )
    summary = summary_metrics(_accuracy(["a", "b"], CELLS), board)
    assert summary["a"]["elicitation"] == "token_logprobs"
    assert summary["a"]["brier_tf"] == {"closed_book": 0.3, "rag": 0.25}
    assert summary["a"]["brier_mc"] == {"closed_book": 0.9, "rag": 0.8}
    assert summary["b"]["elicitation"] == "verbal_probability"
    # no MC questions scored: no key, never a NaN in the metrics file
    assert summary["b"]["brier_mc"] == {"rag": 0.7}
    assert summary["b"]["uniform_fill"] == {"closed_book": 2, "rag": 2}
    assert summary["a"]["rag"] == 50.0 and summary["a"]["rag_cutoff"] == "2024-06-01"

    assert rag_metrics(board) == {"cutoff": "2024-06-01", "a": 0.25, "b": 0.21}
    plots = plot_tables(_accuracy(["a", "b"], CELLS), board)
    brier = plots["brier_tf"]
    assert brier["forecaster"].tolist() == ["a closed_book", "a rag", "b closed_book", "b rag"]
    assert brier["brier_tf"].tolist() == [0.3, 0.25, 0.22, 0.21]
    assert plots["accuracy"]["accuracy"].tolist() == [50.0] * 4


def test_several_dated_cutoffs_nest_by_position_and_none_is_empty() -> None:
    board = _board(
        [
            ("a", "rag_2024-06-01", "label", "2024-06-01", 0.4, 1.0),
            ("a", "rag_2023-12-01", "label", "2023-12-01", 0.5, 1.0),
            ("a", "rag_dynamic", "label", "dynamic", 0.3, 1.0),
        ]
    )
    assert rag_metrics(board) == {
        "rag_1": {"a": 0.5},
        "rag_1_cutoff": "2023-12-01",
        "rag_2": {"a": 0.4},
        "rag_2_cutoff": "2024-06-01",
    }
    closed = _board([("a", "closed_book", "label", "", 0.4, 1.0)])
    assert rag_metrics(closed) == {}
    assert rag_metrics(closed.iloc[:0]) == {}
