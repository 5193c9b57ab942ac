"""Every elicitation read as a forecast, scored per row, and the crowd's rows."""

from __future__ import annotations

import datetime as dt
import json
import math

import pandas as pd
import pytest

from prescient.analysis.schema import token_methods
from prescient.evaluation.forecasts import (
    read_forecast,
    row_scores,
    token_method,
)
from prescient.evaluation.predictions import prediction_frame
from prescient.evaluation.scoring import (
    SCORE_COLUMNS,
    cell_metrics,
    score_predictions,
    with_crowd,
)

YN = ["Yes", "No"]
ABCD = ["w", "x", "y", "z"]


def tokens(*logprobs: float | None) -> str:
    return json.dumps({"answers": YN, "logprobs": list(logprobs), "method": "sequence"})


def test_a_label_is_all_probability_on_one_answer_and_an_unread_reply_is_uniform() -> None:
    f = read_forecast("label", "No", "tf", YN)
    assert f.probs == (0.0, 1.0) and f.index == 1 and f.source == "label"
    f = read_forecast("label", "(c)", "mc", ABCD)
    assert f.probs == (0.0, 0.0, 1.0, 0.0) and f.index == 2
    f = read_forecast("label", "I cannot predict the future.", "tf", YN)
    assert f.probs == (0.5, 0.5) and f.index is None and f.refused
    assert f.source == "uniform_fill"


def test_stated_probabilities_keep_what_was_adjusted() -> None:
    f = read_forecast("verbal_probability", "P(Yes) = 70%", "tf", YN)
    assert f.probs == pytest.approx((0.7, 0.3)) and f.index == 0 and f.source == "stated"
    assert f.adjusted is None
    f = read_forecast("verbal_probability", "(a) 10%\n(b) 20%\n(c) 50%\n(d) 40%", "mc", ABCD)
    assert f.probs == pytest.approx((0.1 / 1.2, 0.2 / 1.2, 0.5 / 1.2, 0.4 / 1.2))
    assert f.index == 2 and f.adjusted == "normalized"
    f = read_forecast("verbal_probability", "Maybe.", "tf", YN)
    assert f.probs == (0.5, 0.5) and f.parse_failed and f.source == "uniform_fill"


def test_token_probabilities_are_renormalised_over_the_allowed_answers() -> None:
    f = read_forecast("token_logprobs", tokens(math.log(0.6), math.log(0.2)), "tf", YN)
    assert f.probs == pytest.approx((0.75, 0.25)) and f.index == 0 and f.source == "tokens"
    # the row names how the transport read them: methods differ between transports
    assert f.rule == "tokens:sequence" and token_method(f.rule) == "sequence"
    top = json.dumps({"answers": YN, "logprobs": [-0.1, -2.0], "method": "top_logprobs"})
    assert read_forecast("token_logprobs", top, "tf", YN).rule == "tokens:top_logprobs"
    assert token_method("label") is None and token_method(None) is None
    scores = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "parse_rule": ["tokens:sequence", "yes_no", "tokens:top_logprobs", None],
        }
    )
    assert token_methods(scores) == {
        "a": "whole answer sequence",
        "b": "top tokens at one position",
    }
    f = read_forecast("token_logprobs", "not json", "tf", YN)
    assert f.probs == (0.5, 0.5) and f.parse_failed and f.rule == "no_answer_logprobs"


def test_row_scores_by_hand() -> None:
    # TF, P(Yes) = 0.7, answer No: Brier (0.7 - 0)^2 = 0.49; log -ln 0.3.
    assert row_scores((0.7, 0.3), 1, "tf") == pytest.approx((0.49, -math.log(0.3)))
    # MC (0.1, 0.2, 0.6, 0.1), answer (c): 0.01 + 0.04 + 0.16 + 0.01 = 0.22.
    assert row_scores((0.1, 0.2, 0.6, 0.1), 2, "mc") == pytest.approx((0.22, -math.log(0.6)))
    # A certain wrong answer: the log score is clipped at 1e-6.
    assert row_scores((0.0, 1.0), 0, "tf") == pytest.approx((1.0, -math.log(1e-6)))


