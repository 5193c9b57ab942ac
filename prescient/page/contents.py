"""Everything the report shows and where it comes from.

The shared analysis's tables are always there (stage ``analyze``). Each benchmark adds
its part (:class:`~prescient.report.parts.ReportPart`, found through
:mod:`prescient.benchmarks.registry`): its tables and figures, its parts of the outline,
and the directories of its own stages' tables (FreshBench's bits per character under
``analysis.bpc``, OpenForecast's results under ``analysis.openforecast``). A run that
leaves a benchmark's stages out (an imported benchmark, a scores table analysed alone)
points those params at a directory without their tables: :func:`read_inputs` then
records the part as not part of this run, ``plot`` draws none of its figures and the
report says so in one line.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path

import pandas as pd

from prescient.analysis.pipeline import table_names
from prescient.analysis.proper_figures import PROPER_FIGURES
from prescient.analysis.report_tables import SHARED_REPORT_TABLES
from prescient.benchmarks import registry
from prescient.report import tables as fmt
from prescient.report.figures import FigureSpec
from prescient.report.outline import Outline, merge, parse_outline
from prescient.report.parts import OptionalInput, ReportInputs, ReportPart
from prescient.report.table_files import read_tables

PAGE_PACKAGE = "prescient.page"


@functools.cache
def parts() -> tuple[ReportPart, ...]:
    """Every benchmark's part of the report, in the registry's order."""
    return registry.report_parts()


@functools.cache
def outline() -> Outline:
    """The page's outline (``prescient/page/outline.yaml``) with every benchmark's parts
    placed."""
    text = resources.files(PAGE_PACKAGE).joinpath("outline.yaml").read_text(encoding="utf-8")
    return merge(parse_outline(text), [(p.title, p.outline) for p in parts()])


def optional_inputs() -> tuple[OptionalInput, ...]:
    """The directories of the benchmarks' own stages' tables the report reads."""
    return tuple(i for p in parts() for i in p.inputs)


def input_options(ap: argparse.ArgumentParser) -> None:
    """The inputs of the stages that read every part (``plot``, ``report``): the analysis
    tables and each benchmark's directory of its own tables (``--<name>``)."""
    ap.add_argument("--tables", required=True, help="directory of the analysis tables")
    for source in optional_inputs():
        ap.add_argument(
            f"--{source.name}",
            required=True,
            help=f"directory of the {source.what} ({source.param})",
        )


def read_stage_inputs(args: argparse.Namespace) -> ReportInputs:
    """:func:`read_inputs` of the directories :func:`input_options` named."""
    dirs = {s.part: getattr(args, s.name.replace("-", "_")) for s in optional_inputs()}
    return read_inputs(args.tables, dirs)


def read_inputs(tables_dir: str | Path, optional: Mapping[str, str | Path]) -> ReportInputs:
    """Read the analysis tables and each optional input's directory.

    Args:
        tables_dir: the analysis tables.
        optional: part id -> the directory of its tables (from the params of
            :func:`optional_inputs`). A directory holding none of the part's tables (or
            not existing) leaves the part out of the run.
    """
    analyses = registry.analyses()
    tables = read_tables(tables_dir, table_names(analyses))
    absent: dict[str, str] = {}
    for source in optional_inputs():
        directory = Path(optional[source.part])
        found = read_tables(directory, list(source.files.values()))
        if not found:
            absent[source.part] = (
                f"Not part of this run: {directory.as_posix()} ({source.param}) holds no "
                f"{source.what}."
            )
            continue
        tables.update({key: found[stem] for key, stem in source.files.items() if stem in found})
    return ReportInputs(tables, absent)


def _optional_parts() -> set[str]:
    return {source.part for source in optional_inputs()}


def analysis_figures() -> tuple[FigureSpec, ...]:
    """The figures drawn from the analysis tables alone (every run has them)."""
    return tuple(f for f in report_figures() if f.part not in _optional_parts())


def analysis_tables() -> tuple[fmt.ReportTable, ...]:
    """The ``analyze`` stage's tables as the report shows them: the shared analysis's and
    each benchmark's own analysis's (not those of a benchmark's own stages)."""
    own = (t for p in parts() for t in p.tables if t.part not in _optional_parts())
    return (*SHARED_REPORT_TABLES, *own)


def markdown_tables() -> tuple[fmt.ReportTable, ...]:
    """The tables the analyze stage also writes as Markdown."""
    return tuple(s for s in analysis_tables() if s.markdown)


def report_figures() -> tuple[FigureSpec, ...]:
    """Every figure ``plot`` draws and the report shows, each in its part: the shared
    analysis's, then each benchmark's."""
    return (*PROPER_FIGURES, *(f for p in parts() for f in p.figures))


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
    return "yes" if fmt.is_true(value) else ""


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


def report_tables() -> tuple[fmt.ReportTable, ...]:
    """Every table of the report; each part shows its own in this order: the page's own
    and the shared analysis's, then each benchmark's, then the provenance tables."""
    return (
        fmt.SOURCES,
        QUESTION_COUNTS_TABLE,
        DUPLICATES_TABLE,
        *SHARED_REPORT_TABLES,
        *(t for p in parts() for t in p.tables),
        fmt.MODELS,
        fmt.CELLS,
    )
