"""Parsers of the construction steps, on replies shaped like what real models return.

Each case is a reply written for this project in the ways models stray from the asked
format (prose around the answer, markdown, other numbering, missing or extra fields,
scores as words). The parsers must recover the content or return an error: never raise,
never invent.
"""

from __future__ import annotations

import pytest

from prescient.benchmarks.daily_oracle.parse import (
    parse_category,
    parse_distractors,
    parse_generation,
)
from prescient.benchmarks.daily_oracle.parse_scores import parse_filter, total_score
from prescient.replies import parse_summary, yes_no
from prescient.vocab import MC_TYPES, PRINCIPLES, accepted, mc_type

# --- step 1 ---------------------------------------------------------------------------


def test_summary_in_the_asked_format() -> None:
    r = parse_summary(
        "Summary: The council of Brenna approved a new harbour budget of 4 million.\n"
        "Key point: Brenna's council approved a 4 million harbour budget on 2024-02-03."
    )
    assert r.ok and not r.no_new_event
    assert r.summary is not None and r.summary.startswith("The council of Brenna")
    assert r.keypoint == "Brenna's council approved a 4 million harbour budget on 2024-02-03."


@pytest.mark.parametrize(
    "reply",
    [
        "Sure! Here is what you asked for.\n\n**Summary:** A ferry line closed.\n\n"
        "**Key Point:** The Osk ferry line closed on 2023-05-02.\n\nLet me know if ...",
        "## Summary\nA ferry line closed.\n\n## Key point\nThe Osk ferry line closed on 2023-05-02.",
        'Summary: A ferry line closed.\nKeypoint: "The Osk ferry line closed on 2023-05-02."',
        "SUMMARY: A ferry line closed.\nKEY POINTS: The Osk ferry line closed on 2023-05-02.\n"
        "Key point: a repeated second key point the parser must ignore",
    ],
)
def test_summary_variants(reply: str) -> None:
    r = parse_summary(reply)
    assert r.ok, r.error
    assert r.summary == "A ferry line closed."
    assert r.keypoint == "The Osk ferry line closed on 2023-05-02."


@pytest.mark.parametrize(
    "reply",
    [
        "Summary: A guide to winter tyres.\nKey point: No new event reported.",
        "Summary: A guide.\nKey point: no new events reported",
        "No new event reported.",
    ],
)
def test_no_new_event(reply: str) -> None:
    r = parse_summary(reply)
    assert r.ok and r.no_new_event


@pytest.mark.parametrize("reply", ["", "   ", None, "The article is about a ferry."])
def test_summary_without_a_key_point_is_an_error(reply: str | None) -> None:
    r = parse_summary(reply)
    assert not r.ok and r.error
    assert not r.no_new_event


# --- step 2 ---------------------------------------------------------------------------

CLEAN_GENERATION = """Question 1: Will the Osk ferry line close by May 2023?
Answer 1: Yes
Question 2: Will the Osk ferry line add a night service by May 2023?
Answer 2: No
Question 3: Which company will take over the Osk route in May 2023?
Answer 3: Nordlys Shipping
Question 4: How many crossings a day will the Osk line offer in May 2023?
Answer 4: Four"""


def _pairs(reply: str) -> list[tuple[int, str, str | None]]:
    r = parse_generation(reply)
    assert r.ok, r.error
    return [(p.slot, p.question, p.answer) for p in r.pairs]


def test_generation_in_the_asked_format() -> None:
    pairs = _pairs(CLEAN_GENERATION)
    assert [p[0] for p in pairs] == [1, 2, 3, 4]
    assert pairs[0] == (1, "Will the Osk ferry line close by May 2023?", "Yes")
    assert pairs[2][2] == "Nordlys Shipping"


@pytest.mark.parametrize(
    "reply",
    [
        # markdown labels and chatter around the pairs
        "Here are four questions:\n\n"
        + CLEAN_GENERATION.replace("Question ", "**Question ").replace(": ", ":** ", 0)
        + "\n\nI hope these help!",
        # Q1/A1 short labels
        CLEAN_GENERATION.replace("Question ", "Q").replace("Answer ", "A"),
        # numbered list with labels inside
        "1. Question: Will the Osk ferry line close by May 2023?\n   Answer: Yes\n"
        "2. Question: Will the Osk ferry line add a night service by May 2023?\n   Answer: No\n"
        "3. Question: Which company will take over the Osk route in May 2023?\n"
        "   Answer: Nordlys Shipping\n"
        "4. Question: How many crossings a day will the Osk line offer in May 2023?\n"
        "   Answer: Four",
        # answers inline after the question mark
        "1. Will the Osk ferry line close by May 2023? Answer: Yes\n"
        "2. Will the Osk ferry line add a night service by May 2023? - No\n"
        "3. Which company will take over the Osk route in May 2023? Answer: Nordlys Shipping\n"
        "4. How many crossings a day will the Osk line offer in May 2023? Answer: Four",
        # label alone on its line, text below
        "Question 1:\nWill the Osk ferry line close by May 2023?\nAnswer 1:\nYes\n"
        "Question 2:\nWill the Osk ferry line add a night service by May 2023?\nAnswer 2:\nNo\n"
        "Question 3:\nWhich company will take over the Osk route in May 2023?\n"
        "Answer 3:\nNordlys Shipping\n"
        "Question 4:\nHow many crossings a day will the Osk line offer in May 2023?\n"
        "Answer 4:\nFour",
    ],
)
def test_generation_variants(reply: str) -> None:
    pairs = _pairs(reply)
    assert len(pairs) == 4, pairs
    assert [p[0] for p in pairs] == [1, 2, 3, 4]
    assert yes_no(pairs[0][2]) == "Yes" and yes_no(pairs[1][2]) == "No"
    assert pairs[2][1] == "Which company will take over the Osk route in May 2023?"
    assert pairs[2][2] == "Nordlys Shipping"
    assert pairs[3][2] == "Four"


