"""Stage ``of_samples``: chains -> the six tasks' samples and the closed-form questions.

Outputs:

- the samples table (:data:`SAMPLE_SCHEMA`, every task, one row per sample with its
  ``status``: ``ok`` or why it was dropped, the reason and the raw reply), which the
  open-form prediction stage and LRAE read;
- the closed forms (MCNC, MCAC, VQA) as an evaluation question table
  (:data:`QUESTION_SCHEMA`: the format ``prescient.evaluation.questions`` imports, plus
  ``task``, ``chain_id``, ``split``), so they go through retrieve / evaluate / score like
  Daily Oracle's questions, RAG included: a question resolves on its split date T_k, so
  the visibility rule shows only articles dated before T_k minus the gap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.generation import run_steps
from prescient.benchmarks.openforecast.prompts import format_background, format_event
from prescient.benchmarks.openforecast.settings import SamplesSettings, SplitSettings
from prescient.benchmarks.openforecast.tasks import (
    CLOSED_TASKS,
    MCAC,
    MCNC,
    SPLITS,
    TASKS,
    VQA,
    Chain,
    Sample,
    draw_samples,
)
from prescient.llm.types import Complete
from prescient.prompts import PromptTemplate
from prescient.vocab import MC, TF

SAMPLE_SCHEMA: dict[str, str] = {
    "sample_id": "string",
    "task": "string",
    "chain_id": "string",
    "chain_title": "string",
    "category": "string",
    "split_date": "date32[pyarrow]",
    "split": "string",
    "chain_end": "date32[pyarrow]",
    "background": "object",
    "background_event_ids": "object",
    "targets": "object",
    "target_event_ids": "object",
    "target_dates": "object",
    "argument_type": "string",
    "question": "string",
    "answer": "string",
    "choices": "object",
    "answer_index": "Int64",
    "distractor_source": "string",
    "status": "string",
    "reason": "string",
    "raw_response": "string",
    "llm_keys": "object",
}
"""Columns of the samples table. ``background``: dated event lines (``2023-05-10:
text``), oldest first; ``targets``: the gold labels (event texts); ``question`` holds the
argument question (AQA, MCAC) or the candidate event (VQA)."""

QUESTION_SCHEMA: dict[str, str] = {
    "question_id": "string",
    "question": "string",
    "qtype": "string",
    "choices": "object",
    "answer_index": "int64",
    "answer": "string",
    "resolution_date": "date32[pyarrow]",
    "category": "string",
    "article_id": "string",
    "task": "string",
    "chain_id": "string",
    "split": "string",
    "distractor_source": "string",
    "template": "string",
}
"""Columns of the closed-form question table (question_id = the sample id; article_id:
an ingested article reporting the target event, else null)."""


def samples_frame(samples: Sequence[Sample]) -> pd.DataFrame:
    """The samples table."""
    return io.typed_records(SAMPLE_SCHEMA, (_sample_row(x) for x in samples))


def _sample_row(x: Sample) -> dict[str, Any]:
    return {
        "sample_id": x.sample_id,
        "task": x.task,
        "chain_id": x.chain.chain_id,
        "chain_title": x.chain.title,
        "category": x.chain.category,
        "split_date": x.split_date,
        "split": x.split,
        "chain_end": x.chain.end,
        "background": [format_event(e) for e in x.background],
        "background_event_ids": [e.event_id for e in x.background],
        "targets": [e.text for e in x.targets],
        "target_event_ids": [e.event_id for e in x.targets],
        "target_dates": [e.date.start.isoformat() for e in x.targets],
        "argument_type": x.argument_type,
        "question": x.question,
        "answer": x.answer,
        "choices": x.choices,
        "answer_index": x.answer_index,
        "distractor_source": x.distractor_source,
        "status": x.status,
        "reason": x.reason,
        "raw_response": x.raw,
        "llm_keys": list(x.llm_keys),
    }


def question_text(x: Sample, templates: Mapping[str, PromptTemplate]) -> str:
    """The closed form's question as the forecaster reads it: the numbered background and
    the task's question (the evaluation prompt adds the options and the answer format)."""
    values = {"background": format_background(x.background), "date": x.split_date.isoformat()}
    if x.task == MCAC:
        values["question"] = str(x.question)
    if x.task == VQA:
        values["candidate"] = str(x.question)
    return templates[f"question_{x.task}"].text(values).strip()


def questions_frame(
    samples: Sequence[Sample], templates: Mapping[str, PromptTemplate]
) -> pd.DataFrame:
    """The closed forms that were built (status ok) as an evaluation question table."""
    built = [x for x in samples if x.ok and x.task in CLOSED_TASKS]
    return io.typed_records(QUESTION_SCHEMA, (_question_row(x, templates) for x in built))


def _question_row(x: Sample, templates: Mapping[str, PromptTemplate]) -> dict[str, Any]:
    assert x.choices is not None and x.answer_index is not None
    gold = next((a for e in x.targets for a in e.source_article_ids), None)
    return {
        "question_id": x.sample_id,
        "question": question_text(x, templates),
        "qtype": TF if x.task == VQA else MC,
        "choices": list(x.choices),
        "answer_index": x.answer_index,
        "answer": x.choices[x.answer_index],
        "resolution_date": x.split_date,
        "category": x.chain.category,
        "article_id": gold,
        "task": x.task,
        "chain_id": x.chain.chain_id,
        "split": x.split,
        "distractor_source": x.distractor_source,
        "template": templates[f"question_{x.task}"].label,
    }


def samples_metrics(samples: Sequence[Sample], calls: Mapping[str, Any]) -> dict[str, Any]:
    """Counts per task: built, kept per split, dropped per reason; model calls per step."""
    per_task: dict[str, Any] = {}
    for task in TASKS:
        mine = [x for x in samples if x.task == task]
        ok = [x for x in mine if x.ok]
        per_task[task] = {
            "drawn": len(mine),
            "ok": len(ok),
            "by_split": {
                s: sum(x.split == s for x in ok) for s in SPLITS if any(x.split == s for x in ok)
            },
            "dropped": dict(sorted(Counter(x.status for x in mine if not x.ok).items())),
            "chains": len({x.chain.chain_id for x in ok}),
        }
        if task in (MCNC, MCAC, VQA):
            per_task[task]["distractor_source"] = dict(
                sorted(Counter(str(x.distractor_source) for x in ok).items())
            )
        if task == VQA:
            per_task[task]["answer_yes"] = sum(x.answer == "Yes" for x in ok)
    return {"tasks": per_task, "calls": dict(calls)}


def build_samples(
    chains: Sequence[Chain],
    templates: Mapping[str, PromptTemplate],
    s: SamplesSettings,
    split: SplitSettings,
    base_seed: int,
    complete: Complete,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Samples of every task, their model-written parts, and the closed-form questions.

    Returns:
        (samples table, closed-form question table, metrics).
    """
    samples = draw_samples(chains, s, split, base_seed)
    calls = run_steps(samples, templates, s, base_seed, complete)
    metrics = samples_metrics(samples, calls)
    metrics["chains"] = len(chains)
    return samples_frame(samples), questions_frame(samples, templates), metrics
