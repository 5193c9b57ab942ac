"""Model prices from the table litellm ships, read without importing litellm.

The same numbers litellm's own cost tracking uses; the direct transport prices its
replies with them, and the gateway's estimate and cost ceiling bound what a batch can
cost with them (:mod:`prescient.llm.ceiling`, where a model entry's own ``price`` comes
first). The table's Batch API rates price requests sent as a batch.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any


@functools.cache
def _price_table() -> dict[str, Any]:
    """litellm's shipped price table, read as a file (importing litellm costs seconds)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations)))
    table = path / "model_prices_and_context_window_backup.json"
    try:
        data = json.loads(table.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@functools.cache
def price(model: str) -> tuple[float, float] | None:
    """USD per (prompt, completion) token from litellm's price table; None when unknown."""
    table = _price_table()
    info = table.get(model) or table.get(model.split("/", 1)[-1])
    if not isinstance(info, dict) or info.get("input_cost_per_token") is None:
        return None
    return float(info["input_cost_per_token"]), float(info.get("output_cost_per_token") or 0.0)


@functools.cache
def batch_price(model: str) -> tuple[float, float] | None:
    """USD per (prompt, completion) token of requests sent through a provider's Batch
    API, from litellm's price table (``*_cost_per_token_batches``); None when the table
    has no batch price for the model."""
    table = _price_table()
    info = table.get(model) or table.get(model.split("/", 1)[-1])
    if not isinstance(info, dict) or info.get("input_cost_per_token_batches") is None:
        return None
    return (
        float(info["input_cost_per_token_batches"]),
        float(info.get("output_cost_per_token_batches") or 0.0),
    )
