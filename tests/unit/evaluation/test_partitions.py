"""Partitions of the evaluation: each question in exactly one, by its resolution date,
the list validated, and a list of months extended by a new day."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from prescient.evaluation.partitions import PartitionError, assign, check, extended, rows_of
from prescient.evaluation.settings import EvalSettings
from prescient.settings import ParamsError, load_settings


def dates(*days: str) -> pd.Series:
    return pd.Series([dt.date.fromisoformat(d) for d in days])


def test_each_question_falls_in_its_month_or_year() -> None:
    got = assign(
        dates("2024-11-30", "2024-12-01", "2024-12-31", "2025-03-04"),
        ["2024-11", "2024-12", "2025"],
    )
    assert got.tolist() == ["2024-11", "2024-12", "2024-12", "2025"]
    assert assign(dates("1999-01-01", "2031-05-05"), ["all"]).tolist() == ["all", "all"]


def test_split_keeps_the_tables_order_and_lists_empty_partitions() -> None:
    q = pd.DataFrame(
        {
            "question_id": list("abcd"),
            "resolution_date": dates("2024-12-02", "2024-11-03", "2024-12-01", "2024-11-30"),
        }
    )
    labels = ["2024-11", "2024-12", "2025-01"]
    rows = rows_of(assign(q["resolution_date"], labels), labels)
    assert list(rows) == ["2024-11", "2024-12", "2025-01"]
    assert q["question_id"].iloc[rows["2024-12"]].tolist() == ["a", "c"]
    assert q["question_id"].iloc[rows["2024-11"]].tolist() == ["b", "d"]
    assert not rows["2025-01"].any()


def test_a_question_outside_every_partition_names_its_month() -> None:
    with pytest.raises(
        PartitionError, match=r"1 questions resolve outside .*\['2025-01'\].*add those months"
    ):
        assign(dates("2024-12-31", "2025-01-02"), ["2024-12"])
    with pytest.raises(PartitionError, match="no resolution date"):
        assign(pd.Series([dt.date(2024, 12, 1), None]), ["2024-12"])


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        ([], "is empty"),
        (["2024-13"], "unknown partition"),
        (["24-01"], "unknown partition"),
        (["2024-01", "2024-01"], "more than once"),
        (["2024", "2024-06"], "overlap"),
        (["all", "2024"], "list it alone"),
        ("2024", "expected a list"),
    ],
)
def test_bad_partition_lists_are_refused(labels: object, problem: str) -> None:
    with pytest.raises(PartitionError, match=problem):
        check(labels)  # type: ignore[arg-type]


def test_a_list_of_months_grows_to_the_new_day() -> None:
    assert extended(["2024-11", "2024-12"], dt.date(2024, 12, 31)) == ("2024-11", "2024-12")
    assert extended(["2024-11", "2024-12"], dt.date(2025, 2, 1)) == (
        "2024-11",
        "2024-12",
        "2025-01",
        "2025-02",
    )
    assert extended(["all"], dt.date(2030, 1, 1)) == ("all",)
    assert extended(["2023", "2024"], dt.date(2025, 1, 1)) == ("2023", "2024")


def _grid(**eval_: object) -> dict[str, object]:
    base = {
        "models": ["m"],
        "settings": ["closed_book"],
        "generation": {"temperature": 0.0, "max_tokens": 4},
        "max_questions": {},
    }
    return {"eval": {**base, **eval_}}


def test_params_default_to_one_partition_and_refuse_a_budget_with_several() -> None:
    assert load_settings(EvalSettings, _grid(), "eval").partitions == ("all",)
    ok = load_settings(EvalSettings, _grid(partitions=["2024-11", "2024-12"]), "eval")
    assert ok.partitions == ("2024-11", "2024-12")
    # a budget of an elicitation not asked draws nothing
    ok = _grid(partitions=["2024-11", "2024-12"], elicitation_max_questions={"scratchpad": 5})
    assert load_settings(EvalSettings, ok, "eval").partitions == ("2024-11", "2024-12")
    with pytest.raises(ParamsError, match="draw a sample from the whole question table"):
        load_settings(
            EvalSettings, _grid(partitions=["2024-11", "2024-12"], max_questions={"m": 5}), "eval"
        )
    with pytest.raises(ParamsError, match="overlap"):
        load_settings(EvalSettings, _grid(partitions=["2024", "2024-12"]), "eval")
