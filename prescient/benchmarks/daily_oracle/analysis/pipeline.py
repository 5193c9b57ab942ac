"""The whole analysis as one pure function: frames in, named tables and metrics out.

The ``analyze`` stage only reads files, calls :func:`run_analysis` and writes what it
returns, so everything here is testable on small hand-built tables.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient import dates
from prescient.benchmarks.daily_oracle.analysis import dataset
from prescient.benchmarks.daily_oracle.analysis.compare import rag_accuracy_table, summary_metrics
from prescient.benchmarks.daily_oracle.analysis.horizon import horizon_accuracy, horizon_counts
from prescient.benchmarks.daily_oracle.analysis.monthly import monthly_accuracy
from prescient.benchmarks.daily_oracle.analysis.schema import (
    CELL_KEYS,
    ModelInfo,
    as_datetime64,
    cell_order,
    cells_of,
    count_errors,
    count_fitted,
    drop_duplicate_scores,
    fmt_count,
    models_frame,
    no_gold_rows,
    normalize_scores,
    resolve_models,
)
from prescient.benchmarks.daily_oracle.analysis.settings import (
    DROP_CONTRADICTORY,
    DROP_REPEATS,
    FLAG,
    AnalysisSettings,
    DuplicateQuestionSettings,
)
from prescient.benchmarks.daily_oracle.analysis.slope import slopes_table
from prescient.benchmarks.daily_oracle.analysis.sources import (
    question_info,
    source_categories,
    source_table,
    visibility_summary,
    with_questions,
)
from prescient.benchmarks.daily_oracle.analysis.yearly import (
    REGIMES,
    headline_table,
    table3,
    yearly_averages,
)
from prescient.benchmarks.daily_oracle.evaluation.costs import model_costs
from prescient.benchmarks.daily_oracle.leakage import duplicate_summary, duplicates, question_key
from prescient.benchmarks.freshbench.analysis import ALL, freshbench
from prescient.stats import wilson_interval
from prescient.vocab import MC, TF

logger = logging.getLogger(__name__)

# Every CSV the analyze stage writes into its tables directory.
TABLE_NAMES: tuple[str, ...] = (
    "accuracy",
    "rag_accuracy",
    "monthly_accuracy",
    "yearly_accuracy",
    "table3",
    "headline_decline",
    "slopes",
    "freshbench_bias",
    "freshbench_degeneration",
    "freshbench_decline",
    "freshbench_skipped",
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
    "notes",
    "provenance",
)


@dataclass
class AnalysisResult:
    """Everything the analysis produces.

    Attributes:
        tables: name -> table (written as ``<name>.csv`` in the tables directory).
        metrics: the DVC metrics document (headline numbers per model and cell).
        summary: the per-model accuracies under keys that line up across experiments
            (:func:`prescient.benchmarks.daily_oracle.analysis.compare.summary_metrics`).
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


def _num(x: object, digits: int = 6) -> float | None:
    """A JSON-safe rounded float (None for NaN: DVC metrics cannot hold NaN)."""
    if x is None:
        return None
    value = float(x)  # type: ignore[arg-type]
    return None if math.isnan(value) or math.isinf(value) else round(value, digits)


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
    g = g.merge(errors, on=["model", "cell", "source"], how="left")
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


