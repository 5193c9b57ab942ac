"""The question table the evaluation runs on, from this project or from elsewhere.

Params section ``questions`` names a source: the construction stage's parquet table (the
default) or another benchmark's questions as CSV or JSON Lines, with a column mapping.
Both go through the same normalisation and the same hard validation, so imported
questions are retrieved, evaluated, scored and analysed exactly like our own.

The normalised table (:data:`QUESTION_COLUMNS`): the columns every question table shares
(:data:`prescient.qa.schema.QUESTION_SCHEMA`: ``question_id``, ``qtype``, ``question``,
``choices``, ``answer_index``, ``answer``, ``resolution_date``, ``article_id``,
``category``), then the other ways of naming the gold article (``gold_url``, matched
against the corpus's URLs; ``gold_title`` / ``gold_text``, the article inline) and
``source`` (the ``questions.name`` it came from).

Answers in an imported file may be given as the choice text, a letter (``b`` or
``(b)``), or an index (``answer_format``: ``auto`` tries text then letter; ``index`` is
0-based, ``index1`` 1-based). A TF answer is Yes/No (also True/False). Any bad row stops
the import with one error listing every offending row and the reason for each: a missing
or unreadable date (relative words such as "today" are not dates), an empty question,
fewer than 2 choices or a missing one, an answer that names no choice, an index that is
not a whole number or is out of range, a duplicate question id. Rows are named by their
line in the file (CSV and JSON Lines) and their data row (the n-th question).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import numpy as np
import pandas as pd
from pydantic import AfterValidator, Field

from prescient import dates, io
from prescient.qa.schema import QUESTION_SCHEMA as SHARED_SCHEMA
from prescient.seeds import derive_seed
from prescient.settings import Settings
from prescient.vocab import CHOICE_LETTERS, MC, TF, TF_CHOICES

logger = logging.getLogger(__name__)

QUESTION_SCHEMA: dict[str, str] = {
    **SHARED_SCHEMA,
    "gold_url": "string",
    "gold_title": "string",
    "gold_text": "string",
    "source": "string",
}
"""Column -> pandas dtype of the normalised question table."""
QUESTION_COLUMNS: tuple[str, ...] = tuple(QUESTION_SCHEMA)
MAPPING_KEYS: tuple[str, ...] = tuple(c for c in QUESTION_COLUMNS if c != "source")
"""Keys of ``questions.columns``: every normalised column but the source name."""
REQUIRED_KEYS = ("question", "resolution_date")
TEXT_KEYS = ("article_id", "gold_url", "gold_title", "gold_text", "category")
"""Optional text columns, copied as they are (missing values become null)."""
FileFormat = Literal["parquet", "csv", "jsonl"]
AnswerFormat = Literal["auto", "text", "letter", "index", "index1"]
ANSWER_FORMATS: tuple[str, ...] = get_args(AnswerFormat)
_QTYPE_ALIASES = {
    **dict.fromkeys((TF, "true/false", "binary", "yes/no"), TF),
    **dict.fromkeys((MC, "multiple choice", "multiple_choice"), MC),
}
"""How files name the question types."""
_TRUE = {"yes", "true", "y", "t"}
_FALSE = {"no", "false", "n", "f"}
MAX_LISTED_ROWS = 50
_MAX_FIELD_CHARS = 1 << 24


class QuestionTableError(ValueError):
    """The question file has bad rows or cannot be read (all bad rows are listed)."""


def _column_mapping(value: dict[str, str | None]) -> dict[str, str | None]:
    """Every mapping key is stated (a column or null), the required ones name a column."""
    missing = [k for k in MAPPING_KEYS if k not in value]
    unknown = sorted(set(value) - set(MAPPING_KEYS))
    problems = []
    if missing:
        fixes = " ".join(f"-S questions.columns.{k}=null" for k in missing)
        problems.append(f"keys {missing} are missing: map each to a column or null ({fixes})")
    if unknown:
        problems.append(f"unknown keys {unknown}; the keys are {list(MAPPING_KEYS)}")
    unmapped = [k for k in REQUIRED_KEYS if not value.get(k)]
    if unmapped:
        problems.append(f"{unmapped} must name a column of the file")
    if not value.get("answer") and not value.get("answer_index"):
        problems.append("answer or answer_index must name a column of the file")
    if problems:
        raise ValueError("; ".join(problems))
    return {k: value[k] for k in MAPPING_KEYS}


class QuestionSource(Settings):
    """Params section ``questions``.

    Attributes:
        name: what the questions are (recorded in the ``source`` column).
        format: ``parquet`` | ``csv`` | ``jsonl``.
        path: the file.
        columns: normalised field -> column of the file (null: absent).
        answer_format: how answers are written (see module docstring).
        choices_separator: for CSV, the separator of choices within one cell (a cell
            holding a JSON list also works).
        date_format: strptime format of ``resolution_date``; null accepts ISO 8601 and
            common textual forms.
        max_questions: evaluate at most this many (a seeded sample stable under
            additions: a question is in or out by a seed derived from its id); null: all.
    """

    name: Annotated[str, Field(min_length=1)]
    format: FileFormat
    path: Annotated[str, Field(min_length=1)]
    columns: Annotated[dict[str, str | None], AfterValidator(_column_mapping)]
    answer_format: AnswerFormat
    choices_separator: Annotated[str, Field(min_length=1)]
    date_format: Annotated[str, Field(min_length=1)] | None
    max_questions: Annotated[int, Field(ge=1)] | None

    @property
    def mapping(self) -> dict[str, str]:
        """Normalised field -> file column, for the fields the file has."""
        return {k: v for k, v in self.columns.items() if v}


# --- reading the file ------------------------------------------------------------------


@dataclass(frozen=True)
class RawQuestions:
    """A question file as read, before normalisation.

    Attributes:
        frame: one row per question, the file's own columns.
        lines: the file line (1-based) each row starts on; None for parquet (no lines).
    """

    frame: pd.DataFrame
    lines: list[int] | None


def _read_csv(path: Path) -> RawQuestions:
    """CSV with the file line of every record (a quoted field may span lines); blank
    lines are skipped, an empty cell is missing. A record with more fields than the
    header is an error; one with fewer has its last cells missing."""
    records: list[list[str | None]] = []
    lines: list[int] = []
    problems: list[str] = []
    start = 1
    # Inline gold articles can be long; the csv module's default cap is 128 KiB a field.
    csv.field_size_limit(max(csv.field_size_limit(), _MAX_FIELD_CHARS))
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next((row for row in reader if row), None)
            if header is None:
                raise QuestionTableError(f"{path}: the file is empty (no header line)")
            start = reader.line_num + 1
            for fields in reader:
                if fields:
                    if len(fields) > len(header):
                        problems.append(
                            f"line {start}: {len(fields)} fields, the header has {len(header)}"
                        )
                    cells = [f if f != "" else None for f in fields[: len(header)]]
                    records.append(cells + [None] * (len(header) - len(cells)))
                    lines.append(start)
                start = reader.line_num + 1
        except csv.Error as exc:
            raise QuestionTableError(f"{path}: line {start}: not valid CSV ({exc})") from None
    if len(set(header)) != len(header):
        raise QuestionTableError(f"{path}: the header names a column twice: {header}")
    _stop_on(path, problems)
    return RawQuestions(pd.DataFrame(records, columns=header, dtype=object), lines)


def _read_jsonl(path: Path) -> RawQuestions:
    """JSON Lines with the file line of every object; blank lines are skipped."""
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[str] = []
    with path.open(encoding="utf-8-sig") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
                problems.append(f"line {number}: not valid JSON ({str(exc)[:120]})")
                continue
            if not isinstance(obj, dict):
                problems.append(f"line {number}: a JSON {type(obj).__name__}, not an object")
                continue
            records.append(obj)
            lines.append(number)
    _stop_on(path, problems)
    return RawQuestions(pd.DataFrame.from_records(records), lines)


def read_source(source: QuestionSource, root: str | Path = ".") -> RawQuestions:
    """Read the raw file of a question source (no normalisation yet).

    Raises:
        QuestionTableError: the file is missing or unreadable (every unreadable line of a
            CSV or JSON Lines file is listed).
    """
    path = Path(root) / source.path
    if not path.exists():
        raise QuestionTableError(
            f"questions file {path} does not exist (questions.path; format {source.format})"
        )
    try:
        if source.format == "csv":
            return _read_csv(path)
        if source.format == "jsonl":
            return _read_jsonl(path)
        return RawQuestions(pd.read_parquet(path), None)
    except (UnicodeDecodeError, OSError, ValueError) as exc:
        if isinstance(exc, QuestionTableError):
            raise
        raise QuestionTableError(f"cannot read {path} as {source.format}: {exc}") from exc


def _stop_on(path: Path | str, problems: Sequence[str]) -> None:
    """Raise one error listing every problem (the first :data:`MAX_LISTED_ROWS`)."""
    if not problems:
        return
    shown = "\n  ".join(problems[:MAX_LISTED_ROWS])
    more = len(problems) - MAX_LISTED_ROWS
    raise QuestionTableError(
        f"{path}: {len(problems)} problem(s) in the question table:\n  {shown}"
        + (f"\n  ... and {more} more" if more > 0 else "")
    )


# --- one row ---------------------------------------------------------------------------


def _missing(value: Any) -> bool:
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


def _answer_index(
    answer: Any, choices: Sequence[str], answer_format: str, is_tf: bool
) -> tuple[int | None, str]:
    """Resolve an answer to a 0-based choice index, or (None, reason)."""
    if _missing(answer):
        return None, "no answer"
    if isinstance(answer, bool | np.bool_):
        return (0 if answer else 1, "") if is_tf else (None, f"boolean answer {answer!r} for MC")
    text = " ".join(str(answer).split())
    low = text.lower()
    if answer_format in ("index", "index1"):
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


def _resolution_date(cell: Cell, source: QuestionSource) -> tuple[dt.date | None, str]:
    raw = cell("resolution_date")
    date = dates.parse_date(raw, source.date_format)
    if date is not None:
        return date, ""
    if _missing(raw):
        return None, "missing resolution date"
    expected = (
        f"questions.date_format {source.date_format!r}"
        if source.date_format
        else "a calendar date such as YYYY-MM-DD"
    )
    return None, f"unreadable resolution date {raw!r} (expected {expected})"


def _choices_and_qtype(
    cell: Cell, source: QuestionSource, reasons: list[str]
) -> tuple[list[str], str | None]:
    """The row's choices (Yes/No when it has none) and question type; problems are
    appended to ``reasons``."""
    choices, why = _as_list(cell("choices"), source.choices_separator)
    if why:
        reasons.append(why)
    raw_qtype = cell("qtype")
    written = None if _missing(raw_qtype) else str(raw_qtype).strip().lower()
    qtype = _QTYPE_ALIASES.get(written) if written is not None else None
    if written is not None and qtype is None:
        reasons.append(f"unknown qtype {raw_qtype!r}")
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
        return list(TF_CHOICES), qtype or TF
    if qtype == TF:
        reasons.append(f"TF question with choices {choices}")
    return choices, qtype or MC


def _resolve_answer(
    cell: Cell, source: QuestionSource, choices: list[str], reasons: list[str]
) -> int | None:
    """The right choice's index, from ``answer_index`` (checked against ``answer`` when
    both are mapped) or from ``answer`` in the configured format."""
    is_tf = _is_tf(choices)
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
    cell: Cell, source: QuestionSource, question: str | None, date: dt.date | None
) -> tuple[str, str]:
    """The row's id (given, or a hash of name, question and date) and a problem."""
    if "question_id" in source.mapping:
        raw = cell("question_id")
        return ("", "missing question_id") if _missing(raw) else (str(raw).strip(), "")
    return (_stable_id(source.name, question or "", date) if date else ""), ""


