"""The evaluation grid's cells: a model answers every question in each setting.

A cell's requests are built from the question table, the setting's context table and
the setting's prompt, sent through the gateway (the only way the project calls a model),
and recorded raw, as the model answered: parsing and scoring are a separate stage, so
that re-scoring never calls a model. A model's cells run one after another through one
gateway (:func:`run_model`), so a prompt two settings share is paid once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd

from prescient import io
from prescient.evaluation.prompts import ContextArticle, EvalPrompt, render_messages
from prescient.evaluation.settings import GOLD, NO_GOLD_ARTICLE, Setting
from prescient.llm.types import LLMRequest, LLMResult

logger = logging.getLogger(__name__)

PREDICTION_SCHEMA: dict[str, str] = {
    "model": "string",
    "setting": "string",
    "rag_cutoff": "string",
    "question_id": "string",
    "qtype": "string",
    "resolution_date": "date32[pyarrow]",
    "raw_response": "string",
    "error": "string",
    "template": "string",
    "template_version": "string",
    "context_article_ids": "object",
}
PREDICTION_COLUMNS: tuple[str, ...] = tuple(PREDICTION_SCHEMA)


class CompletesMany(Protocol):
    """What a cell needs from the gateway (``prescient.llm.gateway.Gateway``)."""

    def complete_many(self, requests: Sequence[LLMRequest], desc: str = "") -> list[LLMResult]: ...


@dataclass(frozen=True)
class PlannedCall:
    """The request for one question, or why none can be made."""

    question_id: str
    request: LLMRequest | None
    error: str | None = None
    context_ids: list[str] = field(default_factory=list)


def _articles_by_question(contexts: pd.DataFrame) -> dict[str, list[tuple[str, ContextArticle]]]:
    out: dict[str, list[tuple[str, ContextArticle]]] = {}
    ordered = contexts.sort_values(["question_id", "rank"], kind="stable")
    for qid, aid, date, title, text in zip(
        ordered["question_id"].astype(str),
        ordered["article_id"].tolist(),
        ordered["date"].tolist(),
        ordered["title"].tolist(),
        ordered["text"].tolist(),
        strict=True,
    ):
        article = ContextArticle(
            "" if pd.isna(title) else str(title),
            "" if pd.isna(text) else str(text),
            None if pd.isna(date) else str(date),
        )
        out.setdefault(qid, []).append(("" if pd.isna(aid) else str(aid), article))
    return out


def model_sample(questions: pd.DataFrame, max_questions: int | None) -> pd.DataFrame:
    """The questions a model with a budget answers: those whose ``sample_rank`` (their
    place in the evaluated table's seeded sample order) is at most the budget.

    Nested by construction: a smaller budget's questions are a subset of a larger one's,
    so a slow model's scores line up with the baselines' on the same questions.
    """
    if max_questions is None:
        return questions
    return questions.loc[questions["sample_rank"] <= max_questions].reset_index(drop=True)


def plan_cell(
    model: str,
    setting: Setting,
    questions: pd.DataFrame,
    contexts: pd.DataFrame,
    prompt: EvalPrompt,
    generation: Mapping[str, Any],
) -> list[PlannedCall]:
    """One planned call per question, in question-table order."""
    if prompt.kind != setting.kind:
        raise ValueError(f"prompt {prompt.name} is for {prompt.kind}, not {setting.kind}")
    by_q = _articles_by_question(contexts)
    plans = []
    for qid, question, qtype, choices in zip(
        questions["question_id"].astype(str),
        questions["question"].astype(str),
        questions["qtype"].astype(str),
        questions["choices"].tolist(),
        strict=True,
    ):
        shown = by_q.get(qid, [])
        if setting.kind == GOLD and not shown:
            plans.append(PlannedCall(qid, None, NO_GOLD_ARTICLE))
            continue
        messages = render_messages(
            prompt, question, qtype, [str(c) for c in choices], [a for _, a in shown]
        )
        request = LLMRequest(
            model=model,
            messages=messages,
            template=prompt.name,
            template_version=prompt.version,
            params=dict(generation),
            tags={"question_id": qid, "setting": setting.name},
        )
        plans.append(PlannedCall(qid, request, None, [aid for aid, _ in shown if aid]))
    return plans


def run_cell(
    gateway: CompletesMany,
    model: str,
    setting: Setting,
    questions: pd.DataFrame,
    contexts: pd.DataFrame,
    prompt: EvalPrompt,
    generation: Mapping[str, Any],
) -> pd.DataFrame:
    """Ask every question of the cell and return its predictions (raw responses).

    Failed calls are kept, with ``error`` set and no response: a failed call is not a
    wrong forecast, and the score stage reports them apart.
    """
    plans = plan_cell(model, setting, questions, contexts, prompt, generation)
    calls = [p for p in plans if p.request is not None]
    results = gateway.complete_many(
        [p.request for p in calls if p.request is not None], desc=f"{model} {setting.name}"
    )
    by_qid = {p.question_id: r for p, r in zip(calls, results, strict=True)}
    logger.info(
        "%s %s: %d questions, %d requests, %d from the ledger",
        model,
        setting.name,
        len(plans),
        len(results),
        sum(r.from_ledger for r in results),
    )
    meta = questions.set_index(questions["question_id"].astype(str))
    rows: dict[str, list[Any]] = {c: [] for c in PREDICTION_COLUMNS}
    for p in plans:
        res = by_qid.get(p.question_id)
        rows["model"].append(model)
        rows["setting"].append(setting.kind)
        rows["rag_cutoff"].append(setting.cutoff_label)
        rows["question_id"].append(p.question_id)
        rows["qtype"].append(str(meta.at[p.question_id, "qtype"]))
        rows["resolution_date"].append(meta.at[p.question_id, "resolution_date"])
        rows["raw_response"].append(res.text if res is not None and res.ok else None)
        rows["error"].append(
            p.error if res is None else (None if res.ok else (res.error or "failed"))
        )
        rows["template"].append(prompt.name)
        rows["template_version"].append(prompt.version)
        rows["context_article_ids"].append(p.context_ids)
    frame = prediction_frame(rows)
    n_err = int(frame["error"].notna().sum())
    if n_err:
        logger.warning(
            "%s %s: %d of %d questions have no answer (errors)",
            model,
            setting.name,
            n_err,
            len(frame),
        )
    return frame


def prediction_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A predictions table with the canonical column types (also when empty)."""
    return io.typed_frame(PREDICTION_SCHEMA, rows)


def run_model(
    gateway: CompletesMany,
    model: str,
    settings: Sequence[Setting],
    questions: pd.DataFrame,
    contexts: Mapping[str, pd.DataFrame],
    prompts: Mapping[str, EvalPrompt],
    generation: Mapping[str, Any],
) -> dict[str, pd.DataFrame]:
    """Every setting's cell for one model, one after another, through one gateway.

    Settings often ask the very same thing: a question resolved before a RAG cutoff sees
    the same articles, hence gets the same prompt, under ``rag_<cutoff>`` as under
    ``rag_dynamic``. Such a request has one ledger key, so the gateway answers it once
    (the later setting is served from the ledger, a failure included) while each
    setting keeps its own row for the question.

    Args:
        gateway: the model's gateway.
        model: registry name.
        settings: the grid's settings, in the order they are answered.
        contexts: setting name -> its context table.
        prompts: setting kind -> its prompt.
        questions, generation: as for :func:`run_cell`.

    Returns:
        Setting name -> the cell's predictions, in ``settings`` order.

    Raises:
        ValueError: a setting has no context table or its kind no prompt.
    """
    missing = [s.name for s in settings if s.name not in contexts]
    missing += [s.kind for s in settings if s.kind not in prompts]
    if missing:
        raise ValueError(f"no context table or prompt for {sorted(set(missing))}")
    return {
        s.name: run_cell(
            gateway, model, s, questions, contexts[s.name], prompts[s.kind], generation
        )
        for s in settings
    }