def run_analysis(
    raw_scores: pd.DataFrame,
    questions: pd.DataFrame | None,
    articles: pd.DataFrame | None,
    registry: Mapping[str, Mapping[str, Any]] | None,
    settings: AnalysisSettings,
    seed: int,
) -> AnalysisResult:
    """Compute every table of the analysis stage.

    Args:
        raw_scores: the scores table (evaluation schema; see
            :func:`prescient.benchmarks.daily_oracle.analysis.schema.normalize_scores`).
        questions: the question table (the evaluated table, with each question's
            source, category, forecast date, ...), or None: the scores table's own
            columns then describe its questions.
        articles: the ingested articles (for Fig. 2's titles), or None.
        registry: ``params["models"]``: model name -> entry with ``knowledge_cutoff`` and
            ``release_date``.
        settings: the analysis settings.
        seed: ``base.seed`` (the bootstrap's seeds derive from it).
    """
    inputs = prepare_inputs(raw_scores, questions, settings)
    notes = list(inputs.notes)
    scores, info, every = inputs.period, inputs.info, inputs.every
    infos = resolve_models(inputs.raw, registry)
    models = {i.model: i for i in infos}

    monthly = monthly_accuracy(scores, settings.moving_average, period_months(scores, settings))
    t3 = table3(monthly, models, settings.table3, settings.bootstrap, seed)
    decline = headline_table(monthly, models, settings.headline)
    slopes = slopes_table(monthly, settings.slope)
    fresh = freshbench(inputs.series, models, settings.freshbench)
    sizes = {str(k): int(v) for k, v in info.groupby("source").size().items()}
    cells = cell_summary(every, inputs.errors, sizes)
    horizon = horizon_accuracy(every, settings.horizon.buckets_days)
    notes += _series_notes(monthly, slopes, settings)
    notes += _table3_notes(t3)
    notes += _headline_notes(decline)
    notes += [
        f"FreshBench tests skipped for {row.model} ({row.anchor}): {row.reason}."
        for row in fresh.skipped.itertuples(index=False)
    ]
    notes += [
        f"{i.model} has no knowledge cutoff: Table 3 pre/post-cutoff YoY left empty."
        for i in infos
        if i.knowledge_cutoff is None
    ]
    if horizon.empty:
        notes.append(
            "No evaluated question has a forecast date: accuracy by horizon is empty "
            "(map questions.sources.<name>.columns.forecast_date to report it)."
        )
    accuracy = accuracy_table(scores)
    tables: dict[str, pd.DataFrame] = {
        "accuracy": accuracy,
        "rag_accuracy": rag_accuracy_table(accuracy),
        "monthly_accuracy": monthly,
        "yearly_accuracy": yearly_averages(monthly, settings.table3.yearly),
        "table3": t3,
        "headline_decline": decline,
        "slopes": slopes,
        "freshbench_bias": fresh.bias,
        "freshbench_degeneration": fresh.degeneration,
        "freshbench_decline": fresh.decline,
        "freshbench_skipped": fresh.skipped,
        "models": models_frame(infos),
        "model_calls": model_costs(inputs.raw),
        "cells": cells,
        "horizon_accuracy": horizon,
        "dataset_sources": source_table(info),
        "dataset_source_categories": source_categories(info),
        "dataset_horizons": horizon_counts(info, settings.horizon.buckets_days),
        "dataset_duplicates": inputs.repeated,
    }
    tables.update(_dataset_tables(info, articles, settings, notes))
    pooled = pooled_accuracy(scores) if not scores.empty else pd.DataFrame()
    n_errors = int(inputs.errors["n_errors"].sum()) if not inputs.errors.empty else 0
    metrics = _metrics(scores, n_errors, cells, pooled, t3, slopes, fresh.decline, tables)
    metrics["headline_closed_book"] = _headline_metrics(decline)
    metrics["duplicates_dropped"] = inputs.n_duplicates
    metrics["no_gold_article"] = inputs.n_no_gold
    metrics["question_duplicates"] = inputs.repeat_counts
    for note in notes:
        logger.info("note: %s", note)
    summary = summary_metrics(accuracy)
    return AnalysisResult(tables, metrics, summary, notes, models, _provenance(inputs))


DUPLICATE_TABLE: list[str] = [
    "question_id",
    "source",
    "resolution_date",
    "qtype",
    "question",
    "answer",
    "repeat_of",
    "kind",
    "similarity",
    "contradictory",
    "dropped",
]
"""Columns of ``dataset_duplicates``: one row per question that repeats an earlier one
(``kind`` exact or near, ``repeat_of`` that question) or belongs to a contradictory
repeat (the first of it included, ``kind`` first)."""


