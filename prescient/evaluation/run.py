"""The evaluation grid's cells: a model answers every question in each setting.

A cell's requests are built from the question table, the setting's context table and
the setting's prompt, sent through the gateway (the only way the project calls a model),
and recorded raw, as the model answered: parsing and scoring are a separate stage, so
that re-scoring never calls a model. A model's cells go through one gateway
(:func:`run_model`), so a prompt two settings share is paid once; a model in batch
mode has all its cells' requests sent in one call, so its jobs go out together.

A model with a known context window (``context_tokens`` in its registry entry) has each
prompt fitted to it by :func:`prescient.llm.fit.fit_prompt` before it is sent: a prompt
that fits with the request's ``max_tokens`` is sent as rendered; one that does not has
every article cut to the same, largest number of words that fits, recorded on its
prediction row (``context_words_kept``), logged and counted per cell
(:func:`prescient.evaluation.scoring.context_fits`, in the score stage's metrics).

Every prediction row carries the ledger key of its request (``ledger_key``), so a
scored row leads to the raw response it came from even when several questions or
settings shared one prompt and hence one ledger entry (``python -m prescient trace``,
:mod:`prescient.analysis.trace`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd

from prescient.evaluation.predictions import PREDICTION_COLUMNS, prediction_frame
from prescient.evaluation.prompts import (
    EVAL_SPECS,
    ContextArticle,
    render_messages,
)
from prescient.evaluation.sample import first_in_sample
from prescient.evaluation.settings import (
    GOLD,
    LABEL,
    NO_GOLD_ARTICLE,
    TOKENS,
    Setting,
)
from prescient.llm.answer_logprobs import ANSWER_LOGPROBS
from prescient.llm.fit import CONTEXT_EXCEEDED, FITTED, ContextWindow, first_words, fit_prompt
from prescient.llm.types import LLMRequest, LLMResult
from prescient.prompts import PromptTemplate
from prescient.vocab import MC, choice_label

logger = logging.getLogger(__name__)


class CompletesMany(Protocol):
    """What a cell needs from the gateway (``prescient.llm.gateway.Gateway``)."""

    def complete_many(self, requests: Sequence[LLMRequest], desc: str = "") -> list[LLMResult]: ...


@dataclass(frozen=True)
class PlannedCall:
    """The request for one question, or why none can be made.

    Attributes:
        words_kept: the words every article of the prompt was cut to so that it fits the
            model's context window (None: sent as rendered).
    """

    question_id: str
    request: LLMRequest | None
    error: str | None = None
    context_ids: list[str] = field(default_factory=list)
    words_kept: int | None = None


def allowed_answers(qtype: str, n_choices: int) -> list[str]:
    """The replies a label prompt allows, as its wording asks for them: ``Yes``/``No``,
    or the option labels ``(a)``, ``(b)``, ...; the answers whose probabilities the
    ``token_logprobs`` elicitation asks for."""
    if qtype == MC:
        return [choice_label(i) for i in range(n_choices)]
    return ["Yes", "No"]


@dataclass(frozen=True)
class Ask:
    """One elicitation as a model's cells send it.

    Attributes:
        elicitation: ``label``, ``verbal_probability`` or ``token_logprobs``.
        prompts: setting kind -> template (``token_logprobs`` uses the label prompts).
        generation: the requests' generation parameters.
        max_tokens: the reply budget reserved in the context window.
        max_questions: asked of only the first that many of the model's questions in
            their seeded sample order (``eval.elicitation_max_questions``; None: all).
    """

    elicitation: str
    prompts: Mapping[str, PromptTemplate]
    generation: Mapping[str, Any]
    max_tokens: int = 0
    max_questions: int | None = None


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
    """The questions a model with a budget answers: the first ``max_questions`` of the
    evaluated table's seeded sample order (:func:`.sample.first_in_sample`).

    Nested by construction: a smaller budget's questions are a subset of a larger one's,
    so a slow model's scores line up with the baselines' on the same questions.
    """
    if max_questions is None:
        return questions
    return questions.loc[first_in_sample(questions, max_questions)].reset_index(drop=True)


def plan_cell(
    model: str,
    setting: Setting,
    questions: pd.DataFrame,
    contexts: pd.DataFrame,
    prompt: PromptTemplate,
    generation: Mapping[str, Any],
    window: ContextWindow | None = None,
    max_tokens: int = 0,
    elicitation: str = LABEL,
) -> list[PlannedCall]:
    """One planned call per question, in question-table order.

    Args:
        elicitation: ``token_logprobs`` asks for the log-probability of each allowed
            answer (:func:`allowed_answers`, request kind ``answer_logprobs``); the
            others ask for a reply.
        prompt: the template of the setting's kind; one that does not fit the kind
            (:data:`~prescient.evaluation.prompts.EVAL_SPECS`) raises ``TemplateError``.
        window: the model's context window (None: unknown, prompts are sent as rendered).
        max_tokens: the requests' reply budget, reserved in the window.
    """
    EVAL_SPECS[setting.kind].validate(prompt)
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
        articles = [a for _, a in shown]
        options = [str(c) for c in choices]

        def render(
            words: int | None,
            question: str = question,
            qtype: str = qtype,
            options: list[str] = options,
            articles: list[ContextArticle] = articles,
        ) -> list[dict[str, str]]:
            cut = [
                a if words is None else ContextArticle(a.title, first_words(a.text, words), a.date)
                for a in articles
            ]
            return render_messages(prompt, setting.kind, question, qtype, options, cut)

        longest = max((len(a.text.split()) for a in articles), default=0)
        fit = fit_prompt(render, longest, window, max_tokens)
        ids = [aid for aid, _ in shown if aid]
        if not fit.ok:
            plans.append(PlannedCall(qid, None, fit.error(window, max_tokens), ids))
            continue
        params = dict(generation)
        kind = "chat"
        if elicitation == TOKENS:
            params["answers"] = allowed_answers(qtype, len(options))
            kind = ANSWER_LOGPROBS
        request = LLMRequest(
            model=model,
            messages=fit.messages,
            template=prompt.name,
            template_version=prompt.version,
            params=params,
            tags={"question_id": qid, "setting": setting.name, "elicitation": elicitation},
            kind=kind,
            # the articles as the prompt shows them: the response store keeps each once
            quoted=tuple(
                " ".join((a.text if fit.words is None else first_words(a.text, fit.words)).split())
                for a in articles
            ),
        )
        plans.append(PlannedCall(qid, request, None, ids, fit.words))
    return plans


@dataclass(frozen=True)
class Cell:
    """One cell of a model's grid, planned: a setting, an elicitation and its calls."""

    setting: Setting
    prompt: PromptTemplate
    elicitation: str
    questions: pd.DataFrame
    plans: list[PlannedCall]

    @property
    def calls(self) -> list[PlannedCall]:
        """The planned calls that send a request (the others carry their reason)."""
        return [p for p in self.plans if p.request is not None]

    @property
    def requests(self) -> list[LLMRequest]:
        """The requests of :attr:`calls`, in order."""
        return [p.request for p in self.plans if p.request is not None]


