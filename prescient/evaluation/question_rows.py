"""One row of a question source, normalised: its dates, choices, question type, answer
index and id, or the reasons it cannot be read (the rules are in :mod:`.questions`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from prescient import dates
from prescient.evaluation.question_sources import (
    INDEX_FORMATS,
    TEXT_KEYS,
    QuestionSource,
)
from prescient.vocab import CHOICE_LETTERS, MC, TF, TF_CHOICES, mc_type

_QTYPE_ALIASES = {
    **dict.fromkeys((TF, "true/false", "binary", "yes/no"), TF),
    **dict.fromkeys((MC, "multiple choice", "multiple_choice"), MC),
}
"""How files name the question types."""


_TRUE = {"yes", "true", "y", "t"}


_FALSE = {"no", "false", "n", "f"}


_BINARY_YES = {"1", "1.0", *_TRUE}


_BINARY_NO = {"0", "0.0", *_FALSE}


def _missing(value: Any) -> bool:
    if isinstance(value, list | tuple | np.ndarray):
        return False
    return dates.is_missing(value)


def _text(value: Any) -> str | None:
    """Whitespace-collapsed text, or None for a missing value."""
    return None if _missing(value) else " ".join(str(value).split())


def _as_list(value: Any, separator: str) -> tuple[list[str] | None, str | None]:
    """Choices from a list (parquet, JSONL), a JSON list string or a separated string,
    and what is wrong with them: a choice that is null or NaN is missing, not the text
    "None" or "nan"."""
    if isinstance(value, list | tuple | np.ndarray):
        items: list[Any] = list(value)
    elif _missing(value):
        return None, None
    else:
        text = str(value).strip()
        loaded = None
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except (ValueError, RecursionError):
                loaded = None
        items = loaded if isinstance(loaded, list) else text.split(separator)
    absent = [i + 1 for i, v in enumerate(items) if _missing(v) and not isinstance(v, str)]
    if absent:
        return None, f"choice(s) {absent} are null"
    return [" ".join(str(v).split()) for v in items], None


def _is_tf(choices: Sequence[str]) -> bool:
    return [c.strip().lower() for c in choices] == [c.lower() for c in TF_CHOICES]


def _whole_number(value: Any) -> tuple[int | None, str]:
    """An integer from an index cell: an int, an integral finite float, or their text.

    1.7 is not rounded, and inf, NaN or 1e400 are reasons, not crashes.
    """
    if isinstance(value, bool | np.bool_):
        return None, f"answer index {value!r} is a boolean, not a number"
    if isinstance(value, int | np.integer):
        return int(value), ""
    text = " ".join(str(value).split())
    if not isinstance(value, float | np.floating):
        try:
            return int(text), ""
        except ValueError:
            pass
    try:
        number = float(value if isinstance(value, float | np.floating) else text)
    except ValueError:
        return None, f"answer {text!r} is not an index"
    if not math.isfinite(number):
        return None, f"answer index {text} is not a finite number"
    if not number.is_integer():
        return None, f"answer index {text} is not a whole number"
    return int(number), ""


def _single(answer: Any) -> tuple[Any, str]:
    """The answer itself, unwrapped from a one-element list (``["1"]`` or ``[1]``, also
    written as JSON text); a list of any other length is a reason."""
    items: list[Any] | None = None
    if isinstance(answer, list | tuple | np.ndarray):
        items = list(answer)
    elif isinstance(answer, str) and answer.strip().startswith("["):
        try:
            loaded = json.loads(answer)
        except (ValueError, RecursionError):
            loaded = None
        items = loaded if isinstance(loaded, list) else None
    if items is None:
        return answer, ""
    if len(items) != 1:
        return None, f"answer {answer!r} lists {len(items)} values; one answer is expected"
    return items[0], ""


def _binary(answer: Any, is_tf: bool, n_choices: int) -> tuple[int | None, str]:
    """A True/False outcome: 1/true/yes is Yes (index 0), 0/false/no is No (index 1)."""
    if not is_tf:
        return (
            None,
            f"answer_format binary is for True/False questions; this one has {n_choices} choices",
        )
    if isinstance(answer, bool | np.bool_):
        return (0 if answer else 1), ""
    low = " ".join(str(answer).split()).lower()
    if low in _BINARY_YES:
        return 0, ""
    if low in _BINARY_NO:
        return 1, ""
    return None, f"answer {answer!r} is not a binary outcome (1/0, true/false, yes/no)"


def _answer_index(
    answer: Any, choices: Sequence[str], answer_format: str, is_tf: bool
) -> tuple[int | None, str]:
    """Resolve an answer to a 0-based choice index, or (None, reason)."""
    if _missing(answer):
        return None, "no answer"
    answer, why = _single(answer)
    if why:
        return None, why
    if _missing(answer):
        return None, "no answer"
    if answer_format == "binary":
        return _binary(answer, is_tf, len(choices))
    if isinstance(answer, bool | np.bool_):
        return (0 if answer else 1, "") if is_tf else (None, f"boolean answer {answer!r} for MC")
    text = " ".join(str(answer).split())
    low = text.lower()
    if answer_format in INDEX_FORMATS:
        idx, why = _whole_number(answer)
        if idx is None:
            return None, why
        idx -= 1 if answer_format == "index1" else 0
        if not 0 <= idx < len(choices):
            return None, f"answer index {text} is out of range for {len(choices)} choices"
        return idx, ""
    if answer_format in ("auto", "text"):
        matches = [i for i, c in enumerate(choices) if c.lower() == low]
        if len(matches) == 1:
            return matches[0], ""
        if is_tf and low in _TRUE | _FALSE:
            return (0 if low in _TRUE else 1), ""
        if answer_format == "text":
            return None, f"answer {text!r} is none of the choices {list(choices)}"
    letter = low.strip("()").strip(".")
    if len(letter) == 1 and letter in CHOICE_LETTERS:
        idx = CHOICE_LETTERS.index(letter)
        if idx < len(choices):
            return idx, ""
        return None, f"answer ({letter}) is out of range for {len(choices)} choices"
    return None, f"answer {text!r} names none of the choices {list(choices)}"


def _stable_id(source: str, question: str, date: dt.date) -> str:
    return hashlib.sha256(f"{source}|{question}|{date.isoformat()}".encode()).hexdigest()[:16]


Cell = Callable[[str], Any]
"""The raw value of a mapped field in the current row (None when the field is unmapped)."""


def _date(cell: Cell, key: str, what: str, source: QuestionSource) -> tuple[dt.date | None, str]:
    raw = cell(key)
    date = dates.parse_date(raw, source.date_format)
    if date is not None:
        return date, ""
    if _missing(raw):
        return None, f"missing {what}"
    expected = (
        f"date_format {source.date_format!r}"
        if source.date_format
        else "a calendar date such as YYYY-MM-DD"
    )
    return None, f"unreadable {what} {raw!r} (expected {expected})"


def _forecast_date(
    cell: Cell, source: QuestionSource, resolution: dt.date | None
) -> tuple[dt.date | None, str]:
    """The forecast date when the file has one: every row needs it, on or before the
    resolution date (a forecast made after the answer is known is no forecast)."""
    if "forecast_date" not in source.mapping:
        return None, ""
    date, why = _date(cell, "forecast_date", "forecast date", source)
    if why:
        return None, why
    if date is not None and resolution is not None and date > resolution:
        return None, f"forecast date {date} is after the resolution date {resolution}"
    return date, ""


def _choices_and_qtype(
    cell: Cell, source: QuestionSource, reasons: list[str]
) -> tuple[list[str], str | None, bool]:
    """The row's choices (Yes/No when it has none), question type and whether the
    choices are implied; problems are appended to ``reasons``."""
    choices, why = _as_list(cell("choices"), source.choices_separator)
    if why:
        reasons.append(why)
    raw_qtype = cell("qtype")
    written = None if _missing(raw_qtype) else str(raw_qtype).strip().lower()
    qtype = _QTYPE_ALIASES.get(written) if written is not None else None
    if written is not None and qtype is None:
        reasons.append(f"unknown qtype {raw_qtype!r}")
    implied = not choices
    if not choices:
        if qtype == MC:
            reasons.append("MC question without choices")
        choices = list(TF_CHOICES)
    if any(not c for c in choices):
        reasons.append("an empty choice")
    if len(choices) < 2:
        reasons.append(f"fewer than 2 choices ({len(choices)})")
    if len(choices) > len(CHOICE_LETTERS):
        reasons.append(f"more than {len(CHOICE_LETTERS)} choices")
    if len({c.lower() for c in choices}) != len(choices):
        reasons.append(f"duplicate choices {choices}")
    if _is_tf(choices):
        return list(TF_CHOICES), qtype or TF, implied
    if qtype == TF:
        reasons.append(f"TF question with choices {choices}")
    return choices, qtype or MC, implied


def _resolve_answer(
    cell: Cell, source: QuestionSource, choices: list[str], implied: bool, reasons: list[str]
) -> int | None:
    """The right choice's index, from ``answer_index`` (checked against ``answer`` when
    both are mapped) or from ``answer`` in the configured format."""
    is_tf = _is_tf(choices)
    index_format = "answer_index" in source.mapping or source.answer_format in INDEX_FORMATS
    if implied and index_format:
        reasons.append(
            f"no choices, so the choices are {list(TF_CHOICES)} and an index answer is "
            "ambiguous: give the row its choices, or use answer_format binary (1 = Yes)"
        )
        return None
    if "answer_index" not in source.mapping:
        index, why = _answer_index(cell("answer"), choices, source.answer_format, is_tf)
        reasons += [why] if why else []
        return index
    raw = cell("answer_index")
    index, why = _answer_index(raw, choices, "index", is_tf)
    if why:
        reasons.append(why)
    elif "answer" in source.mapping and not _missing(cell("answer")):
        by_text, _ = _answer_index(cell("answer"), choices, "text", is_tf)
        if by_text != index and index is not None:
            reasons.append(
                f"answer_index {raw} ({choices[index]}) disagrees with answer {cell('answer')!r}"
            )
    return index


def _question_id(
    cell: Cell, name: str, source: QuestionSource, question: str | None, date: dt.date | None
) -> tuple[str, str]:
    """The row's id (given, or a hash of name, question and date) and a problem."""
    if "question_id" in source.mapping:
        raw = cell("question_id")
        return ("", "missing question_id") if _missing(raw) else (str(raw).strip(), "")
    return (_stable_id(name, question or "", date) if date else ""), ""


