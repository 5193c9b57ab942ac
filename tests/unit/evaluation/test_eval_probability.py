"""The probability parser on realistic and malformed replies, with hand-read answers."""

from __future__ import annotations

import pytest

from prescient.evaluation.probability import parse_probability

TF = ["Yes", "No"]
MC = ["Paris", "Rome", "Berlin", "Madrid"]

# reply -> P(Yes), rule
TF_REPLIES = [
    ("70%", 0.7, "single"),
    ("0.7", 0.7, "single"),
    ("P(Yes) = 0.7", 0.7, "sides"),
    ("P(No) = 0.3", 0.7, "sides"),
    ("Probability of No: 30 percent", 0.7, "sides"),
    ("Yes: 0.65\nNo: 0.35", 0.65, "sides"),
    ("**Yes** (80%)", 0.8, "sides"),
    ("No, 80%", 0.2, "sides"),
    ("I'd put a 25% chance of yes on this.", 0.25, "sides"),
    ("Probability: 70", 0.7, "single"),
    ('{"probability": 0.42}', 0.42, "json"),
    ('Here is my forecast: {"yes": 0.6, "no": 0.4}', 0.6, "json"),
    ('```json\n{"p_yes": "55%"}\n```', 0.55, "json"),
    ("Based on events in 2024, I estimate about 65% for this.", 0.65, "single"),
    ("The probability is 0.35 (35%).", 0.35, "single"),
    ("I would say ~.9", 0.9, "single"),
    ("Answer: No\nConfidence: 80%", 0.2, "confidence"),
    ("I think yes. 2 reasons: 90% sure", 0.9, "confidence"),
]


@pytest.mark.parametrize(("reply", "p_yes", "rule"), TF_REPLIES)
def test_true_false_replies(reply: str, p_yes: float, rule: str) -> None:
    got = parse_probability(reply, "tf", TF)
    assert got.rule == rule
    assert got.probs == pytest.approx((p_yes, 1 - p_yes))
    assert not got.refused and not got.parse_failed
    assert got.index == (0 if p_yes >= 0.5 else 1)


def test_out_of_range_is_clamped_and_counted() -> None:
    got = parse_probability("P(Yes) = 120%", "tf", TF)
    assert got.probs == (1.0, 0.0) and got.clamped
    assert parse_probability("-0.2", "tf", TF).probs == (0.0, 1.0)


def test_both_sides_not_summing_to_one_are_normalized_and_counted() -> None:
    got = parse_probability("Yes: 60%, No: 60%", "tf", TF)
    assert got.probs == pytest.approx((0.5, 0.5)) and got.normalized


@pytest.mark.parametrize(
    ("reply", "probs", "rule", "normalized", "filled"),
    [
        ("(a) 60%, (b) 20%, (c) 10%, (d) 10%", (0.6, 0.2, 0.1, 0.1), "options", False, False),
        ("A: 0.5\nB: 0.3\nC: 0.1\nD: 0.1", (0.5, 0.3, 0.1, 0.1), "options", False, False),
        ("(b) 60%", (0.4 / 3, 0.6, 0.4 / 3, 0.4 / 3), "options", False, True),
        ('{"a": 1, "b": 1, "c": 0, "d": 0}', (0.5, 0.5, 0.0, 0.0), "json", True, False),
        (
            "Option C is most likely at 70%, option A at 30%.",
            (0.3, 0, 0.7, 0),
            "options",
            False,
            False,
        ),
        ("a) 40% b) 40% c) 40% d) 40%", (0.25, 0.25, 0.25, 0.25), "options", True, False),
        ("b) Rome - 55%\na) Paris - 45%", (0.45, 0.55, 0, 0), "options", False, False),
        ("Answer: (c)\nConfidence: 70%", (0.1, 0.1, 0.7, 0.1), "confidence", False, True),
    ],
)
def test_multiple_choice_replies(
    reply: str, probs: tuple[float, ...], rule: str, normalized: bool, filled: bool
) -> None:
    got = parse_probability(reply, "mc", MC)
    assert got.probs == pytest.approx(probs)
    assert (got.rule, got.normalized, got.filled) == (rule, normalized, filled)
    assert sum(got.probs or ()) == pytest.approx(1.0)


def test_a_bare_article_is_not_an_option() -> None:
    got = parse_probability("There is a 60% chance it is (b).", "mc", MC)
    assert got.parse_failed and got.rule == "unparsed"