def cell_frame(cell: Cell, model: str, results: Sequence[LLMResult]) -> pd.DataFrame:
    """The cell's predictions (raw responses) from the results of its calls, in order.

    Failed calls are kept, with ``error`` set and no response: a failed call is not a
    wrong forecast, and the score stage reports them apart.
    """
    calls = cell.calls
    by_qid = {p.question_id: r for p, r in zip(calls, results, strict=True)}
    setting, elicitation = cell.setting, cell.elicitation
    logger.info(
        "%s %s %s: %d questions, %d requests, %d from the ledger",
        model,
        setting.name,
        elicitation,
        len(cell.plans),
        len(results),
        sum(r.from_ledger for r in results),
    )
    frame = prediction_frame(
        _prediction_rows(
            cell.plans, by_qid, cell.questions, model, setting, cell.prompt, elicitation
        )
    )
    n_err = int(frame["error"].notna().sum())
    if n_err:
        logger.warning(
            "%s %s %s: %d of %d questions have no answer (errors)",
            model,
            setting.name,
            elicitation,
            n_err,
            len(frame),
        )
    return frame


def _log_fitting(
    plans: Sequence[PlannedCall],
    model: str,
    setting: Setting,
    window: ContextWindow | None,
    max_tokens: int,
) -> None:
    """Warn about the cell's prompts whose articles were cut to fit the context window and
    those too long to send at all, so a shortened or missing answer is never silent."""
    fitted = [p.words_kept for p in plans if p.request is not None and p.words_kept is not None]
    exceeded = sum(1 for p in plans if (p.error or "").startswith(CONTEXT_EXCEEDED))
    if fitted and window is not None:
        logger.warning(
            "%s %s: %d prompts %s: their articles cut to %d-%d words each to fit the context "
            "window (%s, max_tokens %d)",
            model,
            setting.name,
            len(fitted),
            FITTED,
            min(fitted),
            max(fitted),
            window.describe(),
            max_tokens,
        )
    if exceeded:
        logger.warning(
            "%s %s: %d prompts not sent (%s): too long even without article text",
            model,
            setting.name,
            exceeded,
            CONTEXT_EXCEEDED,
        )


