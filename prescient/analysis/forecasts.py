"""The probabilistic forecasts of a scores table, one row per scored forecast.

Beyond the three papers, which score the label a model picks: a scores table may hold
several elicitations of each question (``elicitation``: ``label``, ``verbal_probability``,
``token_logprobs``) and, for each row, the forecast over the question's answers in prompt
order (``probs``: true/false [P(Yes), P(No)], multiple choice one per option) with where
it came from (``prob_source``). A row of the model ``crowd`` is an imported question set's
crowd or market forecast. :func:`forecast_frame` reads them into the frame the proper
scores (:mod:`.proper`) compute on (the papers' own analyses read the ``label`` rows,
:func:`~.pipeline.label_rows`).

A scores table from before these columns (no ``elicitation``, no ``probs``) still works:
every row is a ``label`` forecast, the one-hot of its ``parsed_answer``, or the uniform
forecast where no answer was read (a refusal or a parse failure: ``uniform_fill``).

Rows left out of the proper scores are counted under a named reason
(:data:`DROP_REASONS`): a failed model call (no forecast, as accuracy leaves it out), a
gold row without a gold article (no call), a question whose resolved answer is unknown,
a source left out of the time series (``analysis.exclude_sources``) or a day outside the
period (``analysis.date_start`` .. ``date_end``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from prescient import dates
from prescient.analysis.schema import (
    ScoresSchemaError,
    as_datetime64,
    day_column,
    drop_duplicate_scores,
    failed_calls,
    no_gold_rows,
    setting_columns,
)
from prescient.analysis.settings import AnalysisSettings
from prescient.analysis.sources import UNNAMED
from prescient.evaluation.forecasts import (
    LABEL_SOURCE,
    STATED,
    TOKEN_SOURCE,
    UNIFORM_FILL,
    one_hot,
    uniform,
)
from prescient.evaluation.settings import (
    ELICITATIONS,
    LABEL,
    SCRATCHPAD,
    TOKENS,
    VERBAL,
    elicitation_of,
)
from prescient.vocab import MC, N_MC_CHOICES, QTYPES, TF

DEFAULT_SOURCE = {LABEL: LABEL_SOURCE, VERBAL: STATED, TOKENS: TOKEN_SOURCE, SCRATCHPAD: STATED}
"""``prob_source`` of a row whose table has no such column, by elicitation."""
SUM_TOLERANCE = 1e-6
"""How far from 1 a forecast's probabilities may sum (rounding in a file) before the
row is refused; within it they are divided by their sum."""


def _flag(raw: pd.DataFrame, column: str) -> pd.Series:
    """A boolean column of the scores table; False throughout where it has none."""
    if column not in raw.columns:
        return pd.Series(False, index=raw.index)
    return raw[column].fillna(False).astype(bool)


FORECAST_COLUMNS = [
    "model",
    "setting",
    "rag_cutoff",
    "cell",
    "elicitation",
    "question_id",
    "qtype",
    "source",
    "resolution_date",
    "month",
    "probs",
    "outcome",
    "correct",
    "prob_source",
    "refused",
    "parse_failed",
]
"""Columns of :func:`forecast_frame`: ``probs`` a tuple of floats summing to 1,
``outcome`` the index of the answer that resolved, ``correct`` the scores table's
(refusals and parse failures are wrong, as in accuracy), ``refused`` and
``parse_failed`` the scores table's (False where it has no such column)."""

DROP_REASONS = ("failed_call", "no_gold_article", "no_outcome", "excluded_source", "period")


@dataclass(frozen=True)
class Forecasts:
    """The forecasts and what was left out.

    Attributes:
        frame: :data:`FORECAST_COLUMNS`, one row per (model, cell, elicitation, question).
        dropped: reason (:data:`DROP_REASONS`) -> rows left out.
        has_probs: the scores table has a ``probs`` column (else every forecast is a
            label's one-hot or a uniform fill).
    """

    frame: pd.DataFrame
    dropped: dict[str, int] = field(default_factory=dict)
    has_probs: bool = False


