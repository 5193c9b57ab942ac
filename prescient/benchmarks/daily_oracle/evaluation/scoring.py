"""Scoring predictions: per-item parsing (no model calls) and per-cell aggregation.

Per item (:func:`score_predictions`): the predictions' columns plus ``parsed_answer``
(choice index or null), ``correct``, ``refused``, ``parse_failed`` and ``parse_rule``,
and the question's ``source``, ``category``, ``mc_type`` and ``forecast_date`` from the
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
parse-failure rate per model x setting x RAG cutoff, for all questions and per type.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.benchmarks.daily_oracle.evaluation.costs import model_costs, paid_for
from prescient.benchmarks.daily_oracle.evaluation.parsing import parse_answer
from prescient.benchmarks.daily_oracle.evaluation.run import (
    OPTIONAL_COLUMNS,
    PREDICTION_COLUMNS,
    PREDICTION_SCHEMA,
)
from prescient.benchmarks.daily_oracle.evaluation.settings import NO_GOLD_ARTICLE
from prescient.llm.fit import CONTEXT_EXCEEDED, FITTED
from prescient.vocab import QTYPES

QUESTION_INFO: dict[str, str] = {
    "source": "string",
    "category": "string",
    "mc_type": "string",
    "forecast_date": "date32[pyarrow]",
}
"""Columns of the evaluated question table carried into the scores (name -> dtype)."""
SCORE_COLUMNS = (
    *PREDICTION_COLUMNS,
    "parsed_answer",
    "correct",
    "refused",
    "parse_failed",
    "parse_rule",
    *QUESTION_INFO,
)


class ScoringError(ValueError):
    """Predictions that cannot be scored against the question table."""


def score_predictions(predictions: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """Parse and score every prediction.

    Args:
        predictions: rows with the predictions schema (any number of cells).
        questions: the normalised question table (choices, answer_index).

    Raises:
        ScoringError: a prediction names a question the table does not have, or its
            question type disagrees with the table.
    """
    ids = questions["question_id"].astype(str).tolist()
    table_qtype = dict(zip(ids, questions["qtype"].astype(str), strict=True))
    table_choices = dict(zip(ids, questions["choices"].tolist(), strict=True))
    table_answer = dict(zip(ids, questions["answer_index"].astype(int).tolist(), strict=True))
    unknown = sorted(set(predictions["question_id"].astype(str)) - set(ids))
    if unknown:
        raise ScoringError(
            f"{len(unknown)} predicted question ids are not in the question table, "
            f"e.g. {unknown[:5]}: re-run the evaluation on the current questions"
        )
    parsed_answer: list[int | None] = []
    correct: list[bool] = []
    refused: list[bool] = []
    failed: list[bool] = []
    rules: list[str | None] = []
    for qid, qtype, text, err in zip(
        predictions["question_id"].astype(str),
        predictions["qtype"].astype(str),
        predictions["raw_response"],
        predictions["error"],
        strict=True,
    ):
        if table_qtype[qid] != qtype:
            raise ScoringError(
                f"question {qid}: predicted as {qtype}, table says {table_qtype[qid]}"
            )
        if isinstance(err, str) and err:
            parsed_answer.append(None)
            correct.append(False)
            refused.append(False)
            failed.append(False)
            rules.append(None)
            continue
        choices = [str(c) for c in table_choices[qid]]
        p = parse_answer(None if pd.isna(text) else str(text), qtype, choices)
        parsed_answer.append(p.index)
        correct.append(p.index is not None and p.index == table_answer[qid])
        refused.append(p.refused)
        failed.append(p.parse_failed)
        rules.append(p.rule)
    out = predictions.reset_index(drop=True).copy()
    for column in OPTIONAL_COLUMNS:  # predictions written before these existed
        if column not in out.columns:
            dtype = PREDICTION_SCHEMA[column]
            out[column] = pd.Series(pd.NA, index=out.index, dtype=dtype)
    out["parsed_answer"] = pd.Series(parsed_answer, dtype="Int64")
    out["correct"] = pd.Series(correct, dtype="bool")
    out["refused"] = pd.Series(refused, dtype="bool")
    out["parse_failed"] = pd.Series(failed, dtype="bool")
    out["parse_rule"] = pd.Series(rules, dtype="string")
    by_id = questions.set_index(questions["question_id"].astype(str))
    qids = out["question_id"].astype(str)
    for column, dtype in QUESTION_INFO.items():
        values = qids.map(by_id[column]) if column in by_id.columns else [None] * len(out)
        out[column] = pd.Series(list(values), dtype=dtype)
    return out[list(SCORE_COLUMNS)]


def cell_label(setting: str, rag_cutoff: Any) -> str:
    """The cell's setting as ``eval.settings`` names it (and the analysis, the report and
    every metrics file): ``closed_book``, ``gold``, ``rag_dynamic``, ``rag_2024-12-01``."""
    if rag_cutoff is None or (isinstance(rag_cutoff, float) and math.isnan(rag_cutoff)):
        return str(setting)
    if rag_cutoff is pd.NA:
        return str(setting)
    return f"{setting}_{rag_cutoff}"


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 6) if den else None


def summarize(group: pd.DataFrame) -> dict[str, Any]:
    """Counts and rates of one group of scored rows."""
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
    }


def cell_metrics(scores: pd.DataFrame) -> dict[str, Any]:
    """``{model: {cell: {all|tf|mc: summary}}}`` plus grid totals (DVC metrics)."""
    cells: dict[str, dict[str, Any]] = {}
    labels = [
        cell_label(s, c) for s, c in zip(scores["setting"], scores["rag_cutoff"], strict=True)
    ]
    frame = scores.assign(_cell=labels)
    for (model, cell), group in frame.groupby(["model", "_cell"], sort=True):
        per: dict[str, Any] = {"all": summarize(group)}
        for qtype in QTYPES:
            part = group.loc[group["qtype"] == qtype]
            if len(part):
                per[qtype] = summarize(part)
        cells.setdefault(str(model), {})[str(cell)] = per
    return {"cells": cells, "total": summarize(scores)}


def parse_rule_counts(scores: pd.DataFrame) -> Mapping[str, Mapping[str, int]]:
    """How each model's answers were read (``lead``, ``marker``, ..., ``unparsed``)."""
    out: dict[str, dict[str, int]] = {}
    counts = scores.groupby(["model", "parse_rule"]).size()
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
    labels = [
        cell_label(s, c)
        for s, c in zip(predictions["setting"], predictions["rag_cutoff"], strict=True)
    ]
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
    labels = [
        cell_label(s, c)
        for s, c in zip(predictions["setting"], predictions["rag_cutoff"], strict=True)
    ]
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
