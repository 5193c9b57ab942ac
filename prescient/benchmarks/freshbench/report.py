"""FreshBench's part of the report: its figures and tables and the part they sit in.

Two figures and four tables: accuracy by period around each model's release (drawn
from the analysis tables, in the bias-tests part) and bits per character over time with
the Temporal Bias Index (the ``bpc`` stage's tables, in their own part, which a run
without that stage leaves out), with the bias tests' tables and its parts of the page's
outline (``outline.yaml`` beside this file).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.benchmarks.freshbench.figures import draw_bpc, empty_periods, fig_freshbench
from prescient.benchmarks.freshbench.report_tables import FRESHBENCH_TABLES
from prescient.report import tables as fmt
from prescient.report.figures import FigureSpec, Tables
from prescient.report.parts import OptionalInput, ReportInputs, ReportPart, read_outline

BPC_PART = "bpc"


def empty_bpc(tables: Tables) -> str:
    buckets = tables.get("bpc_buckets", pd.DataFrame())
    if not buckets.empty and buckets["bpc"].notna().any():
        return ""
    return "No document was scored (the skipped table says why for each model)."


PERIODS_FIGURE = FigureSpec(
    "freshbench_periods",
    "FreshBench periods: closed-book accuracy in the windows before release and the "
    "periods after it.",
    fig_freshbench,
    part="bias-tests",
    empty=empty_periods,
)
BPC_FIGURE = FigureSpec(
    "bpc_over_time",
    "BPC over time: the mean bits per character of each bucket's documents per model (with its "
    "bootstrap 95% band), the release date dashed, the TBI in the legend.",
    draw_bpc,
    part=BPC_PART,
    needs=("bpc_buckets", "bpc_tbi"),
    empty=empty_bpc,
)


BPC_TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.interval_table(
        "bpc_tbi",
        "Temporal Bias Index",
        (
            ("model", "Model", fmt.fmt_text),
            ("span", "Buckets", fmt.fmt_text),
            ("release_date", "Release", fmt.fmt_text),
            ("first_bucket", "First", fmt.fmt_text),
            ("last_bucket", "Last", fmt.fmt_text),
            ("n_points", "Points", fmt.fmt_int),
            ("n_gaps", "Gaps", fmt.fmt_int),
            ("tbi_ci", "TBI (BPC per bucket) [95%]", fmt.fmt_text),
            ("note", "Note", fmt.fmt_text),
        ),
        {"tbi_ci": ("tbi", "tbi_lo", "tbi_hi", 4, 1.0, "n_points")},
        "The least-squares slope of BPC over the buckets with documents: all of them, "
        "those ending by the release date, those starting after it; bootstrap 95% "
        "intervals over documents.",
        BPC_PART,
        "No model of bpc.models was scored.",
    ),
    fmt.interval_table(
        "bpc_release_changes",
        "BPC after the release against the months before it",
        (
            ("model", "Model", fmt.fmt_text),
            ("release_date", "Release", fmt.fmt_text),
            ("months_after", "Months after", fmt.fmt_int),
            ("base_start", "Base from", fmt.fmt_text),
            ("base_end", "Base to (excl.)", fmt.fmt_text),
            ("base_n", "Base n", fmt.fmt_int),
            ("base_bpc", "Base BPC", fmt.digits(4)),
            ("bucket", "Bucket", fmt.fmt_text),
            ("n_docs", "n", fmt.fmt_int),
            ("bpc", "BPC", fmt.digits(4)),
            ("change_ci", "Change [95%]", fmt.fmt_text),
            ("change_pct_ci", "Change (%) [95%]", fmt.fmt_text),
            ("note", "Note", fmt.fmt_text),
        ),
        {
            "change_ci": ("change", "change_lo", "change_hi", 4, 1.0, "n_docs"),
            "change_pct_ci": ("change_pct", "change_pct_lo", "change_pct_hi", 2, 1.0, "n_docs"),
        },
        "The BPC of the bucket holding the release date plus k months against the mean "
        "BPC of the documents dated in the months before the release (FreshBench, Table 6); "
        f"a bucket of fewer than {fmt.MIN_INTERVAL_N} documents shows too few in place "
        "of its change.",
        BPC_PART,
        "No model of bpc.models has a release date.",
        changes=("change_ci", "change_pct_ci"),
    ),
    fmt.interval_table(
        "bpc_buckets",
        "BPC per bucket",
        (
            ("model", "Model", fmt.fmt_text),
            ("segment_start", "Later segments", fmt.fmt_text),
            ("bucket", "Bucket", fmt.fmt_text),
            ("bucket_start", "From", fmt.fmt_text),
            ("bucket_end", "To (excl.)", fmt.fmt_text),
            ("n_docs", "Documents", fmt.fmt_int),
            ("n_failed", "Failed", fmt.fmt_int),
            ("bpc_ci", "BPC [95%]", fmt.fmt_text),
            ("bpc_pooled", "Pooled BPC", fmt.digits(4)),
            ("bpb", "Bits per byte", fmt.digits(4)),
            ("tokens", "Tokens", fmt.fmt_int),
            ("chars", "Characters", fmt.fmt_int),
        ),
        {"bpc_ci": ("bpc", "bpc_lo", "bpc_hi", 4, 1.0, "n_docs")},
        "Mean BPC of the bucket's documents; pooled: all their bits over all their "
        "characters. A bucket without documents is a gap, not a zero. Later segments: "
        "what each segment of context after a document's first was read from (lead: its "
        "lead token alone, FreshBench's reading; document_start: the start token, then "
        "the lead), which changes the BPC of documents longer than one segment.",
        BPC_PART,
        "No bucket: the corpus has no dated article in the range.",
        scroll=True,
    ),
    fmt.interval_table(
        "bpc_skipped",
        "Models (or analyses) left out of BPC",
        (
            ("model", "Model", fmt.fmt_text),
            ("what", "What", fmt.fmt_text),
            ("reason", "Reason", fmt.fmt_text),
        ),
        {},
        "",
        BPC_PART,
        "Every model of bpc.models was scored and has a release date.",
    ),
)
"""The BPC section's tables (schemas: :mod:`prescient.benchmarks.freshbench.bpc.tables`)."""

BPC_FILES: tuple[str, ...] = ("bpc_buckets", "bpc_tbi", "bpc_release_changes", "bpc_skipped")
"""The CSV stems the ``bpc`` stage writes under ``analysis.bpc`` (reports/bpc/)."""


def bpc_line(inputs: ReportInputs, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The first screen's line on bits per character: the models and documents scored."""
    if BPC_PART in inputs.absent:
        return ("BPC and TBI: not part of this run",)
    buckets = inputs.tables.get("bpc_buckets", pd.DataFrame())
    if buckets.empty or not buckets["bpc"].notna().any():
        return ("BPC and TBI: no document scored",)
    scored = buckets.loc[buckets["n_docs"] > 0]
    models = ", ".join(dict.fromkeys(scored["model"]))
    return (
        f"BPC and TBI: {models}, {fmt.fmt_int(scored['n_docs'].sum())} documents in "
        f"{fmt.fmt_int(scored['bucket'].nunique())} buckets",
    )


PART = ReportPart(
    "FreshBench",
    outline=read_outline("prescient.benchmarks.freshbench"),
    tables=(*FRESHBENCH_TABLES, *BPC_TABLES),
    figures=(PERIODS_FIGURE, BPC_FIGURE),
    inputs=(
        OptionalInput("bpc", BPC_PART, "analysis.bpc", "BPC tables", {n: n for n in BPC_FILES}),
    ),
    facts=bpc_line,
)
"""FreshBench's part of the report."""
