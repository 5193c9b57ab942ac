"""The question sources: the construct stage's table and other benchmarks' files."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from prescient.benchmarks.daily_oracle.construct_settings import (
    QUESTION_COLUMNS as CONSTRUCT_COLUMNS,
)
from prescient.evaluation.question_sources import (
    EVAL_COLUMNS,
    MAPPING_KEYS,
    QUESTION_COLUMNS,
    QuestionSource,
    QuestionTableError,
    load_questions_settings,
    load_source_settings,
)
from prescient.evaluation.questions import (
    combine_sources,
    evaluated_table,
    load_source,
    normalize_questions,
)
from prescient.evaluation.run import model_sample
from prescient.evaluation.sample import sample_keys, sample_order
from prescient.plumbing import params
from prescient.question_schema import QUESTION_FIELDS
from prescient.seeds import derive_seed
from prescient.settings import ParamsError
from tests.conftest import ROOT
from tests.fixtures.eval import HERE, construct_questions

D = dt.date(2024, 3, 12)
DO = "questions.sources.daily_oracle"
IMP = "questions.sources.imported"


def shipped_source(*overrides: str, name: str = "daily_oracle") -> QuestionSource:
    """One source of the shipped config's ``questions`` section, with Hydra overrides."""
    return load_source_settings(params.compose(ROOT, list(overrides)), name)


def load_questions(src: QuestionSource, name: str = "daily_oracle") -> pd.DataFrame:
    return load_source(name, src, src.path)


def mapped(fmt: str, path: Path, **columns: str) -> QuestionSource:
    """An import of ``path`` through the shipped `file` preset: the given fields mapped,
    every other one null."""
    mapping = [f"{IMP}.columns.{k}={columns.get(k, 'null')}" for k in MAPPING_KEYS]
    return shipped_source(
        "questions=file", f"{IMP}.format={fmt}", f"{IMP}.path={path}", *mapping, name="imported"
    )


def test_the_construct_table_has_every_shared_column_under_the_default_mapping() -> None:
    """The default mapping reads each shared column from the construct table's column of
    the same name; both tables list the shared columns first, in one order."""
    assert CONSTRUCT_COLUMNS[: len(QUESTION_FIELDS)] == QUESTION_FIELDS
    assert QUESTION_COLUMNS[: len(QUESTION_FIELDS)] == QUESTION_FIELDS
    assert EVAL_COLUMNS[: len(QUESTION_COLUMNS)] == QUESTION_COLUMNS
    columns = shipped_source().columns
    assert {k: v for k, v in columns.items() if k in QUESTION_FIELDS} == {
        k: k for k in QUESTION_FIELDS
    }


def test_construct_table_through_the_default_config(tmp_path: Path) -> None:
    raw = construct_questions()
    raw.to_parquet(tmp_path / "q.parquet")
    src = shipped_source(f"{DO}.path={tmp_path / 'q.parquet'}")
    table = load_questions(src)
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
    # provenance: the configured path and the sha256 of the file's bytes
    digest = hashlib.sha256((tmp_path / "q.parquet").read_bytes()).hexdigest()
    assert set(table["source_checksum"]) == {digest}
    assert set(table["source_path"]) == {str(tmp_path / "q.parquet")}
    assert table["forecast_date"].isna().all()
    assert table.set_index("question_id").loc["q_mc_cost", "mc_type"] == "How much"


CSV_OVERRIDES = (
    "questions=file",
    f"{IMP}.format=csv",
    f"{IMP}.path={HERE / 'import_questions.csv'}",
    f"{IMP}.columns.question_id=id",
    f"{IMP}.columns.question=text",
    f"{IMP}.columns.qtype=null",
    f"{IMP}.columns.choices=options",
    f"{IMP}.columns.answer_index=null",
    f"{IMP}.columns.answer=correct",
    f"{IMP}.columns.resolution_date=date",
    f"{IMP}.columns.article_id=null",
    f"{IMP}.columns.gold_url=source_url",
    f"{IMP}.columns.category=topic",
)


def test_csv_import_with_a_column_mapping() -> None:
    table = load_questions(shipped_source(*CSV_OVERRIDES, name="imported"), "ext")
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
        "jsonl",
        HERE / "import_questions.jsonl",
        question="q",
        choices="options",
        answer="gold",
        resolution_date="resolved",
        gold_title="gold_title",
        gold_text="gold_body",
    )
    table = load_questions(src, "jl")
    mc = table.loc[table["qtype"] == "mc"].iloc[0]
    assert (mc["answer_index"], mc["gold_title"]) == (0, "Council approves bridge")
    tf = table.loc[table["qtype"] == "tf"].iloc[0]
    assert tf["answer"] == "Yes" and tf["resolution_date"] == dt.date(2024, 3, 4)
    assert pd.isna(tf["gold_text"])
    # Ids are a stable hash of name, question and date: same input, same ids.
    assert table["question_id"].str.len().tolist() == [16, 16]
    assert load_questions(src, "jl")["question_id"].tolist() == table["question_id"].tolist()
    # an MC question of a file without mc_type gets the leading question word
    assert mc["mc_type"] == "What"


