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
    git: GitState,
    params: Mapping[str, Any],
    ingest_metrics: Mapping[str, Any] | None,
    tables: Mapping[str, pd.DataFrame],
) -> list[tuple[str, str]]:
    """Key-value lines identifying the code, configuration and data of this report."""
    inputs = _kv(_get(tables, "provenance"))
    ingest = ingest_metrics or {}
    corpus = params.get("corpus", {}) if isinstance(params.get("corpus"), Mapping) else {}
    return [
        ("git commit (when the report was built)", git.describe()),
        ("params digest (sha256 of params.yaml)", params_digest(params)),
        ("corpus", str(corpus.get("name", ""))),
        ("corpus checksum (ingest)", str(ingest.get("checksum", ""))),
        ("articles after ingest", str(ingest.get("rows_kept", ""))),
        ("scores table", inputs.get("scores_path", "")),
        ("scores checksum", inputs.get("scores_checksum", "")),
        ("scored rows", inputs.get("scores_rows", "")),
        ("questions checksum", inputs.get("questions_checksum", "")),
        ("random seed (base.seed)", str(params.get("base", {}).get("seed", ""))),
    ]


def overview_sections(tables: Mapping[str, pd.DataFrame]) -> list[TableSection]:
    """Models with their dates, question counts and what was scored per cell."""
    t = fmt.fmt_text
    models = fmt.display_frame(
        _get(tables, "models"),
        [
            ("model", "Model", t),
            ("knowledge_cutoff", "Knowledge cutoff", t),
            ("release_date", "Release date", t),
            ("source", "Dates from", t),
        ],
    )
    summary = _kv(_get(tables, "dataset_summary"))
    counts = pd.DataFrame(
        {
            "Quantity": [
                "Questions",
                "TF questions",
                "MC questions",
                "First resolution date",
                "Last resolution date",
                "Days with questions",
                "Questions per day",
            ],
            "Value": [
                fmt.fmt_text(summary.get(k, ""))
                if k not in ("questions_per_day",)
                else fmt.fmt_number(summary.get(k, ""), 1)
                for k in (
                    "n_questions",
                    "n_tf",
                    "n_mc",
                    "first_date",
                    "last_date",
                    "n_days",
                    "questions_per_day",
                )
            ],
        }
    )
    cells = fmt.display_frame(
        _get(tables, "cells"),
        [
            ("model", "Model", t),
            ("cell", "Setting", t),
            ("n", "Scored", fmt.fmt_int),
            ("n_tf", "TF", fmt.fmt_int),
            ("n_mc", "MC", fmt.fmt_int),
            ("n_errors", "Failed calls", fmt.fmt_int),
            ("first_month", "First month", t),
            ("last_month", "Last month", t),
        ],
    )
    return [
        TableSection("models", "Models and their dates", models),
        TableSection("question-counts", "Questions", counts),
        TableSection("cells", "Scored questions per model and setting", cells),
    ]


