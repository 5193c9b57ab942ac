"""Everything the report shows and where it comes from.

The analysis tables are always there (stage ``analyze``). Two parts read tables of
their own: FreshBench's bits per character (stage ``bpc``, ``analysis.bpc``) and
OpenForecast (stage ``of_tables``, ``analysis.openforecast``). A run that leaves them out
(an imported benchmark, a scores table analysed alone) points those params at a
directory without their tables: :func:`read_inputs` then records the part as not part of
this run, ``plot`` draws none of its figures and the report says so in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from prescient.benchmarks.daily_oracle.analysis.pipeline import TABLE_NAMES
from prescient.benchmarks.freshbench.bpc.tables import REPORT_TABLES as BPC_SCHEMAS
from prescient.benchmarks.freshbench.figures import draw_bpc
from prescient.benchmarks.openforecast.figures import (
    CAPTION,
    CLOSED_TABLE,
    NAME,
    OPEN_TABLE,
    openforecast_results,
)
from prescient.report import tables as fmt
from prescient.report.figures import FIGURES, FigureSpec, Tables

BPC_PART = "bpc"
OPENFORECAST_PART = "open-forecast"


@dataclass(frozen=True)
class OptionalInput:
    """A directory of tables of another stage, read for one part of the report.

    Attributes:
        part: the part it feeds (:mod:`prescient.report.outline`).
        param: the params key naming the directory.
        what: the tables, in words.
        files: table key (as figures and tables name it) -> CSV file stem.
    """

    part: str
    param: str
    what: str
    files: Mapping[str, str]


OPTIONAL_INPUTS: tuple[OptionalInput, ...] = (
    OptionalInput(BPC_PART, "analysis.bpc", "BPC tables", {n: n for n in BPC_SCHEMAS}),
    OptionalInput(
        OPENFORECAST_PART,
        "analysis.openforecast",
        "OpenForecast tables",
        {CLOSED_TABLE: "closed_accuracy", OPEN_TABLE: "open_scores"},
    ),
)


@dataclass(frozen=True)
class ReportInputs:
    """The tables of one report and the parts that are not part of the run.

    Attributes:
        tables: table key -> table (analysis tables by name; BPC and OpenForecast tables
            by the keys their figures read).
        absent: part id -> the one line saying why it is not part of this run.
    """

    tables: dict[str, pd.DataFrame]
    absent: dict[str, str] = field(default_factory=dict)


def read_inputs(tables_dir: str | Path, optional: Mapping[str, str | Path]) -> ReportInputs:
    """Read the analysis tables and each optional input's directory.

    Args:
        tables_dir: the analysis tables.
        optional: part id -> the directory of its tables (from the params of
            :data:`OPTIONAL_INPUTS`). A directory holding none of the part's tables (or
            not existing) leaves the part out of the run.
    """
    tables = fmt.read_tables(tables_dir, TABLE_NAMES)
    absent: dict[str, str] = {}
    for source in OPTIONAL_INPUTS:
        directory = Path(optional[source.part])
        found = fmt.read_tables(directory, list(source.files.values()))
        if not found:
            absent[source.part] = (
                f"Not part of this run: {directory.as_posix()} ({source.param}) holds no "
                f"{source.what}."
            )
            continue
        tables.update({key: found[stem] for key, stem in source.files.items() if stem in found})
    return ReportInputs(tables, absent)


def _empty_bpc(tables: Tables) -> str:
    buckets = tables.get("bpc_buckets", pd.DataFrame())
    if not buckets.empty and buckets["bpc"].notna().any():
        return ""
    return "No document was scored (the skipped table says why for each model)."


def _empty_openforecast(tables: Tables) -> str:
    closed = tables.get(CLOSED_TABLE, pd.DataFrame())
    open_ = tables.get(OPEN_TABLE, pd.DataFrame())
    if (not closed.empty and int(closed["n"].sum()) > 0) or (
        not open_.empty and int(open_["n"].sum()) > 0
    ):
        return ""
    return "No closed-form question was scored and no open-form prediction judged."


BPC_FIGURE = FigureSpec(
    "bpc_over_time",
    "BPC over time: the mean bits per character of each bucket's documents per model (with its "
    "bootstrap 95% band), the release date dashed, the TBI in the legend.",
    draw_bpc,
    part=BPC_PART,
    needs=("bpc_buckets", "bpc_tbi"),
    empty=_empty_bpc,
)
OPENFORECAST_FIGURE = FigureSpec(
    NAME,
    CAPTION,
    openforecast_results,
    part=OPENFORECAST_PART,
    needs=(CLOSED_TABLE, OPEN_TABLE),
    empty=_empty_openforecast,
)
REPORT_FIGURES: tuple[FigureSpec, ...] = (*FIGURES, BPC_FIGURE, OPENFORECAST_FIGURE)
"""Every figure ``plot`` draws and the report shows, each in its part."""


Interval = fmt.Interval


def _model_name(df: pd.DataFrame) -> pd.DataFrame:
    """BPC tables name models by registry name and display name: show the latter."""
    if "display_name" not in df.columns:
        return df
    shown = [d if d else m for m, d in zip(df["model"], df["display_name"], strict=True)]
    return df.assign(model=shown)


def _table(
    name: str,
    title: str,
    columns: tuple[fmt.Column, ...],
    intervals: dict[str, Interval],
    note: str,
    part: str,
    empty: str,
    scroll: bool = False,
) -> fmt.ReportTable:
    """A table whose display joins values with intervals (the columns named as keys of
    ``intervals``) and shows BPC models by their display name."""
    joined = fmt.interval_columns(columns, intervals)
    return fmt.ReportTable(
        name,
        name.replace("_", "-"),
        title,
        columns,
        note,
        scroll,
        render=lambda df: joined(_model_name(df)),
        part=part,
        empty=empty,
    )


def _digits(n: int) -> Callable[[object], str]:
    return lambda v: fmt.fmt_number(v, n)


BPC_TABLES: tuple[fmt.ReportTable, ...] = (
    _table(
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
    _table(
        "bpc_release_changes",
        "BPC after the release against the months before it",
        (
            ("model", "Model", fmt.fmt_text),
            ("release_date", "Release", fmt.fmt_text),
            ("months_after", "Months after", fmt.fmt_int),
            ("base_start", "Base from", fmt.fmt_text),
            ("base_end", "Base to (excl.)", fmt.fmt_text),
            ("base_n", "Base n", fmt.fmt_int),
            ("base_bpc", "Base BPC", _digits(4)),
            ("bucket", "Bucket", fmt.fmt_text),
            ("n_docs", "n", fmt.fmt_int),
            ("bpc", "BPC", _digits(4)),
            ("change_ci", "Change [95%]", fmt.fmt_text),
            ("change_pct_ci", "Change (%) [95%]", fmt.fmt_text),
            ("note", "Note", fmt.fmt_text),
        ),
        {
            "change_ci": ("change", "change_lo", "change_hi", 4, 1.0, "n_docs"),
            "change_pct_ci": ("change_pct", "change_pct_lo", "change_pct_hi", 2, 1.0, "n_docs"),
        },
        "The BPC of the bucket holding the release date plus k months against the mean "
        "BPC of the documents dated in the months before the release (FreshBench, Table 6).",
        BPC_PART,
        "No model of bpc.models has a release date.",
    ),
    _table(
        "bpc_buckets",
        "BPC per bucket",
        (
            ("model", "Model", fmt.fmt_text),
            ("bucket", "Bucket", fmt.fmt_text),
            ("bucket_start", "From", fmt.fmt_text),
            ("bucket_end", "To (excl.)", fmt.fmt_text),
            ("n_docs", "Documents", fmt.fmt_int),
            ("n_failed", "Failed", fmt.fmt_int),
            ("bpc_ci", "BPC [95%]", fmt.fmt_text),
            ("bpc_pooled", "Pooled BPC", _digits(4)),
            ("bpb", "Bits per byte", _digits(4)),
            ("tokens", "Tokens", fmt.fmt_int),
            ("chars", "Characters", fmt.fmt_int),
        ),
        {"bpc_ci": ("bpc", "bpc_lo", "bpc_hi", 4, 1.0, "n_docs")},
        "Mean BPC of the bucket's documents; pooled: all their bits over all their "
        "characters. A bucket without documents is a gap, not a zero.",
        BPC_PART,
        "No bucket: the corpus has no dated article in the range.",
        scroll=True,
    ),
    _table(
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


def _upper(value: object) -> str:
    return fmt.fmt_text(value).upper()


OPENFORECAST_TABLES: tuple[fmt.ReportTable, ...] = (
    _table(
        CLOSED_TABLE,
        "Closed forms: accuracy",
        (
            ("model", "Model", fmt.fmt_text),
            ("task", "Task", _upper),
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
    _table(
        OPEN_TABLE,
        "Open forms: LRAE precision, recall and F1",
        (
            ("model", "Model", fmt.fmt_text),
            ("task", "Task", _upper),
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


QUESTION_COUNTS: tuple[tuple[str, str, Callable[[object], str]], ...] = (
    ("n_questions", "Questions", fmt.fmt_int),
    ("n_tf", "TF questions", fmt.fmt_int),
    ("n_mc", "MC questions", fmt.fmt_int),
    ("first_date", "First resolution date", fmt.fmt_text),
    ("last_date", "Last resolution date", fmt.fmt_text),
    ("n_days", "Days with questions", fmt.fmt_int),
    ("questions_per_day", "Questions per day", _digits(1)),
)
"""(key of dataset_summary, label, formatter: counts as every count of the report)."""


def question_counts(summary: pd.DataFrame) -> pd.DataFrame:
    """The dataset summary's key-value rows as a two-column table."""
    values = dict(zip(summary.get("key", []), summary.get("value", []), strict=True))
    return pd.DataFrame(
        {
            "Quantity": [label for _, label, _ in QUESTION_COUNTS],
            "Value": [show(values.get(key, "")) for key, _, show in QUESTION_COUNTS],
        }
    )