def test_bad_rows_are_all_listed_with_their_file_lines() -> None:
    src = mapped(
        "csv",
        HERE / "import_questions_bad.csv",
        question_id="id",
        question="text",
        choices="options",
        answer="correct",
        resolution_date="date",
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "bad")
    msg = str(err.value)
    assert "6 problem(s)" in msg
    assert "(line: the file's line; data row: the n-th question of the file)" in msg
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
        "csv",
        path,
        question_id="id",
        question="text",
        choices="options",
        answer_index="answer_index",
        resolution_date="date",
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "v")
    lines = str(err.value).splitlines()
    assert lines[0].endswith(
        "6 problem(s) in the question table (line: the file's line; data row: the n-th "
        "question of the file):"
    )
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
        "jsonl",
        path,
        question_id="id",
        question="q",
        choices="options",
        answer="gold",
        resolution_date="day",
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "n")
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
        normalize_questions(frame, "n", src)


def test_unreadable_jsonl_lines_are_listed_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"q": "Will it?"}\n\n[1, 2]\n{"q": \n' + "[" * 100_000 + "\n")
    src = mapped("jsonl", path, question="q", answer="q", resolution_date="q")
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "j")
    msg = str(err.value)
    assert "3 problem(s)" in msg
    assert "line 3: a JSON list, not an object" in msg
    assert "line 4: not valid JSON" in msg and "line 5: not valid JSON" in msg


def test_index_formats_and_whole_number_floats() -> None:
    raw = construct_questions()
    raw["answer_index"] = raw["answer_index"].astype(float)  # 1.0 is index 1
    table = normalize_questions(raw, "daily_oracle", shipped_source())
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
        normalize_questions(raw, "daily_oracle", src)
    raw = construct_questions()
    raw.loc[2, "answer_index"] = 7
    with pytest.raises(QuestionTableError, match="answer index 7 is out of range for 4 choices"):
        normalize_questions(raw, "daily_oracle", src)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ([f"+{DO}.columns.answr=x"], f"{DO}.columns: unknown keys ['answr']"),
        (
            [f"~{DO}.columns.category"],
            f"{DO}.columns: keys ['category'] are missing: map each to a column of the file, "
            f"or to null when the file has none (-S {DO}.columns.category=null)",
        ),
        ([f"{DO}.columns.question=null"], f"{DO}.columns.question must name"),
        (
            [f"{DO}.columns.answer=null", f"{DO}.columns.answer_index=null"],
            f"{DO}.columns: answer or answer_index must name a column",
        ),
        ([f"{DO}.format=xlsx"], f"{DO}.format: "),
        ([f"{DO}.answer_format=letters"], f"{DO}.answer_format: "),
        (
            [f"{DO}.columns.choices=null"],
            f"{DO}.columns.answer_index: without {DO}.columns.choices every question is "
            "True/False, choices ['Yes', 'No'], so an index is ambiguous (is 1 Yes or No?); "
            f"for 1 = Yes, 0 = No map the column as the answer: -S {DO}.columns.answer="
            f"answer_index -S {DO}.columns.answer_index=null -S {DO}.answer_format=binary",
        ),
        (
            [
                f"{DO}.columns.choices=null",
                f"{DO}.columns.answer_index=null",
                f"{DO}.answer_format=index",
            ],
            f"{DO}.answer_format index: without {DO}.columns.choices every question is "
            "True/False, choices ['Yes', 'No'], so an index answer is ambiguous (is 1 Yes or "
            f"No?); for 1 = Yes, 0 = No: -S {DO}.answer_format=binary",
        ),
    ],
)
def test_source_errors_are_one_line_naming_the_parameter_and_the_fix(
    overrides: list[str], message: str
) -> None:
    with pytest.raises(ParamsError) as err:
        shipped_source(*overrides)
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["questions.max_questions='eight hundred'"], "questions.max_questions: "),
        (["questions.max_questions=0"], "questions.max_questions: "),
        (["questions=daily_oracle", f"~{DO}"], "questions.sources: "),
        ([f"{DO}.columns.question=null"], f"questions: {DO}.columns.question must name"),
    ],
)
def test_section_errors_are_one_line_naming_the_parameter(
    overrides: list[str], message: str
) -> None:
    with pytest.raises(ParamsError) as err:
        load_questions_settings(params.compose(ROOT, overrides))
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text