@dataclass(frozen=True)
class Inputs:
    """The scores and questions as the analysis uses them.

    Attributes:
        raw: the scores table after the duplicate rule.
        n_duplicates: rows the duplicate rule dropped.
        info: one row per evaluated question (:func:`question_info`).
        every: the normalised scores of every source, with ``source`` and
            ``horizon_days``.
        series: the scores of the time-series analyses (excluded sources left out).
        period: ``series`` within ``analysis.date_start`` .. ``date_end``: the scores of
            the Daily Oracle analyses (FreshBench's tests read ``series``).
        errors: failed calls (``n_errors``) and prompts fitted to the context window
            (``n_fitted``) per model, cell and source.
        notes: what preparing them found worth saying.
        repeated: the questions asked more than once (:func:`question_repeats`).
        repeat_counts: their counts, the handling and the questions it dropped.
        n_no_gold: gold rows without a gold article (no call made; left out).
    """

    raw: pd.DataFrame
    n_duplicates: int
    info: pd.DataFrame
    every: pd.DataFrame
    series: pd.DataFrame
    period: pd.DataFrame
    errors: pd.DataFrame
    notes: list[str]
    repeated: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=DUPLICATE_TABLE))
    repeat_counts: dict[str, Any] = field(default_factory=dict)
    n_no_gold: int = 0


def prepare_inputs(
    raw_scores: pd.DataFrame, questions: pd.DataFrame | None, settings: AnalysisSettings
) -> Inputs:
    """Apply the duplicate rule, describe the questions, normalise the scores, count the
    failed calls and set the excluded sources apart, with a note for each."""
    notes: list[str] = []
    raw, n_duplicates = drop_duplicate_scores(raw_scores, settings.duplicates)
    if n_duplicates:
        notes.append(
            f"{fmt_count(n_duplicates)} scored rows repeated a (model, setting, question) already in the "
            f"table and were dropped (analysis.duplicates={settings.duplicates})."
        )
    info = question_info(raw, questions)
    repeated, repeat_counts, drop = question_repeats(
        questions if questions is not None else raw, info, settings.duplicate_questions
    )
    notes += _repeat_notes(repeat_counts)
    if drop:
        raw = raw.loc[~raw["question_id"].astype(str).isin(drop)].reset_index(drop=True)
        info = info.loc[~info["question_id"].isin(drop)].reset_index(drop=True)
    if questions is None:
        notes.append(
            f"No questions table: the scores table's own columns describe its {fmt_count(len(info))} "
            "questions (dataset statistics use the columns it has)."
        )
    every = with_questions(normalize_scores(raw, settings.exclude_errors), info)
    sources = dict(zip(info["question_id"], info["source"], strict=True))
    keys = ["model", "cell", "source"]
    errors = count_errors(raw, sources).merge(count_fitted(raw, sources), on=keys, how="outer")
    errors[["n_errors", "n_fitted"]] = errors[["n_errors", "n_fitted"]].fillna(0).astype(int)
    n_errors = int(errors["n_errors"].sum()) if not errors.empty else 0
    if n_errors:
        verb = "excluded from" if settings.exclude_errors else "counted as incorrect in"
        notes.append(
            f"{fmt_count(n_errors)} scored rows had a failed model call and were {verb} accuracy."
        )
    n_no_gold = int(no_gold_rows(raw).sum())
    if n_no_gold:
        notes.append(
            f"{fmt_count(n_no_gold)} gold-setting rows had no gold article (the question "
            "names none the corpus holds), so no model call was made; they are left out "
            "of accuracy."
        )
    n_fitted = int(errors["n_fitted"].sum()) if not errors.empty else 0
    if n_fitted:
        notes.append(
            f"{fmt_count(n_fitted)} scored rows answered a prompt whose articles were cut to "
            "fit the model's context window (fitted_to_context; per cell in the cells table, "
            "the words kept in the scores' context_words_kept)."
        )
    series, series_notes = _series_scores(every, settings)
    notes += series_notes
    period, period_notes = _period_scores(series, settings)
    notes += period_notes
    if period.empty:
        notes.append("The scores table has no scored rows: every accuracy table is empty.")
    return Inputs(
        raw,
        n_duplicates,
        info,
        every,
        series,
        period,
        errors,
        notes,
        repeated,
        repeat_counts,
        n_no_gold,
    )


