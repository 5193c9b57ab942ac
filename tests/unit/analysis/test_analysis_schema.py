"""The scores schema check and where model dates come from."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from prescient.analysis.schema import (
    ScoresSchemaError,
    TableError,
    count_errors,
    count_fitted,
    day_column,
    normalize_scores,
    resolve_models,
    setting_columns,
    settings_of,
)
from tests.fixtures.analysis.frames import score_rows, scores_frame


def _rows() -> list[dict[str, object]]:
    rows = score_rows("m", "closed_book", None, "2024-01-10", "tf", "cwe")
    rows += score_rows("m", "rag", "2023-09-01", "2024-01-10", "mc", "c")
    rows += score_rows("m", "rag", "dynamic", "2024-01-10", "mc", "w")
    return rows


def test_normalized_frame_and_cell_names() -> None:
    scores = normalize_scores(scores_frame(_rows()), exclude_errors=True)
    # the evaluation's setting names (prescient.evaluation.settings)
    assert scores["cell"].tolist() == [
        "closed_book",
        "closed_book",
        "rag_2023-09-01",
        "rag_dynamic",
    ]
    assert scores["rag_cutoff"].tolist() == ["", "", "2023-09-01", "dynamic"]
    assert scores["month"].iloc[0] == 2024 * 12
    assert scores["resolution_date"].dtype == "datetime64[ns]"


def test_failed_calls_are_excluded_and_counted() -> None:
    raw = scores_frame(_rows())
    assert len(normalize_scores(raw, exclude_errors=True)) == 4
    assert len(normalize_scores(raw, exclude_errors=False)) == 5
    assert count_errors(raw).to_dict("records") == [
        {"model": "m", "cell": "closed_book", "n_errors": 1}
    ]


def test_prompts_fitted_to_the_context_window_are_counted_per_cell() -> None:
    raw = scores_frame(_rows())
    assert count_fitted(raw).empty  # a scores table without the column: none
    # closed_book: answered, answered, failed call (never counted); then the two RAG cells.
    raw["context_words_kept"] = pd.array([40, None, 12, 7, None], dtype="Int64")
    assert count_fitted(raw).to_dict("records") == [
        {"model": "m", "cell": "closed_book", "n_fitted": 1},
        {"model": "m", "cell": "rag_2023-09-01", "n_fitted": 1},
    ]
    by_source = count_fitted(raw, {str(q): "daily_oracle" for q in raw["question_id"]})
    assert by_source["source"].tolist() == ["daily_oracle", "daily_oracle"]


def test_missing_columns_are_named() -> None:
    raw = scores_frame(_rows()).drop(columns=["refused", "qtype"])
    with pytest.raises(ScoresSchemaError, match=r"\['qtype', 'refused'\]"):
        normalize_scores(raw, exclude_errors=True)


def test_optional_columns_default_and_timestamp_cutoffs_are_normalised() -> None:
    raw = scores_frame(_rows()).drop(columns=["parse_failed", "error"])
    raw["rag_cutoff"] = [None, None, None, pd.Timestamp("2023-09-01"), "dynamic"]
    scores = normalize_scores(raw, exclude_errors=True)
    assert not scores["parse_failed"].any()
    assert "rag_2023-09-01" in set(scores["cell"])


def test_duplicates_and_bad_values_are_rejected() -> None:
    rows = _rows()
    with pytest.raises(ScoresSchemaError, match="twice"):
        normalize_scores(scores_frame([*rows, rows[0]]), exclude_errors=True)
    bad = scores_frame(rows)
    bad.loc[0, "qtype"] = "open"
    with pytest.raises(ScoresSchemaError, match="qtype"):
        normalize_scores(bad, exclude_errors=True)
    nulls = scores_frame(rows)
    nulls["correct"] = nulls["correct"].astype(object)
    nulls.loc[0, "correct"] = None
    with pytest.raises(ScoresSchemaError, match="null"):
        normalize_scores(nulls, exclude_errors=True)


def test_registry_wins_and_table_columns_fill_in_for_unregistered_models() -> None:
    raw = scores_frame(
        score_rows("reg", "closed_book", None, "2024-01-01", "tf", "c")
        + score_rows("ext", "closed_book", None, "2024-01-01", "tf", "cc")
        + score_rows("anon", "closed_book", None, "2024-01-01", "tf", "c")
    )
    raw["release_date"] = ["2030-01-01", "2024-05-13", None, None]
    raw["knowledge_cutoff"] = [None, None, "2023-10-01", None]
    registry = {"reg": {"knowledge_cutoff": "2023-04-30", "release_date": None}}
    infos = {i.model: i for i in resolve_models(raw, registry)}
    assert infos["reg"].knowledge_cutoff == dt.date(2023, 4, 30)
    assert infos["reg"].release_date is None  # the registry's null is not overridden
    assert infos["reg"].source == "registry"
    assert infos["ext"].release_date == dt.date(2024, 5, 13)
    assert infos["ext"].knowledge_cutoff == dt.date(2023, 10, 1)
    assert infos["ext"].source == "scores table"
    assert infos["anon"].source == "unknown" and infos["anon"].release_date is None


def test_conflicting_dates_in_the_table_are_an_error() -> None:
    raw = scores_frame(score_rows("ext", "closed_book", None, "2024-01-01", "tf", "cc"))
    raw["release_date"] = ["2024-05-13", "2024-06-01"]
    with pytest.raises(ScoresSchemaError, match="conflicting release_date"):
        resolve_models(raw, {})


def test_settings_are_checked_against_the_evaluation_naming() -> None:
    rows = _rows()
    unknown = scores_frame(rows)
    unknown.loc[1, "setting"] = "open_book"
    with pytest.raises(ScoresSchemaError, match=r"'open_book' is none of .*rows \[1\]"):
        normalize_scores(unknown, exclude_errors=True)
    no_cutoff = scores_frame(rows)
    no_cutoff.loc[3, "rag_cutoff"] = None
    with pytest.raises(ScoresSchemaError, match="rag row needs rag_cutoff"):
        normalize_scores(no_cutoff, exclude_errors=True)
    bad_cutoff = scores_frame(rows)
    bad_cutoff.loc[3, "rag_cutoff"] = "last week"
    with pytest.raises(ScoresSchemaError, match="last week"):
        normalize_scores(bad_cutoff, exclude_errors=True)
    stray = scores_frame(rows)
    stray.loc[0, "rag_cutoff"] = "2023-09-01"
    with pytest.raises(ScoresSchemaError, match="closed_book row has rag_cutoff"):
        normalize_scores(stray, exclude_errors=True)


def test_dates_are_read_by_the_one_date_module() -> None:
    days = day_column(
        pd.Series(["2024-01-10", "2024-01-10T23:30:00+05:00", "10 January 2024"]), "t.d"
    )
    assert days.dt.date.tolist() == [dt.date(2024, 1, 10)] * 3
    with pytest.raises(TableError, match=r"t.d: 1 rows have no readable date .*\[2\].*'today'"):
        day_column(pd.Series(["2024-01-10", "2024-01-11", "today"]), "t.d")
    raw = scores_frame(_rows())
    raw["resolution_date"] = raw["resolution_date"].astype(object)
    raw.loc[2, "resolution_date"] = "now"
    with pytest.raises(ScoresSchemaError, match="scores.resolution_date"):
        normalize_scores(raw, exclude_errors=True)


def test_settings_and_days_read_from_typed_columns_equal_those_read_from_objects() -> None:
    """Typed columns (a scores file's: strings, Arrow dates) take the vectorised path;
    the same values as Python objects take the row-by-row one; both agree."""
    import pyarrow as pa

    rows = [{**r, "model": m} for m in ("a", "b", "c") for r in _rows()]
    typed = scores_frame(rows)
    typed["setting"] = typed["setting"].astype("string")
    typed["rag_cutoff"] = typed["rag_cutoff"].astype("string")
    typed["resolution_date"] = pd.Series(
        [dt.date.fromisoformat(str(d)[:10]) for d in typed["resolution_date"]],
        dtype=pd.ArrowDtype(pa.date32()),
    )
    plain = typed.astype({"setting": object, "rag_cutoff": object, "resolution_date": object})
    assert [s.name for s in settings_of(typed)] == [s.name for s in settings_of(plain)]
    assert setting_columns(typed) == setting_columns(plain)
    assert set(setting_columns(typed)["cell"]) == {"closed_book", "rag_2023-09-01", "rag_dynamic"}
    pd.testing.assert_series_equal(
        day_column(typed["resolution_date"], "t.d"), day_column(plain["resolution_date"], "t.d")
    )
    pd.testing.assert_frame_equal(
        normalize_scores(typed, exclude_errors=True), normalize_scores(plain, exclude_errors=True)
    )
    rag = int(typed.index[typed["setting"] == "rag"][-1])
    typed.loc[rag, "rag_cutoff"] = "last week"
    with pytest.raises(ScoresSchemaError, match=rf"last week.*rows \[{rag}\], 1 in all"):
        setting_columns(typed)
