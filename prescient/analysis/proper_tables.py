"""The proper-score tables of the ``analyze`` stage, beyond the three papers: the
forecasts of every elicitation (:mod:`.forecasts`) scored by :mod:`.proper`, with the
notes saying what was left out and the metrics per model, cell and elicitation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient.analysis.failures import answer_failures
from prescient.analysis.forecasts import forecast_frame
from prescient.analysis.inputs import Inputs, period_months
from prescient.analysis.leaderboard import leaderboard_table
from prescient.analysis.proper import monthly_brier, proper_scores_table, with_items
from prescient.analysis.proper_calibration import reliability_table
from prescient.analysis.proper_groups import ALL
from prescient.analysis.proper_paired import paired_table
from prescient.analysis.settings import AnalysisSettings
from prescient.evaluation.forecasts import UNIFORM_FILL
from prescient.evaluation.settings import LABEL
from prescient.kept import KeptStore
from prescient.proper_metrics import item_scores
from prescient.report.tables import fmt_count

PROPER_TABLES: tuple[str, ...] = (
    "leaderboard",
    "proper_scores",
    "proper_monthly",
    "proper_reliability",
    "proper_paired",
)
"""The tables (``<name>.csv``) this module adds to the analysis."""

REASONS = {
    "failed_call": "had a failed model call (no forecast)",
    "no_gold_article": "were gold rows without a gold article (no call)",
    "no_outcome": "ask questions whose resolved answer is unknown (no answer_index in the "
    "questions table, none readable off the scores)",
    "excluded_source": "come from sources in analysis.exclude_sources",
    "period": "resolve outside analysis.date_start .. date_end",
    "repeated_question": "ask questions analysis.duplicate_questions.handling leaves out",
}
"""Why a scored row is not in the proper scores, in words (notes)."""


@dataclass(frozen=True)
class ProperResult:
    """The tables, the notes and the metrics of the proper scores."""

    tables: dict[str, pd.DataFrame]
    notes: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    failures: pd.DataFrame = field(default_factory=pd.DataFrame)
    """``answer_failures`` rows of every elicitation but ``label`` (:mod:`.failures`)."""


def proper_tables(
    raw_scores: pd.DataFrame,
    questions: pd.DataFrame | None,
    inputs: Inputs,
    settings: AnalysisSettings,
    seed: int,
    store: KeptStore | None = None,
) -> ProperResult:
    """Every proper-score table of a scores table (every elicitation, ``crowd`` rows
    included), over the questions and period the accuracy tables cover (``store``: where
    the monthly table's rows of earlier runs are kept, :class:`~.proper.MonthRows`)."""
    sources = dict(zip(inputs.info["question_id"], inputs.info["source"], strict=True))
    found = forecast_frame(raw_scores, questions, sources, settings)
    frame = found.frame
    dropped = dict(found.dropped)
    kept = frame["question_id"].isin(set(inputs.info["question_id"]))
    dropped["repeated_question"] = int((~kept).sum())
    frame = with_items(frame.loc[kept].reset_index(drop=True))  # read by every table
    p = settings.proper
    alpha = 1.0 - p.bootstrap.confidence
    scores = proper_scores_table(frame, p.bins, p.bootstrap, seed)
    tables = {
        "leaderboard": leaderboard_table(scores),
        "proper_scores": scores,
        "proper_monthly": monthly_brier(
            frame,
            settings.moving_average,
            period_months(frame, settings),
            p.bootstrap,
            seed,
            store,
        ),
        "proper_reliability": reliability_table(frame, p.bins),
        "proper_paired": paired_table(frame, p.bootstrap, seed, alpha),
    }
    notes = [
        f"Proper scores: {fmt_count(n)} scored rows {REASONS[reason]} and are left out."
        for reason, n in dropped.items()
        if n and reason in REASONS and reason not in ("excluded_source", "period")
    ]
    filled = int((frame["prob_source"] == UNIFORM_FILL).sum()) if not frame.empty else 0
    if filled:
        notes.append(
            f"Proper scores: {fmt_count(filled)} forecasts had no readable answer (a refusal or "
            "a parse failure) and are scored as the uniform forecast (uniform_fill)."
        )
    if not found.has_probs and not frame.empty:
        notes.append(
            "The scores table has no probs column: every forecast is a label's one-hot "
            "(uniform where no answer was read), so Brier and log scores score the labels."
        )
    elicited = frame.loc[frame["elicitation"] != LABEL]
    failures = answer_failures(elicited) if not elicited.empty else pd.DataFrame()
    return ProperResult(tables, notes, _metrics(tables["proper_scores"], dropped), failures)


def _metrics(scores: pd.DataFrame, dropped: dict[str, int]) -> dict[str, Any]:
    """Every declared item score (:mod:`prescient.proper_metrics`: Brier, log score) over
    all questions per model, cell and elicitation."""
    out: dict[str, Any] = {"dropped": dropped, "models": {}}
    if scores.empty:
        return out
    pooled = scores.loc[scores["qtype"] == ALL]
    names = [s.name for s in item_scores()]
    for row in pooled[["model", "cell", "elicitation", "n", *names]].itertuples(index=False):
        model, cell, elicitation, n, *values = row
        entry = out["models"].setdefault(str(model), {}).setdefault(str(cell), {})
        entry[str(elicitation)] = {
            "n": int(n),
            **{name: round(float(v), 6) for name, v in zip(names, values, strict=True)},
        }
    return out
