"""What a benchmark contributes to the report, and the tables the report reads.

A benchmark's part is data: its parts of the page's outline, the tables it shows (:class:`~prescient.report.tables.ReportTable`),
the figures it draws (:class:`~prescient.report.figures.FigureSpec`), the directories of
its own stages' tables that the report reads (:class:`OptionalInput`), and the lines it
adds to the first screen's "Other parts". The page (:mod:`prescient.page`) gathers every
benchmark's part; nothing here names a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pandas as pd

from prescient.report.figures import FigureSpec
from prescient.report.outline import OUTLINE_FILE, PlacedPart, parse_fragment
from prescient.report.tables import ReportTable


@dataclass(frozen=True)
class OptionalInput:
    """A directory of tables of a benchmark's own stage, read for one part of the report.

    Attributes:
        name: the stage option naming the directory (``--<name>`` of ``plot`` and
            ``report``).
        part: the part it feeds (:mod:`prescient.report.outline`).
        param: the params key naming the directory.
        what: the tables, in words.
        files: table key (as figures and tables name it) -> CSV file stem.
    """

    name: str
    part: str
    param: str
    what: str
    files: Mapping[str, str]


@dataclass(frozen=True)
class ReportInputs:
    """The tables of one report and the parts that are not part of the run.

    Attributes:
        tables: table key -> table (analysis tables by name; a benchmark's own tables
            by the keys its figures read).
        absent: part id -> the one line saying why it is not part of this run.
    """

    tables: dict[str, pd.DataFrame]
    absent: dict[str, str] = field(default_factory=dict)


Facts = Callable[[ReportInputs, Mapping[str, Any]], tuple[str, ...]]
"""A benchmark's lines of the first screen's "Other parts" (inputs and params in)."""

Words = Callable[[Mapping[str, Any]], Mapping[str, str]]
"""The ``$word`` values a benchmark's outline text uses, from the run's params."""


@dataclass(frozen=True)
class ReportPart:
    """A benchmark's part of the report.

    Attributes:
        title: the benchmark's name as the page says it.
        outline: its parts of the page (its ``outline.yaml``), each placed beside a part
            of the page's own outline.
        tables: its tables, in page order within each part of the outline.
        figures: its figures, likewise.
        inputs: the directories of its own stages' tables.
        facts: its lines of the first screen's "Other parts", or None.
        words: the ``$word`` values of its outline text, or None.
        question_sources: question source name -> the heading of the series part when
            the analysed questions are that source's alone.
    """

    title: str
    outline: tuple[PlacedPart, ...] = ()
    tables: tuple[ReportTable, ...] = ()
    figures: tuple[FigureSpec, ...] = ()
    inputs: tuple[OptionalInput, ...] = ()
    facts: Facts | None = None
    words: Words | None = None
    question_sources: Mapping[str, str] = field(default_factory=dict)


def read_outline(package: str) -> tuple[PlacedPart, ...]:
    """The outline fragment of a benchmark's package (its ``outline.yaml``)."""
    text = resources.files(package).joinpath(OUTLINE_FILE).read_text(encoding="utf-8")
    return parse_fragment(text)
