"""The question importer: the construct stage's table and other benchmarks' files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import pytest

from prescient import params
from prescient.evaluation.questions import (
    QUESTION_COLUMNS,
    QuestionSource,
    QuestionTableError,
    load_questions,
    normalize_questions,
    sample_questions,
)
from tests.conftest import ROOT
from tests.fixtures.eval import HERE, construct_questions

D = dt.date(2024, 3, 12)


def shipped_source(*overrides: str) -> QuestionSource:
    """The `questions` section of the shipped config, with Hydra overrides."""
    return QuestionSource.from_params(params.compose(ROOT, list(overrides))["questions"])


def test_construct_table_through_the_default_config(tmp_path: Path) -> None:
    raw = construct_questions()
    raw.to_parquet(tmp_path / "q.parquet")
    src = shipped_source(f"questions.path={tmp_path / 'q.parquet'}")
    table = load_questions(src, root="/")
    assert list(table.columns) == list(QUESTION_COLUMNS)
    assert table["question_id"].tolist() == [
        "q_mc_cost",
        "q_tf_harbour",
        "q_mc_merger",
        "q_tf_bridge",
    ]
    row = table.set_index("question_id").loc["q_mc_cost"]
    assert list(row["choices"]) == ["1 million", "2 million", "5 million", "10 million"]
    assert (row["answer_index"], row["answer"], row["qtype"]) == (1, "2 million", "mc")
    assert row["resolution_date"] == dt.date(2024, 3, 10)
    assert row["article_id"] == "a08" and row["source"] == "daily_oracle"
    assert str(table["resolution_date"].dtype) == "date32[day][pyarrow]"


CSV_OVERRIDES = (
    "questions.name=ext",
    "questions.format=csv",
    f"questions.path={HERE / 'import_questions.csv'}",
    "questions.columns.question_id=id",
    "questions.columns.question=text",
    "questions.columns.qtype=null",
    "questions.columns.choices=options",
    "questions.columns.answer_index=null",
    "questions.columns.answer=correct",
    "questions.columns.resolution_date=date",
    "questions.columns.article_id=null",
    "questions.columns.gold_url=source_url",
    "questions.columns.category=topic",
)


def test_csv_import_with_a_column_mapping() -> None:
    table = load_questions(shipped_source(*CSV_OVERRIDES), root="/")
    t = table.set_index("question_id")
    assert t.loc["ext-1", "qtype"] == "tf" and list(t.loc["ext-1", "choices"]) == ["Yes", "No"]
    assert t.loc["ext-1", "answer_index"] == 1 and t.loc["ext-1", "answer"] == "No"
    assert t.loc["ext-1", "gold_url"] == "https://harwick-ledger.example/a05"
    assert t.loc["ext-2", "qtype"] == "mc"
    assert t.loc["ext-2", "answer"] == "Oven Lane's founder"  # letter b
    assert t.loc["ext-2", "resolution_date"] == D  # "March 12, 2024"
    assert pd.isna(t.loc["ext-2", "gold_url"]) and t.loc["ext-2", "category"] == "Business"
    assert t.loc["ext-3", "qtype"] == "tf" and t.loc["ext-3", "answer_index"] == 0
    assert pd.isna(t.loc["ext-3", "category"])
    assert set(table["source"]) == {"ext"}


def test_jsonl_import_with_inline_gold_article_and_generated_ids() -> None:
    src = QuestionSource(
        name="jl",
        format="jsonl",
        path=str(HERE / "import_questions.jsonl"),
        columns={
            "question": "q",
            "choices": "options",
            "answer": "gold",
            "resolution_date": "resolved",
            "gold_title": "gold_title",
            "gold_text": "gold_body",
        },
    )
    table = load_questions(src, root="/")
    mc = table.loc[table["qtype"] == "mc"].iloc[0]
    assert (mc["answer_index"], mc["gold_title"]) == (0, "Council approves bridge")
    tf = table.loc[table["qtype"] == "tf"].iloc[0]
    assert tf["answer"] == "Yes" and tf["resolution_date"] == dt.date(2024, 3, 4)
    assert pd.isna(tf["gold_text"])
    # Ids are a stable hash of name, question and date: same input, same ids.
    assert table["question_id"].str.len().tolist() == [16, 16]
    assert load_questions(src, root="/")["question_id"].tolist() == table["question_id"].tolist()


def test_bad_rows_are_all_listed() -> None:
    src = QuestionSource(
        name="bad",
        format="csv",
        path=str(HERE / "import_questions_bad.csv"),
        columns={
            "question_id": "id",
            "question": "text",
            "choices": "options",
            "answer": "correct",
            "resolution_date": "date",
        },
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, root="/")
    msg = str(err.value)
    assert "6 problem(s)" in msg
    assert "row 2 (question_id b2): fewer than 2 choices (1)" in msg
    assert "row 3 (question_id b3): answer (e) is out of range for 3 choices" in msg
    assert "row 4 (question_id b4): missing resolution date" in msg
    assert "row 5 (question_id b5): empty question" in msg
    assert "row 6 (question_id b6): unparseable resolution date 'not a date'" in msg
    assert "answer 'maybe' names none of the choices" in msg
    assert "rows 1, 7: duplicate question_id b1" in msg
    assert "row 1 " not in msg


def test_answer_index_must_agree_with_the_answer_text() -> None:
    raw = construct_questions()
    raw.loc[0, "answer"] = "No"  # q_tf_bridge says index 0 (Yes)
    src = shipped_source()
    with pytest.raises(
        QuestionTableError, match="answer_index 0 \\(Yes\\) disagrees with answer 'No'"
    ):
        normalize_questions(raw, src)
    raw = construct_questions()
    raw.loc[2, "answer_index"] = 7
    with pytest.raises(QuestionTableError, match="answer index 7 is out of range for 4 choices"):
        normalize_questions(raw, src)


def test_configuration_errors_name_the_fix() -> None:
    with pytest.raises(QuestionTableError, match="unknown keys \\['answr'\\]"):
        QuestionSource.from_params({"columns": {"answr": "x"}})
    with pytest.raises(QuestionTableError, match="columns \\['nope'\\] named in questions.columns"):
        normalize_questions(
            construct_questions(),
            QuestionSource(
                columns={
                    "question": "nope",
                    "resolution_date": "resolution_date",
                    "answer": "answer",
                }
            ),
        )
    with pytest.raises(QuestionTableError, match="does not exist"):
        load_questions(QuestionSource(path="missing.parquet"), root="/nonexistent")


def test_sample_is_seeded_and_stable_when_questions_are_added() -> None:
    table = normalize_questions(construct_questions(), shipped_source())
    two = sample_questions(table, 2, seed=1)
    assert (
        len(two) == 2
        and two["question_id"].tolist() == sample_questions(table, 2, 1)["question_id"].tolist()
    )
    three = sample_questions(table, 3, seed=1)
    assert set(two["question_id"]) <= set(three["question_id"])
    assert sample_questions(table, None, seed=1) is table
