"""The questions the evaluation runs on, from this project or from elsewhere.

Params section ``questions`` names one or more *sources*, each a file with its own format
and column mapping: the construction stage's parquet table (Daily Oracle), OpenForecast's
closed-form questions, or another benchmark's questions as CSV, JSON Lines or Parquet.
Each source is read and normalised on its own (stage ``questions``, one per source) and
the evaluated table is their union (stage ``retrieve``), so questions of every source are
retrieved, evaluated, scored and analysed exactly alike, and each row names its source.

The normalised table (:data:`SOURCE_SCHEMA`): the columns every question table shares
(:data:`prescient.benchmarks.daily_oracle.schema.QUESTION_SCHEMA`: ``question_id``, ``qtype``, ``question``,
``choices``, ``answer_index``, ``answer``, ``resolution_date``, ``article_id``,
``category``), the other ways of naming the gold article (``gold_url``, matched against
the corpus's normalised URLs; ``gold_title`` / ``gold_text``, the article inline), the
``forecast_date`` (the day the forecast is made, when the file has one), ``mc_type``
(the leading question word of MC questions, derived when the file has none), and where
the row came from: ``source`` (the source's name), ``source_path`` and
``source_checksum`` (sha256 of the file's bytes). The evaluated table
(:data:`EVAL_SCHEMA`) adds ``sample_rank`` (the question's place in the seeded sample
order: a model evaluated on n questions answers ranks 1..n) and ``visibility_gap_days``
(the retrieval gap its window was computed with);
:func:`prescient.benchmarks.daily_oracle.evaluation.run.model_sample` takes a model's budget from it.

Answers may be given as the choice text, a letter (``b`` or ``(b)``), an index
(``answer_format``: ``auto`` tries text then letter; ``index`` is 0-based, ``index1``
1-based) or a binary outcome of a True/False question (``binary``: 1/true/yes is Yes,
0/false/no is No). A one-element list (``["1"]``, as published benchmark files often
write answers) is its element. An index into the implied True/False choices is refused
as ambiguous (TF choices are [Yes, No], so 1 would be No): such files use ``binary``.

Any bad row stops the import with one error listing every offending row and the reason
for each: a missing or unreadable date (relative words such as "today" are not dates), a
forecast date after the resolution date, an empty question, fewer than 2 choices or a
missing one, an answer that names no choice, an index that is not a whole number or is
out of range, a duplicate question id. Rows are named by their line in the file (CSV and
JSON Lines; the header is line 1 of a CSV file) and by their data row (the n-th question
of the file, counted from 1); Parquet files have data rows only.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field, model_validator

from prescient import dates, io
from prescient.benchmarks.daily_oracle.parse import mc_type
from prescient.benchmarks.daily_oracle.schema import QUESTION_SCHEMA as SHARED_SCHEMA
from prescient.jsonl import json_lines
from prescient.seeds import derive_seed
from prescient.settings import ParamsError, Settings, section, validate
from prescient.vocab import CHOICE_LETTERS, MC, TF, TF_CHOICES

logger = logging.getLogger(__name__)

SOURCE_SCHEMA: dict[str, str] = {
    **SHARED_SCHEMA,
    "gold_url": "string",
    "gold_title": "string",
    "gold_text": "string",
    "forecast_date": "date32[pyarrow]",
    "mc_type": "string",
    "source": "string",
    "source_path": "string",
    "source_checksum": "string",
}
"""Column -> pandas dtype of one source's normalised question table."""
EVAL_SCHEMA: dict[str, str] = {
    **SOURCE_SCHEMA,
    "sample_rank": "int64",
    "visibility_gap_days": "int64",
}
"""Column -> pandas dtype of the evaluated question table (stage ``retrieve``)."""
QUESTION_SCHEMA = SOURCE_SCHEMA
QUESTION_COLUMNS: tuple[str, ...] = tuple(SOURCE_SCHEMA)
EVAL_COLUMNS: tuple[str, ...] = tuple(EVAL_SCHEMA)
PROVENANCE_KEYS = ("source", "source_path", "source_checksum")
MAPPING_KEYS: tuple[str, ...] = tuple(c for c in QUESTION_COLUMNS if c not in PROVENANCE_KEYS)
"""Keys of a source's ``columns``: every normalised column but the provenance ones."""
REQUIRED_KEYS = ("question", "resolution_date")
TEXT_KEYS = ("article_id", "gold_url", "gold_title", "gold_text", "category")
"""Optional text columns, copied as they are (missing values become null)."""
FileFormat = Literal["parquet", "csv", "jsonl"]
AnswerFormat = Literal["auto", "text", "letter", "index", "index1", "binary"]
INDEX_FORMATS = ("index", "index1")
SOURCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""A source name: it names a file (data/interim/questions/<name>.parquet) and a stage."""
_QTYPE_ALIASES = {
    **dict.fromkeys((TF, "true/false", "binary", "yes/no"), TF),
    **dict.fromkeys((MC, "multiple choice", "multiple_choice"), MC),
}
"""How files name the question types."""
_TRUE = {"yes", "true", "y", "t"}
_FALSE = {"no", "false", "n", "f"}
_BINARY_YES = {"1", "1.0", *_TRUE}
_BINARY_NO = {"0", "0.0", *_FALSE}
MAX_LISTED_ROWS = 50
_MAX_FIELD_CHARS = 1 << 24


class QuestionTableError(ValueError):
    """The question file has bad rows or cannot be read (all bad rows are listed)."""


class QuestionSource(Settings):
    """One named question source: ``questions.sources.<name>``.

    Attributes:
        format: ``parquet`` | ``csv`` | ``jsonl``.
        path: the file, relative to the project root (a path outside the project works
            in the workspace; see :mod:`prescient.plumbing.locations` for experiments run in
            temporary workspaces).
        columns: normalised field -> column of the file (null: absent). Every key of
            :data:`MAPPING_KEYS` is stated.
        answer_format: how answers are written (see module docstring).
        choices_separator: for CSV, the separator of choices within one cell (a cell
            holding a JSON list also works).
        date_format: strptime format of ``resolution_date`` and ``forecast_date``; null
            accepts ISO 8601 and common textual forms.
    """

    format: FileFormat
    path: Annotated[str, Field(min_length=1)]
    columns: dict[str, str | None]
    answer_format: AnswerFormat
    choices_separator: Annotated[str, Field(min_length=1)]
    date_format: Annotated[str, Field(min_length=1)] | None

    @property
    def mapping(self) -> dict[str, str]:
        """Normalised field -> file column, for the fields the file has."""
        return {k: v for k, v in self.columns.items() if v}


def mapping_problems(name: str, source: QuestionSource) -> list[str]:
    """What is wrong with a source's column mapping and answer format, each with the
    exact ``-S`` override that fixes it (empty when it can be used)."""
    key = f"questions.sources.{name}"
    columns = source.columns
    problems = []
    missing = [k for k in MAPPING_KEYS if k not in columns]
    if missing:
        fixes = " ".join(f"-S {key}.columns.{k}=null" for k in missing)
        problems.append(
            f"{key}.columns: keys {missing} are missing: map each to a column of the file, "
            f"or to null when the file has none ({fixes})"
        )
    unknown = sorted(set(columns) - set(MAPPING_KEYS))
    if unknown:
        problems.append(f"{key}.columns: unknown keys {unknown}; the keys are {list(MAPPING_KEYS)}")
    for k in REQUIRED_KEYS:
        if not columns.get(k):
            problems.append(f"{key}.columns.{k} must name a column of the file")
    if not columns.get("answer") and not columns.get("answer_index"):
        problems.append(f"{key}.columns: answer or answer_index must name a column of the file")
    if not columns.get("choices"):
        implied = f"without {key}.columns.choices every question is True/False, choices {list(TF_CHOICES)}"
        if columns.get("answer_index"):
            problems.append(
                f"{key}.columns.answer_index: {implied}, so an index is ambiguous (is 1 Yes or "
                f"No?); for 1 = Yes, 0 = No map the column as the answer: "
                f"-S {key}.columns.answer={columns['answer_index']} "
                f"-S {key}.columns.answer_index=null -S {key}.answer_format=binary"
            )
        elif columns.get("answer") and source.answer_format in INDEX_FORMATS:
            problems.append(
                f"{key}.answer_format {source.answer_format}: {implied}, so an index answer is "
                f"ambiguous (is 1 Yes or No?); for 1 = Yes, 0 = No: -S {key}.answer_format=binary"
            )
    return problems


def _source_names(sources: Mapping[str, Any]) -> list[str]:
    return [
        f"questions.sources: source name {n!r} is not a file name (letters, digits, _ . -)"
        for n in sources
        if not SOURCE_NAME.fullmatch(str(n))
    ]


class QuestionsSettings(Settings):
    """Params section ``questions``.

    Attributes:
        sources: name -> source; the evaluated table is the union of their questions,
            each row recording its source's name.
        max_questions: evaluate at most this many questions of the union (a seeded
            sample stable under additions: a question's place in it follows from a seed
            derived from its id); null: all.
    """

    sources: Annotated[dict[str, QuestionSource], Field(min_length=1)]
    max_questions: Annotated[int, Field(ge=1)] | None

    @model_validator(mode="after")
    def _mappings(self) -> QuestionsSettings:
        problems = _source_names(self.sources)
        for name, source in self.sources.items():
            problems += mapping_problems(name, source)
        if problems:
            raise ValueError("; ".join(problems))
        return self


def load_source_settings(params: Mapping[str, Any], name: str) -> QuestionSource:
    """The settings of source ``name`` (``questions.sources.<name>``), checked.

    Raises:
        ParamsError: the source is not configured, or its mapping cannot be used (one line
            per problem, each with the override that fixes it).
    """
    sources = section(params, "questions.sources")
    if not isinstance(sources, Mapping) or name not in sources:
        known = list(sources) if isinstance(sources, Mapping) else []
        raise ParamsError(f"questions.sources.{name} is not configured (sources: {known})")
    problems = _source_names({name: None})
    source = validate(QuestionSource, sources[name], f"questions.sources.{name}")
    problems += mapping_problems(name, source)
    if problems:
        raise ParamsError("; ".join(problems))
    return source


def load_questions_settings(params: Mapping[str, Any]) -> QuestionsSettings:
    """The whole ``questions`` section.

    Raises:
        ParamsError: one line per problem.
    """
    return validate(QuestionsSettings, section(params, "questions"), "questions")


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
    for line in json_lines(path):
        if line.error is not None:
            problems.append(f"line {line.number}: not valid JSON ({line.error[:120]})")
        elif not isinstance(line.value, dict):
            kind = type(line.value).__name__
            problems.append(f"line {line.number}: a JSON {kind}, not an object")
        else:
            records.append(line.value)
            lines.append(line.number)
    _stop_on(path, problems)
    return RawQuestions(pd.DataFrame.from_records(records), lines)


def read_source(source: QuestionSource, path: str | Path) -> RawQuestions:
    """Read the raw file of a question source (no normalisation yet).

    Args:
        source: the source's settings (its format).
        path: where the file is (``source.path`` resolved by the caller).

    Raises:
        QuestionTableError: the file is missing or unreadable (every unreadable line of a
            CSV or JSON Lines file is listed).
    """
    path = Path(path)
    if not path.exists():
        raise QuestionTableError(f"questions file {path} does not exist (format {source.format})")
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
        f"{path}: {len(problems)} problem(s) in the question table (line: the file's line; "
        f"data row: the n-th question of the file):\n  {shown}"
        + (f"\n  ... and {more} more" if more > 0 else "")
    )


def file_checksum(path: str | Path) -> str:
    """sha256 of a file's bytes (what a user compares with their own copy)."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# --- one row ---------------------------------------------------------------------------


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
        "source": name,
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


