"""Numbers that line up across experiments: the run summary and accuracy by RAG cutoff.

A sweep varies a value that the detailed metrics spell into their keys: the RAG cutoff
(Daily Oracle, Section 4: the constrained open-book setting, Fig. 4) names the cell
``rag_2024-06-01``, so two experiments with different cutoffs share no accuracy key.
:func:`summary_metrics` keys each model's accuracy by a name that does not hold the
swept value, and stores the value beside it:

- ``closed_book``, ``gold`` and ``rag_dynamic`` keep their setting names (none holds a
  value);
- one dated RAG setting is ``rag``, its cutoff ``rag_cutoff``;
- several dated RAG settings are ``rag_1``, ``rag_2``, ... in ascending cutoff order,
  their cutoffs ``rag_1_cutoff``, ``rag_2_cutoff``, ...; so runs listing the same number
  of cutoffs line up position by position (the earliest with the earliest);
- ``n``: the questions the model was scored on (the most any of its settings scored; a
  gold row without a gold article, or a failed call left out, scores fewer).

Accuracies are percentages over every question type, those of the ``accuracy`` table
(the analysis period); a setting the run does not hold has no key.
:func:`rag_accuracy_table` is the report's table of accuracy by cutoff.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import pandas as pd

from prescient.analysis.schema import ALL
from prescient.dates import DYNAMIC
from prescient.evaluation.settings import CLOSED_BOOK, GOLD, RAG

RAG_ALIAS = RAG
"""The key of a run's one dated RAG setting."""
CUTOFF_SUFFIX = "_cutoff"
N_KEY = "n"


def stable_keys(cells: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each cell's summary key (module docstring).

    Args:
        cells: (setting, rag_cutoff) pairs as the analysis tables hold them:
            ``("rag", "2024-06-01")``, ``("rag", "dynamic")``, ``("closed_book", "")``.

    Returns:
        cell name (``rag_2024-06-01``) -> its key (``rag`` or ``rag_<i>``), for every
        distinct cell.
    """
    keys: dict[str, str] = {}
    dated: set[str] = set()
    for setting, cutoff in cells:
        if setting == RAG and cutoff != DYNAMIC:
            dated.add(str(cutoff))
        elif setting == RAG:
            keys[f"{RAG}_{DYNAMIC}"] = f"{RAG}_{DYNAMIC}"
        else:
            keys[str(setting)] = str(setting)
    ordered = sorted(dated, key=dt.date.fromisoformat)
    for i, cutoff in enumerate(ordered, start=1):
        keys[f"{RAG}_{cutoff}"] = RAG_ALIAS if len(ordered) == 1 else f"{RAG_ALIAS}_{i}"
    return keys


def _key_order(key: str) -> tuple[int, int]:
    """closed_book, gold, the dated RAG keys in order, rag_dynamic."""
    fixed = {CLOSED_BOOK: (0, 0), GOLD: (1, 0), RAG_ALIAS: (2, 0), f"{RAG}_{DYNAMIC}": (3, 0)}
    if key in fixed:
        return fixed[key]
    position = key.rsplit("_", 1)[-1]
    return (2, int(position)) if position.isdigit() else (4, 0)


def summary_metrics(accuracy: pd.DataFrame) -> dict[str, Any]:
    """``{model: {closed_book, gold, rag[_i], rag[_i]_cutoff, rag_dynamic, n}}`` from the
    ``accuracy`` table's ``all`` rows (accuracy as a fraction there, a percentage here)."""
    if accuracy.empty:
        return {}
    pooled = accuracy.loc[accuracy["qtype"] == ALL]
    keys = stable_keys(zip(pooled["setting"], pooled["rag_cutoff"], strict=True))
    cutoffs = dict(zip(pooled["cell"], pooled["rag_cutoff"], strict=True))
    out: dict[str, Any] = {}
    for model, rows in pooled.groupby("model", sort=False):
        by_key = dict(
            zip(map(keys.__getitem__, rows["cell"]), rows.to_dict("records"), strict=True)
        )
        entry: dict[str, Any] = {}
        for key in sorted(by_key, key=_key_order):
            rec = by_key[key]
            entry[key] = round(100.0 * float(rec["accuracy"]), 6)
            if key.startswith(RAG_ALIAS) and key != f"{RAG}_{DYNAMIC}":
                entry[f"{key}{CUTOFF_SUFFIX}"] = str(cutoffs[rec["cell"]])
        entry[N_KEY] = int(rows["n"].max())
        out[str(model)] = entry
    return out


RAG_ACCURACY_COLUMNS = [
    "model",
    "qtype",
    "rag_cutoff",
    "cell",
    "key",
    "n",
    "n_correct",
    "accuracy",
    "ci_low",
    "ci_high",
    "closed_book_accuracy",
]
"""Columns of ``rag_accuracy.csv``."""


def rag_accuracy_table(accuracy: pd.DataFrame) -> pd.DataFrame:
    """Accuracy by RAG cutoff: the ``accuracy`` table's RAG rows (Wilson 95% intervals),
    per model and question type, cutoffs in date order and ``dynamic`` last, with the
    summary key of each (``rag``, ``rag_<i>``, ``rag_dynamic``) and the same model's
    closed-book accuracy on the same type beside it (empty without a closed-book cell)."""
    if accuracy.empty:
        return pd.DataFrame(columns=RAG_ACCURACY_COLUMNS)
    rag = accuracy.loc[accuracy["setting"] == RAG]
    if rag.empty:
        return pd.DataFrame(columns=RAG_ACCURACY_COLUMNS)
    keys = stable_keys(zip(rag["setting"], rag["rag_cutoff"], strict=True))
    book = accuracy.loc[accuracy["setting"] == CLOSED_BOOK, ["model", "qtype", "accuracy"]]
    out = rag.assign(key=rag["cell"].map(keys)).merge(
        book.rename(columns={"accuracy": "closed_book_accuracy"}),
        on=["model", "qtype"],
        how="left",
    )
    models = {m: i for i, m in enumerate(dict.fromkeys(accuracy["model"]))}
    types = {t: i for i, t in enumerate(dict.fromkeys(accuracy["qtype"]))}
    settings = {k: i for i, k in enumerate(sorted(set(keys.values()), key=_key_order))}
    out = out.assign(
        _m=out["model"].map(models),
        _t=out["qtype"].map(types),
        _k=out["key"].map(settings),
    ).sort_values(["_m", "_t", "_k"], kind="stable")
    return out[RAG_ACCURACY_COLUMNS].reset_index(drop=True)
