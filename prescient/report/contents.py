"""Everything the report shows and where it comes from.

The analysis tables are always there (stage ``analyze``). Two parts read tables of
their own: FreshBench's bits per character (stage ``bpc``, ``analysis.bpc``) and
OpenForecast (stage ``of_tables``, ``analysis.openforecast``). A run that leaves them out
(an imported benchmark, a scores table analysed alone) points those params at a
directory without their tables: :func:`read_inputs` then records the part as not part of
this run, ``plot`` draws none of its figures and the report says so in one line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from prescient.benchmarks.daily_oracle.analysis.pipeline import TABLE_NAMES
from prescient.benchmarks.daily_oracle.figures import FIGURES as DAILY_ORACLE_FIGURES
from prescient.benchmarks.daily_oracle.proper_figures import PROPER_FIGURES
from prescient.benchmarks.freshbench.bpc.tables import REPORT_TABLES as BPC_SCHEMAS
from prescient.benchmarks.freshbench.report import (
    BPC_FIGURE,
    BPC_PART,
    BPC_TABLES,
    PERIODS_FIGURE,
)
from prescient.benchmarks.openforecast.figures import CLOSED_TABLE, OPEN_TABLE
from prescient.benchmarks.openforecast.report import (
    OPENFORECAST_FIGURE,
    OPENFORECAST_PART,
    OPENFORECAST_TABLES,
)
from prescient.report import tables as fmt
from prescient.report.analysis_tables import ANALYSIS_TABLES
from prescient.report.figures import FigureSpec


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


def input_options(ap: argparse.ArgumentParser) -> None:
    """The inputs of the stages that read every part (``plot``, ``report``): the analysis
    tables and each optional part's directory."""
    ap.add_argument("--tables", required=True, help="directory of the analysis tables")
    ap.add_argument("--bpc", required=True, help="directory of the BPC tables (analysis.bpc)")
    ap.add_argument(
        "--openforecast",
        required=True,
        help="directory of OpenForecast's tables (analysis.openforecast)",
    )


def read_stage_inputs(args: argparse.Namespace) -> ReportInputs:
    """:func:`read_inputs` of the directories :func:`input_options` named."""
    return read_inputs(args.tables, {BPC_PART: args.bpc, OPENFORECAST_PART: args.openforecast})


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


ANALYSIS_FIGURES: tuple[FigureSpec, ...] = (*DAILY_ORACLE_FIGURES, *PROPER_FIGURES, PERIODS_FIGURE)
"""The figures drawn from the analysis tables (every run has them)."""
REPORT_FIGURES: tuple[FigureSpec, ...] = (*ANALYSIS_FIGURES, BPC_FIGURE, OPENFORECAST_FIGURE)
"""Every figure ``plot`` draws and the report shows, each in its part."""


QUESTION_COUNTS: tuple[tuple[str, str, Callable[[object], str]], ...] = (
    ("n_questions", "Questions", fmt.fmt_int),
    ("n_tf", "TF questions", fmt.fmt_int),
    ("n_mc", "MC questions", fmt.fmt_int),
    ("first_date", "First resolution date", fmt.fmt_text),
    ("last_date", "Last resolution date", fmt.fmt_text),
    ("n_days", "Days with questions", fmt.fmt_int),
    ("questions_per_day", "Questions per day", fmt.digits(1)),
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
        ("qtype", "Type", fmt.upper_text),
        ("question", "Question", fmt.fmt_text),
        ("answer", "Gold answer", fmt.fmt_text),
        ("kind", "Repeat", fmt.fmt_text),
        ("repeat_of", "Of", fmt.fmt_text),
        ("similarity", "TF-IDF cosine", fmt.digits(2)),
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
    *ANALYSIS_TABLES,
    *BPC_TABLES,
    *OPENFORECAST_TABLES,
    fmt.MODELS,
    fmt.CELLS,
)
"""Every table of the report; each part shows its own in this order."""
