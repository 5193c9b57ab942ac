"""Evaluation settings and the names of their files.

The grid is models x settings, where a setting is one plain string, so that the list
in ``eval.settings`` names the files of each setting (``<setting>.parquet``: its context
table, and each model's predictions under it):

- ``closed_book``: the question alone;
- ``gold``: the question and its source article (a reading-comprehension upper bound);
- ``rag_<cutoff>``: the question and the top BM25 articles visible under RAG cutoff
  ``<cutoff>``, either ``dynamic`` (no cutoff beyond the visibility rule) or a
  ``YYYY-MM-DD`` date.

Spelling the cutoff into the setting keeps one list for every stage to iterate: adding
a cutoff adds a context table and one predictions file per model.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

import pandas as pd
from pydantic import (
    AfterValidator,
    Field,
    PlainValidator,
    ValidationInfo,
    field_validator,
    model_validator,
)

from prescient.dates import DYNAMIC, format_rag_cutoff, parse_rag_cutoff
from prescient.evaluation.partitions import ALL, PartitionError, check
from prescient.llm.generation import Generation
from prescient.settings import Settings

CLOSED_BOOK = "closed_book"
RAG = "rag"
GOLD = "gold"
KINDS = (CLOSED_BOOK, RAG, GOLD)
LABEL = "label"
VERBAL = "verbal_probability"
TOKENS = "token_logprobs"
SCRATCHPAD = "scratchpad"
ELICITATIONS = (LABEL, VERBAL, TOKENS, SCRATCHPAD)
"""How a forecast is asked for: ``label`` (the papers' way: one answer, Yes/No or an
option label), ``verbal_probability`` (the model states a probability for Yes, or one
per option, in its reply), ``token_logprobs`` (the probability the model gives each
allowed answer as its reply, read from its token log-probabilities with the label
prompt) and ``scratchpad`` (the model reasons first, then states its probabilities
after a ``Final forecast:`` line, read by
:func:`prescient.evaluation.probability.final_forecast`). Every elicitation yields a
label too (the most probable answer), so accuracy is reported for each."""
NO_GOLD_ARTICLE = "no gold article for this question (article_id, gold_url or gold_text)"
"""The ``error`` of a ``gold`` row whose question has no gold article: no call was made,
so the row is counted under this reason, never as a failed call or a wrong answer."""


@dataclass(frozen=True)
class Setting:
    """One evaluation setting.

    Attributes:
        kind: ``closed_book``, ``rag`` or ``gold`` (the ``setting`` column of results).
        rag_cutoff: for ``rag``: the cutoff date, or None for ``dynamic``.
    """

    kind: str
    rag_cutoff: dt.date | None = None

    @property
    def name(self) -> str:
        """The cell's setting string: ``closed_book``, ``gold``, ``rag_dynamic``, ..."""
        return f"{RAG}_{format_rag_cutoff(self.rag_cutoff)}" if self.kind == RAG else self.kind

    @property
    def cutoff_label(self) -> str | None:
        """The ``rag_cutoff`` column value: ``dynamic``/``YYYY-MM-DD`` for rag, else None."""
        return format_rag_cutoff(self.rag_cutoff) if self.kind == RAG else None


def parse_setting(text: str) -> Setting:
    """``closed_book`` | ``gold`` | ``rag_dynamic`` | ``rag_YYYY-MM-DD`` -> Setting.

    Raises:
        ValueError: anything else, with the accepted forms.
    """
    value = str(text).strip()
    if value in (CLOSED_BOOK, GOLD):
        return Setting(value)
    if value.startswith(f"{RAG}_"):
        cutoff = value[len(RAG) + 1 :]
        try:
            return Setting(RAG, parse_rag_cutoff(cutoff))
        except ValueError:
            pass
    raise ValueError(
        f"unknown evaluation setting {text!r}: use {CLOSED_BOOK}, {GOLD}, "
        f"{RAG}_{DYNAMIC} or {RAG}_YYYY-MM-DD"
    )


def setting_file(setting: Setting) -> str:
    """``<setting>.parquet``: the setting's table in a directory holding one per setting
    (a model's predictions, ``predictions/<model>/<partition>/<setting>.parquet``)."""
    return f"{setting.name}.parquet"


def _unique_models(models: tuple[str, ...]) -> tuple[str, ...]:
    if len(set(models)) != len(models):
        raise ValueError(f"lists a model twice: {list(models)}")
    return models