def elicitations_of(raw: pd.DataFrame) -> pd.Series:
    """Each row's elicitation: the ``elicitation`` column, ``label`` where it is absent
    or blank (a table from before the column).

    Raises:
        ScoresSchemaError: a value that is none of :data:`ELICITATIONS`, naming rows.
    """
    values = elicitation_of(raw).str.strip()
    out = values.where(values != "", LABEL)
    bad = ~out.isin(ELICITATIONS)
    if bad.any():
        rows = list(out.index[bad][:3])
        raise ScoresSchemaError(
            f"scores.elicitation has {int(bad.sum())} unknown values "
            f"{sorted(set(out[bad]))[:3]} (rows {rows}); expected one of {list(ELICITATIONS)}"
        )
    return out


def _choice_counts(questions: pd.DataFrame | None, raw: pd.DataFrame) -> dict[str, int]:
    """Options per question from a ``choices`` column (questions table first)."""
    out: dict[str, int] = {}
    for frame in (raw, questions):
        if frame is None or "choices" not in frame.columns:
            continue
        for qid, choices in zip(frame["question_id"].astype(str), frame["choices"], strict=True):
            if isinstance(choices, list | tuple | np.ndarray) and len(choices):
                out[qid] = len(choices)
    return out


def _outcomes(questions: pd.DataFrame | None, raw: pd.DataFrame) -> dict[str, int]:
    """Each question's resolved answer: the questions table's ``answer_index``; else
    read off the scores (a correct row's answer; the other answer of a wrong true/false
    row)."""
    if questions is not None and "answer_index" in questions.columns:
        known = questions.loc[questions["answer_index"].notna()]
        return dict(
            zip(
                known["question_id"].astype(str),
                known["answer_index"].astype(int),
                strict=True,
            )
        )
    out: dict[str, int] = {}
    if "parsed_answer" not in raw.columns:
        return out
    parsed = pd.to_numeric(raw["parsed_answer"], errors="coerce")
    correct = raw["correct"].fillna(False).astype(bool)
    qids = raw["question_id"].astype(str)
    tf = raw["qtype"].astype(str).str.lower() == TF
    for qid, p, ok, is_tf in zip(qids, parsed, correct, tf, strict=True):
        if qid in out or math.isnan(p):
            continue
        if ok:
            out[qid] = int(p)
        elif is_tf:
            out[qid] = 1 - int(p)
    return out


