"""Assemble ``reports/index.html`` from the analysis tables, figures and provenance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.report import tables as fmt
from prescient.report.figures import FIGURES
from prescient.report.html import EmbeddedFigure, TableSection, render_page
from prescient.report.provenance import GitState, params_digest

TITLE = "Prescient report"


def _get(tables: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame:
    return tables.get(name, pd.DataFrame())


def _kv(df: pd.DataFrame) -> dict[str, str]:
    if df.empty or "key" not in df.columns:
        return {}
    return {str(k): str(v) for k, v in zip(df["key"], df["value"], strict=True)}


def provenance_rows(
    git: GitState, params: Mapping[str, Any], tables: Mapping[str, pd.DataFrame]
) -> list[tuple[str, str]]:
    """Key-value lines identifying the code, configuration and data of this report: the
    inputs are those the analysis read (its provenance table), so a report on a scores
    table from elsewhere names that table, not the project's corpus."""
    inputs = _kv(_get(tables, "provenance"))
    corpus = params.get("corpus", {}) if isinstance(params.get("corpus"), Mapping) else {}
    has_corpus = bool(inputs.get("corpus_checksum"))
    return [
        ("git commit (when the report was built)", git.describe()),
        ("params digest (sha256 of params.yaml)", params_digest(params)),
        ("corpus", str(corpus.get("name", "")) if has_corpus else "none (scores analysed alone)"),
        ("corpus checksum (articles table)", inputs.get("corpus_checksum", "")),
        ("articles", inputs.get("articles", "")),
        ("scores table", inputs.get("scores_path", "")),
        ("scores checksum", inputs.get("scores_checksum", "")),
        ("scored rows", inputs.get("scores_rows", "")),
        ("questions table", inputs.get("questions_path", "")),
        ("questions checksum", inputs.get("questions_checksum", "")),
        ("question sources", inputs.get("sources", "")),
        ("sources in the time series", inputs.get("time_series_sources", "")),
        ("retrieval window (articles dated in)", inputs.get("retrieval_window", "")),
        ("questions with a forecast date", inputs.get("forecast_dates", "")),
        ("duplicate score rows dropped", inputs.get("duplicates_dropped", "")),
        ("random seed (base.seed)", str(params.get("base", {}).get("seed", ""))),
    ]


QUESTION_COUNTS: tuple[tuple[str, str, int | None], ...] = (
    ("n_questions", "Questions", None),
    ("n_tf", "TF questions", None),
    ("n_mc", "MC questions", None),
    ("first_date", "First resolution date", None),
    ("last_date", "Last resolution date", None),
    ("n_days", "Days with questions", None),
    ("questions_per_day", "Questions per day", 1),
)
"""(key of dataset_summary, label, decimals or None for text)."""


def _section(spec: fmt.ReportTable, tables: Mapping[str, pd.DataFrame]) -> TableSection:
    return TableSection(
        spec.section_id, spec.title, spec.display(_get(tables, spec.name)), spec.note, spec.scroll
    )


def overview_sections(tables: Mapping[str, pd.DataFrame]) -> list[TableSection]:
    """Models with their dates, question counts and what was scored per cell."""
    summary = _kv(_get(tables, "dataset_summary"))
    counts = pd.DataFrame(
        {
            "Quantity": [label for _, label, _ in QUESTION_COUNTS],
            "Value": [
                fmt.fmt_text(summary.get(key, ""))
                if digits is None
                else fmt.fmt_number(summary.get(key, ""), digits)
                for key, _, digits in QUESTION_COUNTS
            ],
        }
    )
    return [
        _section(fmt.MODELS, tables),
        _section(fmt.SOURCES, tables),
        TableSection("question-counts", "Questions", counts),
        _section(fmt.CELLS, tables),
    ]


def table_sections(tables: Mapping[str, pd.DataFrame]) -> list[TableSection]:
    """Every analysis table, formatted for reading (:data:`fmt.ANALYSIS_TABLES`)."""
    return [_section(spec, tables) for spec in fmt.ANALYSIS_TABLES]


def build_report(
    tables: Mapping[str, pd.DataFrame],
    figures: Mapping[str, bytes | None],
    git: GitState,
    params: Mapping[str, Any],
) -> str:
    """The HTML page: provenance, overview, notes, every figure and every table."""
    notes_df = _get(tables, "notes")
    notes = [str(n) for n in notes_df["note"]] if "note" in notes_df.columns else []
    embedded = [EmbeddedFigure(f.name, f.caption, figures.get(f.name)) for f in FIGURES]
    return render_page(
        TITLE,
        provenance_rows(git, params, tables),
        notes,
        overview_sections(tables),
        embedded,
        table_sections(tables),
    )