def test_the_most_probable_option_is_the_label_and_ties_go_first() -> None:
    assert parse_probability("(c) 50%, (d) 50%", "mc", MC).index == 2


@pytest.mark.parametrize(
    ("reply", "qtype", "label", "probs"),
    [
        # A tie goes to the option the reply names on a line of its own ...
        ("(c) 50%, (d) 50%\nAnswer: (d)", "mc", 3, (0.0, 0.0, 0.5, 0.5)),
        ("P(Yes) = 50%\nAnswer: No", "tf", 1, (0.5, 0.5)),
        ("P(Yes) = 50%\n  answer: no.", "tf", 1, (0.5, 0.5)),
        # ... never against the probabilities, and not to an option it does not offer ...
        ("(c) 60%, (d) 40%\nAnswer: (d)", "mc", 2, (0.0, 0.0, 0.6, 0.4)),
        ("(c) 50%, (d) 50%\nAnswer: (f)", "mc", 2, (0.0, 0.0, 0.5, 0.5)),
        # ... and an answer inside a sentence is not a named answer.
        ("P(Yes) = 50%. My answer: No, probably", "tf", 0, (0.5, 0.5)),
    ],
)
def test_a_tie_goes_to_the_answer_the_reply_names(
    reply: str, qtype: str, label: int, probs: tuple[float, ...]
) -> None:
    from prescient.evaluation.forecasts import read_forecast

    f = read_forecast("verbal_probability", reply, qtype, TF if qtype == "tf" else MC)
    assert (f.index, f.probs) == (label, probs)


@pytest.mark.parametrize(
    ("reply", "refused", "failed", "rule"),
    [
        ("", True, False, "empty"),
        (None, True, False, "empty"),
        ("I cannot predict the future.", True, False, "refusal"),
        ("As an AI, I don't know.", True, False, "refusal"),
        ("Yes", False, True, "unparsed"),
        ("Between 2023 and 2025 it went from 10 to 20.", False, True, "unparsed"),
        ("Yes: 0%, No: 0%", False, True, "unparsed"),
    ],
)
def test_no_probability(reply: str | None, refused: bool, failed: bool, rule: str) -> None:
    got = parse_probability(reply, "tf", TF)
    assert (got.probs, got.refused, got.parse_failed, got.rule) == (None, refused, failed, rule)
    assert got.index is None


# The scratchpad's one extraction rule ------------------------------------------------


def test_only_what_follows_the_last_final_forecast_line_is_read() -> None:
    from prescient.evaluation.probability import NO_FINAL, final_forecast, parse_final_probability

    reply = (
        "Step 1: the council voted 70% in favour last year.\n"
        "Step 2: P(Yes) = 90% would be too confident.\n"
        "Final forecast:\nP(Yes) = 35%"
    )
    assert final_forecast(reply) == "P(Yes) = 35%"
    got = parse_final_probability(reply, "tf", ["Yes", "No"])
    assert got.probs == (0.35, 0.65)  # not the 70% or 90% weighed on the way
    # Markdown around the marker, any case, the forecast on the same line
    assert final_forecast("thinking...\n**Final Forecast:** P(Yes) = 20%") == "P(Yes) = 20%"
    assert final_forecast("## final forecast: (a) 10%\n(b) 90%") == "(a) 10%\n(b) 90%"
    # the last marker wins; a marker mid-line is not a marker
    assert final_forecast("Final forecast: 10%\nno, wait.\nFinal forecast: 30%") == "30%"
    assert final_forecast("my Final forecast: 40%") is None
    # no marker: a parse failure, never a number picked out of the reasoning
    none = parse_final_probability("P(Yes) = 80% seems right", "tf", ["Yes", "No"])
    assert none.probs is None and none.parse_failed and none.rule == NO_FINAL
    assert parse_final_probability("Final forecast:", "tf", ["Yes", "No"]).rule == NO_FINAL
    refused = parse_final_probability("I cannot predict the future.", "tf", ["Yes", "No"])
    assert refused.refused and refused.probs is None
    mc = parse_final_probability(
        "(a) looks likely at 60%.\nFinal forecast:\n(a) 10%\n(b) 70%\n(c) 10%\n(d) 10%",
        "mc",
        ["a", "b", "c", "d"],
    )
    assert mc.probs == pytest.approx((0.1, 0.7, 0.1, 0.1))
