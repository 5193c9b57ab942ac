"""The question sources the evaluation reads: the ``questions`` params section, each
source's format and column mapping (``questions.sources.<name>``), and the columns of the
normalised and the evaluated question tables (:mod:`.questions` reads and normalises
them; :mod:`.question_rows` reads one row)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from prescient.question_schema import QUESTION_SCHEMA as SHARED_SCHEMA
from prescient.settings import ParamsError, Settings, section, validate
from prescient.vocab import TF_CHOICES

SOURCE_SCHEMA: dict[str, str] = {
    **SHARED_SCHEMA,
    "gold_url": "string",
    "gold_title": "string",
    "gold_text": "string",
    "forecast_date": "date32[pyarrow]",
    "mc_type": "string",
    "crowd_prob": "object",
    "source": "string",
    "source_path": "string",
    "source_checksum": "string",
}
"""Column -> pandas dtype of one source's normalised question table."""


EVAL_SCHEMA: dict[str, str] = {
    **SOURCE_SCHEMA,
    "sample_key": "uint64",
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
