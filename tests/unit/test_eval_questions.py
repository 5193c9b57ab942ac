"""The question importer: the construct stage's table and other benchmarks' files."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest

from prescient import params
from prescient.evaluation.questions import (
    MAPPING_KEYS,
    QUESTION_COLUMNS,
    QuestionSource,
    QuestionTableError,
    load_questions,
    normalize_questions,
    sample_questions,
)
from prescient.qa.construct import QUESTION_COLUMNS as CONSTRUCT_COLUMNS
from prescient.qa.schema import QUESTION_FIELDS
from prescient.seeds import derive_seed
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT
from tests.fixtures.eval import HERE, construct_questions

D = dt.date(2024, 3, 12)


def shipped_source(*overrides: str) -> QuestionSource:
    """The `questions` section of the shipped config, with Hydra overrides."""
    return load_settings(QuestionSource, params.compose(ROOT, list(overrides)), "questions")


def mapped(name: str, fmt: str, path: Path, **columns: str) -> QuestionSource:
    """An import of ``path``: the given fields mapped, every other one null."""
    mapping = [f"questions.columns.{k}={columns.get(k, 'null')}" for k in MAPPING_KEYS]
    return shipped_source(
        f"questions.name={name}", f"questions.format={fmt}", f"questions.path={path}", *mapping
    )


def test_the_construct_table_has_every_shared_column_under_the_default_mapping() -> None:
    """The default mapping reads each shared column from the construct table's column of
    the same name; both tables list the shared columns first, in one order."""
    assert CONSTRUCT_COLUMNS[: len(QUESTION_FIELDS)] == QUESTION_FIELDS
    assert QUESTION_COLUMNS[: len(QUESTION_FIELDS)] == QUESTION_FIELDS
    columns = shipped_source().columns
    assert {k: v for k, v in columns.items() if k in QUESTION_FIELDS} == {
        k: k for k in QUESTION_FIELDS
    }


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
    src = mapped(
        "jl",
        "jsonl",
        HERE / "import_questions.jsonl",
        question="q",
        choices="options",
        answer="gold",
        resolution_date="resolved",
        gold_title="gold_title",
        gold_text="gold_body",
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


def test_bad_rows_are_all_listed_with_their_file_lines() -> None:
    src = mapped(
        "bad",
        "csv",
        HERE / "import_questions_bad.csv",
        question_id="id",
        question="text",
        choices="options",
        answer="correct",
        resolution_date="date",
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, root="/")
    msg = str(err.value)
    assert "6 problem(s)" in msg
    # The file's line 1 is its header: data row n is on line n + 1.
    assert "line 3 (data row 2, question_id b2): fewer than 2 choices (1)" in msg
    assert "line 4 (data row 3, question_id b3): answer (e) is out of range for 3 choices" in msg
    assert "line 5 (data row 4, question_id b4): missing resolution date" in msg
    assert "line 6 (data row 5, question_id b5): empty question" in msg
    assert "line 7 (data row 6, question_id b6): unreadable resolution date 'not a date'" in msg
    assert "answer 'maybe' names none of the choices" in msg
    assert "lines 2, 8 (data rows 1, 7): duplicate question_id b1" in msg
    assert "line 2 " not in msg


BAD_VALUES_CSV = """id,text,options,answer_index,date
v1,Which will win?,a|b|c,inf,2024-03-12
v2,Which will win?,a|b|c,1e400,2024-03-12
v3,Which will win?,a|b|c,1.7,2024-03-12
v4,Which will win?,a|b|c,1.0,today
v5,"Which will
win?",a|b|c,nan,now
v6,Which will win?,a|b|c,2,2024-03-12

