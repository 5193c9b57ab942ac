"""Dataset statistics and the Anderson-Schooler analysis on hand-made tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from prescient.analysis.dataset import (
    anderson_schooler,
    categories_by_month,
    category_table,
    daily_word_sets,
    mc_type_table,
    question_counts,
    questions_by_month,
    recurrence_counts,
    tokenize,
)


def test_tokenize_keeps_runs_of_letters() -> None:
    assert tokenize("Will the U.S. GDP grow 3% by May 2024?") == [
        "will",
        "the",
        "u",
        "s",
        "gdp",
        "grow",
        "by",
        "may",
    ]


def test_recurrence_by_hand() -> None:
    # window 2; days: {a, b}, {a}, {a, c}, {b}
    # day 3: past counts a=2, b=1 -> a (2) appears, b (1) does not
    # day 4: past counts a=2, c=1 -> neither appears (b has past count 0: not counted)
    days = [frozenset("ab"), frozenset("a"), frozenset("ac"), frozenset("b")]
    out = recurrence_counts(days, 2)
    assert out.to_dict("list") == {
        "frequency": [1, 2],
        "n_pairs": [2, 2],
        "n_hits": [0, 1],
        "probability": [0.0, 0.5],
    }


def test_anderson_schooler_fit_and_days_without_documents() -> None:
    dates = ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-09", "2024-01-20"]
    titles = ["Alpha beta", "alpha", "ALPHA", "alpha gamma", "beta"]
    # 2024-01-03..08 have no titles: they are not days where nothing appeared
    assert daily_word_sets(dates, titles) == [
        frozenset({"alpha", "beta"}),
        frozenset({"alpha"}),
        frozenset({"alpha", "gamma"}),
        frozenset({"beta"}),
    ]
    points, fits = anderson_schooler({"article titles": (dates, titles)}, window=2)
    assert points["probability"].tolist() == [0.0, 0.5]
    fit = fits.iloc[0]
    # two points (1, 0) and (2, .5): slope .5, intercept -.5, R^2 = 1
    assert (fit["slope"], fit["intercept"], fit["r2"]) == pytest.approx((0.5, -0.5, 1.0))
    assert (fit["n_days"], fit["n_target_days"], fit["vocabulary"]) == (4, 2, 3)
    assert fit["status"] == "ok"


def test_anderson_schooler_with_too_few_days_says_why() -> None:
    points, fits = anderson_schooler({"TF questions": (["2024-01-01"], ["Will it?"])}, 100)
    assert points.empty
    assert fits.iloc[0]["status"] == "needs more than 100 days with documents, has 1"
    assert math.isnan(fits.iloc[0]["r2"])


def test_stop_words_can_be_dropped() -> None:
    sets = daily_word_sets(["2024-01-01"], ["Will the vote pass"], frozenset({"the", "will"}))
    assert sets == [frozenset({"vote", "pass"})]


QUESTIONS = pd.DataFrame(
    {
        "question_id": ["1", "2", "3", "4", "5", "6"],
        "qtype": ["tf", "mc", "mc", "mc", "tf", "mc"],
        "resolution_date": pd.to_datetime(
            ["2024-01-03", "2024-01-03", "2024-01-20", "2024-03-01", "2024-03-02", "2024-03-02"]
        ).date,
        "category": ["Sports", "Sports", "Other", None, "Sports", "Other"],
        "mc_type": [None, "Who", "What", "What", None, "How many"],
    }
)


def test_question_counts() -> None:
    counts = question_counts(QUESTIONS)
    assert counts["n_questions"] == 6 and counts["n_tf"] == 2 and counts["n_mc"] == 4
    assert (counts["first_date"], counts["last_date"], counts["n_days"]) == (
        "2024-01-03",
        "2024-03-02",
        4,
    )
    assert counts["questions_per_day"] == pytest.approx(1.5)


def test_mc_types_and_categories() -> None:
    types = mc_type_table(QUESTIONS)
    assert types.to_dict("list") == {
        "mc_type": ["What", "How many", "Who"],
        "n": [2, 1, 1],
        "share_pct": [50.0, 25.0, 25.0],
    }
    cats = category_table(QUESTIONS).set_index("category")
    assert cats.loc["Sports", "n"] == 3 and cats.loc["Sports", "n_tf"] == 2
    assert cats.loc["(missing)", "n"] == 1
    assert cats["share_pct"].sum() == pytest.approx(100.0)


def test_categories_and_questions_by_month_keep_empty_months() -> None:
    by_month = categories_by_month(QUESTIONS)
    feb = by_month.query("month == '2024-02'")
    assert len(feb) == 3 and feb["n"].sum() == 0 and feb["share_pct"].isna().all()
    jan = by_month.query("month == '2024-01'").set_index("category")
    assert jan.loc["Sports", "share_pct"] == pytest.approx(200 / 3)
    q = questions_by_month(QUESTIONS)
    assert q.to_dict("list") == {
        "month": ["2024-01", "2024-02", "2024-03"],
        "month_index": [24288, 24289, 24290],
        "n_tf": [1, 0, 1],
        "n_mc": [2, 0, 2],
        "n": [3, 0, 3],
    }


def test_empty_questions_give_empty_tables() -> None:
    empty = QUESTIONS.iloc[0:0]
    assert mc_type_table(empty).empty and category_table(empty).empty
    assert categories_by_month(empty).empty and questions_by_month(empty).empty
    assert question_counts(empty)["n_questions"] == 0
