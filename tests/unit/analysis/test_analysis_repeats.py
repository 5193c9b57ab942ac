"""Repeated questions across the evaluated set, and gold rows that had no gold article."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from prescient.evaluation.settings import NO_GOLD_ARTICLE
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

HALVERN = "Will Halvern's first light-rail line open in September 2024?"
DAYS = ["2023-01-05", "2023-06-01", "2024-02-01", "2024-09-30"]


def imported() -> tuple[pd.DataFrame, pd.DataFrame]:
    """An imported set asking one question four times (gold No, Yes, Yes, No), two other
    questions, and one model's closed-book scores on all six (every answer correct)."""
    rows = []
    for k, (day, answer) in enumerate(zip(DAYS, ["No", "Yes", "Yes", "No"], strict=True)):
        rows.append((f"h{k}", day, HALVERN, answer))
    rows.append(("o1", "2023-03-01", "Will Ormsby build a new stadium in 2025?", "No"))
    rows.append(("o2", "2023-03-02", "Will the Tarn bridge reopen before winter 2023?", "Yes"))
    questions = pd.DataFrame(rows, columns=["question_id", "resolution_date", "question", "answer"])
    questions["resolution_date"] = [dt.date.fromisoformat(d) for d in questions["resolution_date"]]
    questions["qtype"] = "tf"
    questions["source"] = "metaculus_import"
    scores = scores_frame(
        [
            {**row, "question_id": qid, "resolution_date": day}
            for qid, day in zip(questions["question_id"], questions["resolution_date"], strict=True)
            for row in score_rows("m", "closed_book", None, "2024-01-01", "tf", "c")
        ]
    )
    return scores, questions


def test_contradictory_repeats_are_counted_named_and_kept_by_default() -> None:
    scores, questions = imported()
    result = run_analysis(scores, questions, None, {}, analysis_settings(), SEED)
    counts = result.metrics["question_duplicates"]
    assert counts["handling"] == "flag" and counts["dropped"] == 0
    assert (counts["exact_duplicates"], counts["near_duplicates"]) == (3, 3)
    # the first asking contradicts nothing known on its day; its three repeats do
    assert (counts["contradictory_duplicates"], counts["contradictory_questions"]) == (3, 1)
    table = result.tables["dataset_duplicates"]
    assert table["question_id"].tolist() == ["h1", "h2", "h3"]  # the repeats
    assert table["kind"].tolist() == ["exact", "exact", "exact"]
    assert table["repeat_of"].tolist() == ["h0", "h0", "h0"]
    assert table["contradictory"].all() and not table["dropped"].any()
    note = next(n for n in result.notes if "contradictory duplicates" in n)
    assert "3 repeat an earlier question word for word" in note
    assert "3 questions, 1 distinct" in note
    assert result.metrics["accuracy"]["m"]["closed_book"]["tf"]["n"] == 6


@pytest.mark.parametrize(("handling", "kept"), [("drop_repeats", 3), ("drop_contradictory", 3)])
def test_handling_drops_repeats_or_contradictions(handling: str, kept: int) -> None:
    scores, questions = imported()
    s = analysis_settings(f"analysis.duplicate_questions.handling={handling}")
    result = run_analysis(scores, questions, None, {}, s, SEED)
    assert result.metrics["question_duplicates"]["dropped"] == 6 - kept
    assert result.metrics["accuracy"]["m"]["closed_book"]["tf"]["n"] == kept
    assert result.tables["dataset_sources"]["n"].tolist() == [kept]
    assert any(f"{6 - kept} questions are left out" in n for n in result.notes)


@pytest.mark.parametrize("exclude_errors", [True, False])
def test_gold_rows_without_a_gold_article_are_not_failed_calls(exclude_errors: bool) -> None:
    rows = score_rows("m", "gold", None, "2024-01-02", "tf", "ccw")
    rows += score_rows("m", "gold", None, "2024-01-02", "tf", "ee", prefix="nogold")
    rows += score_rows("m", "gold", None, "2024-01-03", "tf", "e", prefix="timeout")
    scores = scores_frame(rows)
    scores.loc[scores["question_id"].str.startswith("nogold"), "error"] = NO_GOLD_ARTICLE
    s = analysis_settings(f"analysis.exclude_errors={str(exclude_errors).lower()}")
    result = run_analysis(scores, None, None, {}, s, SEED)
    assert result.metrics["failed_calls"] == 1
    assert result.metrics["no_gold_article"] == 2
    gold = result.metrics["accuracy"]["m"]["gold"]["tf"]
    # the two rows without a gold article never count, right or wrong
    assert gold["n"] == (3 if exclude_errors else 4)
    notes = " ".join(result.notes)
    assert "1 scored rows had a failed model call" in notes
    assert "2 gold-setting rows had no gold article" in notes


def test_word_counts_are_scikit_learns_count_matrix() -> None:
    from scipy import sparse
    from sklearn.feature_extraction.text import CountVectorizer

    from prescient.duplicates import word_counts

    texts = [
        "Will the Fed raise rates by 25 bps in June 2024?",
        "Game 6 vs game 7: ÉTÉ über Straße İstanbul ǅemal",
        "a b c a a",
        "",
        "!!! ---",
        "will WILL will_x x_1 1,000 1.5",
        "Ünïcödé words and digits ٣٤ mixed",
    ]
    plain = CountVectorizer(token_pattern=r"(?u)\b\w+\b").fit_transform(texts)
    plain = sparse.csr_matrix(plain, dtype=np.int64)
    plain.sort_indices()
    ours = word_counts(texts)
    assert ours is not None and ours.shape == plain.shape
    for part in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(ours, part), getattr(plain, part))
    assert ours.data.dtype == np.int64
    assert word_counts(["", "?!"]) is None