def question_repeats(
    frame: pd.DataFrame, info: pd.DataFrame, s: DuplicateQuestionSettings
) -> tuple[pd.DataFrame, dict[str, Any], set[str]]:
    """Questions asked more than once across the whole evaluated set.

    Args:
        frame: the questions table, or the scores table when there is none (its first
            row per question); needs ``question`` text (else nothing is looked for) and
            an ``answer`` for contradictions (the answer's text).
        info: :func:`question_info` of the same questions (source, day).
        s: ``analysis.duplicate_questions``.

    Returns:
        The ``dataset_duplicates`` table, the counts for metrics and notes, and the ids
        ``handling`` drops (none under ``flag``).
    """
    counts: dict[str, Any] = {"handling": s.handling, "threshold": s.threshold}
    if "question" not in frame.columns or frame.empty:
        counts["looked_for"] = False
        return pd.DataFrame(columns=DUPLICATE_TABLE), counts, set()
    rows = frame.drop_duplicates("question_id", keep="first").reset_index(drop=True)
    by_id = info.set_index("question_id")
    ids = rows["question_id"].astype(str)
    q = pd.DataFrame(
        {
            "question_id": ids,
            "source": ids.map(by_id["source"]).fillna("").astype(str),
            "resolution_date": ids.map(by_id["resolution_date"]),
            "qtype": rows["qtype"].astype(str).str.lower(),
            "question": rows["question"].astype(str),
            "answer": rows["answer"].astype(str) if "answer" in rows.columns else "",
        }
    )
    dups = duplicates(q, s.threshold)
    keys = [question_key(t, text) for t, text in zip(q["qtype"], q["question"], strict=True)]
    counts.update(looked_for=True, has_answers="answer" in rows.columns)
    counts.update(duplicate_summary(dups, keys))
    exact, near = dups["dup_exact_of"], dups["dup_near_of"]
    repeat = exact.notna() | near.notna()
    contradicts = dups["dup_contradicts"].astype(bool)
    if s.handling == DROP_REPEATS:
        dropped = repeat
    elif s.handling == DROP_CONTRADICTORY:
        dropped = contradicts
    else:
        dropped = pd.Series(False, index=q.index)
    listed = repeat | contradicts
    table = q.assign(
        repeat_of=exact.where(exact.notna(), near),
        kind=[
            "exact" if e is not None else "near" if n is not None else "first"
            for e, n in zip(exact, near, strict=True)
        ],
        similarity=dups["dup_similarity"].where(exact.isna(), 1.0),
        contradictory=contradicts,
        dropped=dropped,
    ).loc[listed, DUPLICATE_TABLE]
    table["resolution_date"] = [dates.as_date(d).isoformat() for d in table["resolution_date"]]
    drop = set(q.loc[dropped, "question_id"])
    counts["dropped"] = len(drop)
    return table.reset_index(drop=True), counts, drop


def _repeat_notes(counts: Mapping[str, Any]) -> list[str]:
    if not counts.get("looked_for"):
        return ["The questions have no text: repeated questions were not looked for."]
    if not (counts["exact_duplicates"] or counts["near_duplicates"]):
        return []
    line = (
        f"Across the evaluated questions, {fmt_count(counts['exact_duplicates'])} repeat an "
        f"earlier question word for word and {fmt_count(counts['near_duplicates'])} "
        f"near-duplicate one of an earlier day (TF-IDF cosine >= {counts['threshold']})"
    )
    if counts["has_answers"]:
        line += (
            "; contradictory duplicates (the same question with different gold answers): "
            f"{fmt_count(counts['contradictory_duplicates'])} questions, "
            f"{fmt_count(counts['contradictory_questions'])} distinct"
        )
    else:
        line += "; the questions table has no answer column, so contradictions were not checked"
    line += " (table dataset_duplicates)."
    if counts["handling"] == FLAG:
        line += " All of them are evaluated (analysis.duplicate_questions.handling=flag)."
    else:
        line += (
            f" {fmt_count(counts['dropped'])} questions are left out of every table "
            f"(analysis.duplicate_questions.handling={counts['handling']})."
        )
    return [line]


