"""The first screen's pieces: the headline pivot of the accuracy table, the settings as
a reader names them, and the run summary of a scores table analysed alone."""

from __future__ import annotations

import math

import pandas as pd

from prescient.benchmarks.freshbench.report import BPC_PART
from prescient.benchmarks.openforecast.report import OPENFORECAST_PART
from prescient.page.build import fitted_line
from prescient.page.contents import parts
from prescient.page.summary import (
    _setting_lines,
    headline,
    is_demo,
    run_facts,
    setting_label,
)
from prescient.report.parts import ReportInputs

COLUMNS = ["model", "setting", "rag_cutoff", "cell", "qtype", "n", "n_correct", "accuracy",
           "ci_low", "ci_high"]  # fmt: skip


def _row(model: str, setting: str, cutoff: str, qtype: str, k: int, n: int) -> list[object]:
    cell = setting if not cutoff else f"{setting}_{cutoff}"
    return [model, setting, cutoff, cell, qtype, n, k, k / n, 0.1, 0.9]


def test_headline_pivots_models_and_types_against_settings() -> None:
    acc = pd.DataFrame(
        [
            _row("m1", "closed_book", "", "tf", 30, 40),
            _row("m1", "closed_book", "", "mc", 10, 20),
            _row("m1", "closed_book", "", "all", 40, 60),
            _row("m1", "gold", "", "tf", 40, 40),
            _row("m1", "rag", "dynamic", "tf", 20, 40),
            _row("m1", "rag", "2024-01-01", "tf", 10, 40),
            _row("m2", "closed_book", "", "tf", 0, 40),
        ],
        columns=COLUMNS,
    )
    shown = headline(acc)
    assert list(shown.columns) == [
        "Model", "Type", "closed book", "RAG cutoff 2024-01-01", "RAG dynamic", "gold article",
    ]  # fmt: skip
    assert shown.values.tolist() == [
        ["m1", "TF", "75.0 [10.0, 90.0] n=40", "25.0 [10.0, 90.0] n=40", "50.0 [10.0, 90.0] n=40",
         "100.0 [10.0, 90.0] n=40"],
        ["m1", "MC", "50.0 [10.0, 90.0] n=20", "–", "–", "–"],
        ["m2", "TF", "0.0 [10.0, 90.0] n=40", "–", "–", "–"],
    ]  # fmt: skip
    assert headline(acc.iloc[0:0]).empty


def test_a_missing_interval_leaves_the_value() -> None:
    row = _row("m", "closed_book", "", "tf", 20, 20)
    row[8] = row[9] = math.nan
    assert headline(pd.DataFrame([row], columns=COLUMNS)).iloc[0, 2] == "100.0 n=20"


def test_one_question_gets_no_interval() -> None:
    shown = headline(pd.DataFrame([_row("m", "closed_book", "", "tf", 1, 1)], columns=COLUMNS))
    assert shown.iloc[0, 2] == "100.0 (n=1: too few for an interval)"


def test_settings_as_a_reader_names_them() -> None:
    assert [setting_label(s, c) for s, c in (("closed_book", ""), ("gold", ""),
            ("rag", "dynamic"), ("rag", "2024-06-01"))] == [
        "closed book", "gold article", "RAG dynamic", "RAG cutoff 2024-06-01",
    ]  # fmt: skip


def test_a_scores_table_analysed_alone() -> None:
    provenance = pd.DataFrame(
        {
            "key": ["scores_path", "corpus_checksum", "articles", "time_series_sources"],
            "value": ["results/s.parquet", "", "", "bench"],
        }
    )
    sources = pd.DataFrame(
        [["bench", 40, 20, 20, "2023-01-01", "2023-12-31"]],
        columns=["source", "n", "n_tf", "n_mc", "first_date", "last_date"],
    )
    models = pd.DataFrame(
        [["b-7b", "2023-06-30", ""], ["rand", "", ""]],
        columns=["model", "knowledge_cutoff", "release_date"],
    )
    tables = {"provenance": provenance, "dataset_sources": sources, "models": models}
    inputs = ReportInputs(tables, {BPC_PART: "x", OPENFORECAST_PART: "y"})
    params = {"corpus": {"name": "demo"}, "eval": {"generation": {"temperature": 0.0}}}
    facts = dict(run_facts(inputs, params, parts()))
    assert facts["Corpus"] == ("none: the scores table results/s.parquet analysed alone",)
    assert facts["Questions"] == (
        "bench: 40 questions (20 TF, 20 MC), resolving 2023-01-01 to 2023-12-31",
    )
    assert facts["Models"] == ("b-7b (knowledge cutoff 2023-06-30); rand",)
    assert facts["Settings"] == ("none scored",)
    assert facts["Other parts"] == (
        "BPC and TBI: not part of this run",
        "OpenForecast: not part of this run",
    )
    assert not is_demo(tables, params)  # the demo's params, but no corpus was read


