"""Stage ``of_predict``: one model's open-ended forecasts for one task (STF, LTF or AQA).

The prompt gives the numbered, dated background and the split date (and, for AQA, the
question); one worked example precedes it as an earlier chat turn (OpenForecast, COLING
2025, appendix B.6, Table 10 uses one example for STF and LTF). Nothing published on or
after T_k reaches the prompt: the background holds only events that ended before T_k,
and no article is shown. Replies are kept verbatim; stage ``lrae`` splits and judges them.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.prompts import numbered
from prescient.benchmarks.openforecast.tasks import AQA
from prescient.dates import as_date
from prescient.llm.steps import template_request
from prescient.llm.types import Complete
from prescient.prompts import PromptTemplate

logger = logging.getLogger(__name__)

PREDICTION_SCHEMA: dict[str, str] = {
    "sample_id": "string",
    "model": "string",
    "task": "string",
    "split_date": "date32[pyarrow]",
    "template": "string",
    "response": "string",
    "finish_reason": "string",
    "error": "string",
    "ledger_key": "string",
    "served_model": "string",
    "litellm_model": "string",
}
"""One row per sample: the model's reply (null with ``error`` when the call failed), why
it ended (``length``: cut at ``max_tokens``, so its last item is incomplete), the model
that answered as its server named it (null where the reply names none) and the model
string the request was sent under (the registry entry's ``litellm_model``)."""


def prompt_values(sample: dict[str, Any]) -> dict[str, str]:
    """Placeholder values of a sample: background, date and (AQA) question."""
    values = {
        "background": numbered(list(sample["background"])),
        "date": as_date(sample["split_date"]).isoformat(),
    }
    if sample["task"] == AQA:
        values["question"] = str(sample["question"])
    return values


def predict(
    samples: pd.DataFrame,
    model: str,
    task: str,
    template: PromptTemplate,
    gen: Mapping[str, Any],
    complete: Complete,
    after: dt.date | None = None,
) -> pd.DataFrame:
    """Predictions of ``model`` for the usable samples of ``task``.

    Args:
        samples: the samples table (only rows with status ``ok`` and this task are used).
        model: registry name.
        task: ``stf``, ``ltf`` or ``aqa``.
        template: the task's prompt template.
        gen: generation parameters (part of the ledger key).
        complete: ``Gateway.complete_many``.
        after: only samples whose split date is after this day (the model's knowledge
            cutoff, ``openforecast.split.relative_to_cutoff``); None: all.
    """
    chosen = samples[(samples["task"] == task) & (samples["status"] == "ok")]
    if after is not None:
        chosen = chosen[[as_date(d) > after for d in chosen["split_date"]]]
    mine: list[dict[str, Any]] = chosen.sort_values("sample_id").to_dict("records")  # type: ignore[assignment]
    requests = [
        template_request(
            template, model, prompt_values(x), gen, {"sample_id": x["sample_id"], "task": task}
        )
        for x in mine
    ]
    logger.info("%s x %s: %d samples", model, task, len(requests))
    results = complete(requests, f"of_predict:{model}:{task}") if requests else []
    rows: dict[str, list[Any]] = {c: [] for c in PREDICTION_SCHEMA}
    for x, r in zip(mine, results, strict=True):
        rows["sample_id"].append(x["sample_id"])
        rows["model"].append(model)
        rows["task"].append(task)
        rows["split_date"].append(as_date(x["split_date"]))
        rows["template"].append(template.label)
        rows["response"].append(r.text if r.ok else None)
        rows["finish_reason"].append(r.finish_reason if r.ok else None)
        rows["error"].append(None if r.ok else r.error)
        rows["ledger_key"].append(r.key)
        rows["served_model"].append(r.served_model if r.ok else None)
        rows["litellm_model"].append(r.litellm_model)
    return io.typed_frame(PREDICTION_SCHEMA, rows)
