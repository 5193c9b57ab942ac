"""The leakage audit: each flag, its thresholds, and duplicates across the whole set.

The questions are written for these tests; the one similarity value is worked out by hand
from TF-IDF's definition (smooth idf, sublinear tf, l2 norm).
"""

from __future__ import annotations

import datetime as dt
import functools
import math

import pandas as pd
import pytest

from prescient import duplicates as duplicates_module
from prescient.benchmarks.daily_oracle.leakage import (
    AUDIT_COLUMNS,
    FLAGS,
    LeakageSettings,
    answer_leaks,
    audit,
    distinctive_words,
    phrase_hits,
    summarize,
)
from prescient.duplicates import duplicate_summary, duplicates, question_key
from prescient.plumbing import params
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT

D1, D2, D3 = dt.date(2024, 5, 1), dt.date(2024, 5, 2), dt.date(2024, 5, 3)


@functools.cache
def shipped(*overrides: str) -> LeakageSettings:
    """The shipped `construct.leakage` section, with Hydra overrides."""
    p = params.compose(ROOT, list(overrides))
    return load_settings(LeakageSettings, p, "construct.leakage")


def pool(*rows: tuple[str, str, dt.date, str, str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        rows,
        columns=["question_id", "article_id", "resolution_date", "qtype", "question", "answer"],
    )


# --- the word rules ----------------------------------------------------------------------


def test_distinctive_words_leave_out_stop_words_own_question_words_and_single_letters() -> None:
    assert distinctive_words("the Senate", "Which chamber will pass the bill in May 2024?") == [
        "senate"
    ]
    assert distinctive_words("$1.27 per mile", "What fare will the city charge in 2024?") == [
        "1.27",
        "mile",
    ]
    # "bill" is in its own question: a sibling repeating it gives nothing away.
    assert distinctive_words("the bill", "Which bill will pass in May 2024?") == []
    assert distinctive_words("a b 7 7", "x") == ["7"]  # digits count, letters and repeats not


def test_answer_leaks_as_a_phrase_or_through_enough_of_its_words() -> None:
    own = "Who will sign the bill in May 2024?"
    # The whole answer as a phrase, whatever the overlap threshold.
    assert answer_leaks("Joe Biden", own, "Will Joe Biden veto it in May 2024?", 1.0)
    # One of two distinctive words: exactly at 0.5, so leaked at 0.5 and not above.
    assert answer_leaks("Joe Biden", own, "Will Biden travel in May 2024?", 0.5)
    assert not answer_leaks("Joe Biden", own, "Will Biden travel in May 2024?", 0.51)
    # Words, not substrings: "bidenomics" is not "biden".
    assert not answer_leaks("Joe Biden", own, "Will bidenomics work in 2024?", 0.5)
    assert answer_leaks(
        "$1.27 per mile",
        "What fare will the city charge in 2024?",
        "Will the fare rise to a rate of 1.27 dollars a mile in 2024?",
        1.0,
    )
    # An answer of only stop words and its own question's words cannot leak.
    assert not answer_leaks("the bill", "Which bill will pass?", "Will the bill pass?", 0.1)


def test_phrase_hits_are_whole_words_in_any_case() -> None:
    phrases = shipped().phrases
    assert phrase_hits("ACCORDING TO the report, will rates rise?", phrases) == [
        "according to",
        "the report",
    ]
    assert phrase_hits("Will the articles of association change?", phrases) == []
    assert phrase_hits("Will the reporter resign?", phrases) == []


# --- each flag ---------------------------------------------------------------------------


def test_each_flag_on_its_own_question() -> None:
    questions = pool(
        # a1: an MC answer given away by its own article's TF question
        ("mc1", "a1", D1, "mc", "Which town will host the 2024 fair?", "Port Velden"),
        ("tf1", "a1", D1, "tf", "Will Port Velden host the 2024 fair?", "Yes"),
        # a2 (same day, another article) gives away a3's answer
        ("mc2", "a3", D1, "mc", "Who will chair the harbour board in 2024?", "Ines Calloway"),
        ("tf2", "a2", D1, "tf", "Will Ines Calloway resign from the council in 2024?", "No"),
        # a source phrase
        ("tf3", "a4", D1, "tf", "According to the report, will the dam open in 2024?", "Yes"),
        # the next day: the same question again
        ("tf4", "a5", D2, "tf", "Will the dam open in 2024 according to plans?", "Yes"),
        ("tf5", "a6", D2, "tf", "Will Ormsby build a new stadium in 2025?", "No"),
    )
    out = audit(questions, shipped("construct.leakage.near_duplicate_threshold=0.5"))
    assert list(out.columns) == list(AUDIT_COLUMNS)
    flags = dict(zip(questions["question_id"], out["leakage_flags"], strict=True))
    assert flags == {
        "mc1": "answer_in_article_sibling",
        "tf1": "",  # a Yes/No answer cannot leak as text
        "mc2": "answer_in_day_sibling",
        "tf2": "",
        "tf3": "source_phrase",
        "tf4": "near_duplicate,source_phrase",
        "tf5": "",
    }
    assert out["leakage_flagged"].tolist() == [True, False, True, False, True, True, False]
    dup = out.set_index(questions["question_id"]).loc["tf4"]
    assert dup["leak_near_duplicate_of"] == "tf3" and dup["leak_near_duplicate_similarity"] >= 0.5
    assert out.set_index(questions["question_id"]).loc["tf3", "leak_near_duplicate_of"] is None

    summary = summarize(out, questions["qtype"])
    assert summary == {
        "audited": 7,
        "flagged": 4,
        "by_flag": {
            "answer_in_article_sibling": 1,
            "answer_in_day_sibling": 1,
            "near_duplicate": 1,
            "exact_duplicate": 0,
            "contradictory_duplicate": 0,
            "source_phrase": 2,
        },
        "mc_audited": 2,
        "mc_answers_leaked": 2,
        "mc_answer_leak_rate": 1.0,
    }
    assert set(summary["by_flag"]) == set(FLAGS)


def test_answers_leak_only_within_their_day() -> None:
    questions = pool(
        ("mc1", "a1", D1, "mc", "Who will chair the harbour board in 2024?", "Ines Calloway"),
        ("tf1", "a2", D2, "tf", "Will Ines Calloway resign in 2024?", "No"),
    )
    out = audit(questions, shipped())
    assert not out["leak_answer_in_article_sibling"].any()
    assert not out["leak_answer_in_day_sibling"].any()


# --- the thresholds ------------------------------------------------------------------------


def test_answer_overlap_threshold() -> None:
    questions = pool(
        ("mc1", "a1", D1, "mc", "Who will sign the bill in May 2024?", "Joe Biden"),
        ("tf1", "a2", D1, "tf", "Will Biden travel in May 2024?", "Yes"),
    )
    half = audit(questions, shipped("construct.leakage.answer_overlap=0.5"))
    assert half["leak_answer_in_day_sibling"].tolist() == [True, False]
    strict = audit(questions, shipped("construct.leakage.answer_overlap=1.0"))
    assert strict["leak_answer_in_day_sibling"].tolist() == [False, False]


# "alpha beta" and "alpha gamma": idf(alpha) = ln(3/3) + 1 = 1, idf(beta) = idf(gamma) =
# ln(3/2) + 1; cosine = 1 / (1 + (ln 1.5 + 1)^2).
SIMILARITY = 1 / (1 + (math.log(1.5) + 1) ** 2)


@pytest.mark.parametrize(
    ("threshold", "flagged"), [(0.33, True), (round(SIMILARITY, 6), False), (0.34, False)]
)
def test_near_duplicate_threshold_against_a_hand_computed_similarity(
    threshold: float, flagged: bool
) -> None:
    assert pytest.approx(0.336097, abs=1e-6) == SIMILARITY
    questions = pool(
        ("q1", "a1", D1, "tf", "alpha beta", "Yes"),
        ("q2", "a2", D2, "tf", "alpha gamma", "Yes"),
    )
    s = shipped(f"construct.leakage.near_duplicate_threshold={threshold}")
    out = audit(questions, s)
    assert out["leak_near_duplicate"].tolist() == [False, flagged]
    if flagged:
        assert out["leak_near_duplicate_of"].tolist() == [None, "q1"]
        assert out["leak_near_duplicate_similarity"].tolist()[1] == round(SIMILARITY, 4)
    else:
        assert out["leak_near_duplicate_similarity"].isna().all()


@pytest.mark.parametrize(("window", "flagged"), [("30", True), ("29", False), ("null", True)])
def test_near_duplicate_window_days(window: str, flagged: bool) -> None:
    """A question 30 days later is inside a 30-day window, outside a 29-day one."""
    later = D1 + dt.timedelta(days=30)
    questions = pool(
        ("q1", "a1", D1, "tf", "Will the Harwick ferry resume in June 2024?", "Yes"),
        ("q2", "a2", later, "tf", "Will the Harwick ferry resume in June 2024?", "No"),
    )
    out = audit(questions, shipped(f"construct.leakage.near_duplicate_window_days={window}"))
    assert out["leak_near_duplicate"].tolist() == [False, flagged]


def test_a_question_is_never_a_near_duplicate_of_its_own_day() -> None:
    questions = pool(
        ("q1", "a1", D1, "tf", "Will the Harwick ferry resume in June 2024?", "Yes"),
        ("q2", "a2", D1, "tf", "Will the Harwick ferry resume by June 2024?", "No"),
    )
    assert not audit(questions, shipped())["leak_near_duplicate"].any()


# --- duplicates across the whole set -------------------------------------------------------

HALVERN = "Will Halvern's first light-rail line open in September 2024?"


def test_repeats_far_apart_are_found_and_contradictions_named() -> None:
    """The same question four times, a year apart, answered No, Yes, Yes, No."""
    days = [dt.date(2023, 1, 5), dt.date(2023, 6, 1), dt.date(2024, 2, 1), dt.date(2024, 9, 30)]
    questions = pool(
        *[
            (f"h{k}", f"a{k}", day, "tf", HALVERN, answer)
            for k, (day, answer) in enumerate(zip(days, ["No", "Yes", "Yes", "No"], strict=True))
        ],
        ("other", "a9", dt.date(2023, 3, 1), "tf", "Will Ormsby build a stadium in 2025?", "No"),
    )
    out = audit(questions.iloc[::-1], shipped())  # row order plays no part
    out = out.loc[questions.index]
    assert out["leak_exact_duplicate_of"].tolist() == [None, "h0", "h0", "h0", None]
    assert out["leak_near_duplicate_of"].tolist() == [None, "h0", "h0", "h0", None]
    # the first asking contradicted nothing on its day: only its repeats are flagged
    assert out["leak_contradictory_duplicate"].tolist() == [False, True, True, True, False]
    assert out["leakage_flags"].tolist()[:2] == [
        "",
        "near_duplicate,exact_duplicate,contradictory_duplicate",
    ]
    summary = summarize(out, questions["qtype"])
    assert summary["by_flag"]["exact_duplicate"] == 3
    assert summary["by_flag"]["contradictory_duplicate"] == 3
    dups = duplicates(questions, 0.8)
    keys = [
        question_key(t, q) for t, q in zip(questions["qtype"], questions["question"], strict=True)
    ]
    assert duplicate_summary(dups, keys) == {
        "exact_duplicates": 3,
        "near_duplicates": 3,
        "contradictory_duplicates": 3,
        "contradictory_questions": 1,
    }


def test_exact_duplicates_on_the_same_day_and_agreeing_answers() -> None:
    questions = pool(
        ("q2", "a2", D1, "tf", "Will the Harwick ferry resume in June 2024?", "Yes"),
        ("q1", "a1", D1, "tf", "will the Harwick ferry resume in June, 2024", "Yes"),
        ("q3", "a3", D1, "mc", "Will the Harwick ferry resume in June 2024?", "Perhaps"),
    )
    dups = duplicates(questions, 0.8)
    # normalised words match; the first by (day, id) is q1; an MC question is another one
    assert dups["dup_exact_of"].tolist() == ["q1", None, None]
    assert dups["dup_near_of"].isna().all()  # same day: not compared
    assert not dups["dup_contradicts"].any()


def test_single_digits_tell_questions_apart() -> None:
    questions = pool(
        ("q1", "a1", D1, "tf", "Will Arden win game 6 of the final?", "Yes"),
        ("q2", "a2", D2, "tf", "Will Arden win game 7 of the final?", "No"),
    )
    assert duplicates(questions, 0.8)["dup_near_of"].isna().all()


def test_near_duplicates_pick_the_most_similar_earlier_question_in_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chunking the similarity products changes nothing (one row per chunk here)."""
    questions = pool(
        ("q1", "a1", D1, "tf", "Will the Harwick ferry resume service in June 2024?", "Yes"),
        ("q2", "a2", D1, "tf", "Will the Harwick ferry resume in June 2024?", "Yes"),
        ("q3", "a3", D2, "tf", "Will the Harwick ferry resume in June 2024?", "No"),
        ("q4", "a4", D3, "tf", "Will Ormsby build a stadium in 2025?", "No"),
    )
    whole = duplicates(questions, 0.5)
    monkeypatch.setattr(duplicates_module, "MAX_SIMILARITY_CELLS", 1)
    chunked = duplicates(questions, 0.5)
    pd.testing.assert_frame_equal(whole, chunked)
    assert whole["dup_near_of"].tolist() == [None, None, "q2", None]
    assert whole.loc[2, "dup_similarity"] == 1.0


def test_empty_pool() -> None:
    out = audit(pool(), shipped())
    assert list(out.columns) == list(AUDIT_COLUMNS) and out.empty
    assert summarize(out, pd.Series([], dtype=object)) == {
        "audited": 0,
        "flagged": 0,
        "by_flag": dict.fromkeys(FLAGS, 0),
    }


@pytest.mark.parametrize(
    ("override", "name"),
    [
        ("construct.leakage.answer_overlap=0", "construct.leakage.answer_overlap: "),
        ("construct.leakage.near_duplicate_threshold=1.5", "construct.leakage.near_duplicate"),
        ("construct.leakage.near_duplicate_window_days=0", "construct.leakage.near_duplicate_w"),
        ("construct.leakage.drop_flagged=perhaps", "construct.leakage.drop_flagged: "),
    ],
)
def test_bad_settings_name_the_parameter(override: str, name: str) -> None:
    with pytest.raises(ParamsError) as err:
        shipped(override)
    assert str(err.value).startswith(name) and "\n" not in str(err.value)