def _yes(value: object) -> str:
    return "yes" if str(value).strip().lower() in ("true", "1") else ""


DUPLICATES_TABLE = fmt.ReportTable(
    "dataset_duplicates",
    "question-duplicates",
    "Repeated questions",
    (
        ("question_id", "Question id", fmt.fmt_text),
        ("source", "Source", fmt.fmt_text),
        ("resolution_date", "Resolves", fmt.fmt_text),
        ("qtype", "Type", _upper),
        ("question", "Question", fmt.fmt_text),
        ("answer", "Gold answer", fmt.fmt_text),
        ("kind", "Repeat", fmt.fmt_text),
        ("repeat_of", "Of", fmt.fmt_text),
        ("similarity", "TF-IDF cosine", _digits(2)),
        ("contradictory", "Contradictory", _yes),
        ("dropped", "Left out", _yes),
    ),
    "Questions asked more than once across the whole evaluated set: word for word (exact) "
    "or a near-duplicate of an earlier day's question (near, analysis.duplicate_questions."
    "threshold), and the first of a repeat answered both ways (first). Contradictory: the "
    "same question carries different gold answers. Left out under analysis."
    "duplicate_questions.handling; the notes give the counts.",
    scroll=True,
    part="sources",
    empty="No question is asked twice.",
)
QUESTION_COUNTS_TABLE = fmt.ReportTable(
    "dataset_summary",
    "question-counts",
    "Questions",
    render=question_counts,
    part="sources",
    empty="No evaluated questions.",
)
REPORT_TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.SOURCES,
    QUESTION_COUNTS_TABLE,
    DUPLICATES_TABLE,
    *fmt.ANALYSIS_TABLES,
    *BPC_TABLES,
    *OPENFORECAST_TABLES,
    fmt.MODELS,
    fmt.CELLS,
)
"""Every table of the report; each part shows its own in this order."""