def test_file_errors_name_the_exact_fix() -> None:
    src = shipped_source(f"{DO}.columns.question=nope", f"{DO}.columns.category=topic")
    with pytest.raises(QuestionTableError) as err:
        normalize_questions(construct_questions(), "daily_oracle", src)
    assert f"columns ['nope', 'topic'] named in {DO}.columns are not in the file" in str(err.value)
    assert f"(-S {DO}.columns.question=null -S {DO}.columns.category=null)" in str(err.value)
    with pytest.raises(QuestionTableError, match="does not exist"):
        load_source("x", shipped_source(), "/nonexistent/missing.parquet")


def test_sample_is_seeded_and_stable_when_questions_are_added() -> None:
    table = normalize_questions(construct_questions(), "daily_oracle", shipped_source())

    def sample(questions: pd.DataFrame, n: int | None) -> list[str]:
        chosen = evaluated_table({"daily_oracle": questions}, n, seed=1, gap_days=0)
        return chosen["question_id"].tolist()

    two = sample(table, 2)
    assert len(two) == 2 and two == sample(table, 2)
    assert set(two) <= set(sample(table, 3))
    assert sorted(sample(table, None)) == sorted(table["question_id"])
    # The kept questions are those with the smallest derived seeds.
    ranked = sorted(table["question_id"], key=lambda q: derive_seed(1, "sample", q))
    assert set(two) == set(ranked[:2])
    assert sample_order(ranked, 1) == [1, 2, 3, 4]
    # Adding a question that ranks after them leaves the sample of two as it was.
    without_last = table.loc[table["question_id"] != ranked[-1]]
    assert set(sample(without_last, 2)) == set(two)


# --- answers, formats and forecast dates ---------------------------------------------

BINARY_CSV = """id,text,outcome,day
m1,Will the Harwick ferry resume by April 2024?,1,2024-04-01
m2,Will the bridge open by May 2024?,0,2024-05-01
m3,Will the harbour reopen by June 2024?,1.0,2024-06-01
m4,Will the mayor resign by June 2024?,false,2024-06-02
m5,Will it snow in Harwick in June 2024?,2,2024-06-03
"""


def test_binary_outcomes_are_one_for_yes(tmp_path: Path) -> None:
    """1/0 outcomes with answer_format index used to be read as indices into [Yes, No]
    (1 = No), inverting every answer silently; binary reads 1 as Yes and refuses 2."""
    path = tmp_path / "m.csv"
    path.write_text(BINARY_CSV)
    columns = {"question_id": "id", "question": "text", "answer": "outcome"}
    src = mapped("csv", path, resolution_date="day", **columns)
    binary = src.model_copy(update={"answer_format": "binary"})
    with pytest.raises(QuestionTableError) as err:
        load_questions(binary, "m")
    assert str(err.value).endswith(
        "line 6 (data row 5, question_id m5): answer '2' is not a binary outcome "
        "(1/0, true/false, yes/no)"
    )
    path.write_text(BINARY_CSV.rsplit("m5", 1)[0])
    t = load_questions(binary, "m").set_index("question_id")
    assert t["answer"].to_dict() == {"m1": "Yes", "m2": "No", "m3": "Yes", "m4": "No"}
    assert t["answer_index"].to_dict() == {"m1": 0, "m2": 1, "m3": 0, "m4": 1}
    # the ambiguous mapping is refused before any row is read
    with pytest.raises(ParamsError, match="ambiguous .is 1 Yes or No.*answer_format=binary"):
        shipped_source(
            "questions=file", f"{IMP}.answer_format=index", f"{IMP}.columns.choices=null",
            name="imported",
        )  # fmt: skip


