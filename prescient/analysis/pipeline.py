"""The whole analysis as one pure function: frames in, named tables and metrics out.

The ``analyze`` stage only reads files, calls :func:`run_analysis` and writes what it
returns, so everything here is testable on small hand-built tables. The inputs are
prepared in :mod:`.inputs`; the metrics and the notes are written in :mod:`.notes`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient import dates
from prescient.analysis import dataset
from prescient.analysis.compare import (
    plot_tables,
    rag_accuracy_table,
    rag_metrics,
    summary_metrics,
)
from prescient.analysis.failures import with_elicited
from prescient.analysis.horizon import horizon_accuracy, horizon_counts
from prescient.analysis.inputs import Inputs, period_months, prepare_inputs
from prescient.analysis.metrics import add_cell_metrics, analysis_metrics
from prescient.analysis.monthly import monthly_accuracy, series_notes
from prescient.analysis.parts import AnalysisContext, AnalysisPart, BenchmarkAnalysis
from prescient.analysis.proper_tables import PROPER_TABLES, proper_tables
from prescient.analysis.reading import (
    READING_TABLES,
    reading_notes,
    reading_tables,
)
from prescient.analysis.schema import (
    ALL,
    CELL_KEYS,
    ModelInfo,
    cell_order,
    cells_of,
    models_frame,
    resolve_models,
    served_models,
    token_methods,
)
from prescient.analysis.served import split_by_served
from prescient.analysis.settings import AnalysisSettings, load_analysis
from prescient.analysis.sources import (
    source_categories,
    source_table,
    visibility_summary,
)
from prescient.evaluation.costs import model_costs
from prescient.evaluation.settings import LABEL, elicitation_of, parse_setting
from prescient.kept import KeptStore
from prescient.stats import wilson_interval
from prescient.vocab import MC, TF

logger = logging.getLogger(__name__)

SHARED_TABLES: tuple[str, ...] = (
    "accuracy",
    "rag_accuracy",
    "monthly_accuracy",
    "models",
    "model_calls",
    "cells",
    "horizon_accuracy",
    "dataset_sources",
    "dataset_source_categories",
    "dataset_horizons",
    "dataset_summary",
    "dataset_duplicates",
    "dataset_questions_by_month",
    "dataset_mc_types",
    "dataset_categories",
    "dataset_categories_by_month",
    "anderson_schooler",
    "anderson_schooler_fit",
    *PROPER_TABLES,
    *READING_TABLES,
    "notes",
    "provenance",
)
"""The CSVs of the shared analysis in the analyze stage's tables directory (each
benchmark's analysis adds its own: :func:`table_names`)."""


def load_all(
    params: Mapping[str, Any], parts: Sequence[BenchmarkAnalysis]
) -> tuple[AnalysisSettings, int, dict[str, Any]]:
    """Every analysis setting, validated before any input is read: the shared ``analysis``
    settings, ``base.seed`` and each benchmark's own sections (section name -> settings).

    Raises:
        ParamsError: one line per parameter the analysis cannot use.
    """
    settings, seed = load_analysis(params, [s for part in parts for s in part.sections])
    own = {name: value for part in parts for name, value in part.settings(params).items()}
    return settings, seed, own


def table_names(parts: Sequence[BenchmarkAnalysis]) -> tuple[str, ...]:
    """Every CSV the analyze stage writes: the shared tables and each benchmark's."""
    return (*SHARED_TABLES, *(name for part in parts for name in part.tables))


