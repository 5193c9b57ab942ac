"""A report cell's name parsed the ways the report and the metrics spell it, its rows
chosen as the report counts them, and a key led to the ledger entry the gateway serves."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest

from prescient.analysis.trace import (
    Cell,
    TraceError,
    cell_rows,
    ledger_answers,
    parse_cell,
    parse_cell_setting,
    parse_period,
    parse_qtype,
)
from prescient.evaluation.predictions import PREDICTION_COLUMNS
from prescient.evaluation.settings import NO_GOLD_ARTICLE, Setting
from prescient.llm.ledger import request_key


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("closed_book", Setting("closed_book")),
        ("gold", Setting("gold")),
        ("rag_dynamic", Setting("rag")),
        ("rag_2024-06-01", Setting("rag", dt.date(2024, 6, 1))),
        (" rag_2024-06-01 ", Setting("rag", dt.date(2024, 6, 1))),
    ],
)
def test_a_setting_is_read_as_the_report_or_the_metrics_spell_it(
    text: str, setting: Setting
) -> None:
    assert parse_cell_setting(text) == setting


@pytest.mark.parametrize(
    "text", ["rag", "rag@dynamic", "rag@2024-06-01", "rag_2024-13-01", "closed-book", "RAG_dynamic"]
)
def test_an_unknown_setting_names_the_accepted_forms(text: str) -> None:
    with pytest.raises(TraceError, match=r"closed_book, gold, rag_dynamic or rag_YYYY-MM-DD"):
        parse_cell_setting(text)


def test_types_and_periods() -> None:
    assert [parse_qtype(x) for x in (None, "", "all", "ALL", "tf", "MC")] == [
        None,
        None,
        None,
        None,
        "tf",
        "mc",
    ]
    with pytest.raises(TraceError, match="use tf, mc or all"):
        parse_qtype("yes/no")
    assert parse_period("2024-03") == (2024, 3)
    assert parse_period("2024") == (2024, None)
    assert parse_period(None) == (None, None) and parse_period(" ") == (None, None)
    for bad in ("2024-13", "2024-3", "March 2024", "2024-03-01"):
        with pytest.raises(TraceError, match="use YYYY-MM"):
            parse_period(bad)
    cell = parse_cell("m", "rag_2024-06-01", "tf", "2024-07")
    assert cell == Cell("m", Setting("rag", dt.date(2024, 6, 1)), "tf", 2024, 7)
    assert cell.describe() == "m rag_2024-06-01 tf 2024-07"
    assert parse_cell("m", "gold", None, "2023").describe() == "m gold all 2023"
    with pytest.raises(TraceError, match="no model"):
        parse_cell(" ", "gold")


def _scores() -> pd.DataFrame:
    rows = [
        # model, setting, cutoff, question, qtype, resolved, error, correct
        ("m", "gold", None, "q1", "tf", "2024-03-02", None, True),
        ("m", "gold", None, "q2", "mc", "2024-03-30", None, False),
        ("m", "gold", None, "q3", "tf", "2024-04-01", None, True),
        ("m", "gold", None, "q4", "tf", "2024-03-05", NO_GOLD_ARTICLE, False),
        ("m", "gold", None, "q5", "tf", "2024-03-06", "timeout", False),
        ("m", "rag", "dynamic", "q1", "tf", "2024-03-02", None, False),
        ("m", "rag", "2024-03-01", "q1", "tf", "2024-03-02", None, True),
        ("other", "gold", None, "q1", "tf", "2024-03-02", None, False),
    ]
    frame = pd.DataFrame(
        rows,
        columns=[
            "model",
            "setting",
            "rag_cutoff",
            "question_id",
            "qtype",
            "resolution_date",
            "error",
            "correct",
        ],
    )
    frame["resolution_date"] = [dt.date.fromisoformat(d) for d in frame["resolution_date"]]
    frame["refused"] = False
    return frame


def test_a_cells_rows_are_those_the_report_counts() -> None:
    scores = _scores()

    def ids(cell: str, qtype: str | None = None, month: str | None = None, **kw: bool) -> list:
        return cell_rows(scores, parse_cell("m", cell, qtype, month), **kw)["question_id"].tolist()

    # No gold article: never counted; a failed call: left out unless counted as wrong.
    assert ids("gold") == ["q1", "q2", "q3"]
    assert ids("gold", count_errors=True) == ["q1", "q2", "q3", "q5"]
    assert ids("gold", "tf") == ["q1", "q3"]
    assert ids("gold", None, "2024-03") == ["q1", "q2"]
    assert ids("gold", "tf", "2024-03") == ["q1"]
    assert ids("gold", None, "2024") == ["q1", "q2", "q3"]
    assert ids("gold", None, "2023") == []
    assert ids("rag_dynamic") == ["q1"]
    one = cell_rows(scores, parse_cell("m", "rag_2024-03-01"))
    assert one[["question_id", "correct"]].values.tolist() == [["q1", True]]
    with pytest.raises(
        TraceError, match=r"no scored rows of model 'x' \(label\); the table has \['m', 'other'\]"
    ):
        cell_rows(scores, parse_cell("x", "gold"))
    with pytest.raises(TraceError, match=r"no scored rows in closed_book; it has \['gold', "):
        cell_rows(scores, parse_cell("m", "closed_book"))


def _entry(text: str, response: str | None, error: str | None = None) -> dict:
    messages = [{"role": "user", "content": text}]
    return {
        "key": request_key("scripted/x", messages, {"temperature": 0}),
        "litellm_model": "scripted/x",
        "messages": messages,
        "params": {"temperature": 0},
        "response": response,
        "error": error,
        "tags": {},
    }


def test_a_key_leads_to_the_entry_the_gateway_serves(tmp_path: Path) -> None:
    failed = _entry("A?", None, "timeout")
    first = _entry("A?", "Yes")
    later = _entry("A?", "No")
    forged = {**_entry("B?", "No"), "key": first["key"]}  # a real key on another request
    only_failed = _entry("C?", None, "rate limit")
    failed_again = _entry("C?", None, "timeout")
    path = tmp_path / "ledger.jsonl"
    lines = [failed, forged, first, later, only_failed, failed_again]
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    found = ledger_answers(path, [first["key"], only_failed["key"], "absent"])
    assert set(found) == {first["key"], only_failed["key"]}
    assert found[first["key"]]["response"] == "Yes"
    assert found[first["key"]]["messages"] == first["messages"]
    assert found[only_failed["key"]]["error"] == "timeout"  # the last failure
    assert ledger_answers(path, []) == {}


def test_predictions_have_a_ledger_key_and_the_models_asked_and_served() -> None:
    assert PREDICTION_COLUMNS[-3:] == ("ledger_key", "served_model", "litellm_model")


def test_a_cell_keeps_the_questions_of_its_sources() -> None:
    from prescient.analysis.trace import TraceError, of_sources

    rows = pd.DataFrame({"question_id": ["a", "b", "c"], "correct": [True, False, True]})
    questions = pd.DataFrame(
        {"question_id": ["a", "b", "c"], "source": ["daily_oracle", "openforecast", "daily_oracle"]}
    )
    assert of_sources(rows, questions, ["daily_oracle"])["question_id"].tolist() == ["a", "c"]
    assert of_sources(rows, questions, [])["question_id"].tolist() == ["a", "b", "c"]
    with pytest.raises(TraceError, match="no questions of source"):
        of_sources(rows, questions, ["elsewhere"])


def test_a_cell_is_one_elicitation_and_crowd_rows_need_no_ledger(tmp_path: Path) -> None:
    from prescient.analysis.trace import text_block, trace_rows

    base = {
        "setting": "closed_book",
        "rag_cutoff": None,
        "question_id": "q1",
        "qtype": "tf",
        "resolution_date": dt.date(2024, 3, 1),
        "error": None,
        "parsed_answer": 0,
        "correct": True,
        "refused": False,
    }
    scores = pd.DataFrame(
        [
            {**base, "model": "m", "elicitation": "label", "ledger_key": "k1"},
            {**base, "model": "m", "elicitation": "verbal_probability", "ledger_key": "k2"},
            {
                **base,
                "model": "crowd",
                "elicitation": "verbal_probability",
                "ledger_key": None,
                "probs": [0.8, 0.2],
                "prob_source": "crowd",
                "brier": 0.04,
                "log_score": 0.223,
            },
        ]
    )
    label = cell_rows(scores, parse_cell("m", "closed_book"))
    assert label["ledger_key"].tolist() == ["k1"]
    verbal = cell_rows(scores, parse_cell("m", "closed_book", elicitation="verbal_probability"))
    assert verbal["ledger_key"].tolist() == ["k2"]
    with pytest.raises(TraceError, match="unknown elicitation 'odds'"):
        parse_cell("m", "closed_book", elicitation="odds")
    crowd = cell_rows(scores, parse_cell("crowd", "closed_book", elicitation="verbal_probability"))
    questions = pd.DataFrame(
        {
            "question_id": ["q1"],
            "question": ["Will it?"],
            "choices": [["Yes", "No"]],
            "answer_index": [0],
        }
    )
    empty = tmp_path / "ledger.jsonl"
    empty.write_text("")
    (traced,) = trace_rows(crowd, questions, empty)
    block = text_block(traced)
    assert "forecast:      [0.8, 0.2] (crowd, verbal_probability)" in block
    assert "crowd_prob column (no model call)" in block
