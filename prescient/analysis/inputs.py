"""The analysis's inputs: the scores joined with their questions and models, the repeated
questions found and handled (``analysis.duplicate_questions``), checked before any table
is computed (:func:`prepare_inputs`; :mod:`.pipeline` computes the tables)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient import dates
from prescient.analysis.schema import (
    as_datetime64,
    count_errors,
    count_fitted,
    drop_duplicate_scores,
    no_gold_rows,
    normalize_scores,
)
from prescient.analysis.settings import (
    DROP_CONTRADICTORY,
    DROP_REPEATS,
    FLAG,
    AnalysisSettings,
    DuplicateQuestionSettings,
)
from prescient.analysis.sources import (
    question_info,
    with_questions,
)
from prescient.duplicates import duplicate_summary, duplicates, question_key
from prescient.kept import KeptStore
from prescient.report.tables import fmt_count

DUPLICATE_TABLE: list[str] = [
    "question_id",
    "source",
    "resolution_date",
    "qtype",
    "question",
    "answer",
    "repeat_of",
    "kind",
    "similarity",
    "contradictory",
    "dropped",
]
"""Columns of ``dataset_duplicates``: one row per question that repeats an earlier one
(``kind`` exact or near, ``repeat_of`` that question) or belongs to a contradictory
repeat (the first of it included, ``kind`` first)."""


@dataclass(frozen=True)
class Inputs:
    """The scores and questions as the analysis uses them.

    Attributes:
        raw: the scores table after the duplicate rule.
        n_duplicates: rows the duplicate rule dropped.
        info: one row per evaluated question (:func:`question_info`).
        every: the normalised scores of every source, with ``source`` and
            ``horizon_days``.
        series: the scores of the time-series analyses (excluded sources left out).
        period: ``series`` within ``analysis.date_start`` .. ``date_end``: the scores of
            the Daily Oracle analyses (FreshBench's tests read ``series``).
        errors: failed calls (``n_errors``) and prompts fitted to the context window
            (``n_fitted``) per model, cell and source.
        notes: what preparing them found worth saying.
        repeated: the questions asked more than once (:func:`question_repeats`).
        repeat_counts: their counts, the handling and the questions it dropped.
        n_no_gold: gold rows without a gold article (no call made; left out).
    """

    raw: pd.DataFrame
    n_duplicates: int
    info: pd.DataFrame
    every: pd.DataFrame
    series: pd.DataFrame
    period: pd.DataFrame
    errors: pd.DataFrame
    notes: list[str]
    repeated: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=DUPLICATE_TABLE))
    repeat_counts: dict[str, Any] = field(default_factory=dict)
    n_no_gold: int = 0


def prepare_inputs(
    raw_scores: pd.DataFrame,
    questions: pd.DataFrame | None,
    settings: AnalysisSettings,
    kept: KeptStore | None = None,
) -> Inputs:
    """Apply the duplicate rule, describe the questions, normalise the scores, count the
    failed calls and set the excluded sources apart, with a note for each (``kept``: where
    each day's near-duplicate flags are kept, :func:`question_repeats`)."""
    notes: list[str] = []
    raw, n_duplicates = drop_duplicate_scores(raw_scores, settings.duplicates)
    if n_duplicates:
        notes.append(
            f"{fmt_count(n_duplicates)} scored rows repeated a (model, setting, question) already in the "
            f"table and were dropped (analysis.duplicates={settings.duplicates})."
        )
    info = question_info(raw, questions)
    repeated, repeat_counts, drop = question_repeats(
        questions if questions is not None else raw, info, settings.duplicate_questions, kept
    )
    notes += _repeat_notes(repeat_counts)
    if drop:
        raw = raw.loc[~raw["question_id"].astype(str).isin(drop)].reset_index(drop=True)
        info = info.loc[~info["question_id"].isin(drop)].reset_index(drop=True)
    if questions is None:
        notes.append(
            f"No questions table: the scores table's own columns describe its {fmt_count(len(info))} "
            "questions (dataset statistics use the columns it has)."
        )
    every = with_questions(normalize_scores(raw, settings.exclude_errors), info)
    sources = dict(zip(info["question_id"], info["source"], strict=True))
    keys = ["model", "cell", "source"]
    errors = count_errors(raw, sources).merge(count_fitted(raw, sources), on=keys, how="outer")
    errors[["n_errors", "n_fitted"]] = errors[["n_errors", "n_fitted"]].fillna(0).astype(int)
    n_errors = int(errors["n_errors"].sum()) if not errors.empty else 0
    if n_errors:
        verb = "excluded from" if settings.exclude_errors else "counted as incorrect in"
        notes.append(
            f"{fmt_count(n_errors)} scored rows had a failed model call and were {verb} accuracy."
        )
    n_no_gold = int(no_gold_rows(raw).sum())
    if n_no_gold:
        notes.append(
            f"{fmt_count(n_no_gold)} gold-setting rows had no gold article (the question "
            "names none the corpus holds), so no model call was made; they are left out "
            "of accuracy."
        )
    n_fitted = int(errors["n_fitted"].sum()) if not errors.empty else 0
    if n_fitted:
        notes.append(
            f"{fmt_count(n_fitted)} scored rows answered a prompt whose articles were cut to "
            "fit the model's context window (fitted_to_context; per cell in the cells table, "
            "the words kept in the scores' context_words_kept)."
        )
    series, series_notes = _series_scores(every, settings)
    notes += series_notes
    period, period_notes = _period_scores(series, settings)
    notes += period_notes
    if period.empty:
        notes.append("The scores table has no scored rows: every accuracy table is empty.")
    return Inputs(
        raw,
        n_duplicates,
        info,
        every,
        series,
        period,
        errors,
        notes,
        repeated,
        repeat_counts,
        n_no_gold,
    )


def question_repeats(
    frame: pd.DataFrame,
    info: pd.DataFrame,
    s: DuplicateQuestionSettings,
    kept: KeptStore | None = None,
) -> tuple[pd.DataFrame, dict[str, Any], set[str]]:
    """Questions asked more than once across the whole evaluated set.

    Args:
        frame: the questions table, or the scores table when there is none (its first
            row per question); needs ``question`` text (else nothing is looked for) and
            an ``answer`` for contradictions (the answer's text).
        info: :func:`question_info` of the same questions (source, day).
        s: ``analysis.duplicate_questions``.
        kept: where each day's near-duplicate flags are kept
            (:func:`prescient.duplicates.near_duplicates`), or None.

    Returns:
        The ``dataset_duplicates`` table, the counts for metrics and notes, and the ids
        ``handling`` drops (none under ``flag``).
    """
    counts: dict[str, Any] = {"handling": s.handling, "threshold": s.threshold}
    if "question" not in frame.columns or frame.empty:
        counts["looked_for"] = False
        return pd.DataFrame(columns=DUPLICATE_TABLE), counts, set()
    rows = frame.drop_duplicates("question_id", keep="first").reset_index(drop=True)
    by_id = info.set_index("question_id")
    ids = rows["question_id"].astype(str)
    q = pd.DataFrame(
        {
            "question_id": ids,
            "source": ids.map(by_id["source"]).fillna("").astype(str),
            "resolution_date": ids.map(by_id["resolution_date"]),
            "qtype": rows["qtype"].astype(str).str.lower(),
            "question": rows["question"].astype(str),
            "answer": rows["answer"].astype(str) if "answer" in rows.columns else "",
        }
    )
    dups = duplicates(q, s.threshold, kept=kept)
    keys = [question_key(t, text) for t, text in zip(q["qtype"], q["question"], strict=True)]
    counts.update(looked_for=True, has_answers="answer" in rows.columns)
    counts.update(duplicate_summary(dups, keys))
    exact, near = dups["dup_exact_of"], dups["dup_near_of"]
    repeat = exact.notna() | near.notna()
    contradicts = dups["dup_contradicts"].astype(bool)
    if s.handling == DROP_REPEATS:
        dropped = repeat
    elif s.handling == DROP_CONTRADICTORY:
        dropped = contradicts
    else:
        dropped = pd.Series(False, index=q.index)
    listed = repeat | contradicts
    table = q.assign(
        repeat_of=exact.where(exact.notna(), near),
        kind=[
            "exact" if e is not None else "near" if n is not None else "first"
            for e, n in zip(exact, near, strict=True)
        ],
        similarity=dups["dup_similarity"].where(exact.isna(), 1.0),
        contradictory=contradicts,
        dropped=dropped,
    ).loc[listed, DUPLICATE_TABLE]
    table["resolution_date"] = [dates.as_date(d).isoformat() for d in table["resolution_date"]]
    drop = set(q.loc[dropped, "question_id"])
    counts["dropped"] = len(drop)
    return table.reset_index(drop=True), counts, drop


def _repeat_notes(counts: Mapping[str, Any]) -> list[str]:
    if not counts.get("looked_for"):
        return ["The questions have no text: repeated questions were not looked for."]
    if not (counts["exact_duplicates"] or counts["near_duplicates"]):
        return []
    line = (
        f"Across the evaluated questions, {fmt_count(counts['exact_duplicates'])} repeat an "
        f"earlier question word for word and {fmt_count(counts['near_duplicates'])} "
        f"near-duplicate one of an earlier day (TF-IDF cosine >= {counts['threshold']})"
    )
    if counts["has_answers"]:
        line += (
            "; contradictory duplicates (repeats answered otherwise than the same question "
            "on their day or before): "
            f"{fmt_count(counts['contradictory_duplicates'])} questions, "
            f"{fmt_count(counts['contradictory_questions'])} distinct"
        )
    else:
        line += "; the questions table has no answer column, so contradictions were not checked"
    line += " (table dataset_duplicates)."
    if counts["handling"] == FLAG:
        line += " All of them are evaluated (analysis.duplicate_questions.handling=flag)."
    else:
        line += (
            f" {fmt_count(counts['dropped'])} questions are left out of every table "
            f"(analysis.duplicate_questions.handling={counts['handling']})."
        )
    return [line]


def _series_scores(
    every: pd.DataFrame, settings: AnalysisSettings
) -> tuple[pd.DataFrame, list[str]]:
    """The scores of the time-series analyses: every source but the excluded ones."""
    excluded = every["source"].isin(settings.exclude_sources)
    if not excluded.any():
        return every, []
    names = sorted(set(every.loc[excluded, "source"]))
    note = (
        f"{fmt_count(excluded.sum())} scored rows of sources {names} are left out of the monthly, "
        "yearly, slope and FreshBench analyses (analysis.exclude_sources); the cells and "
        "horizon tables include them."
    )
    return every.loc[~excluded].reset_index(drop=True), [note]


def _period_scores(
    series: pd.DataFrame, settings: AnalysisSettings
) -> tuple[pd.DataFrame, list[str]]:
    """The scores resolved within ``analysis.date_start`` .. ``date_end`` (inclusive)."""
    start, end = settings.date_start, settings.date_end
    if start is None and end is None:
        return series, []
    keep = pd.Series(True, index=series.index)
    if start is not None:
        keep &= series["resolution_date"] >= as_datetime64(start)
    if end is not None:
        keep &= series["resolution_date"] <= as_datetime64(end)
    span = (
        f"{start.isoformat() if start else 'the first'} .. {end.isoformat() if end else 'the last'}"
    )
    notes = [
        f"The Daily Oracle analyses (accuracy, monthly accuracy, Table 3, Fig. 3-6, the "
        f"headline) cover questions resolved {span} (analysis.date_start, "
        f"analysis.date_end): {int((~keep).sum())} of {len(series)} scored rows fall "
        "outside and are left out of them; FreshBench's tests and the cells, horizon and "
        "dataset tables include them."
    ]
    return series.loc[keep].reset_index(drop=True), notes


def period_months(scores: pd.DataFrame, settings: AnalysisSettings) -> tuple[int, int] | None:
    """The calendar of the monthly series: the period's months where its bounds are set,
    the scored months' otherwise (None for a table without scores)."""
    if scores.empty:
        return None
    start, end = settings.date_start, settings.date_end
    first = dates.month_index(start) if start else int(scores["month"].min())
    last = dates.month_index(end) if end else int(scores["month"].max())
    return first, last