@dataclass
class AnalysisResult:
    """Everything the analysis produces.

    Attributes:
        tables: name -> table (written as ``<name>.csv`` in the tables directory).
        metrics: the DVC metrics document (headline numbers per model and cell).
        summary: the per-model accuracies and proper scores under keys that line up
            across experiments (:func:`prescient.analysis.compare.summary_metrics`).
        rag: the dated RAG setting's cutoff and each model's headline TF Brier score
            there (:func:`prescient.analysis.compare.rag_metrics`).
        plots: name -> DVC plot data (``<name>.csv`` in the plots directory;
            :func:`prescient.analysis.compare.plot_tables`).
        notes: human-readable caveats: gaps, skipped models, excluded rows.
        models: the model dates used.
        provenance: key -> value lines about the inputs (the retrieval window rule,
            dropped duplicates, excluded sources) for the provenance table.
    """

    tables: dict[str, pd.DataFrame]
    metrics: dict[str, Any]
    summary: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    models: dict[str, ModelInfo] = field(default_factory=dict)
    provenance: dict[str, str] = field(default_factory=dict)
    rag: dict[str, Any] = field(default_factory=dict)
    plots: dict[str, pd.DataFrame] = field(default_factory=dict)


def cell_summary(
    scores: pd.DataFrame, errors: pd.DataFrame, source_sizes: Mapping[str, int] | None = None
) -> pd.DataFrame:
    """Per evaluation cell and question source: scored questions by type, failed calls,
    prompts fitted to the model's context window (``n_fitted``, when ``errors`` counts
    them), the source's size (a model evaluated on a sample scores fewer) and months
    covered."""
    cols = ["model", "setting", "rag_cutoff", "cell", "source", "n", "n_tf", "n_mc"]
    cols += ["n_errors", "n_fitted", "n_source_questions", "first_month", "last_month"]
    sizes = source_sizes or {}
    if "source" not in scores.columns:
        scores = scores.assign(source="")
    if "source" not in errors.columns:
        errors = errors.assign(source="")
    if "n_fitted" not in errors.columns:
        errors = errors.assign(n_fitted=0)
    if scores.empty:
        out = errors.assign(setting="", rag_cutoff="", n=0, n_tf=0, n_mc=0)
        out["n_source_questions"] = out["source"].map(sizes)
        return out.assign(first_month="", last_month="").reindex(columns=cols)
    keys = ["model", "setting", "rag_cutoff", "cell", "source"]
    g = scores.groupby(keys, as_index=False).agg(
        n=("question_id", "size"),
        n_tf=("qtype", lambda s: int((s == TF).sum())),
        n_mc=("qtype", lambda s: int((s == MC).sum())),
        first=("month", "min"),
        last=("month", "max"),
    )
    g["first_month"] = [dates.month_label(int(m)) for m in g["first"]]
    g["last_month"] = [dates.month_label(int(m)) for m in g["last"]]
    # outer: a cell whose every call failed has no scored row, and keeps its row here
    g = g.merge(errors, on=["model", "cell", "source"], how="outer")
    unscored = g["setting"].isna()
    if unscored.any():
        named = [parse_setting(str(c)) for c in g.loc[unscored, "cell"]]
        g.loc[unscored, "setting"] = [s.kind for s in named]
        g.loc[unscored, "rag_cutoff"] = [s.cutoff_label or "" for s in named]
        g.loc[unscored, ["first_month", "last_month"]] = ""
    g[["n", "n_tf", "n_mc"]] = g[["n", "n_tf", "n_mc"]].fillna(0).astype(int)
    g["n_errors"] = g["n_errors"].fillna(0).astype(int)
    g["n_fitted"] = g["n_fitted"].fillna(0).astype(int)
    g["n_source_questions"] = g["source"].map(sizes).astype("Int64")
    return cell_order(g)[cols]