def test_binary_is_for_true_false_rows_and_implied_choices_refuse_an_index(
    tmp_path: Path,
) -> None:
    rows = [
        {"id": "r1", "q": "Which town?", "options": ["A", "B", "C"], "a": 1, "d": "2024-03-01"},
        {"id": "r2", "q": "Will it?", "options": None, "a": 1, "d": "2024-03-01"},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    columns = {"question_id": "id", "question": "q", "choices": "options", "answer": "a"}
    src = mapped("jsonl", path, resolution_date="d", **columns)
    with pytest.raises(QuestionTableError) as err:
        load_questions(src.model_copy(update={"answer_format": "binary"}), "r")
    assert "line 1 (data row 1, question_id r1): answer_format binary is for True/False " in str(
        err.value
    )
    with pytest.raises(QuestionTableError) as err:
        load_questions(src.model_copy(update={"answer_format": "index"}), "r")
    msg = str(err.value)
    assert (
        "line 2 (data row 2, question_id r2): no choices, so the choices are ['Yes', 'No'] " in msg
    )
    assert "index answer is ambiguous" in msg and "r1" not in msg


def test_one_element_list_answers_are_their_element(tmp_path: Path) -> None:
    rows = [
        {"id": "l1", "q": "Which?", "options": ["a", "b", "c"], "gold": ["1"], "d": "2024-03-01"},
        {"id": "l2", "q": "Which?", "options": ["a", "b", "c"], "gold": '["2"]', "d": "2024-03-01"},
        {"id": "l3", "q": "Which?", "options": ["a", "b", "c"], "gold": [0], "d": "2024-03-01"},
        {"id": "l4", "q": "Which?", "options": ["a", "b", "c"], "gold": ["c"], "d": "2024-03-01"},
    ]
    path = tmp_path / "l.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows[:3]) + "\n")
    columns = {"question_id": "id", "question": "q", "choices": "options", "answer": "gold"}
    src = mapped("jsonl", path, resolution_date="d", **columns)
    index = src.model_copy(update={"answer_format": "index"})
    t = load_questions(index, "l").set_index("question_id")
    assert t["answer_index"].to_dict() == {"l1": 1, "l2": 2, "l3": 0}
    path.write_text(json.dumps(rows[3]) + "\n" + json.dumps({**rows[3], "id": "l5", "gold": []}))
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "l")
    assert "line 2 (data row 2, question_id l5): answer [] lists 0 values" in str(err.value)
    assert "l4" not in str(err.value)


FORECAST_CSV = """id,text,outcome,opened,closed
f1,Will the Harwick ferry resume by June 2024?,yes,2024-01-15,2024-06-20
f2,Will the bridge open by May 2024?,no,2024-05-01,2024-05-01
f3,Will the harbour reopen by June 2024?,yes,2024-07-01,2024-06-01
f4,Will the mayor resign by June 2024?,no,,2024-06-02
"""


def test_forecast_dates_are_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_text(FORECAST_CSV)
    columns = {"question_id": "id", "question": "text", "answer": "outcome"}
    src = mapped("csv", path, resolution_date="closed", forecast_date="opened", **columns)
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "f")
    assert str(err.value).splitlines()[1:] == [
        "  line 4 (data row 3, question_id f3): forecast date 2024-07-01 is after the "
        "resolution date 2024-06-01",
        "  line 5 (data row 4, question_id f4): missing forecast date",
    ]
    path.write_text(FORECAST_CSV.split("f3,")[0])
    t = load_questions(src, "f").set_index("question_id")
    assert t.loc["f1", "forecast_date"] == dt.date(2024, 1, 15)
    assert t.loc["f2", "forecast_date"] == dt.date(2024, 5, 1)  # asked on the day it resolved
    assert str(t["forecast_date"].dtype) == "date32[day][pyarrow]"


# --- several sources, the evaluated table and per-model samples -----------------------


def _of_questions() -> pd.DataFrame:
    """OpenForecast-shaped closed-form questions, written for this test."""
    return pd.DataFrame(
        {
            "question_id": ["of-mcnc-1", "of-vqa-1", "of-vqa-2"],
            "question": [
                "What happens next in the Harwick bridge story?",
                "Will the council vote on the bridge again?",
                "Will the ferry company go bankrupt?",
            ],
            "qtype": ["mc", "tf", "tf"],
            "choices": [["Vote", "Strike", "Flood", "Sale"], ["Yes", "No"], ["Yes", "No"]],
            "answer_index": [0, 1, 0],
            "resolution_date": [dt.date(2024, 3, 9), dt.date(2024, 3, 9), dt.date(2024, 3, 11)],
            "category": ["Politics & Governance"] * 3,
            "article_id": [None, None, None],
            "task": ["MCNC", "VQA", "VQA"],
            "chain_id": ["c1", "c1", "c2"],
            "split": ["test"] * 3,
        }
    )


