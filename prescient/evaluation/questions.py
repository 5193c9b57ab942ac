"""The questions the evaluation runs on, from this project or from elsewhere.

Params section ``questions`` names one or more *sources*, each a file with its own format
and column mapping: the construction stage's parquet table (Daily Oracle), OpenForecast's
closed-form questions, or another benchmark's questions as CSV, JSON Lines or Parquet.
Each source is read and normalised on its own (stage ``questions``, one per source) and
the evaluated table is their union (stage ``retrieve``), so questions of every source are
retrieved, evaluated, scored and analysed exactly alike, and each row names its source.

The normalised table (:data:`.question_sources.SOURCE_SCHEMA`): the columns every question table shares
(:data:`prescient.question_schema.QUESTION_SCHEMA`: ``question_id``, ``qtype``, ``question``,
``choices``, ``answer_index``, ``answer``, ``resolution_date``, ``article_id``,
``category``), the other ways of naming the gold article (``gold_url``, matched against
the corpus's normalised URLs; ``gold_title`` / ``gold_text``, the article inline), the
``forecast_date`` (the day the forecast is made, when the file has one), ``mc_type``
(the leading question word of MC questions, derived when the file has none), and where
the row came from: ``source`` (the source's name), ``source_path`` and
``source_checksum`` (sha256 of the file's bytes). The evaluated table
(:data:`.question_sources.EVAL_SCHEMA`) adds ``sample_key`` (the question's key in the
seeded sample order, a function of the seed and its id alone, so adding questions never
changes an old row: a model evaluated on n questions answers the n smallest keys) and
``visibility_gap_days`` (the retrieval gap its window was computed with);
:func:`prescient.evaluation.run.model_sample` takes a model's budget from it.

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
import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io
from prescient.evaluation.question_rows import normalize_row
from prescient.evaluation.question_sources import (
    EVAL_COLUMNS,
    EVAL_SCHEMA,
    QUESTION_COLUMNS,
    SOURCE_SCHEMA,
    QuestionSource,
    QuestionTableError,
)
from prescient.evaluation.sample import first_in_sample, sample_keys
from prescient.jsonl import json_lines
from prescient.vocab import MC, TF

logger = logging.getLogger(__name__)

MAX_LISTED_ROWS = 50
_MAX_FIELD_CHARS = 1 << 24


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


def evaluated_table(
    tables: Mapping[str, pd.DataFrame], max_questions: int | None, seed: int, gap_days: int
) -> pd.DataFrame:
    """The evaluated question table: the union of the sources, sampled, with each
    question's ``sample_key`` and the retrieval gap (:data:`.question_sources.EVAL_SCHEMA`)."""
    union = combine_sources(tables)
    union["sample_key"] = sample_keys(union["question_id"], seed)
    if max_questions is not None:
        union = union.loc[first_in_sample(union, max_questions)]
    union["visibility_gap_days"] = gap_days
    return question_frame({c: union[c].tolist() for c in EVAL_COLUMNS}, EVAL_SCHEMA)
