"""The scores table the analysis accepts, and the model dates it needs.

Any table with the evaluation stage's scores schema can be analysed, including results
produced elsewhere, so this module checks the schema once and turns it into the typed,
normalised frame every analysis function assumes. Nothing downstream re-checks it.

Evaluation cells are named as the evaluation names them
(:mod:`prescient.evaluation.settings`): ``closed_book``, ``gold``, ``rag_dynamic``,
``rag_YYYY-MM-DD``; dates and months come from :mod:`prescient.dates`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from prescient import dates
from prescient.arrival import day_array
from prescient.evaluation.forecasts import token_method
from prescient.evaluation.settings import (
    CLOSED_BOOK,
    GOLD,
    KINDS,
    NO_GOLD_ARTICLE,
    RAG,
    Setting,
)
from prescient.llm.answer_logprobs import METHOD_WORDS
from prescient.vocab import QTYPES

logger = logging.getLogger(__name__)

ALL = "all"
"""The question type of a series or a row pooling TF and MC."""

REQUIRED_COLUMNS = (
    "model",
    "setting",
    "question_id",
    "qtype",
    "resolution_date",
    "correct",
    "refused",
)
OPTIONAL_COLUMNS = ("rag_cutoff", "parse_failed", "error", "release_date", "knowledge_cutoff")
CELL_KEYS = ("model", "setting", "rag_cutoff", "cell")
NORMALIZED_COLUMNS = [
    "model",
    "setting",
    "rag_cutoff",
    "cell",
    "question_id",
    "qtype",
    "resolution_date",
    "month",
    "correct",
    "refused",
    "parse_failed",
    "error",
]


class TableError(ValueError):
    """An input table lacks a column or holds a value the analysis cannot use."""


class ScoresSchemaError(TableError):
    """The scores table does not have the columns or values the analysis needs."""


def _examples(values: Iterable[object], limit: int = 3) -> list[object]:
    return list(dict.fromkeys(values))[:limit]


def day_column(values: pd.Series, what: str) -> pd.Series:
    """A column of data-file dates as datetime64 days (:func:`prescient.dates.parse_date`).

    Raises:
        TableError: naming ``what`` (table and column), how many rows are unreadable
            and examples of their values.
    """
    if (
        isinstance(values.dtype, pd.ArrowDtype)
        and pa.types.is_date32(values.dtype.pyarrow_dtype)
        and not values.hasnans
    ):  # a column of dates (a scores or question table's): nothing to parse
        return pd.Series(
            day_array(values).astype("datetime64[ns]"), index=values.index, name=values.name
        )
    unique = pd.unique(values.astype(object))
    parsed = {v: dates.parse_date(v) for v in unique}
    days = values.astype(object).map(parsed)
    bad = days.isna()
    if bad.any():
        raise TableError(
            f"{what}: {int(bad.sum())} rows have no readable date "
            f"(e.g. rows {_examples(values.index[bad])}: {_examples(values[bad])}); "
            "write dates as YYYY-MM-DD"
        )
    return pd.to_datetime(days.map(dt.date.isoformat)).astype("datetime64[ns]")


def _as_bool(df: pd.DataFrame, column: str, default: bool | None) -> pd.Series:
    if column not in df.columns:
        if default is None:
            raise ScoresSchemaError(f"missing column {column!r}")
        return pd.Series(default, index=df.index, dtype=bool)
    col = df[column]
    if col.isna().any():
        if default is None:
            bad = df.loc[col.isna(), "question_id"].head(3).tolist()
            raise ScoresSchemaError(
                f"column {column!r} has {int(col.isna().sum())} null values "
                f"(e.g. question_id {bad}); every scored row needs a value"
            )
        col = col.fillna(default)
    return col.astype(bool)


def _setting(kind: object, cutoff: object) -> Setting:
    """The evaluation setting of a row from its ``setting`` and ``rag_cutoff`` values."""
    text = str(kind).strip()
    if text not in KINDS:
        raise ValueError(f"setting {kind!r} is none of {list(KINDS)}")
    has_cutoff = not dates.is_missing(cutoff)
    if text != RAG:
        if has_cutoff:
            raise ValueError(f"a {text} row has rag_cutoff {cutoff!r}; only rag rows have one")
        return Setting(text)
    if not has_cutoff:
        raise ValueError(f"a {RAG} row needs rag_cutoff ({dates.DYNAMIC} or YYYY-MM-DD)")
    return Setting(RAG, dates.parse_rag_cutoff(cutoff))


def settings_of(raw: pd.DataFrame) -> pd.Series:
    """The :class:`Setting` of every row (``setting`` and ``rag_cutoff`` columns).

    Raises:
        ScoresSchemaError: an unknown setting, a RAG row without a cutoff or a cutoff
            that is neither ``dynamic`` nor a date, a non-RAG row with a cutoff; the
            message names the rows.
    """
    codes, found = _setting_codes(raw)
    distinct = np.empty(len(found), dtype=object)
    distinct[:] = found
    return pd.Series(distinct[codes], index=raw.index, dtype=object)


def setting_columns(raw: pd.DataFrame) -> dict[str, list[str]]:
    """The ``setting`` (kind), ``rag_cutoff`` (label, ``""`` outside RAG) and ``cell``
    (name) of every row, from :func:`settings_of`'s settings (the same errors)."""
    codes, found = _setting_codes(raw)
    columns = {
        "setting": [s.kind for s in found],
        "rag_cutoff": [s.cutoff_label or "" for s in found],
        "cell": [s.name for s in found],
    }
    return {k: np.array(v, dtype=object)[codes].tolist() for k, v in columns.items()}