def _check_columns(raw: pd.DataFrame, name: str, source: QuestionSource) -> None:
    absent = {k: c for k, c in source.mapping.items() if c not in raw.columns}
    if absent:
        fixes = " ".join(f"-S questions.sources.{name}.columns.{k}=null" for k in absent)
        raise QuestionTableError(
            f"{source.path}: columns {sorted(set(absent.values()))} named in "
            f"questions.sources.{name}.columns are not in the file (it has "
            f"{list(raw.columns)}); map each field to a column of the file, or to null "
            f"when the file has none ({fixes})"
        )


def normalize_questions(
    raw: pd.DataFrame | RawQuestions, name: str, source: QuestionSource
) -> pd.DataFrame:
    """Validate a raw question table and return it in the normalised schema.

    The provenance columns ``source_path`` and ``source_checksum`` are left null (the
    caller that read the file fills them in).

    Raises:
        QuestionTableError: a mapped column is missing from the file, or rows are bad;
            the message lists every bad row (its file line where the file has lines,
            its data row, its id when known) and why.
    """
    table = raw if isinstance(raw, RawQuestions) else RawQuestions(raw, None)
    _check_columns(table.frame, name, source)
    col = {k: table.frame[v].tolist() for k, v in source.mapping.items()}
    out: dict[str, list[Any]] = {c: [] for c in QUESTION_COLUMNS}
    problems: list[str] = []
    rows_of: dict[str, list[int]] = {}
    for i in range(len(table.frame)):
        row, reasons = normalize_row(partial(_cell, col, i), name, source)
        qid = row["question_id"]
        if reasons:
            problems.append(f"{_row_label(i, table.lines, qid)}: {'; '.join(reasons)}")
            continue
        rows_of.setdefault(qid, []).append(i)
        for c in QUESTION_COLUMNS:
            out[c].append(row.get(c))
    problems += [
        f"{_rows_label(rows, table.lines)}: duplicate question_id {qid}"
        for qid, rows in rows_of.items()
        if len(rows) > 1
    ]
    _stop_on(source.path, problems)
    return question_frame(out)