def pooled_accuracy(scores: pd.DataFrame) -> pd.DataFrame:
    """Accuracy over all months per cell and type (``all`` pools TF and MC)."""
    df = pd.concat([scores.assign(qtype=ALL), scores], ignore_index=True)
    df = df.assign(answered=~df["refused"], correct_answered=df["correct"] & ~df["refused"])
    g = df.groupby(["model", "cell", "qtype"], as_index=False, sort=False).agg(
        n=("correct", "size"),
        n_correct=("correct", "sum"),
        n_refused=("refused", "sum"),
        n_answered=("answered", "sum"),
        n_correct_answered=("correct_answered", "sum"),
    )
    g["accuracy"] = g["n_correct"] / g["n"]
    g["refusal_rate"] = g["n_refused"] / g["n"]
    answered = g["n_answered"].where(g["n_answered"] > 0)
    g["accuracy_excl_refusals"] = g["n_correct_answered"] / answered
    return g


ACCURACY_COLUMNS = [
    *CELL_KEYS,
    "qtype",
    "n",
    "n_correct",
    "accuracy",
    "ci_low",
    "ci_high",
    "n_refused",
    "refusal_rate",
]
"""Columns of ``accuracy.csv``."""
HEADLINE_ORDER = {TF: 0, MC: 1, ALL: 2}


def accuracy_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The report's headline: accuracy over all months per cell and question type (TF,
    MC and ``all`` pooling both) with Wilson 95% intervals, cells in the paper's order.
    Types a table does not hold (MC of a True/False benchmark) have no row."""
    if scores.empty:
        return pd.DataFrame(columns=ACCURACY_COLUMNS)
    pooled = pooled_accuracy(scores)
    low, high = wilson_interval(pooled["n_correct"], pooled["n"])
    pooled = pooled.assign(ci_low=low, ci_high=high, _type=pooled["qtype"].map(HEADLINE_ORDER))
    cells = cells_of(scores)
    cells = cells.assign(_cell=range(len(cells)))
    out = cells.merge(pooled, on=["model", "cell"]).sort_values(["_cell", "_type"])
    return out[ACCURACY_COLUMNS].reset_index(drop=True)


def label_rows(scores: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The rows of the ``label`` elicitation (every row of a table without the column,
    whose null elicitation means label), and how many rows of other elicitations were
    set aside."""
    if "elicitation" not in scores.columns:
        return scores, 0
    keep = elicitation_of(scores).eq(LABEL).to_numpy(bool)
    return scores.loc[keep].reset_index(drop=True), int((~keep).sum())