def _setting_codes(raw: pd.DataFrame) -> tuple[npt.NDArray[np.intp], list[Setting]]:
    """Each row's position among the distinct settings of ``raw``, and those settings,
    each parsed once (:func:`settings_of`)."""
    cutoffs = (
        raw["rag_cutoff"].astype(object)
        if "rag_cutoff" in raw.columns
        else pd.Series(None, index=raw.index, dtype=object)
    )
    kinds = raw["setting"].astype(object)
    if not (_typed(raw, "setting") and _typed(raw, "rag_cutoff")):
        # values of mixed types: told apart by type as well as by text
        keys = pd.Series(
            [(str(k), type(c).__name__, str(c)) for k, c in zip(kinds, cutoffs, strict=True)],
            index=raw.index,
            dtype=object,
        )
        codes = np.asarray(pd.factorize(keys)[0], dtype=np.intp)
    else:
        codes = np.asarray(
            pd.DataFrame({"k": kinds.to_numpy(), "c": cutoffs.to_numpy()})
            .groupby(["k", "c"], dropna=False, sort=False)
            .ngroup()
            .to_numpy(),
            dtype=np.intp,
        )
    firsts = np.unique(codes, return_index=True)[1] if len(codes) else np.array([], dtype=np.intp)
    found: list[Setting] = []
    for code, i in enumerate(firsts.tolist()):
        try:
            found.append(_setting(kinds.iloc[i], cutoffs.iloc[i]))
        except ValueError as exc:
            rows = raw.index[codes == code]
            raise ScoresSchemaError(f"{exc} (rows {list(rows[:3])}, {len(rows)} in all)") from None
    return codes, found


def _typed(raw: pd.DataFrame, column: str) -> bool:
    """Whether every value of ``column`` (absent: none) is a string or missing."""
    return column not in raw.columns or isinstance(raw[column].dtype, pd.StringDtype)


