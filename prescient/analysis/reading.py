"""The tables that help a reader weigh the accuracies: chance levels, answers counted as
wrong without being a forecast, the question sets compared and a few of them shown whole
(:mod:`.chance`, :mod:`.failures`, :mod:`.examples`)."""

from __future__ import annotations

import pandas as pd

from prescient.analysis.chance import chance_levels, option_counts
from prescient.analysis.examples import example_table
from prescient.analysis.failures import answer_failures, question_sets
from prescient.analysis.inputs import Inputs
from prescient.analysis.settings import AnalysisSettings

READING_TABLES: tuple[str, ...] = (
    "chance_levels",
    "answer_failures",
    "question_sets",
    "examples",
)
"""The CSV files of these tables in the analysis tables' directory."""


def reading_tables(
    inputs: Inputs,
    questions: pd.DataFrame | None,
    articles: pd.DataFrame | None,
    settings: AnalysisSettings,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Every table of :data:`READING_TABLES`, over the scores of the accuracy tables
    (``inputs.period``)."""
    scores = inputs.period
    known = None
    if questions is not None:
        known = questions.loc[
            questions["question_id"].astype(str).isin(set(inputs.info["question_id"]))
        ]
    options = option_counts(inputs.raw, known)
    return {
        "chance_levels": chance_levels(scores, options),
        "answer_failures": answer_failures(scores),
        "question_sets": question_sets(scores),
        "examples": example_table(
            inputs.raw, scores, known, articles, settings.examples.per_type, seed
        ),
    }


def reading_notes(tables: dict[str, pd.DataFrame]) -> list[str]:
    """What the tables of :data:`READING_TABLES` leave out, in words: a question type
    without a chance level (some of its questions have no known number of options)."""
    levels = tables.get("chance_levels", pd.DataFrame())
    notes = []
    for qtype, n, known in zip(
        levels.get("qtype", []),
        levels.get("n_questions", []),
        levels.get("n_options_known", []),
        strict=True,
    ):
        if int(known) < int(n):
            notes.append(
                f"{int(n) - int(known)} of the {int(n)} "
                f"{str(qtype).upper()} questions have no choices (nor a probs forecast) "
                "giving their number of options: the accuracy figures draw no chance line "
                "for the type."
            )
    return notes
