"""An imported question set as the report shows it: its own heading (named after its
source, never Daily Oracle's), its gold rows without a gold article counted under that
reason (not as failed calls), its repeated questions named, and counts written one way."""

from __future__ import annotations

import datetime as dt
import json
import re

import pandas as pd
import pytest

from prescient.evaluation.settings import NO_GOLD_ARTICLE
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.page import read_page
from tests.fixtures.analysis.run import Run, run_stages

SOURCE = "gjopen_2024"
N_OTHER = 1246  # with the four repeats: 1,250 questions, past a thousand
HALVERN = "Will Halvern's first light-rail line open in September 2024?"
REGISTRY = {"m": {"knowledge_cutoff": "2023-06-30", "release_date": "2023-09-01"}}


def imported_set() -> tuple[pd.DataFrame, pd.DataFrame]:
    """1,250 True/False questions of one imported source over 2023-2024 (no gold
    articles: the file names none), one of them asked four times with gold answers No,
    Yes, Yes, No; one model scored closed book and in the gold setting."""
    start = dt.date(2023, 1, 2)
    rows = [
        (f"g{i:04d}", start + dt.timedelta(days=i % 700), f"Will event {i} happen?", "Yes")
        for i in range(N_OTHER)
    ]
    days = [dt.date(2023, 3, 1), dt.date(2023, 8, 1), dt.date(2024, 2, 1), dt.date(2024, 9, 30)]
    rows += [
        (f"h{k}", day, HALVERN, answer)
        for k, (day, answer) in enumerate(zip(days, ["No", "Yes", "Yes", "No"], strict=True))
    ]
    questions = pd.DataFrame(rows, columns=["question_id", "resolution_date", "question", "answer"])
    questions["qtype"] = "tf"
    questions["source"] = SOURCE
    questions["visibility_gap_days"] = 1
    scored = []
    for k, (qid, day) in enumerate(
        zip(questions["question_id"], questions["resolution_date"], strict=True)
    ):
        for setting in ("closed_book", "gold"):
            row = score_rows("m", setting, None, day.isoformat(), "tf", "cw"[k % 2])[0]
            scored.append({**row, "question_id": qid})
    scores = scores_frame(scored)
    gold = scores["setting"] == "gold"
    scores.loc[gold, ["error", "raw_response", "parsed_answer"]] = [NO_GOLD_ARTICLE, None, None]
    scores.loc[gold, "correct"] = False
    return scores, questions


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    scores, questions = imported_set()
    return run_stages(tmp_path_factory.mktemp("imported_set"), scores, questions, None, REGISTRY)


def test_the_imported_set_has_its_own_heading(run: Run) -> None:
    html = run.html.read_text()
    assert f'<section id="daily-oracle"><h2>Question set: {SOURCE}</h2>' in html
    assert f'<a href="#daily-oracle">Question set: {SOURCE}</a>' in html
    assert ">Daily Oracle<" not in html


def test_gold_rows_without_a_gold_article_are_their_own_reason(run: Run) -> None:
    metrics = json.loads(run.metrics.read_text())
    assert metrics["failed_calls"] == 0
    assert metrics["no_gold_article"] == 1250
    html = run.html.read_text()
    assert "1,250 gold-setting rows had no gold article" in html
    assert "failed model call" not in html
    # the gold cell scored nothing: no accuracy is reported for it
    assert "gold" not in metrics["accuracy"]["m"]


def test_contradictory_repeats_are_named_in_the_report(run: Run) -> None:
    metrics = json.loads(run.metrics.read_text())["question_duplicates"]
    # the first asking contradicts nothing known on its day; its three repeats do
    assert (metrics["exact_duplicates"], metrics["contradictory_duplicates"]) == (3, 3)
    page = read_page(run.html.read_text())
    rows = page.tables["question-duplicates"]
    assert [r[0] for r in rows[1:]] == ["h1", "h2", "h3"]
    header = rows[0]
    contradictory = header.index("Contradictory")
    assert {r[contradictory] for r in rows[1:]} == {"yes"}
    assert page.inside["question-duplicates"] == "sources"
    assert re.search(r"contradictory duplicates \(repeats answered otherwise than the same "
                     r"question on their day or before\): 3 questions, 1 distinct",
                     run.html.read_text())  # fmt: skip


def test_counts_carry_thousands_separators(run: Run) -> None:
    page = read_page(run.html.read_text())
    sources = page.tables["question-sources"]
    assert sources[1][sources[0].index("Questions")] == "1,250"
    counts = dict(page.tables["question-counts"][1:])
    assert counts["Questions"] == "1,250"
    assert f"{SOURCE}: 1,250 questions (1,250 TF, 0 MC)" in page.text["run-summary"]
