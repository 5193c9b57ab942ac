"""The predictions table: what a cell's calls answered, as the model answered it.

The evaluate stage writes one such table per setting and the score stage reads it back,
so its columns and their types are fixed here, where both meet; an empty table has the
same types as a full one, and a table written before a column existed reads with nulls
there rather than failing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from prescient import io

PREDICTION_SCHEMA: dict[str, str] = {
    "model": "string",
    "elicitation": "string",
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
    "context_words_kept": "Int64",
    "prompt_tokens": "Int64",
    "completion_tokens": "Int64",
    "cost_usd": "Float64",
    "ledger_key": "string",
    "served_model": "string",
    "litellm_model": "string",
}
"""One row per question, setting and elicitation (``label``, ``verbal_probability``,
``token_logprobs``, ``scratchpad``: :data:`~prescient.evaluation.settings.ELICITATIONS`;
``raw_response`` is the reply as the model gave it: a label, a stated probability, the
log-probabilities of the allowed answers as JSON, or reasoning and a final forecast). ``ledger_key`` is the key of the ledger entry the
reply came from (:func:`prescient.llm.ledger.request_key`, a function of the request
alone; a failed call keeps its key too), null where no request was made (no gold
article, a prompt that could not fit the context window). ``prompt_tokens``,
``completion_tokens`` and ``cost_usd`` are what that reply cost when it was paid, as
its ledger entry records it (the same whether this run sent it or was served it; a
cost is null where the price is unknown, and an in-process model's is null too).
``served_model`` is the model that answered as its server named it (the reply's
``model``; an in-process model's weights file), null where the entry names none (a
failed call, an entry written before it was recorded): two models served behind one
registry entry are told apart by it. ``litellm_model`` is the model string the request
was keyed and sent under (the registry entry's ``litellm_model`` when it was asked), null
where no request was made."""
OPTIONAL_COLUMNS = (
    "elicitation",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "ledger_key",
    "served_model",
    "litellm_model",
)
"""Columns predictions written before they existed lack (read as null; a null
``elicitation`` is ``label``, the only one there was)."""
PREDICTION_COLUMNS: tuple[str, ...] = tuple(PREDICTION_SCHEMA)


def prediction_frame(rows: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """A predictions table with the canonical column types (also when empty).

    Rows without one of :data:`OPTIONAL_COLUMNS` (predictions made before the column
    existed) get nulls there, as :func:`prescient.evaluation.scoring.score_predictions`
    gives them.
    """
    if rows is not None:
        n = len(next(iter(rows.values()), []))
        rows = {**{c: [None] * n for c in OPTIONAL_COLUMNS}, **rows}
    return io.typed_frame(PREDICTION_SCHEMA, rows)
