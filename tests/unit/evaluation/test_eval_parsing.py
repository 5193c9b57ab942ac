"""Answer parsing and refusal detection on responses models really give."""

from __future__ import annotations

import pytest

from prescient.evaluation.parsing import (
    ParsedAnswer,
    is_refusal,
    parse_answer,
)

TF = ["Yes", "No"]
MC = ["Paris", "London", "Rome", "Berlin"]


@pytest.mark.parametrize(
    ("text", "index", "rule"),
    [
        ("Yes", 0, "lead"),
        ("yes.", 0, "lead"),
        ("**No**", 1, "lead"),
        ("No, because the bill has not passed committee yet.", 1, "lead"),
        ("  YES  ", 0, "lead"),
        ('"No"', 1, "lead"),
        ("Answer: Yes", 0, "lead"),
        ("Your answer: No", 1, "lead"),
        ("The answer is No.", 1, "lead"),
        ("True", 0, "lead"),
        ("false", 1, "lead"),
        ("Based on the articles, my prediction is: yes", 0, "marker"),
        ("It seems likely, so yes.", 0, "word"),
        ("Not likely; I'd say no", 1, "word"),
    ],
)
def test_tf_answers(text: str, index: int, rule: str) -> None:
    assert parse_answer(text, "tf", TF) == ParsedAnswer(index, False, False, rule)


@pytest.mark.parametrize(
    ("text", "index", "rule"),
    [
        ("(b)", 1, "lead"),
        ("b)", 1, "lead"),
        ("B", 1, "lead"),
        ("(B)", 1, "lead"),
        ("c.", 2, "lead"),
        ("D: Berlin", 3, "lead"),
        ("[a]", 0, "lead"),
        ("**(d)**", 3, "lead"),
        ("Answer: (c) Paris", 2, "lead"),
        ("The correct answer is (a).", 0, "lead"),
        ("Option C", 2, "lead"),
        ("(c) Rome, since the summit moved there.", 2, "lead"),
        ("I think the answer is b", 1, "marker"),
        ("I would choose option D here.", 3, "marker"),
        ("London", 1, "exact"),
        ("london.", 1, "exact"),
        ("It will most likely be (b) given the polls.", 1, "label"),
        ("The summit will be held in Rome next year.", 2, "choice_text"),
    ],
)
def test_mc_answers(text: str, index: int, rule: str) -> None:
    assert parse_answer(text, "mc", MC) == ParsedAnswer(index, False, False, rule)


def test_overlapping_choice_texts_prefer_the_longest() -> None:
    choices = ["New York", "New York City", "Boston", "Chicago"]
    assert parse_answer("It will be New York City.", "mc", choices).index == 1
    assert parse_answer("Probably New York.", "mc", choices).index == 0


def test_a_sentence_starting_with_the_article_a_is_not_option_a() -> None:
    parsed = parse_answer("A new law will pass in Berlin", "mc", MC)
    assert parsed.index == 3 and parsed.rule == "choice_text"


def test_labels_beyond_the_offered_options_are_ignored() -> None:
    assert parse_answer("(e)", "mc", MC) == ParsedAnswer(None, False, True, "unparsed")
    assert parse_answer("(c)", "mc", ["x", "y"]) == ParsedAnswer(None, False, True, "unparsed")


@pytest.mark.parametrize(
    "text",
    [
        "I cannot predict the future.",
        "As an AI language model, I don't have access to future events.",
        "I'm sorry, but I can't answer that.",
        "It is impossible to predict whether this will happen.",
        "I'm unable to determine the outcome of future events.",
        "The future is uncertain, so I cannot say.",
        "My knowledge cutoff is 2023, so I can't know.",
        "",
        "   ",
        None,
    ],
)
def test_refusals(text: str | None) -> None:
    for qtype, choices in (("tf", TF), ("mc", MC)):
        parsed = parse_answer(text, qtype, choices)
        assert parsed.refused and not parsed.parse_failed and parsed.index is None
    assert is_refusal(text)


def test_a_clear_answer_wins_over_hedging_but_a_weak_one_does_not() -> None:
    hedged = "As an AI I cannot be certain, but the answer is No."
    assert parse_answer(hedged, "tf", TF) == ParsedAnswer(1, False, False, "marker")
    weak = "I cannot predict whether this will happen, yes it might."
    assert parse_answer(weak, "tf", TF) == ParsedAnswer(None, True, False, "refusal")
    assert parse_answer("Yes. As an AI I can't be sure.", "tf", TF).index == 0


@pytest.mark.parametrize(
    ("text", "qtype", "rule"),
    [
        ("Yes or No", "tf", "ambiguous"),
        ("The council approved a new budget on Tuesday.", "tf", "unparsed"),
        ("Yes/No", "tf", "ambiguous"),
        ("(a) or (b)", "mc", "ambiguous"),
        ("Either (b) or (c) could happen.", "mc", "ambiguous"),
        ("Question: Where will the summit be held?", "mc", "unparsed"),
    ],
)
def test_unparseable_non_refusals(text: str, qtype: str, rule: str) -> None:
    parsed = parse_answer(text, qtype, TF if qtype == "tf" else MC)
    assert parsed == ParsedAnswer(None, False, True, rule)
    assert not is_refusal(text)


def test_unknown_qtype_is_an_error() -> None:
    with pytest.raises(ValueError, match="qtype"):
        parse_answer("Yes", "open", TF)
