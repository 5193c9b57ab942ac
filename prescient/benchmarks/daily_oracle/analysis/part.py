"""Daily Oracle's own analysis (ICML 2025, sections 4.1-4.3): Table 3 and the yearly
accuracies, the headline decline, the Fig. 6 slopes, and how its questions were made
(the construction funnel and the leakage audit), on the shared analysis's monthly series.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.analysis.metrics import json_number
from prescient.analysis.parts import AnalysisContext, AnalysisPart, BenchmarkAnalysis, CellMetric
from prescient.benchmarks.daily_oracle.analysis.construction import (
    construction_funnel,
    leakage_audit,
)
from prescient.benchmarks.daily_oracle.analysis.headline import headline_table
from prescient.benchmarks.daily_oracle.analysis.notes import (
    cutoff_notes,
    headline_metrics,
    headline_notes,
    slope_notes,
    table3_notes,
)
from prescient.benchmarks.daily_oracle.analysis.settings import (
    HeadlineSettings,
    SlopeSettings,
    Table3Settings,
)
from prescient.benchmarks.daily_oracle.analysis.slope import slopes_table
from prescient.benchmarks.daily_oracle.analysis.yearly import (
    REGIMES,
    table3,
    yearly_averages,
)
from prescient.settings import Settings

TABLES: tuple[str, ...] = (
    "yearly_accuracy",
    "table3",
    "headline_decline",
    "slopes",
    "construction_funnel",
    "leakage_audit",
)
"""The CSVs Daily Oracle's analysis adds to the analysis tables."""
SECTIONS: dict[str, type[Settings]] = {
    "slope": SlopeSettings,
    "table3": Table3Settings,
    "headline": HeadlineSettings,
}
"""The sub-sections of ``analysis`` these tables read (conf/analysis/)."""


def _cell_metrics(t3: pd.DataFrame, slopes: pd.DataFrame) -> list[CellMetric]:
    """Each cell's average YoY changes and its last Fig. 6 slope."""
    out: list[CellMetric] = []
    for rec in t3.to_dict("records"):
        key = (str(rec["model"]), str(rec["cell"]), str(rec["qtype"]))
        out += [(*key, f"yoy_{r}", json_number(rec[f"yoy_{r}"])) for r in REGIMES]
    if not slopes.empty:
        defined = slopes.dropna(subset=["slope_pp_per_month"])
        for rec in defined.groupby(["model", "cell", "qtype"]).tail(1).to_dict("records"):
            key = (str(rec["model"]), str(rec["cell"]), str(rec["qtype"]))
            out.append((*key, "last_slope_pp_per_month", json_number(rec["slope_pp_per_month"])))
    return out


def analyse(ctx: AnalysisContext, own: Mapping[str, Any]) -> AnalysisPart:
    """Daily Oracle's tables, notes and metrics (:data:`TABLES`), under its own settings
    (``own``: :data:`SECTIONS`, validated)."""
    slope, t3_settings, headline = own["slope"], own["table3"], own["headline"]
    monthly, models = ctx.monthly, ctx.models
    t3 = table3(monthly, models, t3_settings, ctx.settings.bootstrap, ctx.seed)
    decline = headline_table(monthly, models, headline)
    slopes = slopes_table(monthly, slope)
    evaluated = set(ctx.inputs.info["question_id"].astype(str))
    candidates = ctx.candidates if ctx.candidates is not None else pd.DataFrame()
    n_articles = len(ctx.articles) if ctx.articles is not None else None
    notes = slope_notes(slopes, slope) if not monthly.empty else []
    return AnalysisPart(
        tables={
            "yearly_accuracy": yearly_averages(monthly, t3_settings.yearly),
            "table3": t3,
            "headline_decline": decline,
            "slopes": slopes,
            "construction_funnel": construction_funnel(candidates, n_articles, evaluated),
            "leakage_audit": leakage_audit(candidates),
        },
        notes=[*notes, *table3_notes(t3), *headline_notes(decline)],
        closing_notes=cutoff_notes(ctx.infos),
        metrics={"headline_closed_book": headline_metrics(decline)},
        cell_metrics=_cell_metrics(t3, slopes),
    )


ANALYSIS = BenchmarkAnalysis("daily_oracle", TABLES, SECTIONS, analyse)
"""Daily Oracle's analysis, as the ``analyze`` stage runs it."""
