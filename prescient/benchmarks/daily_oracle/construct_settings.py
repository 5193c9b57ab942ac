"""Question construction's settings and table layouts (Daily Oracle, ICML 2025, section
3.1): the ``construct`` params section, the slots of an article's four questions, and the
columns of the questions and candidates tables (:mod:`.construct` builds them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from prescient.benchmarks.daily_oracle import leakage
from prescient.llm.generation import Generation
from prescient.question_schema import QUESTION_FIELDS
from prescient.settings import Day, Settings, WindowEnd
from prescient.step_templates import STEPS
from prescient.vocab import (
    MAX_TOTAL,
    N_MC_CHOICES,
    PRINCIPLES,
    TF_CHOICES,
)

TF_SLOTS = (1, 2)


MC_SLOTS = (3, 4)


TF_EXPECTED = {1: TF_CHOICES[0], 2: TF_CHOICES[1]}
"""The paper's design: the first TF question is answered Yes, the second No."""


N_DISTRACTORS = N_MC_CHOICES - 1


ANSWER_POOL = "answer_pool"
"""The distractor fallback that fills missing options from other questions' answers."""


PROVENANCE_COLUMNS: tuple[str, ...] = tuple(
    f"{step}_{what}" for step in STEPS for what in ("model", "template")
)


QUESTION_COLUMNS: tuple[str, ...] = (
    *QUESTION_FIELDS,
    "selection",
    "slot",
    "mc_type",
    "distractor_source",
    *PRINCIPLES,
    "filter_total",
    "leakage_flags",
    "leakage_flagged",
    *PROVENANCE_COLUMNS,
)
"""Columns of questions.parquet, one row per accepted question: the columns every
question table shares, then construction's own."""


CANDIDATE_COLUMNS: tuple[str, ...] = (
    "kind",
    "article_id",
    "resolution_date",
    "selection",
    "question_id",
    "slot",
    "qtype",
    "question",
    "answer",
    "choices",
    "answer_index",
    "status",
    "step",
    "reason",
    "summary",
    "keypoint",
    *PRINCIPLES,
    "filter_total",
    "category",
    "mc_type",
    "distractor_source",
    *leakage.AUDIT_COLUMNS,
    "raw_response",
    *PROVENANCE_COLUMNS,
)
"""Columns of qa_candidates.parquet: every article and every generated question."""


def _every_step(value: dict[str, Any]) -> dict[str, Any]:
    """A per-step mapping names each construction step exactly once, and nothing else."""
    absent = [s for s in STEPS if value.get(s) in (None, "")]
    unknown = sorted(set(value) - set(STEPS))
    if absent or unknown:
        parts = [f"no value for steps {absent}"] if absent else []
        parts += [f"unknown steps {unknown}"] if unknown else []
        raise ValueError(f"{' and '.join(parts)}; the steps are {', '.join(STEPS)}")
    return {s: value[s] for s in STEPS}


class ConstructSettings(Settings):
    """Parameters of stage ``construct`` (params section ``construct``; conf/construct/default.yaml).

    Attributes:
        templates: step -> template file stem in the prompt directory.
        models: step -> model registry name (``params["models"]`` key).
        generation: step -> generation parameters for that step's requests (max_tokens, ...),
            overriding the model's defaults; part of the ledger key.
        accept_threshold: minimum filter total (paper: 13 of 14).
        require_question_mark: reject questions without "?" before filtering (as the
            paper's code does).
        article_max_chars: cut article texts to this many characters in prompts (None:
            whole articles, as in the paper).
        date_start, date_end: inclusive range of selected days to construct from.
        articles_per_month: at most this many selected articles of each month (None:
            all); see :func:`.construct._monthly_budget`.
        leakage: the leakage audit's settings.
        distractor_fallback: None (the paper: a reply with fewer than three usable wrong
            options is a parse error) or ``answer_pool``: fill the missing options with
            answers of other open questions of the same or earlier days (same MC type
            first, seeded order), recorded per question in ``distractor_source``.
    """

    templates: Annotated[dict[str, str], AfterValidator(_every_step)]
    models: Annotated[dict[str, str], AfterValidator(_every_step)]
    generation: Annotated[dict[str, Generation], AfterValidator(_every_step)]
    accept_threshold: Annotated[int, Field(ge=0, le=MAX_TOTAL)]
    require_question_mark: bool
    article_max_chars: Annotated[int, Field(ge=1)] | None
    date_start: Day | None
    date_end: WindowEnd
    articles_per_month: Annotated[int, Field(ge=1)] | None
    leakage: leakage.LeakageSettings
    distractor_fallback: Literal["answer_pool"] | None