def question_frame(
    rows: Mapping[str, Sequence[Any]] | None = None, schema: Mapping[str, str] = SOURCE_SCHEMA
) -> pd.DataFrame:
    """A question table with the canonical column types (also when empty)."""
    frame = io.typed_frame(schema, rows)
    return frame.sort_values(["resolution_date", "question_id"], kind="stable").reset_index(
        drop=True
    )


def load_source(name: str, source: QuestionSource, path: str | Path) -> pd.DataFrame:
    """Read, validate and normalise one source, with its provenance columns.

    Args:
        name: the source's name (the ``source`` column, and the salt of generated ids).
        source: its settings.
        path: the file (``source.path`` resolved by the caller).
    """
    table = normalize_questions(read_source(source, path), name, source)
    table["source_path"] = pd.Series([source.path] * len(table), dtype="string")
    table["source_checksum"] = pd.Series([file_checksum(path)] * len(table), dtype="string")
    logger.info(
        "questions %r: %d (%d TF, %d MC; %d with a forecast date) from %s",
        name,
        len(table),
        int((table["qtype"] == TF).sum()),
        int((table["qtype"] == MC).sum()),
        int(table["forecast_date"].notna().sum()),
        source.path,
    )
    return table


def combine_sources(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The union of the named sources' tables (each already normalised).

    Raises:
        QuestionTableError: a question id occurs in two sources (ids must be unique in
            the evaluated table; the message names the ids and sources).
    """
    frames = [t for t in tables.values() if len(t)]
    union = (
        pd.concat([t[list(QUESTION_COLUMNS)] for t in frames], ignore_index=True)
        if frames
        else question_frame()
    )
    dup = union["question_id"].duplicated(keep=False)
    if dup.any():
        clash = union.loc[dup].groupby("question_id")["source"].agg(lambda s: sorted(set(s)))
        shown = [f"{qid} ({', '.join(srcs)})" for qid, srcs in clash.head(10).items()]
        raise QuestionTableError(
            f"{len(clash)} question ids occur in more than one source, e.g. {shown}: ids must "
            "be unique across questions.sources (map a source's question_id to null to have "
            "its ids generated from its name, question and date)"
        )
    return question_frame({c: union[c].tolist() for c in QUESTION_COLUMNS})


def sample_order(question_ids: Iterable[Any], seed: int) -> list[int]:
    """Each question's place (1 = first) in the seeded sample order.

    A question's place follows from ``derive_seed(seed, "sample", question_id)`` (ties by
    id), so adding questions never reorders the old ones among themselves: a sample of
    the first n is stable under additions beyond displacing the largest, and a sample of
    m < n questions is a subset of the sample of n.
    """
    ids = [str(q) for q in question_ids]
    keys = [derive_seed(seed, "sample", q) for q in ids]
    order = sorted(range(len(ids)), key=lambda i: (keys[i], ids[i]))
    ranks = [0] * len(ids)
    for place, i in enumerate(order, 1):
        ranks[i] = place
    return ranks


def evaluated_table(
    tables: Mapping[str, pd.DataFrame], max_questions: int | None, seed: int, gap_days: int
) -> pd.DataFrame:
    """The evaluated question table: the union of the sources, sampled, with each
    question's ``sample_rank`` and the retrieval gap (:data:`EVAL_SCHEMA`)."""
    union = combine_sources(tables)
    union["sample_rank"] = sample_order(union["question_id"], seed)
    if max_questions is not None:
        union = union.loc[union["sample_rank"] <= max_questions]
    union["visibility_gap_days"] = gap_days
    return question_frame({c: union[c].tolist() for c in EVAL_COLUMNS}, EVAL_SCHEMA)
