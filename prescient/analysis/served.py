"""One analysed model per served model: a registry entry answered by several is split.

A registry entry names a way to reach a model (an OpenAI-compatible server, say), not
the model itself: the server behind ``local_openai_server`` may serve one model in one
experiment and another in the next, or change mid-run when it is restarted. Every reply
names the model that answered it (``served_model`` in the predictions and scores: the
id the server reported, or an in-process model's weights file), so the analysis reads
an entry whose rows name more than one served model as one model per served id: its
rows are relabelled ``<entry> [<served>]`` and each label takes the
entry's registry entry (its dates, its baseline flag), so every table, figure and
summary has a row per served model.

Rows that name no served model (failed calls, which no model answered) keep the
entry's own name: they form that entry's row of failures, in plain sight, never
attributed to a guessed model. An entry served by a single model keeps its name (the
models table says what served it), so ordinary runs are analysed exactly as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from prescient.llm.types import SERVED_MODEL as SERVED


def split_by_served(
    scores: pd.DataFrame, registry: Mapping[str, Any] | None
) -> tuple[pd.DataFrame, dict[str, Any], list[str]]:
    """``scores`` with each entry served by several models split into one model per
    served id, the registry with an entry for every new label (a copy of its registry
    entry, where it has one), and the new labels, sorted.

    Returns the inputs unchanged (the registry as a new dict, no label) when no entry was
    served by more than one model, or the table has no ``served_model`` column (results
    produced elsewhere).
    """
    out_registry = dict(registry or {})
    if scores.empty or SERVED not in scores.columns or "model" not in scores.columns:
        return scores, out_registry, []
    model = scores["model"].astype(str)
    served = scores[SERVED]
    named = served.notna() & (served.astype(str) != "")
    counts = served[named].astype(str).groupby(model[named]).nunique()
    several = sorted(str(m) for m, n in counts.items() if n > 1)
    if not several:
        return scores, out_registry, []
    split = model.isin(several) & named
    labels = model.where(~split, model + " [" + served.astype(str) + "]")
    new: list[str] = []
    for entry in several:
        mine = sorted(set(labels[split & (model == entry)]))
        new += mine
        base = out_registry.get(entry)
        if base is not None:
            out_registry.update({label: dict(base) for label in mine})
    return scores.assign(model=labels), out_registry, sorted(new)
