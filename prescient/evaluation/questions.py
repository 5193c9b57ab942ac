"""The question table the evaluation runs on, from this project or from elsewhere.

Params section ``questions`` names a source: the construction stage's parquet table (the
default) or another benchmark's questions as CSV or JSON Lines, with a column mapping.
Both go through the same normalisation and the same hard validation, so imported
questions are retrieved, evaluated, scored and analysed exactly like our own.

The normalised table (:data:`QUESTION_COLUMNS`):

- ``question_id`` (str, unique), ``qtype`` (``tf`` | ``mc``), ``question``,
  ``choices`` (list of str; ``["Yes", "No"]`` for TF), ``answer_index`` (0-based int),
  ``answer`` (the text of the right choice), ``resolution_date`` (date);
- the gold article, any of: ``article_id`` (an ingested article), ``gold_url`` (matched
  against the corpus's URLs), ``gold_title`` / ``gold_text`` (the article inline);
- ``category`` (nullable) and ``source`` (the ``questions.name`` it came from).

Answers in an imported file may be given as the choice text, a letter (``b`` or
``(b)``), or an index (``answer_format``: ``auto`` tries text then letter; ``index`` is
0-based, ``index1`` 1-based). A TF answer is Yes/No (also True/False). Any bad row stops
the import with a list of the offending rows and the reason for each: a missing or
unparseable date, an empty question, fewer than 2 choices, an answer that names no
choice or an index out of range, a duplicate question id.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

QUESTION_COLUMNS = (
    "question_id",
    "qtype",
    "question",
    "choices",
    "answer_index",
    "answer",
    "resolution_date",
    "article_id",
    "gold_url",
    "gold_title",
    "gold_text",
    "category",
    "source",
)
TF_CHOICES = ("Yes", "No")
LETTERS = string.ascii_lowercase
# Mapping keys of ``questions.columns`` (every normalised column but the source name);
# the required ones must name a column.
MAPPING_KEYS = tuple(c for c in QUESTION_COLUMNS if c != "source")
REQUIRED_KEYS = ("question", "resolution_date")
ANSWER_FORMATS = ("auto", "text", "letter", "index", "index1")
_TRUE = {"yes", "true", "y", "t"}
_FALSE = {"no", "false", "n", "f"}
MAX_LISTED_ROWS = 50


class QuestionTableError(ValueError):
    """The question source is misconfigured or has bad rows (all of them are listed)."""


@dataclass(frozen=True)
class QuestionSource:
    """Params section ``questions``.

    Attributes:
        name: what the questions are (recorded in the ``source`` column).
        format: ``parquet`` | ``csv`` | ``jsonl``.
        path: the file.
        columns: normalised field -> column of the file (null: absent).
        answer_format: how answers are written (see module docstring).
        choices_separator: for CSV, the separator of choices within one cell (a cell
            holding a JSON list also works).
        date_format: strptime format of ``resolution_date``; null accepts ISO 8601.
        max_questions: evaluate at most this many (a seeded sample stable under
            additions: a question is in or out by a hash of its id); null: all.
    """

    name: str = "daily_oracle"
    format: str = "parquet"
    path: str = "data/processed/questions.parquet"
    columns: Mapping[str, str | None] = field(default_factory=dict)
    answer_format: str = "auto"
    choices_separator: str = "|"
    date_format: str | None = None
    max_questions: int | None = None

    @classmethod
    def from_params(cls, d: Mapping[str, Any]) -> QuestionSource:
        cols = dict(d.get("columns") or {})
        unknown = sorted(set(cols) - set(MAPPING_KEYS))
        if unknown:
            raise QuestionTableError(
                f"questions.columns has unknown keys {unknown}; known: {list(MAPPING_KEYS)}"
            )
        fmt = str(d.get("format", "parquet")).lower()
        if fmt not in ("parquet", "csv", "jsonl"):
            raise QuestionTableError(f"questions.format {fmt!r}: use parquet, csv or jsonl")
        answer_format = str(d.get("answer_format", "auto")).lower()
        if answer_format not in ANSWER_FORMATS:
            raise QuestionTableError(
                f"questions.answer_format {answer_format!r}: use one of {list(ANSWER_FORMATS)}"
            )
        mq = d.get("max_questions")
        return cls(
            name=str(d.get("name") or "questions"),
            format=fmt,
            path=str(d.get("path")),
            columns={k: (None if v is None else str(v)) for k, v in cols.items()},
            answer_format=answer_format,
            choices_separator=str(d.get("choices_separator") or "|"),
            date_format=d.get("date_format"),
            max_questions=None if mq is None else int(mq),
        )


def read_source(source: QuestionSource, root: str | Path = ".") -> pd.DataFrame:
    """Read the raw file of a question source (no normalisation yet).

    Raises:
        QuestionTableError: the file is missing or unreadable.
    """
    path = Path(root) / source.path
    if not path.exists():
        raise QuestionTableError(
            f"questions file {path} does not exist (questions.path; format {source.format})"
        )
    try:
        if source.format == "parquet":
            return pd.read_parquet(path)
        if source.format == "csv":
            return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
        return pd.read_json(path, lines=True, dtype=False)
    except (ValueError, OSError) as exc:
        raise QuestionTableError(f"cannot read {path} as {source.format}: {exc}") from exc


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and np.isnan(value):
        return True
    if value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, str) and not value.strip()


def _as_list(value: Any, separator: str) -> list[str] | None:
    """Choices from a list (parquet, JSONL), a JSON list string or a separated string."""
    if isinstance(value, (list, tuple, np.ndarray)):
        items = [str(v) for v in value]
    elif _missing(value):
        return None
    else:
        text = str(value).strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except json.JSONDecodeError:
                loaded = None
            if isinstance(loaded, list):
                return [" ".join(str(v).split()) for v in loaded]
        items = text.split(separator)
    return [" ".join(s.split()) for s in items]


def _parse_date(value: Any, date_format: str | None) -> dt.date | None:
    if _missing(value):
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        ts = pd.to_datetime(str(value).strip(), format=date_format)
    except (ValueError, TypeError):
        return None
    return None if pd.isna(ts) else ts.date()


def _is_tf(choices: Sequence[str]) -> bool:
    return [c.strip().lower() for c in choices] == ["yes", "no"]


def _answer_index(
    answer: Any, choices: Sequence[str], answer_format: str, is_tf: bool
) -> tuple[int | None, str]:
    """Resolve an answer to a 0-based choice index, or (None, reason)."""
    if _missing(answer):
        return None, "no answer"
    if isinstance(answer, (bool, np.bool_)):
        return (0 if answer else 1, "") if is_tf else (None, f"boolean answer {answer!r} for MC")
    text = " ".join(str(answer).split())
    low = text.lower()
    if answer_format in ("index", "index1"):
        try:
            idx = int(float(text)) - (1 if answer_format == "index1" else 0)
        except ValueError:
            return None, f"answer {text!r} is not an index"
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
    if len(letter) == 1 and letter in LETTERS:
        idx = LETTERS.index(letter)
        if idx < len(choices):
            return idx, ""
        return None, f"answer ({letter}) is out of range for {len(choices)} choices"
    return None, f"answer {text!r} names none of the choices {list(choices)}"


def _stable_id(source: str, question: str, date: dt.date) -> str:
    return hashlib.sha256(f"{source}|{question}|{date.isoformat()}".encode()).hexdigest()[:16]


def normalize_questions(raw: pd.DataFrame, source: QuestionSource) -> pd.DataFrame:
    """Validate a raw question table and return it in the normalised schema.

    Raises:
        QuestionTableError: a mapped column is missing from the file, or rows are bad;
            the message lists every bad row (its 1-based row number in the file, its id
            when known, and why).
    """
    mapping = {k: v for k, v in source.columns.items() if v}
    for key in REQUIRED_KEYS:
        if key not in mapping:
            raise QuestionTableError(f"questions.columns.{key} must name a column")
    if "answer" not in mapping and "answer_index" not in mapping:
        raise QuestionTableError("questions.columns must map answer or answer_index")
    absent = sorted({c for c in mapping.values() if c not in raw.columns})
    if absent:
        raise QuestionTableError(
            f"{source.path}: columns {absent} named in questions.columns are not in the file "
            f"(it has {list(raw.columns)})"
        )
    col = {k: raw[v].tolist() for k, v in mapping.items()}
    n = len(raw)

    def get(key: str, i: int) -> Any:
        return col[key][i] if key in col else None

    out: dict[str, list[Any]] = {c: [] for c in QUESTION_COLUMNS}
    problems: list[str] = []
    rows_of: dict[str, list[int]] = {}
    for i in range(n):
        reasons: list[str] = []
        question = get("question", i)
        question = None if _missing(question) else " ".join(str(question).split())
        if question is None:
            reasons.append("empty question")
        date = _parse_date(get("resolution_date", i), source.date_format)
        if date is None:
            raw_date = get("resolution_date", i)
            reasons.append(
                "missing resolution date"
                if _missing(raw_date)
                else f"unparseable resolution date {raw_date!r}"
            )
        choices = (
            _as_list(get("choices", i), source.choices_separator) if "choices" in col else None
        )
        qtype_raw = get("qtype", i)
        qtype = None if _missing(qtype_raw) else str(qtype_raw).strip().lower()
        if qtype in ("true/false", "tf", "binary", "yes/no"):
            qtype = "tf"
        elif qtype in ("mc", "multiple choice", "multiple_choice"):
            qtype = "mc"
        elif qtype is not None:
            reasons.append(f"unknown qtype {qtype_raw!r}")
        if not choices:
            if qtype == "mc":
                reasons.append("MC question without choices")
            choices = list(TF_CHOICES)
        if choices and any(not c for c in choices):
            reasons.append("an empty choice")
        if len(choices) < 2:
            reasons.append(f"fewer than 2 choices ({len(choices)})")
        if len(choices) > len(LETTERS):
            reasons.append(f"more than {len(LETTERS)} choices")
        if len({c.lower() for c in choices}) != len(choices):
            reasons.append(f"duplicate choices {choices}")
        is_tf = _is_tf(choices)
        if is_tf:
            choices = list(TF_CHOICES)
        if qtype is None:
            qtype = "tf" if is_tf else "mc"
        elif qtype == "tf" and not is_tf:
            reasons.append(f"TF question with choices {choices}")
        index: int | None = None
        if "answer_index" in col:
            ai = get("answer_index", i)
            index, why = _answer_index(ai, choices, "index", is_tf)
            if why:
                reasons.append(why)
            elif "answer" in col and not _missing(get("answer", i)):
                by_text, _ = _answer_index(get("answer", i), choices, "text", is_tf)
                if by_text != index:
                    reasons.append(
                        f"answer_index {ai} ({choices[index] if index is not None else '?'}) "
                        f"disagrees with answer {get('answer', i)!r}"
                    )
        else:
            index, why = _answer_index(get("answer", i), choices, source.answer_format, is_tf)
            if why:
                reasons.append(why)
        qid_raw = get("question_id", i)
        if "question_id" in col and _missing(qid_raw):
            reasons.append("missing question_id")
        qid = (
            str(qid_raw).strip()
            if "question_id" in col and not _missing(qid_raw)
            else (_stable_id(source.name, question or "", date) if date else "")
        )
        if reasons:
            label = f"row {i + 1}" + (f" (question_id {qid})" if qid else "")
            problems.append(f"{label}: {'; '.join(reasons)}")
            continue
        assert index is not None and date is not None and question is not None
        rows_of.setdefault(qid, []).append(i + 1)
        out["question_id"].append(qid)
        out["qtype"].append(qtype)
        out["question"].append(question)
        out["choices"].append(choices)
        out["answer_index"].append(index)
        out["answer"].append(choices[index])
        out["resolution_date"].append(date)
        for key in ("article_id", "gold_url", "gold_title", "gold_text", "category"):
            v = get(key, i)
            out[key].append(None if _missing(v) else str(v))
        out["source"].append(source.name)
    for qid, rows in rows_of.items():
        if len(rows) > 1:
            problems.append(f"rows {', '.join(map(str, rows))}: duplicate question_id {qid}")
    if problems:
        shown = "\n  ".join(problems[:MAX_LISTED_ROWS])
        more = len(problems) - MAX_LISTED_ROWS
        raise QuestionTableError(
            f"{source.path}: {len(problems)} problem(s) in the question table:\n  {shown}"
            + (f"\n  ... and {more} more" if more > 0 else "")
        )
    return question_frame(out)


def question_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A question table with the canonical column types (also when empty)."""
    rows = rows or {c: [] for c in QUESTION_COLUMNS}
    frame = pd.DataFrame(
        {
            "question_id": pd.Series(rows["question_id"], dtype="string"),
            "qtype": pd.Series(rows["qtype"], dtype="string"),
            "question": pd.Series(rows["question"], dtype="string"),
            "choices": pd.Series(list(rows["choices"]), dtype="object"),
            "answer_index": pd.Series(rows["answer_index"], dtype="int64"),
            "answer": pd.Series(rows["answer"], dtype="string"),
            "resolution_date": pd.Series(rows["resolution_date"], dtype="date32[pyarrow]"),
            **{
                c: pd.Series(rows[c], dtype="string")
                for c in ("article_id", "gold_url", "gold_title", "gold_text", "category")
            },
            "source": pd.Series(rows["source"], dtype="string"),
        },
        columns=list(QUESTION_COLUMNS),
    )
    return frame.sort_values(["resolution_date", "question_id"], kind="stable").reset_index(
        drop=True
    )


def sample_questions(questions: pd.DataFrame, max_questions: int | None, seed: int) -> pd.DataFrame:
    """At most ``max_questions`` questions, chosen by a seeded hash of each id.

    A question is kept when its hash is among the smallest, so adding questions never
    reshuffles which of the old ones are kept beyond displacing the largest hashes.
    """
    if max_questions is None or len(questions) <= max_questions:
        return questions
    keys = [hashlib.sha256(f"{seed}:{q}".encode()).hexdigest() for q in questions["question_id"]]
    keep = np.argsort(np.array(keys), kind="stable")[:max_questions]
    return questions.iloc[np.sort(keep)].reset_index(drop=True)


def load_questions(source: QuestionSource, root: str | Path = ".") -> pd.DataFrame:
    """Read and validate the configured question table."""
    table = normalize_questions(read_source(source, root), source)
    logger.info(
        "questions %r: %d (%d TF, %d MC) from %s",
        source.name,
        len(table),
        int((table["qtype"] == "tf").sum()),
        int((table["qtype"] == "mc").sum()),
        source.path,
    )
    return table