def _prediction_rows(
    plans: Sequence[PlannedCall],
    by_qid: Mapping[str, LLMResult],
    questions: pd.DataFrame,
    model: str,
    setting: Setting,
    prompt: PromptTemplate,
    elicitation: str,
) -> dict[str, list[Any]]:
    """The cell's prediction columns, one row per planned call in plan order: the reply
    of a sent call, or the reason a call was not sent, so every question has its row."""
    meta = questions.set_index(questions["question_id"].astype(str))
    rows: dict[str, list[Any]] = {c: [] for c in PREDICTION_COLUMNS}
    for p in plans:
        res = by_qid.get(p.question_id)
        rows["model"].append(model)
        rows["elicitation"].append(elicitation)
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
        rows["context_words_kept"].append(p.words_kept)
        usage = res.usage if res is not None and res.ok else {}
        rows["prompt_tokens"].append(usage.get("prompt_tokens"))
        rows["completion_tokens"].append(usage.get("completion_tokens"))
        rows["cost_usd"].append(res.cost if res is not None and res.ok else None)
        rows["ledger_key"].append(res.key if res is not None else None)
        rows["served_model"].append(res.served_model if res is not None and res.ok else None)
        rows["litellm_model"].append(res.litellm_model if res is not None else None)
    return rows


def run_model(
    gateway: CompletesMany,
    model: str,
    settings: Sequence[Setting],
    questions: pd.DataFrame,
    contexts: Mapping[str, pd.DataFrame],
    asks: Sequence[Ask],
    window: ContextWindow | None = None,
    together: bool = False,
) -> dict[str, pd.DataFrame]:
    """Every setting's cells for one model, through one gateway.

    Cells are planned and sent one after another, so only one cell's prompts are in
    memory at a time; with ``together`` every cell is planned first and all their
    requests go to the gateway in one call, so that a model in batch mode has them cut
    into jobs submitted together (:mod:`prescient.llm.batch_route`) rather than one
    cell's job after another's, each waiting out the provider's window.

    Settings often ask the very same thing: a question resolved before a RAG cutoff sees
    the same articles, hence gets the same prompt, under ``rag_<cutoff>`` as under
    ``rag_dynamic``. Such a request has one ledger key, so the gateway answers it once
    (a failure included) while each setting keeps its own row for the question.

    Args:
        gateway: the model's gateway.
        model: registry name.
        settings: the grid's settings, in the order they are answered.
        contexts: setting name -> its context table.
        asks: the elicitations, each with its prompts (by setting kind), generation
            parameters and reply budget; a setting's cells are answered in this order.
        questions: the evaluated questions (each elicitation asks its sample of them).
        window: the model's context window, which every prompt is fitted to (None:
            sent as rendered).
        together: send every cell's requests in one gateway call (above).

    Returns:
        Setting name -> the predictions of its cells (one per elicitation, in ``asks``
        order), in ``settings`` order.

    Raises:
        ValueError: a setting has no context table or its kind no prompt.
    """
    missing = [s.name for s in settings if s.name not in contexts]
    missing += [
        f"{a.elicitation}: {s.kind}" for a in asks for s in settings if s.kind not in a.prompts
    ]
    if missing:
        raise ValueError(f"no context table or prompt for {sorted(set(missing))}")
    frames: dict[str, list[pd.DataFrame]] = {s.name: [] for s in settings}

    def planned() -> Iterator[Cell]:
        for s in settings:
            for a in asks:
                sample = model_sample(questions, a.max_questions)
                prompt = a.prompts[s.kind]
                plans = plan_cell(
                    model,
                    s,
                    sample,
                    contexts[s.name],
                    prompt,
                    a.generation,
                    window,
                    a.max_tokens,
                    a.elicitation,
                )
                _log_fitting(plans, model, s, window, a.max_tokens)
                yield Cell(s, prompt, a.elicitation, sample, plans)

    if together:
        cells = list(planned())
        results = gateway.complete_many([r for c in cells for r in c.requests], desc=model)
        start = 0
        for cell in cells:
            end = start + len(cell.calls)
            frames[cell.setting.name].append(cell_frame(cell, model, results[start:end]))
            start = end
    else:
        for cell in planned():
            desc = f"{model} {cell.setting.name} {cell.elicitation}"
            got = gateway.complete_many(cell.requests, desc=desc)
            frames[cell.setting.name].append(cell_frame(cell, model, got))
    return {name: pd.concat(parts, ignore_index=True) for name, parts in frames.items()}