def _probability(text: str) -> float | None:
    """A probability written as a number from 0 to 1 or a percentage (``"63%"``)."""
    value = text.strip()
    scale = 1.0
    if value.endswith("%"):
        value, scale = value[:-1].strip(), 100.0
    try:
        number = float(value) / scale
    except ValueError:
        return None
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def _crowd_prob(
    cell: Cell, source: QuestionSource, qtype: str | None, n: int, reasons: list[str]
) -> list[float] | None:
    """The crowd's or market's forecast over the row's answers (true/false: the file
    gives P(Yes); multiple choice: one probability per option, in the choices' order,
    divided by their sum when it is within 0.02 of 1), or None where the file has none;
    problems are appended to ``reasons``."""
    if "crowd_prob" not in source.mapping:
        return None
    raw = cell("crowd_prob")
    if _missing(raw):
        return None
    fix = "write P(Yes) as a number from 0 to 1 or a percentage"
    if qtype == MC:
        items, why = _as_list(raw, source.choices_separator)
        values = [_probability(v) for v in items or []]
        if why or len(values) != n or any(v is None for v in values):
            reasons.append(f"crowd_prob {raw!r} is not one probability (0 to 1) per choice ({n})")
            return None
        total = sum(v for v in values if v is not None)
        if abs(total - 1.0) > 0.02:
            reasons.append(f"crowd_prob {raw!r} sums to {total:.3f}, not 1")
            return None
        return [float(v) / total for v in values if v is not None]
    p = _probability(str(raw))
    if p is None:
        reasons.append(f"crowd_prob {raw!r} is not a probability: {fix}")
        return None
    return [p, 1.0 - p]