def _provenance(inputs: Inputs) -> dict[str, str]:
    """What the report says about the inputs: the retrieval rule, sources, duplicates."""
    visibility = visibility_summary(inputs.info)
    series = inputs.series
    return {
        "retrieval_window": visibility["rule"],
        "retrieval_gap_days": visibility["gap_days"],
        "forecast_dates": visibility["forecast_dates"],
        "sources": ", ".join(sorted(set(inputs.info["source"]))),
        "time_series_sources": ", ".join(sorted(set(series["source"]))) if not series.empty else "",
        "duplicates_dropped": str(inputs.n_duplicates),
    }


def _series_scores(
    every: pd.DataFrame, settings: AnalysisSettings
) -> tuple[pd.DataFrame, list[str]]:
    """The scores of the time-series analyses: every source but the excluded ones."""
    excluded = every["source"].isin(settings.exclude_sources)
    if not excluded.any():
        return every, []
    names = sorted(set(every.loc[excluded, "source"]))
    note = (
        f"{fmt_count(excluded.sum())} scored rows of sources {names} are left out of the monthly, "
        "yearly, slope and FreshBench analyses (analysis.exclude_sources); the cells and "
        "horizon tables include them."
    )
    return every.loc[~excluded].reset_index(drop=True), [note]


def _period_scores(
    series: pd.DataFrame, settings: AnalysisSettings
) -> tuple[pd.DataFrame, list[str]]:
    """The scores resolved within ``analysis.date_start`` .. ``date_end`` (inclusive)."""
    start, end = settings.date_start, settings.date_end
    if start is None and end is None:
        return series, []
    keep = pd.Series(True, index=series.index)
    if start is not None:
        keep &= series["resolution_date"] >= as_datetime64(start)
    if end is not None:
        keep &= series["resolution_date"] <= as_datetime64(end)
    span = (
        f"{start.isoformat() if start else 'the first'} .. {end.isoformat() if end else 'the last'}"
    )
    notes = [
        f"The Daily Oracle analyses (accuracy, monthly accuracy, Table 3, Fig. 3-6, the "
        f"headline) cover questions resolved {span} (analysis.date_start, "
        f"analysis.date_end): {int((~keep).sum())} of {len(series)} scored rows fall "
        "outside and are left out of them; FreshBench's tests and the cells, horizon and "
        "dataset tables include them."
    ]
    return series.loc[keep].reset_index(drop=True), notes


def period_months(scores: pd.DataFrame, settings: AnalysisSettings) -> tuple[int, int] | None:
    """The calendar of the monthly series: the period's months where its bounds are set,
    the scored months' otherwise (None for a table without scores)."""
    if scores.empty:
        return None
    start, end = settings.date_start, settings.date_end
    first = dates.month_index(start) if start else int(scores["month"].min())
    last = dates.month_index(end) if end else int(scores["month"].max())
    return first, last


def _headline_metrics(decline: pd.DataFrame) -> dict[str, Any]:
    """The headline decline per question type, for ``dvc metrics diff``."""
    return {
        str(r["qtype"]): {
            "first_month": str(r["first_month"]),
            "last_month": str(r["last_month"]),
            "models": int(r["n_models"]),
            "first_month_accuracy_pct": _num(r["first_accuracy"]),
            "last_month_accuracy_pct": _num(r["last_accuracy"]),
            "change_pct": _num(r["change_pct"]),
        }
        for r in decline.to_dict("records")
    }


def _headline_notes(decline: pd.DataFrame) -> list[str]:
    """Models the headline decline leaves out, per type."""
    return [
        f"Headline decline ({str(r['qtype']).upper()}, {r['first_month']} vs "
        f"{r['last_month']}) leaves out: {r['left_out']}."
        for r in decline.to_dict("records")
        if r["left_out"]
    ]


def _table3_notes(t3: pd.DataFrame) -> list[str]:
    """Table 3 rows whose bootstrap interval does not contain the estimate."""
    flags = [c for c in t3.columns if c.endswith("_ci_excludes")]
    if t3.empty or not flags:
        return []
    n = int(t3[flags].fillna(False).astype(bool).to_numpy().sum())
    if not n:
        return []
    return [
        f"{fmt_count(n)} Table 3 YoY intervals do not contain their estimate (marked †): the YoY "
        "statistic is strongly biased under resampling there (months with few questions), "
        "so the bootstrap interval is not to be trusted for those rows."
    ]


