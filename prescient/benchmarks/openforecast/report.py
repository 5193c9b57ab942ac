"""OpenForecast's part of the report: its figure and tables (the ``of_tables`` stage's
tables; a run without that stage leaves the part out, :mod:`prescient.report.contents`)."""

from __future__ import annotations

import pandas as pd

from prescient.benchmarks.openforecast.figures import (
    CAPTION,
    CLOSED_TABLE,
    NAME,
    OPEN_TABLE,
    openforecast_results,
)
from prescient.report import tables as fmt
from prescient.report.figures import FigureSpec, Tables

OPENFORECAST_PART = "open-forecast"


def empty_openforecast(tables: Tables) -> str:
    closed = tables.get(CLOSED_TABLE, pd.DataFrame())
    open_ = tables.get(OPEN_TABLE, pd.DataFrame())
    if (not closed.empty and int(closed["n"].sum()) > 0) or (
        not open_.empty and int(open_["n"].sum()) > 0
    ):
        return ""
    return "No closed-form question was scored and no open-form prediction judged."


OPENFORECAST_FIGURE = FigureSpec(
    NAME,
    CAPTION,
    openforecast_results,
    part=OPENFORECAST_PART,
    needs=(CLOSED_TABLE, OPEN_TABLE),
    empty=empty_openforecast,
)


OPENFORECAST_TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.interval_table(
        CLOSED_TABLE,
        "Closed forms: accuracy",
        (
            ("model", "Model", fmt.fmt_text),
            ("task", "Task", fmt.upper_text),
            ("setting", "Setting", fmt.fmt_text),
            ("rag_cutoff", "RAG cutoff", fmt.fmt_text),
            ("n", "n", fmt.fmt_int),
            ("n_correct", "Correct", fmt.fmt_int),
            ("n_failed", "Failed calls", fmt.fmt_int),
            ("accuracy_ci", "Accuracy (%) [Wilson 95%]", fmt.fmt_text),
        ),
        {"accuracy_ci": ("accuracy", "low", "high", 2, 100.0, "n")},
        "MCNC: the next event among four; MCAC: an argument of it among four; VQA: will "
        "this event happen (yes/no). Failed calls are left out of n.",
        OPENFORECAST_PART,
        "No closed-form question was scored: evaluate them beside Daily Oracle's "
        "(-S questions=daily_oracle_openforecast).",
    ),
    fmt.interval_table(
        OPEN_TABLE,
        "Open forms: LRAE precision, recall and F1",
        (
            ("model", "Model", fmt.fmt_text),
            ("task", "Task", fmt.upper_text),
            ("metric", "Metric", fmt.fmt_text),
            ("n", "Samples", fmt.fmt_int),
            ("n_failed", "Failed", fmt.fmt_int),
            ("value_ci", "Value (%) [95%]", fmt.fmt_text),
            ("interval", "Interval", fmt.fmt_text),
        ),
        {"value_ci": ("value", "low", "high", 2, 100.0, "n")},
        "STF: the events of the split date; LTF: the rest of the chain; AQA: an argument "
        "question. Macro averages over samples; *_gold: matched against the gold events "
        "only, without the evidence check.",
        OPENFORECAST_PART,
        "No open-form prediction was judged.",
    ),
)
"""The OpenForecast section's tables (schemas: :mod:`prescient.benchmarks.openforecast.tables`)."""