def normalize_scores(raw: pd.DataFrame, exclude_errors: bool) -> pd.DataFrame:
    """Validate a scores table and return the frame the analysis functions expect.

    Columns of the result (:data:`NORMALIZED_COLUMNS`): ``model``, ``setting`` (kind:
    ``closed_book``, ``rag`` or ``gold``), ``rag_cutoff`` (``dynamic`` / ``YYYY-MM-DD``
    for RAG cells, ``""`` otherwise), ``cell`` (the evaluation's setting name),
    ``question_id``, ``qtype``, ``resolution_date`` (datetime64), ``month`` (month index),
    ``correct``, ``refused``, ``parse_failed``, ``error`` (bool: the call failed, there is
    no model answer).

    Rows whose call failed (``error`` set) are dropped when ``exclude_errors``: a failed
    call is not a wrong forecast, and counting it as one would be a silently wrong number.
    The caller reports how many were dropped from :func:`count_errors`. Gold rows without
    a gold article (:func:`no_gold_rows`) made no call and are always left out; the
    caller counts them under their own reason.

    Raises:
        ScoresSchemaError: a required column is missing, a value is invalid, or a
            question is scored twice in the same cell.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in raw.columns]
    if missing:
        raise ScoresSchemaError(
            f"scores table lacks required columns {missing}; expected at least "
            f"{list(REQUIRED_COLUMNS)} (optional: {list(OPTIONAL_COLUMNS)})"
        )
    raw = raw.reset_index(drop=True)
    df = pd.DataFrame(
        {
            "model": raw["model"].astype(str),
            **setting_columns(raw),
            "question_id": raw["question_id"].astype(str),
            "qtype": raw["qtype"].astype(str).str.lower(),
        },
        index=raw.index,
    )
    bad_types = sorted(set(df["qtype"]) - set(QTYPES))
    if bad_types:
        raise ScoresSchemaError(f"unknown qtype values {bad_types}; expected {list(QTYPES)}")
    try:
        df["resolution_date"] = day_column(raw["resolution_date"], "scores.resolution_date")
    except TableError as exc:
        raise ScoresSchemaError(str(exc)) from None
    asked = ~no_gold_rows(raw)  # no call, no answer: never a forecast, right or wrong
    df, raw = df.loc[asked].copy(), raw.loc[asked]
    df["error"] = failed_calls(raw)
    if exclude_errors:
        df = df.loc[~df["error"]].copy()
        raw = raw.loc[df.index]
    df["correct"] = _as_bool(raw, "correct", None)
    df["refused"] = _as_bool(raw, "refused", False)
    df["parse_failed"] = _as_bool(raw, "parse_failed", False)
    df["month"] = dates.month_indices(df["resolution_date"]).astype(int)
    dup = df.duplicated(["model", "cell", "question_id"], keep=False)
    if dup.any():
        example = df.loc[dup, ["model", "cell", "question_id"]].head(3).to_dict("records")
        raise ScoresSchemaError(
            f"{int(dup.sum())} rows score the same question twice in one cell (same model, "
            f"setting, rag_cutoff and question_id), e.g. {example}: remove the repeated rows "
            "from the table, or keep one row of each and count the others with "
            "-S analysis.duplicates=keep_first (or keep_last)"
        )
    return df[NORMALIZED_COLUMNS].reset_index(drop=True)


DUPLICATE_RULES = ("error", "keep_first", "keep_last")


def drop_duplicate_scores(raw: pd.DataFrame, rule: str) -> tuple[pd.DataFrame, int]:
    """One row per (model, cell, question) under an explicit rule, and how many were dropped.

    ``error`` drops nothing (:func:`normalize_scores` then refuses the table);
    ``keep_first`` / ``keep_last`` keep the first / last row of each in table order.
    Tables published with other benchmarks sometimes repeat a row; the count goes to
    the notes and metrics, so nothing is dropped silently.
    """
    if rule not in DUPLICATE_RULES:
        raise ValueError(f"unknown duplicate rule {rule!r}; expected one of {DUPLICATE_RULES}")
    if rule == "error" or raw.empty or not {"model", "setting", "question_id"} <= set(raw):
        return raw, 0
    cells = setting_columns(raw.reset_index(drop=True))["cell"]
    key = pd.DataFrame(
        {
            "model": raw["model"].astype(str).to_numpy(),
            "cell": cells,
            "question_id": raw["question_id"].astype(str).to_numpy(),
        }
    )
    dup = key.duplicated(keep="first" if rule == "keep_first" else "last").to_numpy()
    return raw.loc[~dup].reset_index(drop=True), int(dup.sum())


def no_gold_rows(raw: pd.DataFrame) -> pd.Series:
    """Gold rows whose question has no gold article: no model call was made
    (``error`` is :data:`~prescient.evaluation.settings.NO_GOLD_ARTICLE`)."""
    if "error" not in raw.columns:
        return pd.Series(False, index=raw.index, dtype=bool)
    return (raw["error"].astype("string").str.strip() == NO_GOLD_ARTICLE).fillna(False).astype(bool)


def failed_calls(raw: pd.DataFrame) -> pd.Series:
    """Rows whose model call failed: a non-blank ``error`` other than the missing gold
    article (:func:`no_gold_rows`, counted on its own); all False without the column."""
    if "error" not in raw.columns:
        return pd.Series(False, index=raw.index, dtype=bool)
    err = raw["error"]
    blank = err.isna() | (err.astype(str).str.strip() == "")
    return (~blank & ~no_gold_rows(raw)).astype(bool)


def _count_per_cell(
    rows: pd.DataFrame, column: str, keys: list[str], sources: Mapping[str, str] | None
) -> pd.DataFrame:
    """How many of ``rows`` each (model, cell[, source]) holds, as ``column``."""
    if rows.empty:
        return pd.DataFrame(columns=[*keys, column])
    frame = pd.DataFrame(
        {
            "model": rows["model"].astype(str),
            "cell": setting_columns(rows)["cell"],
            column: 1,
        }
    )
    if sources is not None:
        frame["source"] = [sources.get(str(q), "") for q in rows["question_id"]]
    return frame.groupby(keys, as_index=False).agg(**{column: (column, "sum")})


def count_errors(raw: pd.DataFrame, sources: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Failed calls per cell (model, cell) in a raw scores table; per (model, cell,
    source) when ``sources`` maps question ids to their source."""
    keys = ["model", "cell", *(["source"] if sources is not None else [])]
    failed = raw.loc[failed_calls(raw)] if not raw.empty else raw
    return _count_per_cell(failed, "n_errors", keys, sources)