def _mc_type(cell: Cell, source: QuestionSource, qtype: str | None, question: str | None) -> Any:
    """The file's MC type, or for MC questions of files without one the leading question
    word (the rule construction uses, Daily Oracle Fig. 1a)."""
    if "mc_type" in source.mapping:
        return _text(cell("mc_type"))
    return mc_type(question) if qtype == MC and question else None


def normalize_row(
    cell: Cell, name: str, source: QuestionSource
) -> tuple[dict[str, Any], list[str]]:
    """One row in the normalised schema (without the provenance columns), and every reason
    it is bad (empty when good)."""
    reasons: list[str] = []
    question = _text(cell("question"))
    if question is None:
        reasons.append("empty question")
    date, why = _date(cell, "resolution_date", "resolution date", source)
    reasons += [why] if why else []
    forecast, why = _forecast_date(cell, source, date)
    reasons += [why] if why else []
    choices, qtype, implied = _choices_and_qtype(cell, source, reasons)
    index = _resolve_answer(cell, source, choices, implied, reasons)
    qid, why = _question_id(cell, name, source, question, date)
    reasons += [why] if why else []
    row = {
        "question_id": qid,
        "qtype": qtype,
        "question": question,
        "choices": choices,
        "answer_index": index,
        "answer": choices[index] if index is not None else None,
        "resolution_date": date,
        **{k: None if _missing(cell(k)) else str(cell(k)) for k in TEXT_KEYS},
        "forecast_date": forecast,
        "mc_type": _mc_type(cell, source, qtype, question),
        "crowd_prob": _crowd_prob(cell, source, qtype, len(choices), reasons),
        "source": name,
    }
    return row, reasons
