"""What a benchmark's own analysis receives and returns.

The shared analysis (:mod:`prescient.analysis.pipeline`) computes what every question
set has: accuracy per cell, the monthly series, proper scores, the reading tables, the
dataset statistics. A benchmark adds what only it defines (Daily Oracle's Table 3 and
slopes, FreshBench's bias tests) as a function of an :class:`AnalysisContext` that
returns an :class:`AnalysisPart`; the ``analyze`` stage runs every benchmark's function
and the shared analysis merges their tables, notes and metrics. The shared analysis
never names a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient.analysis.inputs import Inputs
from prescient.analysis.schema import ModelInfo
from prescient.analysis.settings import AnalysisSettings
from prescient.settings import Settings, load_settings

ARTICLE_COLUMNS = ("article_id", "date", "title")
"""The columns of the article table an analysis reads: never the texts, so a corpus of
any size is read in a fraction of its size."""


@dataclass(frozen=True)
class AnalysisContext:
    """The shared analysis's inputs and results a benchmark's analysis may read.

    Attributes:
        inputs: the prepared scores (label rows), question info and series.
        monthly: the monthly accuracy series (moving averages included).
        models: model name -> its dates (knowledge cutoff, release date).
        infos: the same, in the order of the scores' models.
        settings: the shared ``analysis`` settings.
        params: the composed params (a benchmark validates its own sections of them).
        seed: ``base.seed``.
        questions: the evaluated question table, or None.
        articles: the ingested articles' :data:`ARTICLE_COLUMNS` (those the file has),
            or None.
        candidates: the construct stage's candidates table, or None.
    """

    inputs: Inputs
    monthly: pd.DataFrame
    models: Mapping[str, ModelInfo]
    infos: tuple[ModelInfo, ...]
    settings: AnalysisSettings
    params: Mapping[str, Any]
    seed: int
    questions: pd.DataFrame | None = None
    articles: pd.DataFrame | None = None
    candidates: pd.DataFrame | None = None


CellMetric = tuple[str, str, str, str, float | None]
"""(model, cell, question type, metric name, value): one number added to the metrics
document's entry of an accuracy cell (kept only where that cell has scores)."""


@dataclass
class AnalysisPart:
    """What a benchmark's analysis adds.

    Attributes:
        tables: name -> table, written as ``<name>.csv`` beside the shared tables.
        notes: caveats about its findings, listed after the shared series' notes.
        closing_notes: caveats about its inputs (a model's missing dates), listed after
            every benchmark's findings.
        metrics: top-level entries of the metrics document.
        cell_metrics: numbers added to the accuracy cells of the metrics document.
    """

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    closing_notes: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    cell_metrics: list[CellMetric] = field(default_factory=list)


Analyse = Callable[[AnalysisContext, Mapping[str, Any]], AnalysisPart]
"""A benchmark's analysis: the context and its own settings (section name -> validated
settings) in, its part out."""


@dataclass(frozen=True)
class BenchmarkAnalysis:
    """A benchmark's analysis as the ``analyze`` stage runs it.

    Attributes:
        name: the benchmark.
        tables: the names of the tables :attr:`analyse` returns (every one, even empty).
        sections: the sub-sections of ``analysis`` it reads -> their settings class (left
            out of the shared settings; :meth:`settings` validates them).
        analyse: the function.
    """

    name: str
    tables: tuple[str, ...]
    sections: Mapping[str, type[Settings]]
    analyse: Analyse

    def settings(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Its sections of ``analysis`` in ``params``, validated.

        Raises:
            ParamsError: one line per parameter it cannot use.
        """
        return {
            name: load_settings(cls, params, f"analysis.{name}")
            for name, cls in self.sections.items()
        }
