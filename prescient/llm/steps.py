"""Model requests from prompt templates, and the multi-step builders' batches.

Question construction (Daily Oracle, ICML 2025, section 3.1) and OpenForecast's samples
(COLING 2025, section 4.3) both build their records in named steps, each with its own
template, model and generation parameters. Each step's requests go to the gateway as
one batch (hosted models get concurrency, the local model keeps shared prompt prefixes
cached), and the requests, ledger answers and failed calls of every step are counted for
the stage's metrics. Every request built from a template, in these builders or in a
single-template stage, carries the template's name and version (:func:`template_request`).
An article's placeholders (:func:`article_values`) are the same for every template that
reads an article, so the same article makes the same request wherever it is sent.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from prescient.llm.types import Complete, LLMRequest, LLMResult, count_calls
from prescient.prompts import PromptTemplate
from prescient.step_templates import render_slot

logger = logging.getLogger(__name__)


def template_request(
    template: PromptTemplate,
    model: str,
    values: Mapping[str, Any],
    params: Mapping[str, Any] | None,
    tags: Mapping[str, Any],
    slot: int | None = None,
) -> LLMRequest:
    """The request of ``template`` filled with ``values``, carrying the template's name
    and version so every ledger entry names the prompt that made it.

    Args:
        template: the prompt template.
        model: registry name of the model asked.
        values: placeholder values.
        params: generation parameters (part of the ledger key; None: none).
        tags: the caller's identifiers, stored with the entry (never keyed).
        slot: the question slot of a template with ``slots``
            (:func:`~prescient.step_templates.render_slot`); None: the
            template's one prompt.
    """
    return LLMRequest(
        model=model,
        messages=(template.render(values) if slot is None else render_slot(template, values, slot)),
        template=template.name,
        template_version=template.version,
        params=dict(params or {}),
        tags=dict(tags),
    )


class StepBatches:
    """Builds and sends the requests of named steps.

    Args:
        templates: step -> prompt template.
        models: step -> model registry name.
        gen: step -> generation parameters (absent or None: the model's defaults).
        complete: the batch completion function (``Gateway.complete_many``).
        stage: the stage's name; a batch's progress label is ``<stage>:<step>``.
        steps: every step, in order (each gets its accounting, used or not).

    Attributes:
        calls: step -> ``requests``, ``failed``
            (:func:`prescient.llm.types.count_calls`).
    """

    def __init__(
        self,
        templates: Mapping[str, PromptTemplate],
        models: Mapping[str, str],
        gen: Mapping[str, Mapping[str, Any] | None],
        complete: Complete,
        stage: str,
        steps: Iterable[str],
    ) -> None:
        self.t = templates
        self.models = models
        self.gen = gen
        self.complete = complete
        self.stage = stage
        self.calls: dict[str, Counter[str]] = {step: Counter() for step in steps}

    def request(
        self,
        step: str,
        values: Mapping[str, Any],
        tags: Mapping[str, Any],
        slot: int | None = None,
    ) -> LLMRequest:
        """The request of ``step`` for one record, tagged with the step."""
        return template_request(
            self.t[step],
            self.models[step],
            values,
            self.gen.get(step),
            {"step": step, **tags},
            slot,
        )

    def run(self, step: str, requests: Sequence[LLMRequest]) -> list[LLMResult]:
        """Send one step's requests as one batch; results in request order."""
        if not requests:
            return []
        logger.info(
            "%s step %s: %d requests to %s", self.stage, step, len(requests), self.models[step]
        )
        results = self.complete(requests, f"{self.stage}:{step}")
        count_calls(self.calls[step], results)
        return results


# --- prompt values --------------------------------------------------------------------


def date_values(day: dt.date) -> dict[str, str]:
    """Date placeholders: ``date`` (ISO), ``date_long`` (ISO + weekday), ``month_year``."""
    return {
        "date": day.isoformat(),
        "date_long": f"{day.isoformat()}, {day.strftime('%A')}",
        "month_year": day.strftime("%B %Y"),
    }


def article_values(title: str, text: str, day: dt.date, max_chars: int | None) -> dict[str, str]:
    """An article's placeholders (``title``, ``text`` cut to ``max_chars``, the dates);
    also what the chains stage sends for a key point, so both make the same request."""
    if max_chars and len(text) > max_chars:
        text = text[:max_chars].rstrip() + " [...]"
    return {"title": title, "text": text, **date_values(day)}