def test_generation_keeps_a_fifth_question_and_missing_answers() -> None:
    reply = (
        CLEAN_GENERATION.replace("Answer 4: Four", "")
        + "\nQuestion 5: Will the Osk line reopen in June 2023?\nAnswer 5: No"
    )
    pairs = _pairs(reply)
    assert [p[0] for p in pairs] == [1, 2, 3, 4, 5]
    assert pairs[3][2] is None  # no answer: kept, the stage marks it invalid
    assert pairs[4] == (5, "Will the Osk line reopen in June 2023?", "No")


def test_generation_renumbers_repeated_labels() -> None:
    reply = "Question 1: Will A happen in 2023?\nAnswer: Yes\nQuestion 1: Will B happen in 2023?\nAnswer: No"
    assert [p[0] for p in _pairs(reply)] == [1, 2]


def test_generation_question_wrapped_over_lines() -> None:
    reply = "Question 1: Will the Osk ferry line\nclose by May 2023?\nAnswer 1: Yes"
    assert _pairs(reply) == [(1, "Will the Osk ferry line close by May 2023?", "Yes")]


@pytest.mark.parametrize("reply", ["", None, "I cannot write questions about this article."])
def test_generation_without_questions_is_an_error(reply: str | None) -> None:
    r = parse_generation(reply)
    assert not r.ok and r.pairs == ()


# --- step 3 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "(b) Halvik Lines\n(c) Sund Ferries\n(d) Baltic Crossways",
        "Sure, here are three wrong answers:\n\n**(b)** Halvik Lines\n**(c)** Sund Ferries\n"
        "**(d)** Baltic Crossways\n\nThese are plausible but wrong.",
        # the model echoes the correct answer as (a): it must not become a distractor
        "(a) Nordlys Shipping\n(b) Halvik Lines\n(c) Sund Ferries\n(d) Baltic Crossways",
        "- Halvik Lines\n- Sund Ferries\n- Nordlys Shipping\n- Baltic Crossways",
        "B. Halvik Lines.\nC. Sund Ferries.\nD. Baltic Crossways.",
        "Wrong answers:\nHalvik Lines\nSund Ferries\nBaltic Crossways",
    ],
)
def test_distractor_variants(reply: str) -> None:
    r = parse_distractors(reply, "Nordlys Shipping", 3)
    assert r.ok, r.error
    assert r.options == ("Halvik Lines", "Sund Ferries", "Baltic Crossways")


def test_distractors_keep_decimal_numbers_and_drop_duplicates() -> None:
    r = parse_distractors("(b) 2.5\n(c) 2.5\n(d) 3.75\n(e) 4.0", "1.25", 3)
    assert r.options == ("2.5", "3.75", "4.0")


@pytest.mark.parametrize(
    "reply",
    ["", "(b) Nordlys Shipping\n(c) Halvik Lines", "(b) Halvik\n(c) halvik\n(d) HALVIK."],
)
def test_too_few_distractors_is_an_error(reply: str) -> None:
    r = parse_distractors(reply, "Nordlys Shipping", 3)
    assert not r.ok and r.error


# --- step 4 ---------------------------------------------------------------------------

NAMES = [
    "Correctness",
    "Only Answerable on Publishing Date",
    "No New Information",
    "Objectivity",
    "Inclusion of a Clear Temporal Element",
    "Public Interest",
    "Answer Not Too Obvious",
]


