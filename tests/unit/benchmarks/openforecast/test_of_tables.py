"""OpenForecast's results tables: counts, Wilson intervals, the knowledge-cutoff rule."""

from __future__ import annotations

import datetime as dt
import math

import pandas as pd
import pytest

from prescient.benchmarks.openforecast.tables import (
    closed_accuracy,
    knowledge_cutoffs,
    open_scores,
)
from prescient.stats import wilson_interval
from tests.support.llm import model_spec

QUESTIONS = pd.DataFrame(
    {
        "question_id": ["q1", "q2", "q3", "q4"],
        "task": ["mcnc", "mcnc", "vqa", "vqa"],
        "resolution_date": [
            dt.date(2023, 10, 1),
            dt.date(2024, 2, 1),
            dt.date(2023, 10, 1),
            dt.date(2024, 2, 1),
        ],
    }
)


def scores() -> pd.DataFrame:
    rows = []
    for model in ("m", "baseline"):
        for qid, correct in (("q1", True), ("q2", False), ("q3", True), ("q4", True), ("dq", True)):
            rows.append((model, "closed_book", None, qid, None, correct))
    rows.append(("m", "rag", "dynamic", "q4", "timeout", False))  # a failed call
    return pd.DataFrame(
        rows, columns=["model", "setting", "rag_cutoff", "question_id", "error", "correct"]
    )


def test_counts_and_wilson_intervals_per_cell() -> None:
    table = closed_accuracy(scores(), QUESTIONS)
    m = table[(table["model"] == "m") & (table["setting"] == "closed_book")].set_index("task")
    assert m.loc["mcnc", ["n", "n_correct"]].tolist() == [2, 1]
    assert m.loc["vqa", ["n", "n_correct"]].tolist() == [2, 2]
    low, high = wilson_interval(1, 2)
    assert (m.loc["mcnc", "low"], m.loc["mcnc", "high"]) == (float(low), float(high))
    rag = table[table["setting"] == "rag"].iloc[0]
    assert (rag["n"], rag["n_failed"]) == (0, 1) and pd.isna(rag["accuracy"])
    assert "dq" not in set(table["task"])  # not an OpenForecast question


def test_only_questions_after_a_models_cutoff_count() -> None:
    registry = {
        "m": model_spec("m", "openai/m", knowledge_cutoff="2023-12-31"),
        "baseline": model_spec("baseline", "baseline/random", knowledge_cutoff=None),
    }
    cutoffs = knowledge_cutoffs(registry, ["m", "baseline", "elsewhere"])
    assert cutoffs == {"m": dt.date(2023, 12, 31), "baseline": None, "elsewhere": None}
    table = closed_accuracy(scores(), QUESTIONS, cutoffs)
    m = table[(table["model"] == "m") & (table["setting"] == "closed_book")].set_index("task")
    assert m["n"].to_dict() == {"mcnc": 1, "vqa": 1}  # q2 and q4 resolve after the cutoff
    b = table[table["model"] == "baseline"].set_index("task")
    assert b["n"].to_dict() == {"mcnc": 2, "vqa": 2}


def test_open_scores_macro_and_aqa_accuracy() -> None:
    lrae = pd.DataFrame(
        {
            "model": ["m"] * 4,
            "task": ["stf", "stf", "aqa", "aqa"],
            "tp": [1, 0, 1, 0],
            "precision": [1.0, 0.5, 1.0, 0.0],
            "recall": [0.5, 0.5, 1.0, 0.0],
            "f1": [2 / 3, 0.5, 1.0, 0.0],
            "precision_gold": [1.0, 0.0, 1.0, 0.0],
            "recall_gold": [0.5, 0.0, 1.0, 0.0],
            "f1_gold": [2 / 3, 0.0, 1.0, 0.0],
            "error": [None, None, None, None],
        }
    )
    table = open_scores(lrae, reps=200, confidence=0.95, base_seed=1).set_index(["task", "metric"])
    assert table.loc[("stf", "f1"), "value"] == pytest.approx(7 / 12)
    assert table.loc[("stf", "precision"), "n"] == 2
    acc = table.loc[("aqa", "accuracy")]
    low, high = wilson_interval(1, 2)
    assert (acc["value"], acc["low"], acc["high"], acc["interval"]) == (
        0.5,
        float(low),
        float(high),
        "wilson",
    )


def test_open_scores_from_one_sample_have_no_interval() -> None:
    lrae = pd.DataFrame(
        {
            "model": ["m"],
            "task": ["ltf"],
            "tp": [1],
            **{m: [1.0] for m in ("precision", "recall", "f1")},
            **{f"{m}_gold": [1.0] for m in ("precision", "recall", "f1")},
            "error": [None],
        }
    )
    f1 = open_scores(lrae, reps=200, confidence=0.95, base_seed=1).set_index("metric").loc["f1"]
    assert (f1["value"], f1["n"], f1["interval"]) == (1.0, 1, "none (one sample)")
    assert math.isnan(f1["low"]) and math.isnan(f1["high"])
