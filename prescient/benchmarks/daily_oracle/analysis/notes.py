"""Daily Oracle's metrics and notes: the headline decline for ``dvc metrics diff``, and
what the headline, Table 3 and the Fig. 6 slopes rest on, in words."""

from __future__ import annotations

from typing import Any

import pandas as pd

from prescient.analysis.metrics import json_number as _num
from prescient.analysis.schema import ModelInfo
from prescient.benchmarks.daily_oracle.analysis.settings import SlopeSettings
from prescient.report.tables import fmt_count


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


def slope_notes(slopes: pd.DataFrame, slope: SlopeSettings) -> list[str]:
    """Fig. 6's slopes when no series qualifies, in words."""
    if slopes.empty or slopes["slope_pp_per_month"].isna().all():
        return [
            f"Fig. 6 slopes need {slope.start_months} months from the first "
            f"defined moving average with at least {slope.min_points} defined "
            "months; none qualifies."
        ]
    return []


def cutoff_notes(infos: tuple[ModelInfo, ...]) -> list[str]:
    """Models without a knowledge cutoff: Table 3 has no pre/post-cutoff YoY for them."""
    return [
        f"{i.model} has no knowledge cutoff: Table 3 pre/post-cutoff YoY left empty."
        for i in infos
        if i.knowledge_cutoff is None
    ]