def run_analysis(
    raw_scores: pd.DataFrame,
    questions: pd.DataFrame | None,
    articles: pd.DataFrame | None,
    params: Mapping[str, Any],
    settings: AnalysisSettings,
    seed: int,
    candidates: pd.DataFrame | None = None,
    parts: Sequence[BenchmarkAnalysis] = (),
    kept: KeptStore | None = None,
) -> AnalysisResult:
    """Compute every table of the analysis stage.

    Args:
        raw_scores: the scores table (evaluation schema; see
            :func:`prescient.analysis.schema.normalize_scores`).
        questions: the question table (the evaluated table, with each question's
            source, category, forecast date, ...), or None: the scores table's own
            columns then describe its questions.
        articles: the ingested articles (for Fig. 2's titles), or None.
        params: the composed params; ``params["models"]`` is the registry (model name ->
            entry with ``knowledge_cutoff`` and ``release_date``), and each benchmark's
            analysis reads its own sections.
        settings: the shared analysis settings.
        seed: ``base.seed`` (the bootstrap's and the examples' seeds derive from it).
        candidates: the construct stage's candidates table (the construction funnel
            and the leakage audit), or None when the questions were made elsewhere.
        parts: the benchmarks' own analyses, run in this order after the shared one.
        kept: where work of earlier runs is kept (each day's near-duplicate flags,
            :func:`prescient.duplicates.near_duplicates`; the monthly proper scores'
            rows, :class:`prescient.analysis.proper.MonthRows`), or None.
    """
    raw_scores, registry, split = split_by_served(raw_scores, params.get("models"))
    params = {**params, "models": registry}
    labels, elicited = label_rows(raw_scores)
    inputs = prepare_inputs(labels, questions, settings, kept)
    notes = list(inputs.notes)
    if split:
        notes.append(
            "Registry entries answered by more than one served model are analysed as one "
            f"model per served model: {', '.join(split)}."
        )
    if elicited:
        notes.append(
            f"The papers' tables read the label answers; {elicited} scored rows of other "
            "elicitations (stated and token probabilities) are analysed with proper scores."
        )
    scores, info = inputs.period, inputs.info
    infos = resolve_models(inputs.raw, params.get("models"))
    models = {i.model: i for i in infos}

    monthly = monthly_accuracy(scores, settings.moving_average, period_months(scores, settings))
    context = AnalysisContext(
        inputs,
        monthly,
        models,
        tuple(infos),
        settings,
        params,
        seed,
        questions,
        articles,
        candidates,
    )
    done = _run_parts(context, parts)
    tables = _accuracy_tables(inputs, monthly, infos, raw_scores, settings, registry)
    notes += series_notes(monthly, settings.moving_average)
    notes += [note for result in done for note in result.notes]
    notes += [note for result in done for note in result.closing_notes]
    if tables["horizon_accuracy"].empty:
        notes.append(
            "No evaluated question has a forecast date: accuracy by horizon is empty "
            "(map questions.sources.<name>.columns.forecast_date to report it)."
        )
    for result in done:
        tables.update(result.tables)
    tables.update(_dataset_tables(info, articles, settings, notes))
    proper = proper_tables(raw_scores, questions, inputs, settings, seed, kept)
    tables.update(proper.tables)
    notes += proper.notes
    tables.update(reading_tables(inputs, questions, articles, settings, seed))
    tables["answer_failures"] = with_elicited(tables["answer_failures"], proper.failures)
    notes += reading_notes(tables)
    metrics = _metrics(inputs, tables, done)
    metrics["proper_scores"] = proper.metrics
    for note in notes:
        logger.info("note: %s", note)
    board = tables["leaderboard"]
    summary = summary_metrics(tables["accuracy"], board)
    return AnalysisResult(
        tables,
        metrics,
        summary,
        notes,
        models,
        _provenance(inputs),
        rag_metrics(board),
        plot_tables(tables["accuracy"], board),
    )


def _run_parts(context: AnalysisContext, parts: Sequence[BenchmarkAnalysis]) -> list[AnalysisPart]:
    """Every benchmark's own analysis, each under its own settings; a part that leaves
    out a table it declares stops the stage (a missing CSV would look like a finished
    stage)."""
    done: list[AnalysisPart] = []
    for part in parts:
        result = part.analyse(context, part.settings(context.params))
        missing = sorted(set(part.tables) - set(result.tables))
        if missing:
            raise ValueError(f"{part.name}'s analysis returned no table {', '.join(missing)}")
        done.append(result)
    return done


def _accuracy_tables(
    inputs: Inputs,
    monthly: pd.DataFrame,
    infos: Sequence[ModelInfo],
    raw_scores: pd.DataFrame,
    settings: AnalysisSettings,
    registry: Mapping[str, Any],
) -> dict[str, pd.DataFrame]:
    """The shared accuracy, cell, horizon and source tables (``registry``: the model
    registry, whose ``litellm_model`` the models table names)."""
    info, every = inputs.info, inputs.every
    sizes = {str(k): int(v) for k, v in info.groupby("source").size().items()}
    accuracy = accuracy_table(inputs.period)
    return {
        "accuracy": accuracy,
        "rag_accuracy": rag_accuracy_table(accuracy),
        "monthly_accuracy": monthly,
        "models": models_frame(
            list(infos),
            served_models(raw_scores),
            token_methods(raw_scores),
            {str(k): str(v.get("litellm_model") or "") for k, v in registry.items()},
        ),
        # Every elicitation's requests: the first screen's model calls.
        "model_calls": model_costs(raw_scores),
        "cells": cell_summary(every, inputs.errors, sizes),
        "horizon_accuracy": horizon_accuracy(every, settings.horizon.buckets_days),
        "dataset_sources": source_table(info),
        "dataset_source_categories": source_categories(info),
        "dataset_horizons": horizon_counts(info, settings.horizon.buckets_days),
        "dataset_duplicates": inputs.repeated,
    }