def normalize_row(cell: Cell, source: QuestionSource) -> tuple[dict[str, Any], list[str]]:
    """One row in the normalised schema, and every reason it is bad (empty when good)."""
    reasons: list[str] = []
    question = _text(cell("question"))
    if question is None:
        reasons.append("empty question")
    date, why = _resolution_date(cell, source)
    reasons += [why] if why else []
    choices, qtype = _choices_and_qtype(cell, source, reasons)
    index = _resolve_answer(cell, source, choices, reasons)
    qid, why = _question_id(cell, source, question, date)
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
        "source": source.name,
    }
    return row, reasons


# --- the table -------------------------------------------------------------------------


def _row_label(i: int, lines: Sequence[int] | None, qid: str) -> str:
    """``line 4 (data row 3, question_id b3)``; ``data row 3 (...)`` for parquet."""
    where = f"line {lines[i]}" if lines is not None else f"data row {i + 1}"
    extra = [f"data row {i + 1}"] if lines is not None else []
    extra += [f"question_id {qid}"] if qid else []
    return where + (f" ({', '.join(extra)})" if extra else "")


def _rows_label(rows: Sequence[int], lines: Sequence[int] | None) -> str:
    data = ", ".join(str(i + 1) for i in rows)
    if lines is None:
        return f"data rows {data}"
    return f"lines {', '.join(str(lines[i]) for i in rows)} (data rows {data})"


