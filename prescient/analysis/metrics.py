"""The analysis's metrics document (``reports/metrics/analysis.json``): headline numbers
per model x cell x question type, nested for ``dvc metrics diff``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from prescient.analysis.parts import CellMetric


def json_number(x: object, digits: int = 6) -> float | None:
    """A JSON-safe rounded float (None for NaN: DVC metrics cannot hold NaN)."""
    if x is None:
        return None
    value = float(x)  # type: ignore[arg-type]
    return None if math.isnan(value) or math.isinf(value) else round(value, digits)


def analysis_metrics(
    scores: pd.DataFrame,
    n_errors: int,
    cells: pd.DataFrame,
    pooled: pd.DataFrame,
    tables: dict[str, pd.DataFrame],
) -> dict[str, Any]:
    """Headline numbers per model x cell x type, nested for ``dvc metrics diff``.

    Accuracies and rates are percentages; keys name the model and cell, so switching a
    model or a RAG cutoff shows as added/removed metrics, not as silently changed ones.
    A benchmark's analysis adds its own numbers to these cells (:func:`add_cell_metrics`).
    """
    models: dict[str, Any] = {}
    for rec in pooled.to_dict("records") if not pooled.empty else []:
        models.setdefault(str(rec["model"]), {}).setdefault(str(rec["cell"]), {})[
            str(rec["qtype"])
        ] = {
            "n": int(rec["n"]),
            "accuracy": json_number(100.0 * rec["accuracy"]),
            "refusal_rate": json_number(100.0 * rec["refusal_rate"]),
            "accuracy_excl_refusals": json_number(100.0 * rec["accuracy_excl_refusals"]),
        }
    summary = dict(
        zip(tables["dataset_summary"]["key"], tables["dataset_summary"]["value"], strict=True)
    )
    months = sorted(int(m) for m in scores["month"].unique()) if not scores.empty else []
    return {
        "scored_rows": len(scores),
        "failed_calls": n_errors,
        "models": len(models),
        "cells": len(cells),
        "months_span": (months[-1] - months[0] + 1) if months else 0,
        "months_with_scores": len(months),
        "questions": {k: int(summary[k]) for k in ("n_questions", "n_tf", "n_mc") if k in summary},
        "sources": {
            str(r["source"]): {"n": int(r["n"]), "tf": int(r["n_tf"]), "mc": int(r["n_mc"])}
            for r in tables["dataset_sources"].to_dict("records")
        },
        "accuracy": models,
    }


def add_cell_metrics(accuracy: dict[str, Any], values: Iterable[CellMetric]) -> None:
    """Add each ``(model, cell, qtype, name, value)`` to its cell of ``accuracy`` (the
    metrics document's ``accuracy`` entry); a cell without scores gets nothing."""
    for model, cell, qtype, name, value in values:
        entry = accuracy.get(str(model), {}).get(str(cell), {}).get(str(qtype))
        if entry is not None:
            entry[name] = value
