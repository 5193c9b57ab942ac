"""LRAE's pure parts: the splitter on tricky lists, the judge's replies, the metric."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from prescient.benchmarks.openforecast.lrae.judge import Match, parse_match, parse_yes_no
from prescient.benchmarks.openforecast.lrae.run import evaluate
from prescient.benchmarks.openforecast.lrae.split import split_predictions
from prescient.benchmarks.openforecast.metrics import (
    FP,
    MTP,
    REPEAT,
    TP,
    Counts,
    count,
    macro,
)
from prescient.benchmarks.openforecast.prompts import load_role_template
from prescient.benchmarks.openforecast.settings import LraeSettings
from prescient.benchmarks.openforecast.text import jaccard, near_duplicates
from prescient.llm.types import LLMRequest, LLMResult
from prescient.plumbing import params
from prescient.settings import load_settings
from tests.conftest import ROOT


def test_a_year_ending_a_sentence_is_not_a_list_marker() -> None:
    text = "1. Prices rose in 2022. 2. The bank cut rates to 5. 3. Unions struck in 2023."
    assert split_predictions(text) == [
        "Prices rose in 2022.",
        "The bank cut rates to 5.",
        "Unions struck in 2023.",
    ]


def test_items_from_ten_on_keep_their_text() -> None:
    text = "\n".join(f"{i}. Event number {i} happens." for i in range(1, 13))
    items = split_predictions(text)
    assert len(items) == 12
    assert items[8:] == [f"Event number {i} happens." for i in range(9, 13)]


def test_preamble_and_epilogue_are_not_predictions() -> None:
    text = (
        "The most likely events on 2024-01-16 are:\n"
        "1. The council will approve the budget.\n"
        "2) The mayor will resign,\n   after a vote of no confidence.\n"
        "\n"
        "I hope this helps."
    )
    assert split_predictions(text) == [
        "The council will approve the budget.",
        "The mayor will resign, after a vote of no confidence.",
    ]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("(1) A strike begins (2) Talks fail", ["A strike begins", "Talks fail"]),
        (
            "1. A strike begins; 2. Talks fail; 3. Prices rise",
            ["A strike begins", "Talks fail", "Prices rise"],
        ),
        (
            "- A strike begins.\n* Talks fail.\n• Prices rise.",
            ["A strike begins.", "Talks fail.", "Prices rise."],
        ),
        ("Predictions:\nA strike begins.\n\nTalks fail.", ["A strike begins.", "Talks fail."]),
        ("A strike begins at the port in 2024.", ["A strike begins at the port in 2024."]),
        ("Costs rose to 5. Then 1. A strike 2. Talks fail", ["A strike", "Talks fail"]),
        ("1.5 million people will vote.", ["1.5 million people will vote."]),
        ("", []),
        ("   \n ", []),
        (None, []),
    ],
)
def test_splitter_on_tricky_lists(text: str | None, items: list[str]) -> None:
    assert split_predictions(text) == items


def test_near_duplicates_keep_the_first_of_a_group() -> None:
    texts = [
        "The bank cuts rates.",
        "The bank cuts its rates!",
        "A strike begins.",
        "the bank cuts rates",
    ]
    assert jaccard(texts[0], texts[1]) == 0.8  # 4 shared words of 5
    assert near_duplicates(texts, 0.8) == [None, 0, None, 0]
    assert near_duplicates(texts, 0.9) == [None, None, None, 0]


def test_yes_is_a_word_not_a_prefix() -> None:
    assert parse_yes_no("Yesterday the council met.") is None
    assert parse_yes_no("yesterday... the answer is yes") is True
    assert parse_yes_no("No, nothing supports it. Yes-men aside.") is False
    assert parse_yes_no("The answer is Yes.") is True
    assert parse_yes_no("Nobody knows; not stated.") is None


def test_stage_one_replies() -> None:
    reply = "According to the given information, the answer is Yes, and the index is: (2)"
    assert parse_match(reply, 3) == Match(True, 2)
    assert parse_match("Yes, label 3 states it.", 3) == Match(True, 3)
    assert parse_match("Yes (4)", 3) == Match(False, None, "yes with index 4 outside 1..3")
    assert parse_match("Yes (0)", 3).matched is False
    assert parse_match("Yes.", 1) == Match(True, 1)
    assert parse_match("Yes.", 3) == Match(False, None, "yes without a label index")
    assert parse_match("No (2)", 3) == Match(False, None)
    assert parse_match("Yesterday (2)", 3) == Match(False, None, "neither yes nor no")


def test_hand_computed_sample() -> None:
    """3 labels, 4 predictions: labels 1 and 3 matched, one supported by evidence, one
    false: TP 2, MTP 1, FP 1, FN 1, so P = 3/4, R = 3/4, F1 = 0.75."""
    c = count([TP, MTP, TP, FP], [1, None, 3, None], n_labels=3, repeat_match="ignore")
    assert c == Counts(tp=2, mtp=1, fp=1, fn=1)
    assert (c.precision, c.recall, c.f1) == (0.75, 0.75, 0.75)


def test_a_label_matched_twice_counts_once() -> None:
    verdicts, labels = [TP, REPEAT, FP], [2, 2, None]
    ignore = count(verdicts, labels, n_labels=2, repeat_match="ignore")
    assert ignore == Counts(tp=1, mtp=0, fp=1, fn=1)
    assert (ignore.precision, ignore.recall) == (0.5, 0.5)
    strict = count(verdicts, labels, n_labels=2, repeat_match="false_positive")
    assert strict == Counts(tp=1, mtp=0, fp=2, fn=1)
    assert strict.precision == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        count([TP, TP], [1, 1], n_labels=2, repeat_match="ignore")


def test_empty_prediction_scores_zero_and_perfect_scores_one() -> None:
    empty = count([], [], n_labels=3, repeat_match="ignore")
    assert empty == Counts(0, 0, 0, 3) and (empty.precision, empty.recall, empty.f1) == (0, 0, 0)
    oracle = count([TP, TP, TP], [1, 2, 3], n_labels=3, repeat_match="ignore")
    assert (oracle.precision, oracle.recall, oracle.f1) == (1.0, 1.0, 1.0)
    # Only supported extra predictions: recall counts them too (formula 2).
    extra = count([MTP, MTP], [None, None], n_labels=2, repeat_match="ignore")
    assert (extra.precision, extra.recall) == (1.0, 0.5)


def test_macro_average_and_seeded_bootstrap() -> None:
    m = macro([1.0, 0.0, 0.5, 0.5], reps=2000, confidence=0.95, seed=3)
    assert m.value == 0.5 and m.n == 4
    assert 0.0 <= m.low < 0.5 < m.high <= 1.0
    assert macro([1.0, 0.0, 0.5, 0.5], reps=2000, confidence=0.95, seed=3) == m
    # one sample: the value, no interval (every resample would be that sample)
    one = macro([0.7], reps=100, confidence=0.9, seed=1)
    assert (one.value, one.n) == (0.7, 1) and math.isnan(one.low) and math.isnan(one.high)
    none = macro([], reps=100, confidence=0.9, seed=1)
    assert none.n == 0 and math.isnan(none.value)


def test_the_last_item_of_a_cut_reply_is_not_judged() -> None:
    s = load_settings(LraeSettings, params.compose(ROOT), "openforecast.lrae")
    prompts = ROOT / "conf" / "prompts" / "openforecast" / "lrae"
    templates = {r: load_role_template(prompts, r, r) for r in ("match", "evidence", "aqa_judge")}
    sample = {
        "sample_id": "s1",
        "task": "stf",
        "split": "test",
        "split_date": "2024-01-16",
        "chain_end": "2024-06-01",
        "targets": ["The bank cut rates.", "Unions struck."],
        "question": None,
        "answer": None,
    }
    judged: list[str] = []

    def complete(reqs: list[LLMRequest], desc: str) -> list[LLMResult]:
        judged.extend(str(r.messages[-1]["content"]) for r in reqs)
        return [LLMResult(r, "k" * 64, ok=True, text="Yes (1)") for r in reqs]

    reply = "1. The bank cuts rates.\n2. Prices fall.\n3. The unio"
    preds = pd.DataFrame(
        {
            "sample_id": ["s1", "s1"],
            "model": ["cut", "whole"],
            "task": ["stf", "stf"],
            "response": [reply, reply],
            "finish_reason": ["length", "stop"],
            "error": [None, None],
        }
    )
    result = evaluate(pd.DataFrame([sample]), preds, templates, s, complete, None)
    j = result.judgements.set_index(["model", "item"])
    assert j.loc[("cut", 2), "verdict"] == "truncated"
    assert j.loc[("whole", 2), "verdict"] == "repeat"  # judged: the weak judge says label 1
    scores = result.scores.set_index("model")
    assert scores.loc["cut", "n_atomic"] == 2 and scores.loc["whole", "n_atomic"] == 3
    assert len(judged) == 5