def table_sections(tables: Mapping[str, pd.DataFrame]) -> list[TableSection]:
    """Every analysis table, formatted for reading."""
    t = fmt.fmt_text
    return [
        TableSection(
            "table3",
            "Table 3: yearly average accuracy (%) and average YoY change (%)",
            fmt.table3_display(_get(tables, "table3")),
            "Yearly accuracy is the mean of that year's monthly accuracies. YoY change at "
            "month m is 100 (acc(m) - acc(m-12)) / acc(m-12); the averages are over months "
            "up to the knowledge cutoff month (pre), after it (post) and all months, with "
            "bias-corrected bootstrap 95% intervals in brackets.",
        ),
        TableSection(
            "freshbench-bias",
            "FreshBench bias tests: each past window against the present window",
            fmt.display_frame(_get(tables, "freshbench_bias"), fmt.BIAS_COLUMNS),
            "One-sided two-proportion z-tests, p = 1 - Phi(z). Neophilia: past < present; "
            "Nostalgia: past > present. * p < 0.05, ** p < 0.01, *** p < 0.001.",
            scroll=True,
        ),
        TableSection(
            "freshbench-degeneration",
            "FreshBench temporal degeneration: periods after the anchor date against the "
            "present window",
            fmt.display_frame(_get(tables, "freshbench_degeneration"), fmt.DEGENERATION_COLUMNS),
            "H1: accuracy after the anchor date is lower than in the present window.",
            scroll=True,
        ),
        TableSection(
            "freshbench-decline",
            "FreshBench decline table",
            fmt.display_frame(_get(tables, "freshbench_decline"), fmt.DECLINE_COLUMNS),
            "Pre-release accuracy is the present window's; the first post-release accuracy "
            "is that of the first period after the anchor date with questions.",
        ),
        TableSection(
            "freshbench-skipped",
            "Models skipped by the FreshBench tests",
            fmt.display_frame(
                _get(tables, "freshbench_skipped"),
                [("model", "Model", t), ("anchor", "Anchor", t), ("reason", "Reason", t)],
            ),
        ),
        TableSection(
            "slopes",
            "Fig. 6 data: expanding-window slopes",
            fmt.display_frame(_get(tables, "slopes"), fmt.SLOPE_COLUMNS),
            scroll=True,
        ),
        TableSection(
            "monthly-accuracy",
            "Monthly accuracy with Wilson 95% intervals",
            fmt.display_frame(_get(tables, "monthly_accuracy"), fmt.MONTHLY_COLUMNS),
            "Months without questions are kept as rows with n = 0 and empty rates.",
            scroll=True,
        ),
        TableSection(
            "dataset-mc-types",
            "MC question types",
            fmt.display_frame(
                _get(tables, "dataset_mc_types"),
                [
                    ("mc_type", "Type", t),
                    ("n", "n", fmt.fmt_int),
                    ("share_pct", "%", fmt.fmt_number),
                ],
            ),
        ),
        TableSection(
            "dataset-categories",
            "Question categories",
            fmt.display_frame(
                _get(tables, "dataset_categories"),
                [
                    ("category", "Category", t),
                    ("n", "n", fmt.fmt_int),
                    ("share_pct", "%", fmt.fmt_number),
                    ("n_tf", "TF", fmt.fmt_int),
                    ("n_mc", "MC", fmt.fmt_int),
                ],
            ),
        ),
        TableSection(
            "dataset-questions-by-month",
            "Questions per month",
            fmt.display_frame(
                _get(tables, "dataset_questions_by_month"),
                [
                    ("month", "Month", t),
                    ("n_tf", "TF", fmt.fmt_int),
                    ("n_mc", "MC", fmt.fmt_int),
                    ("n", "All", fmt.fmt_int),
                ],
            ),
            scroll=True,
        ),
        TableSection(
            "anderson-schooler-fit",
            "Anderson-Schooler linear fits",
            fmt.display_frame(
                _get(tables, "anderson_schooler_fit"),
                [
                    ("source", "Source", t),
                    ("n_days", "Days", fmt.fmt_int),
                    ("vocabulary", "Words", fmt.fmt_int),
                    ("n_bins", "Frequencies", fmt.fmt_int),
                    ("slope", "Slope", lambda v: fmt.fmt_number(v, 4)),
                    ("intercept", "Intercept", lambda v: fmt.fmt_number(v, 4)),
                    ("r2", "R²", lambda v: fmt.fmt_number(v, 3)),
                    ("status", "Status", t),
                ],
            ),
        ),
    ]


def build_report(
    tables: Mapping[str, pd.DataFrame],
    figures: Mapping[str, bytes | None],
    git: GitState,
    params: Mapping[str, Any],
    ingest_metrics: Mapping[str, Any] | None,
) -> str:
    """The HTML page: provenance, overview, notes, every figure and every table."""
    notes_df = _get(tables, "notes")
    notes = [str(n) for n in notes_df["note"]] if "note" in notes_df.columns else []
    embedded = [EmbeddedFigure(f.name, f.caption, figures.get(f.name)) for f in FIGURES]
    return render_page(
        TITLE,
        provenance_rows(git, params, ingest_metrics, tables),
        notes,
        overview_sections(tables),
        embedded,
        table_sections(tables),
    )