def count_fitted(raw: pd.DataFrame, sources: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Answered prompts whose articles were cut to fit the model's context window (a
    ``context_words_kept`` value, :mod:`prescient.llm.fit`) per cell (model, cell), or per
    (model, cell, source) when ``sources`` maps question ids to their source; none in a
    scores table without the column."""
    keys = ["model", "cell", *(["source"] if sources is not None else [])]
    if raw.empty or "context_words_kept" not in raw.columns:
        return pd.DataFrame(columns=[*keys, "n_fitted"])
    fitted = raw.loc[raw["context_words_kept"].notna().to_numpy(bool) & ~failed_calls(raw)]
    return _count_per_cell(fitted, "n_fitted", keys, sources)


def cell_order(cells: pd.DataFrame) -> pd.DataFrame:
    """Sort rows by model, then setting in the paper's order, then RAG cutoff."""
    rank = {s: i for i, s in enumerate(KINDS)}
    key = cells["setting"].map(lambda s: rank.get(s, len(rank)))
    return (
        cells.assign(_rank=key)
        .sort_values(["model", "_rank", "setting", "rag_cutoff"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def setting_label(setting: str, rag_cutoff: str) -> str:
    """A cell as a reader names it (the report's headers): closed book, gold article, RAG (dynamic or a cutoff)."""
    if setting == CLOSED_BOOK:
        return "closed book"
    if setting == GOLD:
        return "gold article"
    if setting == RAG:
        return f"RAG cutoff {rag_cutoff}" if rag_cutoff != "dynamic" else "RAG dynamic"
    return setting


def cells_of(scores: pd.DataFrame) -> pd.DataFrame:
    """The distinct cells of a normalised scores frame, in :func:`cell_order`."""
    return cell_order(scores[list(CELL_KEYS)].drop_duplicates())


@dataclass(frozen=True)
class ModelInfo:
    """A model's dates as the analysis uses them.

    Attributes:
        model: registry name (as in the scores table).
        knowledge_cutoff: training-data cutoff, or None when unknown.
        release_date: public release date, or None when unknown.
        source: ``registry``, ``scores table`` or ``unknown``.
        baseline: the registry entry is a baseline (``litellm_model: baseline/...``), a
            reference floor rather than an evaluated model.
    """

    model: str
    knowledge_cutoff: dt.date | None
    release_date: dt.date | None
    source: str
    baseline: bool = False


def _registry_day(value: Any, where: str) -> dt.date | None:
    if dates.is_missing(value):
        return None
    try:
        return dates.parse_day(value, where)
    except ValueError as exc:
        raise ScoresSchemaError(str(exc)) from None


def _column_value(raw: pd.DataFrame, model: str, column: str) -> dt.date | None:
    if column not in raw.columns:
        return None
    values = raw.loc[raw["model"].astype(str) == model, column]
    values = values[[not dates.is_missing(v) for v in values]]
    if values.empty:
        return None
    days: set[dt.date] = set(day_column(values, f"scores.{column} of model {model!r}").dt.date)
    if len(days) > 1:
        shown = sorted(d.isoformat() for d in days)
        raise ScoresSchemaError(f"model {model!r} has conflicting {column} values {shown}")
    return days.pop()


BASELINE_PROVIDER = "baseline"
"""The provider of the registry's baselines (``litellm_model: baseline/<kind>``)."""


def is_baseline(entry: Mapping[str, Any]) -> bool:
    """Whether a registry entry is a baseline: its ``litellm_model`` provider is
    ``baseline`` (:mod:`prescient.llm.baselines`)."""
    provider = str(entry.get("litellm_model") or "").split("/", 1)[0]
    return provider == BASELINE_PROVIDER


def resolve_models(
    raw: pd.DataFrame, registry: Mapping[str, Mapping[str, Any]] | None
) -> list[ModelInfo]:
    """Dates of every model in the scores table.

    The model registry (``params["models"]``) wins for the models it lists, even where
    it leaves a date null; models it does not list take ``release_date`` /
    ``knowledge_cutoff`` from the table's own columns. Nothing is guessed. Only a registry
    entry can mark a model as a baseline.
    """
    registry = registry or {}
    infos = []
    for model in sorted(raw["model"].astype(str).unique()) if "model" in raw.columns else []:
        entry = registry.get(model)
        if entry is not None:
            infos.append(
                ModelInfo(
                    model,
                    _registry_day(
                        entry.get("knowledge_cutoff"), f"models.{model}.knowledge_cutoff"
                    ),
                    _registry_day(entry.get("release_date"), f"models.{model}.release_date"),
                    "registry",
                    is_baseline(entry),
                )
            )
            continue
        try:
            cutoff = _column_value(raw, model, "knowledge_cutoff")
            release = _column_value(raw, model, "release_date")
        except TableError as exc:
            raise ScoresSchemaError(str(exc)) from None
        source = "scores table" if cutoff is not None or release is not None else "unknown"
        infos.append(ModelInfo(model, cutoff, release, source))
    return infos


def iso(day: dt.date | None) -> str:
    """``YYYY-MM-DD``, or ``""`` for an unknown date (a text cell of the tables)."""
    return day.isoformat() if day is not None else ""


def models_frame(
    infos: list[ModelInfo],
    served: Mapping[str, str] | None = None,
    token_read: Mapping[str, str] | None = None,
    asked: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """The model dates as a table (dates as ``YYYY-MM-DD`` strings, '' when unknown),
    with ``litellm_model``: what its registry entry asks for (``asked``),
    ``served_model``: the models that answered as their servers named them
    (:func:`served_models`), and ``token_method``: how its token probabilities were
    read (:func:`token_methods`); '' where nothing says."""
    named = served or {}
    methods = token_read or {}
    routes = asked or {}
    return pd.DataFrame(
        {
            "model": [i.model for i in infos],
            "knowledge_cutoff": [iso(i.knowledge_cutoff) for i in infos],
            "release_date": [iso(i.release_date) for i in infos],
            "source": [i.source for i in infos],
            "litellm_model": [routes.get(i.model, "") for i in infos],
            "served_model": [named.get(i.model, "") for i in infos],
            "token_method": [methods.get(i.model, "") for i in infos],
        },
        columns=MODELS_COLUMNS,
    )


MODELS_COLUMNS = [
    "model",
    "knowledge_cutoff",
    "release_date",
    "source",
    "litellm_model",
    "served_model",
    "token_method",
]
"""Columns of the models table (:func:`models_frame`)."""


def _distinct(scores: pd.DataFrame, column: str, values: pd.Series) -> dict[str, str]:
    """Per model, the distinct non-empty ``values`` of its rows, sorted, joined by "; "."""
    keep = values.notna() & (values.astype(str) != "")
    frame = pd.DataFrame({"model": scores["model"].astype(str), column: values})[keep]
    return {
        str(model): "; ".join(sorted(set(group[column].astype(str).unique())))
        for model, group in frame.groupby("model", sort=True)
    }


def served_models(scores: pd.DataFrame) -> dict[str, str]:
    """Per model, the distinct ``served_model`` values of its rows, sorted and joined by
    "; " (several: two models answered behind one registry entry)."""
    if scores.empty or "served_model" not in scores.columns:
        return {}
    return _distinct(scores, "served_model", scores["served_model"])


def token_methods(scores: pd.DataFrame) -> dict[str, str]:
    """Per model, how its token-probability forecasts were read: the distinct methods
    their ``parse_rule`` names (:func:`prescient.evaluation.forecasts.token_method`;
    the methods of :mod:`prescient.llm.answer_logprobs`, in its :data:`METHOD_WORDS`),
    sorted and joined by "; "."""
    if scores.empty or "parse_rule" not in scores.columns:
        return {}
    methods = scores["parse_rule"].map(token_method)
    return _distinct(scores, "token_method", methods.map(lambda m: METHOD_WORDS.get(m, m)))


def as_datetime64(day: dt.date) -> np.datetime64:
    """A day as ``datetime64[ns]``, comparable with :func:`day_column` values."""
    return np.datetime64(day.isoformat(), "ns")
