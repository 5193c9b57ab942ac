"""The judgements and scores tables of stage ``lrae``: one row per atomic prediction,
one per sample and model (OpenForecast, COLING 2025, formula 2).

The schemas are the stage's outputs, so they and the rows that fill them are kept
apart from the judge's calls (:mod:`.run`): a column changes here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.lrae.atoms import Atom
from prescient.benchmarks.openforecast.metrics import FP, NOT_JUDGED, Counts, count
from prescient.benchmarks.openforecast.settings import LraeSettings
from prescient.benchmarks.openforecast.tasks import AQA

JUDGEMENT_SCHEMA: dict[str, str] = {
    "sample_id": "string",
    "model": "string",
    "task": "string",
    "split": "string",
    "item": "int32",
    "text": "string",
    "verdict": "string",
    "matched_label": "Int64",
    "matched_label_text": "string",
    "duplicate_of": "Int64",
    "evidence_chunk_ids": "object",
    "evidence_dates": "object",
    "judge_key": "string",
    "judge_response": "string",
    "evidence_key": "string",
    "evidence_response": "string",
    "note": "string",
}
"""``data/processed/lrae_judgements.parquet``: one row per atomic prediction (``item``
counts from 0 within the prediction; ``matched_label`` from 1 within the sample's
labels)."""

SCORE_SCHEMA: dict[str, str] = {
    "sample_id": "string",
    "model": "string",
    "task": "string",
    "split": "string",
    "n_labels": "int32",
    "n_atomic": "int32",
    "tp": "int32",
    "mtp": "int32",
    "fp": "int32",
    "fn": "int32",
    "precision": "float64",
    "recall": "float64",
    "f1": "float64",
    "precision_gold": "float64",
    "recall_gold": "float64",
    "f1_gold": "float64",
    "empty": "bool",
    "error": "string",
}
"""``data/processed/lrae_scores.parquet``: one row per sample and model. ``*_gold``
score the labels alone (an MTP counts as an FP: the paper's evaluation without retrieval
augmentation); ``error`` is set when the prediction call failed (then no score)."""


def judgements_frame(atoms: Sequence[Atom]) -> pd.DataFrame:
    """The judgements table: every atomic prediction, judged or not, so each score
    can be traced to the verdicts and replies behind it."""
    return io.typed_records(JUDGEMENT_SCHEMA, (_judgement_row(a) for a in atoms))


def _judgement_row(a: Atom) -> dict[str, Any]:
    return {
        "sample_id": a.sample["sample_id"],
        "model": a.model,
        "task": a.task,
        "split": a.sample["split"],
        "item": a.item,
        "text": a.text,
        "verdict": a.verdict,
        "matched_label": a.label,
        "matched_label_text": a.labels[a.label - 1] if a.label else None,
        "duplicate_of": a.duplicate_of,
        "evidence_chunk_ids": list(a.evidence_ids),
        "evidence_dates": list(a.evidence_dates),
        "judge_key": a.judge_key,
        "judge_response": a.judge_response,
        "evidence_key": a.evidence_key,
        "evidence_response": a.evidence_response,
        "note": a.note,
    }


def score_row(
    sample: Mapping[str, Any], model: str, atoms: list[Atom], error: str | None, s: LraeSettings
) -> dict[str, Any]:
    """The scores row of one prediction: P/R/F1 with and without the evidence
    (``*_gold``), or zero counts and no score when its call failed (``error``)."""
    n_labels = 1 if sample["task"] == AQA else len(sample["targets"])
    row: dict[str, Any] = {
        "sample_id": sample["sample_id"],
        "model": model,
        "task": sample["task"],
        "split": sample["split"],
        "n_labels": n_labels,
        "n_atomic": sum(a.verdict not in NOT_JUDGED for a in atoms),
        "empty": not atoms and error is None,
        "error": error,
    }
    if error is not None:
        return {
            **row,
            **dict.fromkeys(("tp", "mtp", "fp", "fn"), 0),
            **dict.fromkeys(
                ("precision", "recall", "f1", "precision_gold", "recall_gold", "f1_gold"), None
            ),
        }
    judged = [a for a in atoms if a.verdict not in NOT_JUDGED]
    verdicts = [a.verdict or FP for a in judged]  # a failed judge call counts as unsupported
    c = count(verdicts, [a.label for a in judged], n_labels, s.repeat_match)
    gold = Counts(tp=c.tp, mtp=0, fp=c.fp + c.mtp, fn=c.fn)
    return {
        **row,
        "tp": c.tp,
        "mtp": c.mtp,
        "fp": c.fp,
        "fn": c.fn,
        "precision": c.precision,
        "recall": c.recall,
        "f1": c.f1,
        "precision_gold": gold.precision,
        "recall_gold": gold.recall,
        "f1_gold": gold.f1,
    }
