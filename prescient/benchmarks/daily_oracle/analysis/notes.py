"""The analysis's metrics (``reports/metrics/summary.json``) and the notes that close the
report: what the headline decline, Table 3 and the monthly series rest on, in words."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from prescient.benchmarks.daily_oracle.analysis.schema import (
    fmt_count,
)
from prescient.benchmarks.daily_oracle.analysis.settings import (
    AnalysisSettings,
)
from prescient.benchmarks.daily_oracle.analysis.yearly import (
    REGIMES,
)


def _num(x: object, digits: int = 6) -> float | None:
    """A JSON-safe rounded float (None for NaN: DVC metrics cannot hold NaN)."""
    if x is None:
        return None
    value = float(x)  # type: ignore[arg-type]
    return None if math.isnan(value) or math.isinf(value) else round(value, digits)


def headline_metrics(decline: pd.DataFrame) -> dict[str, Any]:
    """The headline decline per question type, for ``dvc metrics diff``."""
    return {
        str(r["qtype"]): {
            "first_month": str(r["first_month"]),
            "last_month": str(r["last_month"]),
            "models": int(r["n_models"]),
            "first_month_accuracy_pct": _num(r["first_accuracy"]),
            "last_month_accuracy_pct": _num(r["last_accuracy"]),
            "change_pct": _num(r["change_pct"]),
        }
        for r in decline.to_dict("records")
    }


def headline_notes(decline: pd.DataFrame) -> list[str]:
    """Models the headline decline leaves out, per type."""
    return [
        f"Headline decline ({str(r['qtype']).upper()}, {r['first_month']} vs "
        f"{r['last_month']}) leaves out: {r['left_out']}."
        for r in decline.to_dict("records")
        if r["left_out"]
    ]


def table3_notes(t3: pd.DataFrame) -> list[str]:
    """Table 3 rows whose bootstrap interval does not contain the estimate."""
    flags = [c for c in t3.columns if c.endswith("_ci_excludes")]
    if t3.empty or not flags:
        return []
    n = int(t3[flags].fillna(False).astype(bool).to_numpy().sum())
    if not n:
        return []
    return [
        f"{fmt_count(n)} Table 3 YoY intervals do not contain their estimate (marked †): the YoY "
        "statistic is strongly biased under resampling there (months with few questions), "
        "so the bootstrap interval is not to be trusted for those rows."
    ]


def series_notes(
    monthly: pd.DataFrame, slopes: pd.DataFrame, settings: AnalysisSettings
) -> list[str]:
    """What the monthly curves and Fig. 6 could not show, in words."""
    if monthly.empty:
        return []
    notes = []
    gaps = monthly.loc[monthly["n"] == 0]
    if not gaps.empty:
        notes.append(
            f"{fmt_count(len(gaps))} of {fmt_count(len(monthly))} series-months have no questions; they are "
            "gaps (empty cells, breaks in curves), not zeros."
        )
    ma = settings.moving_average
    if monthly["accuracy_ma"].isna().all():
        notes.append(
            f"No series has {ma.min_periods} months with data in a {ma.window}-month "
            f"window ({monthly['month_index'].nunique()} calendar months in the data): "
            "moving averages are empty."
        )
    if slopes.empty or slopes["slope_pp_per_month"].isna().all():
        notes.append(
            f"Fig. 6 slopes need {settings.slope.start_months} months from the first "
            f"defined moving average with at least {settings.slope.min_points} defined "
            "months; none qualifies."
        )
    return notes


def analysis_metrics(
    scores: pd.DataFrame,
    n_errors: int,
    cells: pd.DataFrame,
    pooled: pd.DataFrame,
    t3: pd.DataFrame,
    slopes: pd.DataFrame,
    decline: pd.DataFrame,
    tables: dict[str, pd.DataFrame],
) -> dict[str, Any]:
    """Headline numbers per model x cell x type, nested for ``dvc metrics diff``.

    Accuracies and rates are percentages; keys name the model and cell, so switching a
    model or a RAG cutoff shows as added/removed metrics, not as silently changed ones.
    """
    models: dict[str, Any] = {}

    def slot(rec: dict[Any, Any]) -> dict[str, Any] | None:
        found: dict[str, Any] | None = (
            models.get(str(rec["model"]), {}).get(str(rec["cell"]), {}).get(str(rec["qtype"]))
        )
        return found

    for rec in pooled.to_dict("records") if not pooled.empty else []:
        models.setdefault(str(rec["model"]), {}).setdefault(str(rec["cell"]), {})[
            str(rec["qtype"])
        ] = {
            "n": int(rec["n"]),
            "accuracy": _num(100.0 * rec["accuracy"]),
            "refusal_rate": _num(100.0 * rec["refusal_rate"]),
            "accuracy_excl_refusals": _num(100.0 * rec["accuracy_excl_refusals"]),
        }
    for rec in t3.to_dict("records"):
        entry = slot(rec)
        if entry is not None:
            for regime in REGIMES:
                entry[f"yoy_{regime}"] = _num(rec[f"yoy_{regime}"])
    if not slopes.empty:
        defined = slopes.dropna(subset=["slope_pp_per_month"])
        for rec in defined.groupby(["model", "cell", "qtype"]).tail(1).to_dict("records"):
            entry = slot(rec)
            if entry is not None:
                entry["last_slope_pp_per_month"] = _num(rec["slope_pp_per_month"])
    release = decline.loc[decline["anchor"] == "release_date"] if not decline.empty else decline
    for rec in release.to_dict("records"):
        entry = slot(rec)
        if entry is not None:
            entry["freshbench_pct_decline"] = _num(rec["pct_decline"])
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
