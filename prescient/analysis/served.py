"""One analysed model per served model: a registry entry answered by several is split.

A registry entry names a way to reach a model (an OpenAI-compatible server, say), not
the model itself: the server behind ``local_openai_server`` may serve one model in one
experiment and another in the next, or change mid-run when it is restarted. Every reply
names the model that answered it (``served_model`` in the predictions and scores: the
id the server reported, or an in-process model's weights file), so the analysis reads
an entry whose rows name more than one served model as one model per served id: its
rows are relabelled ``<entry> [<served>]`` (:data:`LABEL`) and each label takes the
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

SERVED = "served_model"
"""The scores column naming the model that answered (:mod:`prescient.llm.types`)."""

LABEL = "{entry} [{served}]"
"""How a split entry's rows are labelled, per served model."""


def served_label(entry: str, served: str) -> str:
    """The analysed model of ``entry``'s rows that ``served`` answered (module doc)."""
    return LABEL.format(entry=entry, served=served)


def split_by_served(
    scores: pd.DataFrame, registry: Mapping[str, Any] | None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``scores`` with each entry served by several models split into one model per
    served id, and the registry with an entry for every new label (a copy of its
    registry entry, where it has one).

    Returns the inputs unchanged (the registry as a new dict) when no entry was served by
    more than one model, or the table has no ``served_model`` column (results produced
    elsewhere).
    """
    out_registry = dict(registry or {})
    if scores.empty or SERVED not in scores.columns or "model" not in scores.columns:
        return scores, out_registry
    model = scores["model"].astype(str)
    served = scores[SERVED]
    named = served.notna() & (served.astype(str) != "")
    counts = pd.Series(served[named].astype(str)).groupby(model[named]).nunique()
    several = sorted(str(m) for m, n in counts.items() if n > 1)
    if not several:
        return scores, out_registry
    split = model.isin(several) & named
    labels = pd.Series(
        [
            served_label(m, str(s)) if cut else m
            for m, s, cut in zip(model, served, split, strict=True)
        ],
        index=scores.index,
    )
    for entry in several:
        base = out_registry.get(entry)
        if base is None:
            continue
        for label in sorted(set(labels[split & (model == entry)])):
            out_registry[label] = dict(base)
    return scores.assign(model=labels), out_registry