def _blocks(points: list[str], fmt: str) -> str:
    return "\n".join(fmt.format(name=n, p=p) for n, p in zip(NAMES, points, strict=True))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            _blocks(
                ["2", "2", "2", "2", "2", "1", "2"],
                "## {name}\n- Reasoning: fine.\n- Point: {p}\n",
            ),
            [2, 2, 2, 2, 2, 1, 2],
        ),
        (
            "Let me rate the question.\n\n"
            + _blocks(
                ["two", "one", "zero", "two", "two", "two", "one"],
                "**{name}**: The question is fine. Score: {p}\n",
            )
            + "\nTotal: 14/14",  # the model's own (wrong) total is ignored
            [2, 1, 0, 2, 2, 2, 1],
        ),
        (
            _blocks(["2", "2", "1", "2", "2", "2", "2"], "{name} - {p}/2"),
            [2, 2, 1, 2, 2, 2, 2],
        ),
        (
            _blocks(["2", "2", "2", "2", "0", "2", "2"], "1. {name}: it is clear.\n{p} points"),
            [2, 2, 2, 2, 0, 2, 2],
        ),
        (
            '{"correctness": 2, "only_answerable_on_date": 2, "no_new_information": 1, '
            '"objectivity": 2, "clear_time_element": 2, "public_interest": 2, "not_obvious": 2}',
            [2, 2, 1, 2, 2, 2, 2],
        ),
    ],
)
def test_filter_variants(reply: str, expected: list[int]) -> None:
    r = parse_filter(reply)
    assert r.ok, r.error
    assert [r.scores[k] for k in PRINCIPLES] == expected
    assert total_score(r.scores) == sum(expected)


def test_filter_missing_and_out_of_range_scores_are_errors_that_keep_what_was_found() -> None:
    reply = _blocks(["2", "2", "2", "5", "2", "2", "2"], "## {name}\n- Point: {p}\n")
    reply = reply.split("## Answer Not Too Obvious")[0]
    r = parse_filter(reply)
    assert not r.ok
    assert r.missing == ("not_obvious",)
    assert r.invalid == {"objectivity": "5"}
    assert r.scores["correctness"] == 2
    assert "not_obvious" in (r.error or "") and "objectivity=5" in (r.error or "")


def test_filter_stops_at_a_second_block() -> None:
    first = _blocks(["2"] * 7, "## {name}\n- Point: {p}\n")
    second = _blocks(["0"] * 7, "## {name}\n- Point: {p}\n")
    r = parse_filter(first + "\n" + second)
    assert r.ok and total_score(r.scores) == 14


@pytest.mark.parametrize("reply", ["", None, "This question looks good to me."])
def test_filter_without_scores_is_an_error(reply: str | None) -> None:
    r = parse_filter(reply)
    assert not r.ok and r.missing == PRINCIPLES


def test_accept_rule() -> None:
    assert accepted(13, 13) and accepted(14, 13)
    assert not accepted(12, 13) and not accepted(None, 13)


# --- step 5 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "category"),
    [
        ("Sports", "Sports"),
        ("Category: Economics and Business", "Economics & Business"),
        ("**Politics & Governance**", "Politics & Governance"),
        ("The question is about an election, so Politics.", "Politics & Governance"),
        ("It concerns a hospital budget (healthcare).", "Healthcare & Biology"),
        ("other", "Other"),
    ],
)
def test_categories(reply: str, category: str) -> None:
    assert parse_category(reply) == (category, None)


def test_no_category_is_an_error() -> None:
    cat, err = parse_category("I am not sure.")
    assert cat is None and err


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What will the council decide in May 2024?", "What"),
        ("By May 2024, which company will win the tender?", "Which"),
        ("Who will chair the committee in 2024?", "Who"),
        ("Whom will the party nominate in 2024?", "Who"),
        ("How many seats will the party win in 2024?", "How many"),
        ("How much will the fare rise in 2024?", "How much"),
        ("Where will the summit be held in 2024?", "Where"),
        ("Whose plan will the board adopt in 2024?", "Who"),
        ("When will the bridge open?", "Other"),
    ],
)
def test_mc_types(question: str, kind: str) -> None:
    assert mc_type(question) == kind
    assert kind in MC_TYPES  # the paper's vocabulary, not a spelling of the parser's own


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("Yes", "Yes"), ("**No.**", "No"), ("yes, it will", "Yes"), ("Maybe", None), ("", None)],
)
def test_yes_no(answer: str, expected: str | None) -> None:
    assert yes_no(answer) == expected


@pytest.mark.parametrize(
    ("reply", "scores"),
    [
        ("Scores: 2 2 2 2 2 2 1", [2, 2, 2, 2, 2, 2, 1]),
        ("scores = 1,1,0,2,0,1,1.", [1, 1, 0, 2, 0, 1, 1]),
        ("Here you go.\n**Scores:** 2 1 2 2 2 2 2\nThanks", [2, 1, 2, 2, 2, 2, 2]),
        ("2 2 2 2 2 2 2", [2] * 7),
    ],
)
def test_filter_scores_on_one_line(reply: str, scores: list[int]) -> None:
    parsed = parse_filter(reply)
    assert parsed.ok and [parsed.scores[p] for p in PRINCIPLES] == scores


@pytest.mark.parametrize(
    "reply", ["Scores: 2 2 2 2 2 2", "Scores: 2 2 2 2 2 2 3", "Scores: 22 2 2 2 2 2 2"]
)
def test_a_score_line_of_the_wrong_length_or_range_is_not_read(reply: str) -> None:
    assert not parse_filter(reply).ok
