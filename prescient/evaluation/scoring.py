"""Scoring predictions: per-item parsing (no model calls) and per-cell aggregation.

Per item (:func:`score_predictions`): the predictions' columns plus ``parsed_answer``
(choice index or null), ``correct``, ``refused``, ``parse_failed`` and ``parse_rule``,
the forecast ``probs`` with its ``prob_source`` and ``prob_adjusted`` and its ``brier``
and ``log_score`` (:mod:`.forecasts`: every elicitation is read as a forecast, a label
as all probability on one answer), and the question's ``source``, ``category``, ``mc_type`` and ``forecast_date`` from the
evaluated table (:data:`QUESTION_INFO`), so a scores table describes its own questions
when it is analysed alone. Each row keeps its prediction's ``ledger_key``, the key of
the ledger entry holding its prompt and raw response (``python -m prescient trace``
follows it); predictions written before the column existed get a null key.
Refusals and parse failures are incorrect. Rows whose call failed (``error`` set) have
no answer: they are neither correct, refused nor parse failures, and the aggregates
leave them out of every rate and report their number: ``n_no_gold_article`` for gold
rows whose question has no gold article (no call was made), ``n_errors`` for the calls
that failed.

Per cell (:func:`cell_metrics`): accuracy, accuracy excluding refusals, refusal rate and
parse-failure rate per model x setting x RAG cutoff, for all questions and per type, from
the ``label`` rows (the papers' elicitation); per elicitation (``elicitations``) the same
with the mean Brier and log scores.

An imported question set may carry a crowd or market probability per question
(``crowd_prob``): :func:`crowd_rows` turns it into rows of a model named ``crowd`` in every
cell of the grid, scored by the same rules, so it is a row of every table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

import numpy as np
import pandas as pd

from prescient.evaluation.costs import model_costs, paid_for
from prescient.evaluation.forecasts import (
    CROWD,
    crowd_probs,
    most_probable,
    read_forecast,
    row_score_values,
)
from prescient.evaluation.predictions import (
    OPTIONAL_COLUMNS,
    PREDICTION_COLUMNS,
    PREDICTION_SCHEMA,
)
from prescient.evaluation.settings import (
    LABEL,
    NO_GOLD_ARTICLE,
    elicitation_of,
)
from prescient.llm.fit import CONTEXT_EXCEEDED, FITTED
from prescient.proper_metrics import item_scores
from prescient.vocab import QTYPES

QUESTION_INFO: dict[str, str] = {
    "source": "string",
    "category": "string",
    "mc_type": "string",
    "forecast_date": "date32[pyarrow]",
}
"""Columns of the evaluated question table carried into the scores (name -> dtype)."""
SCORED_TYPES: dict[str, Any] = {
    "parsed_answer": "Int64",
    "correct": "bool",
    "refused": "bool",
    "parse_failed": "bool",
    "parse_rule": "string",
    "probs": "object",
    "prob_source": "string",
    "prob_adjusted": "string",
    **{s.name: "Float64" for s in item_scores()},
}
"""The columns scoring adds to the predictions (name -> dtype): last, the item scores
:mod:`prescient.proper_metrics` declares when this module is imported (the scores
table's schema, so a study registers its own score before the score stage runs)."""
SCORE_COLUMNS = (*PREDICTION_COLUMNS, *SCORED_TYPES, *QUESTION_INFO)


class ScoringError(ValueError):
    """Predictions that cannot be scored against the question table."""


class QuestionTable:
    """What scoring reads of the question table, looked up by question id once."""

    def __init__(self, questions: pd.DataFrame) -> None:
        self.ids = questions["question_id"].astype(str).tolist()
        self.qtype = dict(zip(self.ids, questions["qtype"].astype(str), strict=True))
        self.choices = dict(zip(self.ids, questions["choices"].tolist(), strict=True))
        self.answer = dict(
            zip(self.ids, questions["answer_index"].astype(int).tolist(), strict=True)
        )


RowInputs = tuple[list[str], list[str], list[Any], list[Any], list[str]]
"""What a prediction row's score is a function of, column by column: question ids,
predicted question types, raw responses, errors and elicitations (the question
table's entry for each id besides)."""


def scored_columns(rows: RowInputs, table: QuestionTable) -> dict[str, list[Any]]:
    """The :data:`SCORED_TYPES` columns of ``rows``, one value per row.

    Raises:
        ScoringError: a row's question type disagrees with the table.
    """
    cols: dict[str, list[Any]] = {c: [] for c in SCORED_TYPES}
    for qid, qtype, text, err, elicitation in zip(*rows, strict=True):
        if table.qtype[qid] != qtype:
            raise ScoringError(
                f"question {qid}: predicted as {qtype}, table says {table.qtype[qid]}"
            )
        if isinstance(err, str) and err:
            for c, v in (("correct", False), ("refused", False), ("parse_failed", False)):
                cols[c].append(v)
            for c in ("parsed_answer", "parse_rule", "probs", "prob_source", "prob_adjusted"):
                cols[c].append(None)
            for s in item_scores():
                cols[s.name].append(None)
            continue
        choices = [str(c) for c in table.choices[qid]]
        f = read_forecast(elicitation, None if pd.isna(text) else str(text), qtype, choices)
        answer = table.answer[qid]
        scored = row_score_values(f.probs, answer, qtype)
        fields: tuple[tuple[str, Any], ...] = (
            ("parsed_answer", f.index),
            ("correct", f.index is not None and f.index == answer),
            ("refused", f.refused),
            ("parse_failed", f.parse_failed),
            ("parse_rule", f.rule),
            ("probs", list(f.probs)),
            ("prob_source", f.source),
            ("prob_adjusted", f.adjusted),
            *((name, v) for name, v in scored.items() if name in cols),
        )
        for c, v in fields:
            cols[c].append(v)
    return cols


class ScoredColumns(Protocol):
    """Where :func:`score_predictions` gets a part's scored columns
    (:class:`~prescient.evaluation.kept_scores.KeptScores` keeps them between runs)."""

    def __call__(self, rows: RowInputs, table: QuestionTable) -> dict[str, list[Any]]: ...


def score_predictions(
    predictions: pd.DataFrame,
    questions: pd.DataFrame,
    *,
    parts: Sequence[int] | None = None,
    columns: ScoredColumns = scored_columns,
) -> pd.DataFrame:
    """Parse and score every prediction.

    Args:
        predictions: rows with the predictions schema (any number of cells).
        questions: the normalised question table (choices, answer_index).
        parts: the rows' consecutive parts (their lengths, summing to the rows), each
            scored by one call of ``columns``; default: one part.
        columns: the scored columns of a part (:func:`scored_columns`, or kept work of
            the same values).

    Raises:
        ScoringError: a prediction names a question the table does not have, or its
            question type disagrees with the table.
    """
    table = QuestionTable(questions)
    unknown = sorted(set(predictions["question_id"].astype(str)) - set(table.ids))
    if unknown:
        raise ScoringError(
            f"{len(unknown)} predicted question ids are not in the question table, "
            f"e.g. {unknown[:5]}: re-run the evaluation on the current questions"
        )
    elicitations = elicitation_of(predictions)
    inputs: RowInputs = (
        predictions["question_id"].astype(str).tolist(),
        predictions["qtype"].astype(str).tolist(),
        predictions["raw_response"].tolist(),
        predictions["error"].tolist(),
        list(elicitations),
    )
    sizes = list(parts) if parts is not None else [len(predictions)]
    if sum(sizes) != len(predictions) or any(n < 0 for n in sizes):
        raise ValueError(f"parts {sizes} do not cover the {len(predictions)} rows")
    cols: dict[str, list[Any]] = {c: [] for c in SCORED_TYPES}
    start = 0
    for n in sizes:
        part = columns(cast(RowInputs, tuple(c[start : start + n] for c in inputs)), table)
        for c in SCORED_TYPES:
            cols[c].extend(part[c])
        start += n
    out = predictions.reset_index(drop=True).copy()
    for column in OPTIONAL_COLUMNS:  # predictions written before these existed
        if column not in out.columns:
            dtype = PREDICTION_SCHEMA[column]
            out[column] = pd.Series(pd.NA, index=out.index, dtype=dtype)
    out["elicitation"] = pd.Series(list(elicitations), dtype="string")
    for column, dtype in SCORED_TYPES.items():
        out[column] = pd.Series(cols[column], dtype=dtype)
    by_id = questions.set_index(questions["question_id"].astype(str))
    # each question's values looked up once, then repeated over its rows
    codes, asked = pd.factorize(out["question_id"].astype(str))
    for column, dtype in QUESTION_INFO.items():
        values = by_id[column].reindex(asked) if column in by_id.columns else [None] * len(asked)
        out[column] = pd.Series(list(values), dtype=dtype).take(codes).reset_index(drop=True)
    return out[list(SCORE_COLUMNS)]


def crowd_rows(scores: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """Rows of the model ``crowd`` for the questions that carry a crowd probability, in
    every setting x RAG cutoff x elicitation cell of ``scores`` (each cell's own
    questions), scored like any model's; empty when no question has one.

    The crowd's forecast is the same in every cell (it saw no prompt): repeating it makes
    it a row of each table, and the paired comparisons set every model against it on the
    questions both answered.
    """
    if "crowd_prob" not in questions.columns or scores.empty:
        return scores.iloc[0:0]
    by_id = questions.set_index(questions["question_id"].astype(str))
    forecasts: dict[str, tuple[float, ...]] = {}
    for qid, qtype, choices, value in zip(
        by_id.index, by_id["qtype"].astype(str), by_id["choices"], by_id["crowd_prob"], strict=True
    ):
        probs = crowd_probs(value, qtype, len(choices))
        if probs is not None:
            forecasts[qid] = probs
    if not forecasts:
        return scores.iloc[0:0]
    models = scores.loc[scores["model"].astype(str) != CROWD]
    cells = models.drop_duplicates(["elicitation", "setting", "rag_cutoff", "question_id"])
    cells = cells.loc[cells["question_id"].astype(str).isin(forecasts)]
    rows = []
    for row in cells.itertuples(index=False):
        qid = str(row.question_id)
        probs = forecasts[qid]
        answer = int(str(by_id.at[qid, "answer_index"]))
        scored = row_score_values(probs, answer, str(row.qtype))
        index = most_probable(probs)
        rows.append(
            {
                "model": CROWD,
                "elicitation": row.elicitation,
                "setting": row.setting,
                "rag_cutoff": row.rag_cutoff,
                "question_id": qid,
                "qtype": row.qtype,
                "resolution_date": row.resolution_date,
                "parsed_answer": index,
                "correct": index == answer,
                "refused": False,
                "parse_failed": False,
                "parse_rule": CROWD,
                "probs": list(probs),
                "prob_source": CROWD,
                **{name: v for name, v in scored.items() if name in SCORED_TYPES},
                "context_article_ids": [],
                **{c: getattr(row, c) for c in QUESTION_INFO},
            }
        )
    frame = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    typed = {**PREDICTION_SCHEMA, **SCORED_TYPES, **QUESTION_INFO}
    for column in frame.columns:
        frame[column] = frame[column].astype(typed[column]) if column in typed else frame[column]
    return frame


def with_crowd(scores: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """``scores`` followed by their :func:`crowd_rows` (unchanged without any)."""
    crowd = crowd_rows(scores, questions)
    if crowd.empty:
        return scores
    return pd.concat([scores, crowd], ignore_index=True)[list(SCORE_COLUMNS)]


def cell_label(setting: str, rag_cutoff: Any) -> str:
    """The cell's setting as ``eval.settings`` names it (and the analysis, the report and
    every metrics file): ``closed_book``, ``gold``, ``rag_dynamic``, ``rag_2024-12-01``."""
    if rag_cutoff is None or (isinstance(rag_cutoff, float) and math.isnan(rag_cutoff)):
        return str(setting)
    if rag_cutoff is pd.NA:
        return str(setting)
    return f"{setting}_{rag_cutoff}"


def cell_labels(frame: pd.DataFrame) -> np.ndarray:
    """:func:`cell_label` of every row's setting and RAG cutoff, computed once per
    distinct pair."""
    if frame.empty:
        return np.empty(0, dtype=object)
    pairs = frame.groupby(["setting", "rag_cutoff"], dropna=False, sort=False, observed=True)
    codes = pairs.ngroup().to_numpy()
    _, first = np.unique(codes, return_index=True)
    settings, cutoffs = frame["setting"].to_numpy(object), frame["rag_cutoff"].to_numpy(object)
    names = np.array([cell_label(settings[i], cutoffs[i]) for i in first], dtype=object)
    return names[codes]


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 6) if den else None


def _mean(values: pd.Series) -> float | None:
    return round(float(values.astype(float).mean()), 6) if len(values) else None


def summarize(group: pd.DataFrame, proper: bool = False) -> dict[str, Any]:
    """Counts and rates of one group of scored rows (with ``proper``: the mean Brier and
    log scores too, and how many forecasts were the uniform fill of an unread reply)."""
    ok = group.loc[group["error"].isna()]
    n, n_ok = len(group), len(ok)
    n_no_gold = int(group["error"].eq(NO_GOLD_ARTICLE).sum())
    n_correct = int(ok["correct"].sum())
    n_refused = int(ok["refused"].sum())
    n_failed = int(ok["parse_failed"].sum())
    return {
        "n": n,
        "n_errors": n - n_ok - n_no_gold,
        "n_no_gold_article": n_no_gold,
        "n_correct": n_correct,
        "n_refused": n_refused,
        "n_parse_failed": n_failed,
        "accuracy": _rate(n_correct, n_ok),
        "accuracy_excl_refusals": _rate(n_correct, n_ok - n_refused),
        "refusal_rate": _rate(n_refused, n_ok),
        "parse_failure_rate": _rate(n_failed, n_ok),
        **(
            {
                **{s.name: _mean(ok[s.name]) for s in item_scores() if s.name in ok},
                "n_uniform_fill": int(ok["prob_source"].eq("uniform_fill").sum()),
            }
            if proper
            else {}
        ),
    }


def _cells(scores: pd.DataFrame, proper: bool) -> dict[str, Any]:
    cells: dict[str, dict[str, Any]] = {}
    labels = cell_labels(scores)
    # only what a summary reads: a group is a copy of the columns it holds
    read = ["model", "qtype", "error", "correct", "refused", "parse_failed", "prob_source"]
    read += [s.name for s in item_scores()]
    frame = scores[[c for c in read if c in scores.columns]].assign(_cell=labels)
    for (model, cell), group in frame.groupby(["model", "_cell"], sort=True):
        per: dict[str, Any] = {"all": summarize(group, proper)}
        for qtype in QTYPES:
            part = group.loc[group["qtype"] == qtype]
            if len(part):
                per[qtype] = summarize(part, proper)
        cells.setdefault(str(model), {})[str(cell)] = per
    return cells


def cell_metrics(scores: pd.DataFrame) -> dict[str, Any]:
    """``{model: {cell: {all|tf|mc: summary}}}`` of the ``label`` rows plus grid totals
    (DVC metrics), and ``elicitations``: ``{elicitation: {model: {cell: ...}}}`` with the
    mean Brier and log scores, for every elicitation scored."""
    how = elicitation_of(scores)
    labels = scores.loc[how.eq(LABEL).to_numpy(bool)]
    out: dict[str, Any] = {"cells": _cells(labels, False), "total": summarize(labels)}
    if "brier" in scores.columns:
        out["elicitations"] = {
            str(e): _cells(scores.loc[how.eq(e).to_numpy(bool)], True)
            for e in sorted(set(how), key=lambda e: (e != LABEL, e))
        }
    return out


def parse_rule_counts(scores: pd.DataFrame) -> Mapping[str, Mapping[str, int]]:
    """How each model's label answers were read (``lead``, ``marker``, ...,
    ``unparsed``)."""
    out: dict[str, dict[str, int]] = {}
    labels = scores.loc[elicitation_of(scores).eq(LABEL).to_numpy(bool)]
    counts = labels.groupby(["model", "parse_rule"]).size()
    for key, n in counts.items():
        model, rule = key if isinstance(key, tuple) else (key, "")
        out.setdefault(str(model), {})[str(rule)] = int(n)
    return out


def score_metrics(scores: pd.DataFrame) -> dict[str, Any]:
    """The score stage's metrics: :func:`cell_metrics` and :func:`parse_rule_counts`."""
    return {**cell_metrics(scores), "parse_rules": parse_rule_counts(scores)}


def call_failures(predictions: pd.DataFrame, max_failed_share: float) -> dict[str, Any]:
    """Failed model calls per cell, beside the tolerance they were accepted under.

    A row whose ``error`` is the missing gold article, or a prompt too long for the
    model's context window even without article text (:data:`CONTEXT_EXCEEDED`), made
    no request; any other error
    is a call that failed after its last attempt, kept because its cell stayed within
    ``llm.max_failed_share`` (beyond it the evaluate stage writes no predictions).

    Besides the failures, what the replies cost when they were paid
    (:func:`paid_for`), per cell and per model (``models``: each distinct request once,
    ``distinct_requests`` counting them, so a prompt two settings share counts once). These are
    properties of the results, the same on every machine; what a particular run sent and
    was served from the response store is in the stage's log and the store's run log
    (``python -m prescient ledger runs``).

    Returns:
        ``{"max_failed_share": t, "cells": {model: {cell: {requests, failed,
        failed_share, prompt_tokens, completion_tokens, cost_usd, unpriced}}},
        "models": {model: {distinct_requests, prompt_tokens, ...}}}`` with shares rounded to 6
        places.
    """
    cells: dict[str, dict[str, Any]] = {}
    labels = cell_labels(predictions)
    frame = predictions.assign(_cell=labels)
    for (model, cell), group in frame.groupby(["model", "_cell"], sort=True):
        err = group["error"].fillna("").astype(str)
        unsent = err.eq(NO_GOLD_ARTICLE) | err.str.startswith(CONTEXT_EXCEEDED)
        asked = group.loc[~unsent.to_numpy(bool)]
        failed = int(asked["error"].notna().sum())
        cells.setdefault(str(model), {})[str(cell)] = {
            "requests": len(asked),
            "failed": failed,
            "failed_share": _rate(failed, len(asked)) or 0.0,
            **paid_for(asked),
        }
    models = {
        str(r.pop("model")): r for r in model_costs(frame).drop(columns="failed").to_dict("records")
    }
    return {"max_failed_share": max_failed_share, "cells": cells, "models": models}


def context_fits(predictions: pd.DataFrame) -> dict[str, dict[str, dict[str, int]]]:
    """Prompts fitted to their model's context window (:mod:`prescient.llm.fit`), per cell.

    Returns:
        ``{model: {cell: {"fitted_to_context": n, "context_exceeded": n}}}`` for every
        cell of ``predictions`` (zeros included), plus ``min_words_kept`` (the fewest
        words an article of a fitted prompt kept) where a prompt was fitted.
        ``context_exceeded`` counts prompts not sent because even without article text
        they did not fit.
    """
    words = (
        predictions["context_words_kept"]
        if "context_words_kept" in predictions.columns
        else pd.Series(pd.NA, index=predictions.index, dtype="Int64")
    )
    errors = predictions["error"].fillna("").astype(str)
    fitted = (words.notna() & errors.eq("")).to_numpy(bool)
    exceeded = errors.str.startswith(CONTEXT_EXCEEDED).to_numpy(bool)
    labels = cell_labels(predictions)
    frame = pd.DataFrame(
        {
            "model": predictions["model"].astype(str).to_numpy(),
            "cell": labels,
            "fitted": fitted,
            "exceeded": exceeded,
            "words": words.to_numpy(),
        }
    )
    out: dict[str, dict[str, dict[str, int]]] = {}
    for (model, cell), group in frame.groupby(["model", "cell"], sort=True):
        counts = {
            FITTED: int(group["fitted"].sum()),
            CONTEXT_EXCEEDED: int(group["exceeded"].sum()),
        }
        kept = group.loc[group["fitted"], "words"]
        if len(kept):
            counts["min_words_kept"] = int(kept.min())
        out.setdefault(str(model), {})[str(cell)] = counts
    return out