def _series_notes(
    monthly: pd.DataFrame, slopes: pd.DataFrame, settings: AnalysisSettings
) -> list[str]:
    """What the monthly curves and Fig. 6 could not show, in words."""
    if monthly.empty:
        return []
    notes = []
    gaps = monthly.loc[monthly["n"] == 0]
    if not gaps.empty:
        notes.append(
            f"{fmt_count(len(gaps))} of {fmt_count(len(monthly))} series-months have no questions; they are "
            "gaps (empty cells, breaks in curves), not zeros."
        )
    ma = settings.moving_average
    if monthly["accuracy_ma"].isna().all():
        notes.append(
            f"No series has {ma.min_periods} months with data in a {ma.window}-month "
            f"window ({monthly['month_index'].nunique()} calendar months in the data): "
            "moving averages are empty."
        )
    if slopes.empty or slopes["slope_pp_per_month"].isna().all():
        notes.append(
            f"Fig. 6 slopes need {settings.slope.start_months} months from the first "
            f"defined moving average with at least {settings.slope.min_points} defined "
            "months; none qualifies."
        )
    return notes


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


def _metrics(
    scores: pd.DataFrame,
    n_errors: int,
    cells: pd.DataFrame,
    pooled: pd.DataFrame,
    t3: pd.DataFrame,
    slopes: pd.DataFrame,
    decline: pd.DataFrame,
    tables: dict[str, pd.DataFrame],
) -> dict[str, Any]:
    """Headline numbers per model x cell x type, nested for ``dvc metrics diff``.

    Accuracies and rates are percentages; keys name the model and cell, so switching a
    model or a RAG cutoff shows as added/removed metrics, not as silently changed ones.
    """
    models: dict[str, Any] = {}

    def slot(rec: dict[Any, Any]) -> dict[str, Any] | None:
        found: dict[str, Any] | None = (
            models.get(str(rec["model"]), {}).get(str(rec["cell"]), {}).get(str(rec["qtype"]))
        )
        return found

    for rec in pooled.to_dict("records") if not pooled.empty else []:
        models.setdefault(str(rec["model"]), {}).setdefault(str(rec["cell"]), {})[
            str(rec["qtype"])
        ] = {
            "n": int(rec["n"]),
            "accuracy": _num(100.0 * rec["accuracy"]),
            "refusal_rate": _num(100.0 * rec["refusal_rate"]),
            "accuracy_excl_refusals": _num(100.0 * rec["accuracy_excl_refusals"]),
        }
    for rec in t3.to_dict("records"):
        entry = slot(rec)
        if entry is not None:
            for regime in REGIMES:
                entry[f"yoy_{regime}"] = _num(rec[f"yoy_{regime}"])
    if not slopes.empty:
        defined = slopes.dropna(subset=["slope_pp_per_month"])
        for rec in defined.groupby(["model", "cell", "qtype"]).tail(1).to_dict("records"):
            entry = slot(rec)
            if entry is not None:
                entry["last_slope_pp_per_month"] = _num(rec["slope_pp_per_month"])
    release = decline.loc[decline["anchor"] == "release_date"] if not decline.empty else decline
    for rec in release.to_dict("records"):
        entry = slot(rec)
        if entry is not None:
            entry["freshbench_pct_decline"] = _num(rec["pct_decline"])
    summary = dict(
        zip(tables["dataset_summary"]["key"], tables["dataset_summary"]["value"], strict=True)
    )
    months = sorted(int(m) for m in scores["month"].unique()) if not scores.empty else []
    return {
        "scored_rows": len(scores),
        "failed_calls": n_errors,
        "models": len(models),
        "cells": len(cells),
        "months_span": (months[-1] - months[0] + 1) if months else 0,
        "months_with_scores": len(months),
        "questions": {k: int(summary[k]) for k in ("n_questions", "n_tf", "n_mc") if k in summary},
        "sources": {
            str(r["source"]): {"n": int(r["n"]), "tf": int(r["n_tf"]), "mc": int(r["n_mc"])}
            for r in tables["dataset_sources"].to_dict("records")
        },
        "accuracy": models,
    }