def test_the_budget_is_named_when_a_corpus_was_read() -> None:
    provenance = pd.DataFrame({"key": ["corpus_checksum", "articles"], "value": ["abc", "1200"]})
    inputs = ReportInputs({"provenance": provenance}, {BPC_PART: "x", OPENFORECAST_PART: "y"})
    demo = {"corpus": {"name": "demo"}, "budget": {"name": "demo", "note": "not comparable"}}
    facts = dict(run_facts(inputs, demo, parts()))
    assert facts["Corpus"] == ("demo: 1,200 articles",)
    assert facts["Budget"] == ("demo: not comparable",)
    assert dict(run_facts(inputs, {"corpus": {"name": "x"}}, parts()))["Budget"] == (
        "not recorded",
    )
    alone = ReportInputs({}, {BPC_PART: "x", OPENFORECAST_PART: "y"})
    assert "Budget" not in dict(run_facts(alone, demo, parts()))


def test_the_headline_names_the_cells_whose_prompts_were_fitted() -> None:
    cells = pd.DataFrame(
        {
            "model": ["smol", "smol", "smol", "base"],
            "cell": ["gold", "gold", "rag_dynamic", "gold"],
            "source": ["daily_oracle", "openforecast", "daily_oracle", "daily_oracle"],
            "n_fitted": [3, 1, 0, 0],
        }
    )
    assert fitted_line(cells) == (
        " Prompts fitted to the model's context window (articles cut to the most words "
        "that fit): smol gold 4."
    )
    assert fitted_line(cells.assign(n_fitted=0)) == ""
    assert fitted_line(cells.drop(columns=["n_fitted"])) == fitted_line(None) == ""


def test_the_model_calls_line_says_what_the_replies_cost() -> None:
    from prescient.page.summary import call_lines

    calls = pd.DataFrame(
        [
            {
                "model": "gpt",
                "distinct_requests": 1200,
                "failed": 2,
                "prompt_tokens": 345678,
                "completion_tokens": 2400,
                "cost_usd": 0.61234,
                "unpriced": 3,
            },
            {
                "model": "smol",
                "distinct_requests": 10,
                "failed": 0,
                "prompt_tokens": 900,
                "completion_tokens": 40,
                "cost_usd": 0.0,
                "unpriced": 10,
            },
        ]
    )
    assert call_lines({"model_calls": calls}) == (
        "gpt: 1,200 requests, 2 failed; 345,678 prompt + 2,400 completion tokens; "
        "$0.6123 (+3 unpriced)",
        "smol: 10 requests, 0 failed; 900 prompt + 40 completion tokens; no price",
    )
    assert call_lines({}) == ("not recorded in the scores table",)


def test_the_settings_line_names_the_elicitations_beyond_labels() -> None:
    accuracy = pd.DataFrame(
        {
            "setting": ["closed_book"],
            "rag_cutoff": [""],
            "cell": ["closed_book"],
            "model": ["m"],
            "qtype": ["all"],
        }
    )
    proper = pd.DataFrame({"elicitation": ["label", "verbal_probability", "token_logprobs"]})
    params = {"eval": {"generation": {"max_tokens": 16}}}
    (line,) = _setting_lines({"accuracy": accuracy, "proper_scores": proper}, params)
    assert line.endswith("; elicitations: label, verbal probability, token logprobs")
    (line,) = _setting_lines({"accuracy": accuracy, "proper_scores": proper.iloc[:1]}, params)
    assert "elicitations" not in line