def test_sources_combine_into_one_evaluated_table(tmp_path: Path) -> None:
    construct_questions().to_parquet(tmp_path / "do.parquet")
    _of_questions().to_parquet(tmp_path / "of.parquet")
    p = params.compose(
        ROOT,
        [
            "questions=daily_oracle_openforecast",
            f"{DO}.path={tmp_path / 'do.parquet'}",
            f"questions.sources.openforecast.path={tmp_path / 'of.parquet'}",
        ],
    )
    settings = load_questions_settings(p)
    assert list(settings.sources) == ["daily_oracle", "openforecast"]
    tables = {n: load_source(n, s, s.path) for n, s in settings.sources.items()}
    table = evaluated_table(tables, None, seed=3, gap_days=1)
    assert list(table.columns) == list(EVAL_COLUMNS)
    assert table.groupby("source").size().to_dict() == {"daily_oracle": 4, "openforecast": 3}
    of = table.set_index("question_id").loc["of-mcnc-1"]
    assert of["source"] == "openforecast" and of["answer"] == "Vote" and of["mc_type"] == "What"
    assert table["sample_key"].tolist() == sample_keys(table["question_id"], 3)
    assert set(table["visibility_gap_days"]) == {1}
    # the sample order is the seeded one, whatever the sources
    expected = sorted(table["question_id"], key=lambda q: derive_seed(3, "sample", q))
    assert table.sort_values("sample_key")["question_id"].tolist() == expected
    # a global sample keeps the first five, each row as it is in the whole table
    five = evaluated_table(tables, 5, seed=3, gap_days=1)
    assert set(five["question_id"]) == set(expected[:5])
    pd.testing.assert_frame_equal(
        five.reset_index(drop=True),
        table[table["question_id"].isin(expected[:5])].reset_index(drop=True),
    )


def test_a_question_id_in_two_sources_is_refused() -> None:
    src = shipped_source()
    a = normalize_questions(construct_questions(), "a", src)
    b = normalize_questions(construct_questions().iloc[:2], "b", src)
    with pytest.raises(QuestionTableError) as err:
        combine_sources({"a": a, "b": b})
    assert "2 question ids occur in more than one source, e.g. ['q_tf_bridge (a, b)'" in str(
        err.value
    )


def test_model_samples_are_nested() -> None:
    tables = {"d": normalize_questions(construct_questions(), "d", shipped_source())}
    table = evaluated_table(tables, None, seed=9, gap_days=1)
    samples = [set(model_sample(table, n)["question_id"]) for n in (1, 2, 3, None)]
    assert [len(s) for s in samples] == [1, 2, 3, 4]
    assert samples[0] <= samples[1] <= samples[2] <= samples[3]
    first = table.loc[table["sample_key"].idxmin(), "question_id"]
    assert samples[0] == {first}


def test_model_budgets_name_evaluated_models() -> None:
    from prescient.evaluation.settings import EvalSettings
    from prescient.settings import load_settings

    p = params.compose(ROOT, ["+eval.max_questions.smollm2_135m=50"])
    assert load_settings(EvalSettings, p, "eval").max_questions == {"smollm2_135m": 50}
    with pytest.raises(ParamsError) as err:
        load_settings(EvalSettings, params.compose(ROOT, ["+eval.max_questions.gpt_4=5"]), "eval")
    assert str(err.value).startswith(
        "eval.max_questions: names models ['gpt_4'] that are not in eval.models"
    )


CROWD_CSV = """id,text,outcome,closed,choices,market
c1,Will the ferry run in May 2024?,Yes,2024-06-01,,0.7
c2,Will the bridge open in May 2024?,No,2024-06-01,,35%
c3,Who will win the Harwick mayoral race?,b,2024-06-01,Ames|Boyd|Cole,0.2|0.5|0.3
c4,Will the pier reopen in May 2024?,No,2024-06-01,,
"""


def test_crowd_probabilities_are_read_per_answer_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text(CROWD_CSV)
    columns = {"question_id": "id", "question": "text", "answer": "outcome"}
    src = mapped(
        "csv", path, resolution_date="closed", choices="choices", crowd_prob="market", **columns
    )
    t = load_questions(src, "c").set_index("question_id")
    assert list(t.loc["c1", "crowd_prob"]) == pytest.approx([0.7, 0.3])
    assert list(t.loc["c2", "crowd_prob"]) == pytest.approx([0.35, 0.65])
    assert list(t.loc["c3", "crowd_prob"]) == pytest.approx([0.2, 0.5, 0.3])
    assert t.loc["c4", "crowd_prob"] is None  # no forecast: no crowd row, not an error
    path.write_text(CROWD_CSV.replace(",0.7", ",1.7").replace("0.2|0.5|0.3", "0.2|0.5"))
    with pytest.raises(QuestionTableError) as err:
        load_questions(src, "c")
    lines = str(err.value).splitlines()[1:]
    assert "crowd_prob '1.7' is not a probability" in lines[0] and "(data row 1" in lines[0]
    assert "not one probability (0 to 1) per choice (3)" in lines[1] and "c3" in lines[1]
