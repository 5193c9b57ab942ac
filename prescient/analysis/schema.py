"""The scores table the analysis accepts, and the model dates it needs.

Any table with the evaluation stage's scores schema can be analysed, including results
produced elsewhere, so this module checks the schema once and turns it into the typed,
normalised frame every analysis function assumes. Nothing downstream re-checks it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

logger = logging.getLogger(__name__)

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
QTYPES = ("tf", "mc")
SETTING_ORDER = ("closed_book", "rag", "gold")
CELL_KEYS = ("model", "setting", "rag_cutoff")


class ScoresSchemaError(ValueError):
    """The scores table does not have the columns or values the analysis needs."""


def month_index(ts: pd.Series) -> pd.Series:
    """Months since year 0 (``year * 12 + month - 1``): consecutive months differ by 1."""
    return ts.dt.year * 12 + ts.dt.month - 1


def month_label(index: int) -> str:
    """``YYYY-MM`` of a month index."""
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def month_start(index: int) -> pd.Timestamp:
    """First day of a month index."""
    return pd.Timestamp(year=index // 12, month=index % 12 + 1, day=1)


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


def _rag_cutoff_str(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return ""
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d")
    text = str(value).strip()
    try:
        return pd.Timestamp(text).strftime("%Y-%m-%d") if text and text != "dynamic" else text
    except ValueError:
        return text


def _rag_cutoffs(raw: pd.DataFrame) -> pd.Series:
    """The ``rag_cutoff`` column as ``YYYY-MM-DD`` / ``dynamic`` / ``""`` strings."""
    if "rag_cutoff" not in raw.columns:
        return pd.Series("", index=raw.index, dtype=object)
    col = raw["rag_cutoff"].astype(object)
    mapping = {v: _rag_cutoff_str(v) for v in col.dropna().unique()}
    return col.map(mapping).astype(object).where(col.notna(), "")


def cell_labels(setting: pd.Series, rag_cutoff: pd.Series) -> pd.Series:
    """Names of evaluation cells: ``closed_book``, ``gold``, ``rag@2023-09-01``,
    ``rag@dynamic`` (the setting alone where there is no RAG cutoff)."""
    setting = setting.astype(str)
    joined = setting + "@" + rag_cutoff.astype(str)
    return joined.where(rag_cutoff != "", setting).astype(object)


def normalize_scores(raw: pd.DataFrame, exclude_errors: bool = True) -> pd.DataFrame:
    """Validate a scores table and return the frame the analysis functions expect.

    Columns of the result: ``model``, ``setting``, ``rag_cutoff`` (``""`` when not a RAG
    cell), ``cell``, ``question_id``, ``qtype``, ``resolution_date`` (datetime64),
    ``month`` (month index), ``correct``, ``refused``, ``parse_failed``, ``error`` (bool:
    the call failed, there is no model answer).

    Rows whose call failed (``error`` set) are dropped when ``exclude_errors``: a failed
    call is not a wrong forecast, and counting it as one would be a silently wrong number.
    The caller reports how many were dropped from :func:`count_errors`.

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
            "setting": raw["setting"].astype(str),
            "rag_cutoff": _rag_cutoffs(raw),
            "question_id": raw["question_id"].astype(str),
            "qtype": raw["qtype"].astype(str).str.lower(),
        },
        index=raw.index,
    )
    bad_types = sorted(set(df["qtype"]) - set(QTYPES))
    if bad_types:
        raise ScoresSchemaError(f"unknown qtype values {bad_types}; expected {list(QTYPES)}")
    dates = pd.to_datetime(raw["resolution_date"], errors="coerce")
    if dates.isna().any():
        raise ScoresSchemaError(
            f"{int(dates.isna().sum())} rows have no valid resolution_date "
            f"(e.g. question_id {df.loc[dates.isna(), 'question_id'].head(3).tolist()})"
        )
    df["resolution_date"] = dates.dt.normalize().astype("datetime64[ns]")
    if "error" in raw.columns:
        err = raw["error"]
        df["error"] = err.notna() & (err.astype(str).str.strip() != "")
    else:
        df["error"] = False
    if exclude_errors:
        df = df.loc[~df["error"]].copy()
        raw = raw.loc[df.index]
    df["correct"] = _as_bool(raw, "correct", None)
    df["refused"] = _as_bool(raw, "refused", False)
    df["parse_failed"] = _as_bool(raw, "parse_failed", False)
    df["cell"] = cell_labels(df["setting"], df["rag_cutoff"])
    df["month"] = month_index(df["resolution_date"]).astype(int)
    dup = df.duplicated(["model", "setting", "rag_cutoff", "question_id"], keep=False)
    if dup.any():
        example = df.loc[dup, ["model", "cell", "question_id"]].head(3).to_dict("records")
        raise ScoresSchemaError(
            f"{int(dup.sum())} rows score the same question twice in one cell, e.g. {example}"
        )
    cols = [
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
    return df[cols].reset_index(drop=True)


def count_errors(raw: pd.DataFrame) -> pd.DataFrame:
    """Failed calls per cell (model, setting, rag_cutoff) in a raw scores table."""
    if "error" not in raw.columns or raw.empty:
        return pd.DataFrame(columns=["model", "cell", "n_errors"])
    err = raw["error"].notna() & (raw["error"].astype(str).str.strip() != "")
    if not err.any():
        return pd.DataFrame(columns=["model", "cell", "n_errors"])
    failed = raw.loc[err]
    frame = pd.DataFrame(
        {
            "model": failed["model"].astype(str),
            "cell": cell_labels(failed["setting"], _rag_cutoffs(failed)),
            "n_errors": 1,
        }
    )
    out = frame.groupby(["model", "cell"], as_index=False)["n_errors"].sum()
    return out.loc[out["n_errors"] > 0].reset_index(drop=True)


def cell_order(cells: pd.DataFrame) -> pd.DataFrame:
    """Sort rows by model, then setting in the paper's order, then RAG cutoff."""
    rank = {s: i for i, s in enumerate(SETTING_ORDER)}
    key = cells["setting"].map(lambda s: rank.get(s, len(rank)))
    return (
        cells.assign(_rank=key)
        .sort_values(["model", "_rank", "setting", "rag_cutoff"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


@dataclass(frozen=True)
class ModelInfo:
    """A model's dates as the analysis uses them.

    Attributes:
        model: registry name (as in the scores table).
        knowledge_cutoff: training-data cutoff, or None when unknown.
        release_date: public release date, or None when unknown.
        source: ``registry``, ``scores table`` or ``unknown``.
    """

    model: str
    knowledge_cutoff: pd.Timestamp | None
    release_date: pd.Timestamp | None
    source: str


def _parse_date(value: Any, what: str) -> pd.Timestamp | None:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return None
    text = str(value).strip()
    if not text or text.lower() in {"null", "none", "unknown", "nan", "nat"}:
        return None
    try:
        return pd.Timestamp(text).normalize()
    except ValueError as exc:
        raise ScoresSchemaError(f"{what}: {value!r} is not a date (YYYY-MM-DD)") from exc


def _column_value(raw: pd.DataFrame, model: str, column: str) -> pd.Timestamp | None:
    if column not in raw.columns:
        return None
    values = raw.loc[raw["model"].astype(str) == model, column].dropna()
    dates = {d for d in (_parse_date(v, f"{model}.{column}") for v in values) if d is not None}
    if len(dates) > 1:
        shown = sorted(d.strftime("%Y-%m-%d") for d in dates)
        raise ScoresSchemaError(f"model {model!r} has conflicting {column} values {shown}")
    return next(iter(dates), None)


def resolve_models(
    raw: pd.DataFrame, registry: Mapping[str, Mapping[str, Any]] | None
) -> list[ModelInfo]:
    """Dates of every model in the scores table.

    The model registry (``params["models"]``) wins for the models it lists, even where
    it leaves a date null; models it does not list take ``release_date`` /
    ``knowledge_cutoff`` from the table's own columns. Nothing is guessed.
    """
    registry = registry or {}
    infos = []
    for model in sorted(raw["model"].astype(str).unique()) if "model" in raw.columns else []:
        entry = registry.get(model)
        if entry is not None:
            infos.append(
                ModelInfo(
                    model,
                    _parse_date(entry.get("knowledge_cutoff"), f"models.{model}.knowledge_cutoff"),
                    _parse_date(entry.get("release_date"), f"models.{model}.release_date"),
                    "registry",
                )
            )
            continue
        cutoff = _column_value(raw, model, "knowledge_cutoff")
        release = _column_value(raw, model, "release_date")
        source = "scores table" if cutoff is not None or release is not None else "unknown"
        infos.append(ModelInfo(model, cutoff, release, source))
    return infos


def models_frame(infos: list[ModelInfo]) -> pd.DataFrame:
    """The model dates as a table (dates as ``YYYY-MM-DD`` strings, '' when unknown)."""

    def fmt(d: pd.Timestamp | None) -> str:
        return d.strftime("%Y-%m-%d") if d is not None else ""

    return pd.DataFrame(
        {
            "model": [i.model for i in infos],
            "knowledge_cutoff": [fmt(i.knowledge_cutoff) for i in infos],
            "release_date": [fmt(i.release_date) for i in infos],
            "source": [i.source for i in infos],
        },
        columns=["model", "knowledge_cutoff", "release_date", "source"],
    )
