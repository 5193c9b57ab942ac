"""Scoring: per-item parsing and per-cell rates, against numbers worked out by hand."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from prescient.evaluation.predictions import prediction_frame
from prescient.evaluation.scoring import (
    SCORE_COLUMNS,
    ScoringError,
    cell_label,
    cell_metrics,
    score_predictions,
)
from prescient.evaluation.settings import NO_GOLD_ARTICLE, parse_setting

D = dt.date(2024, 3, 12)
QUESTIONS = pd.DataFrame(
    {
        "question_id": ["t1", "t2", "m1", "m2"],
        "qtype": ["tf", "tf", "mc", "mc"],
        "choices": [["Yes", "No"], ["Yes", "No"], ["a", "b", "c", "d"], ["w", "x", "y", "z"]],
        "answer_index": [0, 1, 2, 3],
    }
)


def preds(
    model: str,
    setting: str,
    cutoff: str | None,
    responses: list[str | None],
    errors: list[str | None],
) -> pd.DataFrame:
    n = len(responses)
    return prediction_frame(
        {
            "model": [model] * n,
            "setting": [setting] * n,
            "rag_cutoff": [cutoff] * n,
            "question_id": ["t1", "t2", "m1", "m2"][:n],
            "qtype": ["tf", "tf", "mc", "mc"][:n],
            "resolution_date": [D] * n,
            "raw_response": responses,
            "error": errors,
            "template": ["eval_x"] * n,
            "template_version": ["1"] * n,
            "context_article_ids": [[] for _ in range(n)],
            "context_words_kept": [None] * n,
            "ledger_key": [
                None if e and e.startswith("no gold") else f"k{i}" for i, e in enumerate(errors)
            ],
        }
    )


def test_item_scores_and_cell_rates_by_hand() -> None:
    frame = pd.concat(
        [
            # t1 right, t2 refused, m1 right via "(c)", m2 unparseable.
            preds(
                "m",
                "closed_book",
                None,
                ["Yes", "As an AI I cannot say.", "(c)", "hmm"],
                [None] * 4,
            ),
            # t1 wrong, t2 failed call (excluded), m1 right by text, m2 right.
            preds(
                "m",
                "rag",
                "dynamic",
                ["No", None, "It will be c.", "(d)"],
                [None, "Timeout", None, None],
            ),
        ],
        ignore_index=True,
    )
    scores = score_predictions(frame, QUESTIONS)
    assert list(scores.columns) == list(SCORE_COLUMNS)
    # Each scored row keeps the key of the ledger entry holding its reply.
    assert scores["ledger_key"].tolist() == ["k0", "k1", "k2", "k3"] * 2
    old = score_predictions(frame.drop(columns=["ledger_key"]), QUESTIONS)
    assert list(old.columns) == list(SCORE_COLUMNS) and old["ledger_key"].isna().all()
    assert scores["parsed_answer"].tolist()[:4] == [0, pd.NA, 2, pd.NA]
    assert scores["correct"].tolist() == [True, False, True, False, False, False, True, True]
    assert scores["refused"].tolist() == [False, True, False, False, False, False, False, False]
    assert scores["parse_failed"].tolist() == [
        False,
        False,
        False,
        True,
        False,
        False,
        False,
        False,
    ]
    m = cell_metrics(scores)["cells"]["m"]
    cb = m["closed_book"]["all"]
    assert (
        cb["n"],
        cb["n_errors"],
        cb["accuracy"],
        cb["refusal_rate"],
        cb["parse_failure_rate"],
    ) == (
        4,
        0,
        0.5,
        0.25,
        0.25,
    )
    assert cb["accuracy_excl_refusals"] == pytest.approx(2 / 3, abs=1e-6)
    assert m["closed_book"]["tf"]["accuracy"] == 0.5 and m["closed_book"]["mc"]["accuracy"] == 0.5
    rag = m["rag_dynamic"]["all"]
    # The failed call leaves 3 answered questions, 2 of them right.
    assert (rag["n"], rag["n_errors"], rag["n_correct"]) == (4, 1, 2)
    assert rag["accuracy"] == pytest.approx(2 / 3, abs=1e-6)
    assert m["rag_dynamic"]["tf"]["accuracy"] == 0.0


def test_gold_rows_without_a_gold_article_are_not_failed_calls() -> None:
    frame = preds(
        "m", "gold", None, ["Yes", None, None, "(d)"], [None, NO_GOLD_ARTICLE, "Timeout", None]
    )
    gold = cell_metrics(score_predictions(frame, QUESTIONS))["cells"]["m"]["gold"]["all"]
    assert (gold["n"], gold["n_no_gold_article"], gold["n_errors"], gold["n_correct"]) == (
        4,
        1,
        1,
        2,
    )
    assert gold["accuracy"] == 1.0  # 2 of the 2 questions asked and answered


def test_unknown_questions_and_type_mismatches_are_errors() -> None:
    frame = preds("m", "gold", None, ["Yes"], [None])
    with pytest.raises(ScoringError, match="not in the question table"):
        score_predictions(frame.assign(question_id="nope"), QUESTIONS)
    with pytest.raises(ScoringError, match="predicted as mc"):
        score_predictions(frame.assign(qtype="mc"), QUESTIONS)


def test_cell_labels_match_the_analysis() -> None:
    assert cell_label("closed_book", None) == "closed_book"
    assert cell_label("gold", pd.NA) == "gold"
    assert cell_label("rag", "2024-12-01") == "rag_2024-12-01"
    # one spelling everywhere: the name the setting has in eval.settings
    for name in ("closed_book", "gold", "rag_dynamic", "rag_2024-06-01"):
        s = parse_setting(name)
        assert cell_label(s.kind, s.cutoff_label) == name


def test_what_the_replies_cost_per_cell_and_per_model_by_hand() -> None:
    from prescient.evaluation.scoring import call_failures

    closed = preds("m", "closed_book", None, ["Yes", "No", None], [None, None, "timeout"])
    closed["prompt_tokens"] = pd.array([10, 20, None], dtype="Int64")
    closed["completion_tokens"] = pd.array([1, 2, None], dtype="Int64")
    closed["cost_usd"] = pd.array([0.5, None, None], dtype="Float64")
    # The RAG cell sent t1's prompt again (same key k0) and one of its own (k9).
    rag = preds("m", "rag", "dynamic", ["Yes", "No"], [None, None])
    rag["ledger_key"] = pd.array(["k0", "k9"], dtype="string")
    rag["prompt_tokens"] = pd.array([10, 40], dtype="Int64")
    rag["completion_tokens"] = pd.array([1, 4], dtype="Int64")
    rag["cost_usd"] = pd.array([0.5, 0.25], dtype="Float64")
    calls = call_failures(pd.concat([closed, rag], ignore_index=True), 0.5)
    cell = calls["cells"]["m"][cell_label("closed_book", None)]
    assert cell == {
        "requests": 3,
        "failed": 1,
        "failed_share": pytest.approx(1 / 3),
        "prompt_tokens": 30,
        "completion_tokens": 3,
        "cost_usd": 0.5,
        "unpriced": 1,  # k1 answered without a price; the failed k2 costs nothing
    }
    assert calls["cells"]["m"][cell_label("rag", "dynamic")]["cost_usd"] == 0.75
    # Per model each distinct request once: k0, k1, k2, k9.
    assert calls["models"]["m"] == {
        "distinct_requests": 4,
        "prompt_tokens": 70,
        "completion_tokens": 7,
        "cost_usd": 0.75,
        "unpriced": 1,
    }