QUESTIONS = pd.DataFrame(
    {
        "question_id": ["t1", "m1"],
        "qtype": ["tf", "mc"],
        "choices": [YN, ABCD],
        "answer_index": [0, 2],
        "crowd_prob": [[0.8, 0.2], None],
    }
)


def _preds(elicitation: str, replies: list[str | None]) -> pd.DataFrame:
    return prediction_frame(
        {
            "model": ["m"] * 2,
            "elicitation": [elicitation] * 2,
            "setting": ["closed_book"] * 2,
            "rag_cutoff": [None] * 2,
            "question_id": ["t1", "m1"],
            "qtype": ["tf", "mc"],
            "resolution_date": [dt.date(2024, 3, 1)] * 2,
            "raw_response": replies,
            "error": [None, None],
            "template": ["x"] * 2,
            "template_version": ["1"] * 2,
            "context_article_ids": [[], []],
            "context_words_kept": [None, None],
        }
    )


def test_scores_per_elicitation_and_the_crowd_row() -> None:
    preds = pd.concat(
        [
            _preds("label", ["Yes", "(b)"]),
            _preds("verbal_probability", ["P(Yes) = 60%", "(a) 0%\n(b) 0%\n(c) 100%\n(d) 0%"]),
        ],
        ignore_index=True,
    )
    scores = with_crowd(score_predictions(preds, QUESTIONS), QUESTIONS)
    assert list(scores.columns) == list(SCORE_COLUMNS)
    crowd = scores.loc[scores["model"] == "crowd"]
    # One crowd row per cell for the one question with a crowd forecast.
    assert sorted(crowd["elicitation"]) == ["label", "verbal_probability"]
    assert set(crowd["question_id"]) == {"t1"} and crowd["brier"].tolist() == pytest.approx(
        [0.04, 0.04]
    )
    assert crowd["correct"].all() and set(crowd["prob_source"]) == {"crowd"}
    m = cell_metrics(scores)
    # The papers' cells come from the label rows alone.
    assert m["cells"]["m"]["closed_book"]["all"]["n"] == 2
    assert m["cells"]["m"]["closed_book"]["all"]["accuracy"] == 0.5
    verbal = m["elicitations"]["verbal_probability"]["m"]["closed_book"]["all"]
    # TF: (0.6 - 1)^2 = 0.16; MC: certain and right, 0.
    assert verbal["brier"] == pytest.approx(0.08) and verbal["accuracy"] == 1.0
    label = m["elicitations"]["label"]["m"]["closed_book"]["all"]
    # TF right (0), MC wrong with all mass on (b): 1 + 1 = 2.
    assert label["brier"] == pytest.approx(1.0)
    assert m["elicitations"]["label"]["crowd"]["closed_book"]["all"]["n"] == 1


def test_predictions_without_an_elicitation_are_label_answers() -> None:
    old = _preds("label", ["No", "(c)"]).drop(columns="elicitation")
    scores = score_predictions(old, QUESTIONS)
    assert scores["elicitation"].tolist() == ["label", "label"]
    assert scores["probs"].tolist() == [[0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]


def test_a_scratchpad_reply_is_read_after_its_marker_and_names_its_answer_there() -> None:
    from prescient.evaluation.forecasts import read_forecast

    reply = "Answer: Yes looked tempting.\nFinal forecast:\nP(Yes) = 50%\nAnswer: No"
    got = read_forecast("scratchpad", reply, "tf", ["Yes", "No"])
    assert got.probs == (0.5, 0.5) and got.index == 1  # the tie broken by the final answer
    missing = read_forecast("scratchpad", "P(Yes) = 70%", "tf", ["Yes", "No"])
    assert missing.parse_failed and missing.probs == (0.5, 0.5)  # uniform fill
