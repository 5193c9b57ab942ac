"""OpenForecast's part of the report: its figure and tables (the ``of_tables`` stage's
tables; a run without that stage leaves the part out), its first-screen line and its
part of the page's outline (``outline.yaml`` beside this file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.benchmarks.openforecast.figures import (
    CAPTION,
    CLOSED_TABLE,
    NAME,
    OPEN_TABLE,
    openforecast_results,
)
from prescient.evaluation.settings import CLOSED_BOOK
from prescient.report import tables as fmt
from prescient.report.figures import FigureSpec, Tables
from prescient.report.parts import OptionalInput, ReportInputs, ReportPart, read_outline

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


def judge_model(params: Mapping[str, Any]) -> str:
    """The LRAE judge of the run (``openforecast.lrae.judge_model``)."""
    of = params.get("openforecast")
    lrae = of.get("lrae") if isinstance(of, Mapping) else None
    judge = lrae.get("judge_model") if isinstance(lrae, Mapping) else None
    return str(judge) if judge else "the configured judge"


def openforecast_line(inputs: ReportInputs, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The first screen's line on OpenForecast: questions, samples and the judge."""
    if OPENFORECAST_PART in inputs.absent:
        return ("OpenForecast: not part of this run",)
    closed = inputs.tables.get(CLOSED_TABLE, pd.DataFrame())
    open_ = inputs.tables.get(OPEN_TABLE, pd.DataFrame())
    book = closed.loc[closed["setting"] == CLOSED_BOOK] if not closed.empty else closed
    n_closed = int(book.groupby("task")["n"].max().sum()) if not book.empty else 0
    f1 = open_.loc[open_["metric"] == "f1"] if not open_.empty else open_
    n_open = int(f1.groupby("task")["n"].max().sum()) if not f1.empty else 0
    judge = judge_model(params)
    return (
        f"OpenForecast: {fmt.fmt_int(n_closed)} closed-form questions, "
        f"{fmt.fmt_int(n_open)} open-form samples "
        f"judged by {judge}",
    )


PART = ReportPart(
    "OpenForecast",
    outline=read_outline("prescient.benchmarks.openforecast"),
    tables=OPENFORECAST_TABLES,
    figures=(OPENFORECAST_FIGURE,),
    inputs=(
        OptionalInput(
            "openforecast",
            OPENFORECAST_PART,
            "analysis.openforecast",
            "OpenForecast tables",
            {CLOSED_TABLE: "closed_accuracy", OPEN_TABLE: "open_scores"},
        ),
    ),
    facts=openforecast_line,
    words=lambda params: {"judge": judge_model(params)},
)
"""OpenForecast's part of the report."""