def _probs(row: int, value: Any, k: int | None, qid: str) -> tuple[float, ...]:
    """One stated forecast, checked (length, range, sum) and divided by its sum."""
    p = np.asarray(list(value), dtype=float)
    where = f"scores row {row} (question_id {qid})"
    if p.ndim != 1 or p.size < 2 or (k is not None and p.size != k):
        raise ScoresSchemaError(
            f"{where}: probs has {p.size} values for a question of {k} options; write one "
            "probability per option in prompt order (true/false: [P(Yes), P(No)])"
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ScoresSchemaError(f"{where}: probs {p.tolist()} holds values outside [0, 1]")
    total = float(p.sum())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ScoresSchemaError(
            f"{where}: probs {p.tolist()} sums to {total:.6g}, not 1; normalise the forecast"
        )
    return tuple(float(x) for x in p / total)


def _label_probs(parsed: Any, k: int) -> tuple[tuple[float, ...], bool]:
    """The one-hot of a parsed label, or the uniform forecast (True) when none was read."""
    if parsed is None or (isinstance(parsed, float) and math.isnan(parsed)) or pd.isna(parsed):
        return uniform(k), True
    i = int(parsed)
    if not 0 <= i < k:
        return uniform(k), True
    return one_hot(i, k), False


def _callable_rows(
    raw_scores: pd.DataFrame, settings: AnalysisSettings, dropped: dict[str, int]
) -> pd.DataFrame:
    """The rows that hold a forecast: repeated scores resolved per elicitation
    (``analysis.duplicates``), gold rows without a gold article and failed calls left
    out and counted in ``dropped``."""
    raw = raw_scores.reset_index(drop=True)
    raw = raw.assign(_elicitation=elicitations_of(raw))
    parts = []
    for _, part in raw.groupby("_elicitation", sort=False):
        kept, _n = drop_duplicate_scores(part, settings.duplicates)
        parts.append(kept)
    raw = pd.concat(parts, ignore_index=True) if parts else raw
    no_gold = no_gold_rows(raw)
    failed = failed_calls(raw)
    dropped["no_gold_article"] = int(no_gold.sum())
    dropped["failed_call"] = int(failed.sum())
    return raw.loc[~no_gold & ~failed].reset_index(drop=True)


def _read_stated(
    raw: pd.DataFrame, qids: pd.Series, qtypes: pd.Series, options: Mapping[str, int]
) -> tuple[list[tuple[float, ...]], list[str]] | None:
    """:func:`_read_probs` of a table where every row states its ``probs``, all of them
    valid, one array operation per width instead of one check per row (the same values:
    each row divided by its own sum, taken in the same order); None when any row has no
    stated forecast or fails a check, which the row-by-row reading then handles (and
    names)."""
    try:
        stated = pa.array(raw["probs"], from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    if isinstance(stated, pa.ChunkedArray):  # a column read in several row groups
        stated = stated.combine_chunks()
    if stated.null_count or not (
        pa.types.is_list(stated.type) or pa.types.is_large_list(stated.type)
    ):
        return None
    width = pc.list_value_length(stated).to_numpy(zero_copy_only=False)
    default = np.where(qtypes == TF, 2, np.where(qtypes == MC, N_MC_CHOICES, -1))
    known = qids.map(options)
    expected = np.where(known.notna(), known.fillna(0).to_numpy(float), default).astype(int)
    if np.any(width < 2) or np.any((expected >= 0) & (width != expected)):
        return None
    probs: list[tuple[float, ...]] = [()] * len(raw)
    for k in np.unique(width).tolist():
        rows = np.flatnonzero(width == k)
        m = stated.take(pa.array(rows)).flatten().to_numpy(zero_copy_only=False)
        m = np.asarray(m, dtype=float).reshape(rows.size, k)
        if not np.all(np.isfinite(m)) or np.any(m < 0) or np.any(m > 1):
            return None
        total = m.sum(axis=1)
        if np.any(np.abs(total - 1.0) > SUM_TOLERANCE):
            return None
        for i, row in zip(rows.tolist(), (m / total[:, None]).tolist(), strict=True):
            probs[i] = tuple(row)
    given = raw["prob_source"] if "prob_source" in raw.columns else None
    text = (
        pd.Series([""] * len(raw), dtype=object)
        if given is None
        else given.astype(object).where(given.notna(), "").astype(str)
    )
    fallback = raw["_elicitation"].map(DEFAULT_SOURCE)
    if (fallback.isna() & (text == "")).any():
        return None
    source = [t or str(d) for t, d in zip(text.tolist(), fallback.tolist(), strict=True)]
    return probs, source


def _read_probs(
    raw: pd.DataFrame, qids: pd.Series, qtypes: pd.Series, options: Mapping[str, int]
) -> tuple[list[tuple[float, ...]], list[str]]:
    """Each row's forecast and ``prob_source``: its stated ``probs`` where it has them,
    else the one-hot of its label (uniform where none was read)."""
    has_probs = "probs" in raw.columns
    if has_probs:
        fast = _read_stated(raw, qids, qtypes, options)
        if fast is not None:
            return fast
    stated = raw["probs"] if has_probs else pd.Series([None] * len(raw), dtype=object)
    parsed = raw["parsed_answer"] if "parsed_answer" in raw.columns else [None] * len(raw)
    given_source = raw["prob_source"] if "prob_source" in raw.columns else [None] * len(raw)
    probs: list[tuple[float, ...]] = []
    prob_source: list[str] = []
    for row, (qid, qtype, value, label, src, elicitation) in enumerate(
        zip(qids, qtypes, stated, parsed, given_source, raw["_elicitation"], strict=True)
    ):
        k = options.get(qid, 2 if qtype == TF else N_MC_CHOICES if qtype == MC else None)
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            probs.append(_probs(row, value, k, qid))
            text = "" if src is None or pd.isna(src) else str(src)
            prob_source.append(text or DEFAULT_SOURCE[elicitation])
            continue
        if k is None:
            raise ScoresSchemaError(
                f"scores row {row} (question_id {qid}): unknown qtype {qtype!r}"
            )
        p, filled = _label_probs(label, k)
        probs.append(p)
        prob_source.append(UNIFORM_FILL if filled else LABEL_SOURCE)
    return probs, prob_source


def _checked_frame(frame: pd.DataFrame) -> None:
    """Refuse a frame the proper scores cannot read: an answer beyond its forecast's
    options, or a question scored twice in a cell and elicitation.

    Raises:
        ScoresSchemaError: naming the rows and the fix.
    """
    too_big = [o >= len(p) for o, p in zip(frame["outcome"], frame["probs"], strict=True)]
    if any(too_big):
        i = too_big.index(True)
        raise ScoresSchemaError(
            f"question {frame['question_id'][i]}: its answer is option {frame['outcome'][i]} "
            f"but its forecast has {len(frame['probs'][i])} options; the questions table and "
            "the scores disagree"
        )
    key = ["model", "cell", "elicitation", "question_id"]
    dup = frame.duplicated(key, keep=False)
    if dup.any():
        example = frame.loc[dup, key].head(3).to_dict("records")
        raise ScoresSchemaError(
            f"{int(dup.sum())} rows score the same question twice in one cell and elicitation, "
            f"e.g. {example}: remove the repeated rows, or keep one of each with "
            "-S analysis.duplicates=keep_first (or keep_last)"
        )


def _kept(frame: pd.DataFrame, settings: AnalysisSettings, dropped: dict[str, int]) -> pd.Series:
    """The rows the proper scores keep: a known outcome, a source not excluded, inside
    the period; the others counted in ``dropped``."""
    unknown = frame["outcome"] < 0
    dropped["no_outcome"] = int(unknown.sum())
    excluded = frame["source"].isin(settings.exclude_sources) & ~unknown
    dropped["excluded_source"] = int(excluded.sum())
    keep = ~unknown & ~excluded
    outside = pd.Series(False, index=frame.index)
    if settings.date_start is not None:
        outside |= frame["resolution_date"] < as_datetime64(settings.date_start)
    if settings.date_end is not None:
        outside |= frame["resolution_date"] > as_datetime64(settings.date_end)
    dropped["period"] = int((outside & keep).sum())
    out: pd.Series = keep & ~outside
    return out


def forecast_frame(
    raw_scores: pd.DataFrame,
    questions: pd.DataFrame | None,
    sources: Mapping[str, str],
    settings: AnalysisSettings,
) -> Forecasts:
    """The forecasts of a scores table (module doc), within the analysis period and
    without the excluded sources, as the accuracy tables.

    Args:
        raw_scores: the scores table.
        questions: the evaluated question table (``answer_index``, ``choices``), or None.
        sources: question_id -> source (:func:`~.sources.question_info`).
        settings: the analysis settings (duplicates, sources, period).

    Raises:
        ScoresSchemaError: an unknown elicitation, a malformed ``probs`` value, or a
            (model, cell, elicitation, question) scored twice under
            ``analysis.duplicates: error``; each names the rows and the fix.
    """
    dropped = dict.fromkeys(DROP_REASONS, 0)
    raw = _callable_rows(raw_scores, settings, dropped)
    if raw.empty:
        return Forecasts(pd.DataFrame(columns=FORECAST_COLUMNS), dropped, "probs" in raw_scores)
    cells = setting_columns(raw)
    qids = raw["question_id"].astype(str)
    qtypes = raw["qtype"].astype(str).str.lower()
    outcomes = _outcomes(questions, raw)
    probs, prob_source = _read_probs(raw, qids, qtypes, _choice_counts(questions, raw))
    frame = pd.DataFrame(
        {
            "model": raw["model"].astype(str),
            **cells,
            "elicitation": raw["_elicitation"].astype(str),
            "question_id": qids,
            "qtype": qtypes,
            "source": [sources.get(q, UNNAMED) for q in qids.tolist()],
            "resolution_date": day_column(raw["resolution_date"], "scores.resolution_date"),
            "probs": probs,
            "outcome": [outcomes.get(q, -1) for q in qids.tolist()],
            "correct": raw["correct"].fillna(False).astype(bool),
            "prob_source": prob_source,
            "refused": _flag(raw, "refused"),
            "parse_failed": _flag(raw, "parse_failed"),
        }
    )
    bad_types = sorted(set(frame["qtype"]) - set(QTYPES))
    if bad_types:
        raise ScoresSchemaError(f"unknown qtype values {bad_types}; expected {list(QTYPES)}")
    frame["month"] = dates.month_indices(frame["resolution_date"]).astype(int)
    _checked_frame(frame)
    keep = _kept(frame, settings, dropped)
    has_probs = "probs" in raw.columns
    return Forecasts(frame.loc[keep, FORECAST_COLUMNS].reset_index(drop=True), dropped, has_probs)