def _metrics(
    inputs: Inputs, tables: Mapping[str, pd.DataFrame], done: Sequence[AnalysisPart]
) -> dict[str, Any]:
    """The metrics document: the shared numbers, then each benchmark's."""
    scores = inputs.period
    pooled = pooled_accuracy(scores) if not scores.empty else pd.DataFrame()
    n_errors = int(inputs.errors["n_errors"].sum()) if not inputs.errors.empty else 0
    metrics = analysis_metrics(scores, n_errors, tables["cells"], pooled, dict(tables))
    for result in done:
        add_cell_metrics(metrics["accuracy"], result.cell_metrics)
        metrics.update(result.metrics)
    metrics["duplicates_dropped"] = inputs.n_duplicates
    metrics["no_gold_article"] = inputs.n_no_gold
    metrics["question_duplicates"] = inputs.repeat_counts
    return metrics


def _provenance(inputs: Inputs) -> dict[str, str]:
    """What the report says about the inputs: the retrieval rule, sources, duplicates."""
    visibility = visibility_summary(inputs.info)
    series = inputs.series
    return {
        "retrieval_window": visibility["rule"],
        "retrieval_gap_days": visibility["gap_days"],
        "forecast_dates": visibility["forecast_dates"],
        "sources": ", ".join(sorted(set(inputs.info["source"].unique()))),
        "time_series_sources": ", ".join(sorted(set(series["source"].unique())))
        if not series.empty
        else "",
        "duplicates_dropped": str(inputs.n_duplicates),
    }


def _dataset_tables(
    q: pd.DataFrame,
    articles: pd.DataFrame | None,
    settings: AnalysisSettings,
    notes: list[str],
) -> dict[str, pd.DataFrame]:
    """The dataset statistics of the evaluated questions (:func:`question_info`)."""
    counts = dataset.question_counts(q)
    summary = pd.DataFrame({"key": list(counts), "value": [str(v) for v in counts.values()]})
    sources: dict[str, tuple[Any, Any]] = {}
    a_s = settings.anderson_schooler
    if articles is not None and not articles.empty:
        arts = articles
        if a_s.titles == "question_articles" and q["article_id"].notna().any():
            arts = articles.loc[articles["article_id"].isin(set(q["article_id"].dropna()))]
        elif a_s.titles == "question_articles":
            notes.append(
                "The questions name no article: Anderson-Schooler uses every article title "
                "instead of those questions were generated from."
            )
        sources["article titles"] = (arts["date"], arts["title"])
    elif articles is None:
        notes.append("No articles table: the Anderson-Schooler title panel is empty.")
    if not q.empty and q["question"].notna().any():
        for qtype, label in ((TF, "TF questions"), (MC, "MC questions")):
            part = q.loc[q["qtype"].astype(str).str.lower() == qtype]
            if part.empty:  # a True/False benchmark has no MC panel to fill
                continue
            sources[label] = (part["resolution_date"], part["question"])
    points, fits = dataset.anderson_schooler(sources, a_s.window_days, a_s.drop_stopwords)
    for row in fits.itertuples(index=False):
        if row.status != "ok":
            notes.append(f"Anderson-Schooler ({row.source}): {row.status}.")
    return {
        "dataset_summary": summary,
        "dataset_questions_by_month": dataset.questions_by_month(q),
        "dataset_mc_types": dataset.mc_type_table(q),
        "dataset_categories": dataset.category_table(q),
        "dataset_categories_by_month": dataset.categories_by_month(q),
        "anderson_schooler": points,
        "anderson_schooler_fit": fits,
    }