v7,Which will win?,a|b|c,-1,2024-03-12
"""


def test_bad_index_and_date_values_are_listed_not_crashing_or_guessed(tmp_path: Path) -> None:
    """inf and 1e400 used to raise OverflowError (hiding every other row), 1.7 became 1,
    and "today"/"now" became the day of the run."""
    path = tmp_path / "values.csv"
    path.write_text(BAD_VALUES_CSV)
    src = mapped(
        "v",
        "csv",
        path,
        question_id="id",
        question="text",
        choices="options",
        answer_index="answer_index",
        resolution_date="date",
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, root="/")
    lines = str(err.value).splitlines()
    assert lines[0].endswith("6 problem(s) in the question table:")
    assert lines[1:] == [
        "  line 2 (data row 1, question_id v1): answer index inf is not a finite number",
        "  line 3 (data row 2, question_id v2): answer index 1e400 is not a finite number",
        "  line 4 (data row 3, question_id v3): answer index 1.7 is not a whole number",
        "  line 5 (data row 4, question_id v4): unreadable resolution date 'today' "
        "(expected a calendar date such as YYYY-MM-DD)",
        # a quoted question over two lines: the record starts on line 6
        "  line 6 (data row 5, question_id v5): unreadable resolution date 'now' "
        "(expected a calendar date such as YYYY-MM-DD); answer index nan is not a finite "
        "number",
        # line 9 is blank, so v7 is on line 10
        "  line 10 (data row 7, question_id v7): answer index -1 is out of range for 3 choices",
    ]


def test_null_choices_are_reasons_not_the_texts_none_or_nan(tmp_path: Path) -> None:
    rows = [
        {"id": "n1", "q": "Which?", "options": ["a", None, "c"], "gold": "a", "day": "2024-03-12"},
        {"id": "n2", "q": "Which?", "options": '["a", null]', "gold": "a", "day": "2024-03-12"},
        {"id": "n3", "q": "Which?", "options": ["a", "b"], "gold": "b", "day": "2024-03-12"},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    src = mapped(
        "n",
        "jsonl",
        path,
        question_id="id",
        question="q",
        choices="options",
        answer="gold",
        resolution_date="day",
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, root="/")
    msg = str(err.value)
    assert "line 1 (data row 1, question_id n1): choice(s) [2] are null" in msg
    assert "line 2 (data row 2, question_id n2): choice(s) [2] are null" in msg
    assert "n3" not in msg and "None" not in msg
    # A NaN inside a list (as parquet or pandas write a missing value) is null too.
    frame = pd.DataFrame(
        {"id": ["p1"], "q": ["Which?"], "options": [["a", float("nan")]], "gold": ["a"]}
    )
    frame["day"] = "2024-03-12"
    with pytest.raises(QuestionTableError, match=r"data row 1 \(question_id p1\): choice"):
        normalize_questions(frame, src)


def test_unreadable_jsonl_lines_are_listed_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"q": "Will it?"}\n\n[1, 2]\n{"q": \n' + "[" * 100_000 + "\n")
    src = mapped("j", "jsonl", path, question="q", answer="q", resolution_date="q")
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, root="/")
    msg = str(err.value)
    assert "3 problem(s)" in msg
    assert "line 3: a JSON list, not an object" in msg
    assert "line 4: not valid JSON" in msg and "line 5: not valid JSON" in msg


def test_index_formats_and_whole_number_floats() -> None:
    raw = construct_questions()
    raw["answer_index"] = raw["answer_index"].astype(float)  # 1.0 is index 1
    table = normalize_questions(raw, shipped_source())
    assert (
        table["answer_index"].tolist()
        == construct_questions()
        .sort_values(["resolution_date", "question_id"])["answer_index"]
        .tolist()
    )


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


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["+questions.columns.answr=x"], "questions.columns: unknown keys ['answr']"),
        (
            ["~questions.columns.category"],
            "questions.columns: keys ['category'] are missing: map each to a column or null "
            "(-S questions.columns.category=null)",
        ),
        (["questions.columns.question=null"], "questions.columns: ['question'] must name"),
        (
            ["questions.columns.answer=null", "questions.columns.answer_index=null"],
            "questions.columns: answer or answer_index must name a column",
        ),
        (["questions.format=xlsx"], "questions.format: "),
        (["questions.answer_format=letters"], "questions.answer_format: "),
        (["questions.max_questions='eight hundred'"], "questions.max_questions: "),
        (["questions.max_questions=0"], "questions.max_questions: "),
    ],
)
def test_configuration_errors_are_one_line_naming_the_parameter(
    overrides: list[str], message: str
) -> None:
    with pytest.raises(ParamsError) as err:
        shipped_source(*overrides)
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text


def test_file_errors_name_the_fix() -> None:
    src = shipped_source("questions.columns.question=nope")
    with pytest.raises(QuestionTableError, match="columns \\['nope'\\] named in questions.columns"):
        normalize_questions(construct_questions(), src)
    with pytest.raises(QuestionTableError, match="does not exist"):
        load_questions(shipped_source("questions.path=missing.parquet"), root="/nonexistent")


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
    # The kept questions are those with the smallest derived seeds.
    ranked = sorted(table["question_id"], key=lambda q: derive_seed(1, "sample", q))
    assert set(two["question_id"]) == set(ranked[:2])