def _cell(columns: Mapping[str, Sequence[Any]], i: int, key: str) -> Any:
    return columns[key][i] if key in columns else None


def _check_columns(raw: pd.DataFrame, source: QuestionSource) -> None:
    absent = sorted({c for c in source.mapping.values() if c not in raw.columns})
    if absent:
        raise QuestionTableError(
            f"{source.path}: columns {absent} named in questions.columns are not in the file "
            f"(it has {list(raw.columns)}); map each field to a column of the file, or to "
            "null when the file has none (-S questions.columns.<field>=null)"
        )


def normalize_questions(raw: pd.DataFrame | RawQuestions, source: QuestionSource) -> pd.DataFrame:
    """Validate a raw question table and return it in the normalised schema.

    Raises:
        QuestionTableError: a mapped column is missing from the file, or rows are bad;
            the message lists every bad row (its file line where the file has lines,
            its data row, its id when known) and why.
    """
    table = raw if isinstance(raw, RawQuestions) else RawQuestions(raw, None)
    _check_columns(table.frame, source)
    col = {k: table.frame[v].tolist() for k, v in source.mapping.items()}
    out: dict[str, list[Any]] = {c: [] for c in QUESTION_COLUMNS}
    problems: list[str] = []
    rows_of: dict[str, list[int]] = {}
    for i in range(len(table.frame)):
        row, reasons = normalize_row(partial(_cell, col, i), source)
        qid = row["question_id"]
        if reasons:
            problems.append(f"{_row_label(i, table.lines, qid)}: {'; '.join(reasons)}")
            continue
        rows_of.setdefault(qid, []).append(i)
        for c in QUESTION_COLUMNS:
            out[c].append(row[c])
    problems += [
        f"{_rows_label(rows, table.lines)}: duplicate question_id {qid}"
        for qid, rows in rows_of.items()
        if len(rows) > 1
    ]
    _stop_on(source.path, problems)
    return question_frame(out)


