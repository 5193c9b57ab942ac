"""From a reported accuracy cell to the questions, prompts and raw responses behind it.

A cell is a model, a setting, an elicitation (``label`` unless named: the papers'
tables read the label answers), optionally a question type and a period of resolution
dates (a month ``YYYY-MM`` or a year ``YYYY``), as the report's tables name it. Its rows
are the scores table's rows the report counts: gold rows without a gold article made no
call and are never counted; rows whose call failed are left out too, unless the report
counted them as incorrect (``analysis.exclude_errors: false``; ``count_errors`` here).

Every scored row carries the ledger key of its request (``ledger_key``, written by the
evaluate stage): the hash of the request alone, so a prompt two questions or two
settings share is one ledger entry, asked once and served again, and the key finds it
whatever the entry's tags say. The entry used is the one the gateway serves: the first
success whose key is the hash of its own request; a row whose call failed is shown
with the last failure recorded under its key.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prescient.analysis.schema import (
    failed_calls,
    no_gold_rows,
    settings_of,
)
from prescient.evaluation.forecasts import CROWD
from prescient.evaluation.settings import (
    ELICITATIONS,
    LABEL,
    Setting,
    elicitation_of,
    parse_setting,
)
from prescient.llm.ledger import is_success, iter_lines, key_problem, readable_text
from prescient.llm.text_pool import TextPool
from prescient.vocab import QTYPES

ALL_TYPES = "all"
_PERIOD = re.compile(r"^(\d{4})(?:-(\d{2}))?$")


class TraceError(ValueError):
    """A cell that cannot be traced: a bad cell name, or a row the ledger cannot answer."""


@dataclass(frozen=True)
class Cell:
    """One report cell.

    Attributes:
        model: registry name, as in the scores table.
        setting: the evaluation setting.
        qtype: ``tf``, ``mc`` or None (all types).
        year: resolution year, or None (every date).
        month: resolution month (1-12) within ``year``, or None (the whole year).
        elicitation: how the forecasts were asked for (``label``, ``verbal_probability``,
            ``token_logprobs``).
    """

    model: str
    setting: Setting
    qtype: str | None = None
    year: int | None = None
    month: int | None = None
    elicitation: str = LABEL

    def describe(self) -> str:
        """``oracle rag_dynamic tf 2024-03`` (the parts given; an elicitation other than
        ``label`` follows the setting)."""
        parts = [self.model, self.setting.name]
        parts += [self.elicitation] if self.elicitation != LABEL else []
        parts += [self.qtype or ALL_TYPES]
        if self.year is not None:
            parts.append(f"{self.year}" if self.month is None else f"{self.year}-{self.month:02d}")
        return " ".join(parts)


def parse_cell_setting(text: str) -> Setting:
    """A setting as ``eval.settings``, the report and the metrics name it:
    ``closed_book``, ``gold``, ``rag_dynamic`` or ``rag_YYYY-MM-DD``.

    Raises:
        TraceError: anything else, with the accepted forms.
    """
    try:
        return parse_setting(str(text).strip())
    except ValueError as exc:
        raise TraceError(str(exc)) from None


def parse_qtype(text: str | None) -> str | None:
    """``tf`` or ``mc`` (any case); None, ``""`` or ``all``: every type.

    Raises:
        TraceError: another value.
    """
    if text is None or not str(text).strip():
        return None
    value = str(text).strip().lower()
    if value == ALL_TYPES:
        return None
    if value not in QTYPES:
        raise TraceError(f"unknown question type {text!r}: use {', '.join(QTYPES)} or {ALL_TYPES}")
    return value


def parse_period(text: str | None) -> tuple[int | None, int | None]:
    """``YYYY-MM`` -> (year, month); ``YYYY`` -> (year, None); None or ``""`` -> (None, None).

    Raises:
        TraceError: another value or a month outside 1-12.
    """
    if text is None or not str(text).strip():
        return None, None
    match = _PERIOD.match(str(text).strip())
    month = int(match.group(2)) if match and match.group(2) else None
    if match is None or (month is not None and not 1 <= month <= 12):
        raise TraceError(f"bad month {text!r}: use YYYY-MM (a month) or YYYY (a year)")
    return int(match.group(1)), month


def parse_cell(
    model: str,
    setting: str,
    qtype: str | None = None,
    period: str | None = None,
    elicitation: str | None = None,
) -> Cell:
    """A :class:`Cell` from the words the report uses for it."""
    if not str(model).strip():
        raise TraceError("no model given")
    how = str(elicitation or LABEL).strip()
    if how not in ELICITATIONS:
        raise TraceError(f"unknown elicitation {elicitation!r}: use {', '.join(ELICITATIONS)}")
    year, month = parse_period(period)
    return Cell(
        str(model).strip(), parse_cell_setting(setting), parse_qtype(qtype), year, month, how
    )


def cell_rows(scores: pd.DataFrame, cell: Cell, count_errors: bool = False) -> pd.DataFrame:
    """The scores rows a report cell counts, in question-id order.

    Args:
        scores: the score stage's table (``data/processed/scores.parquet``).
        count_errors: keep rows whose call failed (as incorrect), as the report does
            with ``analysis.exclude_errors: false``.

    Raises:
        TraceError: the table has no row of the cell's model and setting (naming those
            it has).
    """
    raw = scores.reset_index(drop=True)
    raw = raw.loc[elicitation_of(raw).eq(cell.elicitation).to_numpy(bool)].reset_index(drop=True)
    mine = raw.loc[raw["model"].astype(str) == cell.model]
    if mine.empty:
        models = sorted(set(raw["model"].astype(str)))
        raise TraceError(
            f"no scored rows of model {cell.model!r} ({cell.elicitation}); the table has {models}"
        )
    settings = settings_of(mine)
    mine = mine.loc[[s == cell.setting for s in settings]]
    if mine.empty:
        names = sorted({s.name for s in settings})
        raise TraceError(
            f"model {cell.model!r} has no scored rows in {cell.setting.name}; it has {names}"
        )
    keep = ~no_gold_rows(mine)
    if not count_errors:
        keep &= ~failed_calls(mine)
    if cell.qtype is not None:
        keep &= mine["qtype"].astype(str).str.lower() == cell.qtype
    if cell.year is not None:
        days = [_day(v) for v in mine["resolution_date"]]
        keep &= pd.Series(
            [d.year == cell.year and cell.month in (None, d.month) for d in days],
            index=mine.index,
        )
    out = mine.loc[keep.to_numpy(bool)]
    return out.sort_values("question_id", kind="stable").reset_index(drop=True)


def of_sources(rows: pd.DataFrame, questions: pd.DataFrame, sources: Sequence[str]) -> pd.DataFrame:
    """The rows whose question comes from one of ``sources`` (the evaluated table's
    ``source`` column), as the report's time-series cells keep Daily Oracle's own
    questions apart from OpenForecast's; no sources: every row.

    Raises:
        TraceError: a source the evaluated questions do not hold (naming those they do).
    """
    if not sources:
        return rows
    have = set(questions["source"].astype(str)) if "source" in questions.columns else set()
    unknown = sorted(set(sources) - have)
    if unknown:
        raise TraceError(
            f"no questions of source(s) {unknown}; the evaluated table has {sorted(have)}"
        )
    ids = set(
        questions.loc[questions["source"].astype(str).isin(sources), "question_id"].astype(str)
    )
    return rows.loc[rows["question_id"].astype(str).isin(ids)].reset_index(drop=True)


def _day(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return pd.Timestamp(value).date()


def ledger_answers(
    path: str | os.PathLike[str], keys: Iterable[str], pool: TextPool | None = None
) -> dict[str, dict[str, Any]]:
    """The entry each key leads to: the first success whose key checks out (what the
    gateway serves), else the last failure recorded under it. Keys the ledger does not
    hold are absent.

    Raises:
        TraceError: lines whose quoted texts ``pool`` (the response store's text pool)
            cannot give back: their prompts cannot be shown.
    """
    wanted = set(keys)
    served: dict[str, dict[str, Any]] = {}
    failed: dict[str, dict[str, Any]] = {}
    for line in iter_lines(path, pool):
        entry = line.entry
        if entry is None:
            if line.problem and line.problem.startswith("pooled texts"):
                raise TraceError(f"{path}:{line.number}: {line.problem}")
            continue
        key = str(entry["key"])
        if key not in wanted or key in served:
            continue
        if is_success(entry):
            if key_problem(entry) is None:
                served[key] = entry
        else:
            failed[key] = entry
    return {**failed, **served}


@dataclass(frozen=True)
class Traced:
    """One counted row of a cell with its question, prompt and response."""

    row: Mapping[str, Any]
    question: Mapping[str, Any]
    entry: Mapping[str, Any] | None

    def record(self) -> dict[str, Any]:
        """The row as one JSON-ready object (what ``--format jsonl`` prints)."""
        choices = [str(c) for c in _list(self.question.get("choices"))]
        gold = _index(self.question.get("answer_index"))
        parsed = _index(self.row.get("parsed_answer"))
        entry = self.entry or {}
        return {
            "model": str(self.row["model"]),
            "setting": parse_setting_of(self.row).name,
            "question_id": str(self.row["question_id"]),
            "qtype": str(self.row["qtype"]),
            "resolution_date": _day(self.row["resolution_date"]).isoformat(),
            "question": _text(self.question.get("question")),
            "choices": choices,
            "gold_answer": _choice(choices, gold),
            "parsed_answer": _choice(choices, parsed),
            "correct": bool(self.row["correct"]),
            "refused": bool(self.row.get("refused", False)),
            "elicitation": _text(self.row.get("elicitation")) or LABEL,
            "probs": [float(p) for p in _list(self.row.get("probs"))] or None,
            "prob_source": _text(self.row.get("prob_source")),
            "brier": _number(self.row.get("brier")),
            "log_score": _number(self.row.get("log_score")),
            "error": _text(self.row.get("error")),
            "ledger_key": _text(self.row.get("ledger_key")),
            "template": entry.get("template"),
            "messages": entry.get("messages"),
            "response": entry.get("response"),
            "ledger_error": entry.get("error"),
        }


def parse_setting_of(row: Mapping[str, Any]) -> Setting:
    """The setting of one scores row."""
    frame = pd.DataFrame([{"setting": row["setting"], "rag_cutoff": row.get("rag_cutoff")}])
    setting: Setting = settings_of(frame).iloc[0]
    return setting


def _list(value: Any) -> list[Any]:
    if value is None or isinstance(value, str) or not hasattr(value, "__iter__"):
        return []
    return list(value)


def _index(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _text(value: Any) -> str | None:
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def _number(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _choice(choices: Sequence[str], index: int | None) -> str | None:
    if index is None:
        return None
    letter = chr(ord("a") + index)
    return f"({letter}) {choices[index]}" if 0 <= index < len(choices) else f"({letter})"


def trace_rows(
    rows: pd.DataFrame,
    questions: pd.DataFrame,
    ledger: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    pool: TextPool | None = None,
) -> list[Traced]:
    """Each counted row with its question and its ledger entry (``pool``: where the
    ledger's quoted texts are, :func:`ledger_answers`); ``ledger``: the model's ledger,
    or its ledgers (one per partition of the evaluation), read in turn.

    Raises:
        TraceError: a row's question is not in the questions table, a row that made a
            call has no ``ledger_key`` (scores written before the column existed), the
            ledger has no entry under a row's key, or the entry's response is not the
            row's raw response (a ledger of another run); each names the rows.
    """
    by_id: dict[str, dict[str, Any]] = {
        str(q["question_id"]): {str(k): v for k, v in q.items()}
        for q in questions.to_dict("records")
    }
    records: list[dict[str, Any]] = rows.to_dict("records")  # type: ignore[assignment]
    missing_q = [str(r["question_id"]) for r in records if str(r["question_id"]) not in by_id]
    if missing_q:
        raise TraceError(
            f"{len(missing_q)} questions are not in the questions table, e.g. {missing_q[:3]}: "
            "pass the evaluated questions the scores were made from (--questions)"
        )
    # Crowd rows come from the question file (its crowd_prob column), not from a call.
    called = [
        r
        for r in records
        if (_text(r.get("error")) is None or _text(r.get("ledger_key")))
        and _text(r.get("prob_source")) != CROWD
    ]
    unkeyed = [str(r["question_id"]) for r in called if not _text(r.get("ledger_key"))]
    if unkeyed:
        raise TraceError(
            f"{len(unkeyed)} rows have no ledger_key, e.g. {unkeyed[:3]}: the predictions "
            "predate the column; re-run the evaluate and score stages (answers come from "
            "the ledger, no model is called)"
        )
    keys = {str(r["ledger_key"]) for r in called}
    paths = [ledger] if isinstance(ledger, (str, os.PathLike)) else list(ledger)
    found: dict[str, dict[str, Any]] = {}
    for path in paths:
        for key, entry in ledger_answers(path, keys, pool).items():
            if key not in found or is_success(entry):
                found[key] = entry
    named_ledgers = ", ".join(str(x) for x in paths)
    absent = [r for r in called if str(r["ledger_key"]) not in found]
    if absent:
        named = ", ".join(f"{r['question_id']} (key {r['ledger_key']})" for r in absent[:3])
        raise TraceError(
            f"{named_ledgers}: no entry for the ledger key of {len(absent)} rows: {named}; "
            "pass the model's evaluate ledger the scores were made with (--ledger)"
        )
    differ = [
        r
        for r in called
        if _text(r.get("raw_response")) is not None
        and _text(found[str(r["ledger_key"])].get("response")) is not None
        and readable_text(str(found[str(r["ledger_key"])]["response"])) != r["raw_response"]
    ]
    if differ:
        named = ", ".join(f"{r['question_id']} (key {r['ledger_key']})" for r in differ[:3])
        raise TraceError(
            f"{named_ledgers}: the entry of {len(differ)} rows holds another response than the "
            f"scores: {named}; pass the ledger of the run that wrote these scores"
        )
    return [
        Traced(
            r,
            by_id[str(r["question_id"])],
            found.get(str(r["ledger_key"])) if _text(r.get("ledger_key")) else None,
        )
        for r in records
    ]


def summary_line(cell: Cell, traced: Sequence[Traced]) -> str:
    """``oracle rag_dynamic all 2024-03: 19/35 correct (accuracy 0.5429)``."""
    n = len(traced)
    correct = sum(bool(t.row["correct"]) for t in traced)
    accuracy = f"{correct / n:.4f}" if n else "n/a"
    return f"{cell.describe()}: {correct}/{n} correct (accuracy {accuracy})"


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in (text.splitlines() or [""]))


def text_block(t: Traced) -> str:
    """One question's block for people."""
    r = t.record()
    lines = [
        f"== {r['question_id']} ({r['qtype']}, resolved {r['resolution_date']}, {r['setting']})",
        f"question:      {r['question']}",
        f"gold answer:   {r['gold_answer']}",
        f"parsed answer: {r['parsed_answer']}" + (" (refused)" if r["refused"] else ""),
        f"correct:       {'yes' if r['correct'] else 'no'}",
        f"ledger key:    {r['ledger_key']}",
    ]
    if r["probs"] is not None and (r["elicitation"] != LABEL or r["prob_source"] == CROWD):
        shown = ", ".join(f"{p:.4g}" for p in r["probs"])
        lines.append(f"forecast:      [{shown}] ({r['prob_source']}, {r['elicitation']})")
        lines.append(f"brier, log:    {r['brier']:.4g}, {r['log_score']:.4g}")
    if r["prob_source"] == CROWD:
        lines.append("source:        the question file's crowd_prob column (no model call)")
    if r["error"]:
        lines.append(f"error:         {r['error']}")
    lines.append("prompt:")
    for message in r["messages"] or []:
        lines.append(f"  [{message.get('role', '')}]")
        lines.append(_indent(str(message.get("content", ""))))
    lines.append("response:")
    response = r["response"] if r["response"] is not None else r["ledger_error"]
    lines.append(_indent("" if response is None else str(response)))
    return "\n".join(lines)