def _grid_settings(values: Any) -> tuple[Setting, ...]:
    """The settings of the grid, parsed: at least one, none listed twice (it would be
    answered twice into one output file)."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError("expected a list of settings")
    parsed = [v if isinstance(v, Setting) else parse_setting(v) for v in values]
    if not parsed:
        raise ValueError(
            f"is empty: list at least one setting ({CLOSED_BOOK}, {GOLD}, {RAG}_{DYNAMIC} "
            f"or {RAG}_YYYY-MM-DD); an empty grid has nothing to answer or score"
        )
    names = [s.name for s in parsed]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"lists {dup} more than once")
    return tuple(parsed)


def _partitions(values: Any) -> tuple[str, ...]:
    try:
        return check(values)
    except PartitionError as exc:
        raise ValueError(str(exc)) from None


def elicitation_of(rows: pd.DataFrame) -> pd.Series:
    """Each prediction or scores row's elicitation: a table without the column, or a
    null in it, was written before there were others, so it is ``label``."""
    if "elicitation" not in rows.columns:
        return pd.Series(LABEL, index=rows.index, dtype="string")
    return rows["elicitation"].fillna(LABEL).astype(str)


def _elicitations(values: Any) -> tuple[str, ...]:
    """The grid's elicitations: known, each once, ``label`` among them (the papers'
    accuracy, and every paper table of the report, are read from it)."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f"expected a list of elicitations from {list(ELICITATIONS)}")
    names = [str(v) for v in values]
    unknown = [n for n in names if n not in ELICITATIONS]
    if unknown:
        raise ValueError(f"unknown elicitations {unknown}: use {list(ELICITATIONS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"lists an elicitation twice: {names}")
    if LABEL not in names:
        raise ValueError(
            f"must include {LABEL!r}: the papers' accuracy and tables are read from the "
            "label answers"
        )
    return tuple(names)


class EvalSettings(Settings):
    """Params section ``eval``.

    Attributes:
        models: registry names evaluated.
        settings: the settings of the grid (at least one).
        generation: generation parameters sent with every request, checked key by key
            (:mod:`prescient.llm.generation`: temperature, top_p, max_tokens, seed, stop,
            presence_penalty, frequency_penalty) and sent as written; they override the
            model's defaults and are part of the ledger key.
        elicitation: how forecasts are asked for (:data:`ELICITATIONS`): each is asked
            of every question in every setting, ``label`` always among them.
        elicitation_generation: elicitation -> generation parameters laid over
            ``generation`` for its requests (a stated probability needs a longer reply
            than a label).
        max_questions: model -> how many questions it answers: the first that many in
            the seeded sample order of the evaluated table (its ``sample_key``), so a
            slow model's questions are a subset of those of every model with a larger
            budget or none. Models not listed answer every question.
        elicitation_max_questions: elicitation -> how many of each model's questions it
            is asked of: the first that many in the same order, so an expensive
            elicitation (a scratchpad's long replies) covers a nested sample of what the
            others cover. Elicitations not listed are asked of every question.
        partitions: how each model's evaluation is split into stages, by the questions'
            resolution dates (:mod:`prescient.evaluation.partitions`): ``all`` (one stage
            per model) or years / months, so that a new day re-runs only its partition.
        reuse_scores: whether ``score`` keeps each model's partition's scored columns
            for its next run (:mod:`prescient.evaluation.kept_scores`; the same table
            either way).
    """

    models: Annotated[
        tuple[Annotated[str, Field(min_length=1)], ...], AfterValidator(_unique_models)
    ]
    settings: Annotated[tuple[Setting, ...], PlainValidator(_grid_settings)]
    generation: Generation
    elicitation: Annotated[tuple[str, ...], PlainValidator(_elicitations)] = (LABEL,)
    elicitation_generation: dict[str, Generation] = {}
    max_questions: dict[str, Annotated[int, Field(ge=1)]]
    elicitation_max_questions: dict[str, Annotated[int, Field(ge=1)]] = {}
    partitions: Annotated[tuple[str, ...], PlainValidator(_partitions)] = (ALL,)
    reuse_scores: bool = True

    @field_validator("max_questions")
    @classmethod
    def _budgets_name_evaluated_models(
        cls, value: dict[str, int], info: ValidationInfo
    ) -> dict[str, int]:
        models = list(info.data.get("models") or ())
        unknown = sorted(set(value) - set(models))
        if unknown:
            raise ValueError(
                f"names models {unknown} that are not in eval.models {models}: remove them "
                "or add the models"
            )
        return value

    @model_validator(mode="after")
    def _budgets_need_one_partition(self) -> EvalSettings:
        budgets = [f"max_questions {dict(self.max_questions)}"] if self.max_questions else []
        asked = {e: n for e, n in self.elicitation_max_questions.items() if e in self.elicitation}
        if asked:
            budgets.append(f"elicitation_max_questions {asked}")
        if budgets and len(self.partitions) > 1:
            raise ValueError(
                f"{' and '.join(budgets)} draw a sample from the whole question table, "
                f"which a partitioned evaluation ({list(self.partitions)}) never reads: "
                f"use partitions [{ALL}], or drop the budget"
            )
        return self

    @field_validator("elicitation_generation", "elicitation_max_questions")
    @classmethod
    def _known_elicitations(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - set(ELICITATIONS))
        if unknown:
            raise ValueError(f"names unknown elicitations {unknown}: use {list(ELICITATIONS)}")
        return value

    def generation_for(self, elicitation: str) -> dict[str, Any]:
        """The generation parameters of an elicitation's requests, as sent (keys of
        ``elicitation_generation`` override those of ``generation``)."""
        return {**self.generation, **self.elicitation_generation.get(elicitation, {})}

    @property
    def rag_cutoffs(self) -> list[dt.date | None]:
        """The RAG cutoffs of the grid, in settings order."""
        return [s.rag_cutoff for s in self.settings if s.kind == RAG]