def question_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A question table with the canonical column types (also when empty)."""
    frame = io.typed_frame(QUESTION_SCHEMA, rows)
    return frame.sort_values(["resolution_date", "question_id"], kind="stable").reset_index(
        drop=True
    )


def sample_questions(questions: pd.DataFrame, max_questions: int | None, seed: int) -> pd.DataFrame:
    """At most ``max_questions`` questions, chosen by a seed derived from each id.

    A question is kept when its seed (``derive_seed(seed, "sample", question_id)``) is
    among the smallest, so adding questions never reshuffles which of the old ones are
    kept beyond displacing the largest seeds.
    """
    if max_questions is None or len(questions) <= max_questions:
        return questions
    keys = [derive_seed(seed, "sample", str(q)) for q in questions["question_id"]]
    keep = sorted(sorted(range(len(keys)), key=lambda i: (keys[i], i))[:max_questions])
    return questions.iloc[keep].reset_index(drop=True)


def load_questions(source: QuestionSource, root: str | Path = ".") -> pd.DataFrame:
    """Read and validate the configured question table."""
    table = normalize_questions(read_source(source, root), source)
    logger.info(
        "questions %r: %d (%d TF, %d MC) from %s",
        source.name,
        len(table),
        int((table["qtype"] == TF).sum()),
        int((table["qtype"] == MC).sum()),
        source.path,
    )
    return table
