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

Beside them each model carries the leaderboard's proper scores under the same setting
keys, read off the ``leaderboard`` table for one elicitation per model, its
``elicitation`` key (:data:`HEADLINE_ELICITATIONS`: the model's own probabilities where
the run asked for them): ``brier_tf`` (TF questions, 0 to 1), ``brier_mc`` (MC
questions, 0 to 2; never pooled with TF), ``log_score`` (all questions; lower is better)
and ``uniform_fill`` (forecasts that were unreadable or refused, scored as the uniform
forecast). :func:`rag_metrics` holds the dated RAG setting's cutoff and each model's TF
Brier score there under the model's name, so one ``dvc exp show`` line compares every
model of a cutoff sweep by proper score within 100 columns. :func:`plot_tables` are the same numbers as DVC plot data, so
``dvc plots diff`` overlays experiments in one chart.
:func:`rag_accuracy_table` is the report's table of accuracy by cutoff.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import pandas as pd

from prescient.analysis.schema import ALL
from prescient.dates import DYNAMIC
from prescient.evaluation.settings import (
    CLOSED_BOOK,
    GOLD,
    LABEL,
    RAG,
    SCRATCHPAD,
    TOKENS,
    VERBAL,
)

RAG_ALIAS = RAG
"""The key of a run's one dated RAG setting."""
CUTOFF_SUFFIX = "_cutoff"
RAG_CUTOFF_KEY = "cutoff"
"""The cutoff's key in :func:`rag_metrics` (a run's one dated RAG setting)."""
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


HEADLINE_ELICITATIONS = (TOKENS, VERBAL, SCRATCHPAD, LABEL)
"""The elicitation whose proper scores headline a model, the first of these the model
has leaderboard rows for: its token probabilities, else its stated probabilities, else
its reasoned ones (often a nested sample), else its one-word answers read as certain
forecasts. A fixed order, never the best-scoring
row, so the choice does not depend on the outcome."""
PROPER_KEYS = {
    "brier_tf": "brier_tf",
    "brier_mc": "brier_mc",
    "log_score": "log_score",
    "uniform_fill": "n_uniform_fill",
}
"""Summary key -> the leaderboard column it reads."""
ELICITATION_KEY = "elicitation"


def _cells(*frames: pd.DataFrame | None) -> list[tuple[str, str]]:
    """The (setting, rag_cutoff) pairs of the frames' rows, blanks as ``""``."""
    pairs: list[tuple[str, str]] = []
    for frame in frames:
        if frame is None or frame.empty:
            continue
        cutoffs = frame["rag_cutoff"].fillna("").astype(str)
        pairs += list(zip(frame["setting"].astype(str), cutoffs, strict=True))
    return pairs


def headline_rows(board: pd.DataFrame) -> pd.DataFrame:
    """The ``leaderboard`` rows of each model's headline elicitation
    (:data:`HEADLINE_ELICITATIONS`), in the leaderboard's order."""
    if board is None or board.empty:
        return pd.DataFrame(columns=getattr(board, "columns", []))
    keep = []
    for _, rows in board.groupby("model", sort=False):
        have = set(rows["elicitation"])
        chosen = next((e for e in HEADLINE_ELICITATIONS if e in have), None)
        if chosen is not None:
            keep.append(rows.loc[rows["elicitation"] == chosen])
    return pd.concat(keep) if keep else board.iloc[:0]


def _number(value: Any, count: bool = False) -> float | int | None:
    """A metric value (a count as an int, a score to six decimals), or None for a
    missing one (no questions of that type)."""
    if value is None or pd.isna(value):
        return None
    return int(value) if count else round(float(value), 6)


def summary_metrics(accuracy: pd.DataFrame, board: pd.DataFrame | None = None) -> dict[str, Any]:
    """``{model: {closed_book, gold, rag[_i], rag[_i]_cutoff, rag_dynamic, n,
    elicitation, brier_tf, brier_mc, log_score, uniform_fill}}``: accuracy from the
    ``accuracy`` table's ``all`` rows (a fraction there, a percentage here), proper
    scores from the ``leaderboard`` table (module docstring), each a mapping of the same
    setting keys."""
    if accuracy.empty:
        return {}
    pooled = accuracy.loc[accuracy["qtype"] == ALL]
    keys = stable_keys(_cells(pooled, board))
    proper = _proper_by_model(headline_rows(board), keys) if board is not None else {}
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
        entry.update(proper.get(str(model), {}))
        out[str(model)] = entry
    return out


def _proper_by_model(rows: pd.DataFrame, keys: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``{model: {elicitation, brier_tf: {key: value}, ...}}`` of headline rows."""
    out: dict[str, dict[str, Any]] = {}
    for model, group in rows.groupby("model", sort=False):
        entry: dict[str, Any] = {ELICITATION_KEY: str(group["elicitation"].iloc[0])}
        ordered = sorted(group.to_dict("records"), key=lambda r: _key_order(keys[r["cell"]]))
        for name, column in PROPER_KEYS.items():
            count = column.startswith("n_")
            values = {keys[r["cell"]]: _number(r[column], count) for r in ordered}
            values = {k: v for k, v in values.items() if v is not None}
            if values:
                entry[name] = values
        out[str(model)] = entry
    return out


def rag_metrics(board: pd.DataFrame) -> dict[str, Any]:
    """The dated RAG setting a cutoff sweep varies, laid out for ``dvc exp show``: its
    ``cutoff`` and each model's headline TF Brier score there under the model's own name
    (``{cutoff, <model>: brier}``), so one line of ``dvc exp show`` ranks every model at
    every cutoff in few columns. Several dated settings are ``rag_1``, ``rag_2``, ...
    (``{rag_<i>: {<model>: brier}, rag_<i>_cutoff}``), as in the summary; a run without
    one has none."""
    rows = headline_rows(board)
    if rows.empty:
        return {}
    keys = stable_keys(_cells(rows))
    dated = [
        r
        for r in rows.to_dict("records")
        if keys[r["cell"]].startswith(RAG_ALIAS) and keys[r["cell"]] != f"{RAG}_{DYNAMIC}"
    ]
    out: dict[str, Any] = {}
    for rec in sorted(dated, key=lambda r: _key_order(keys[r["cell"]])):
        key = keys[rec["cell"]]
        value = _number(rec["brier_tf"])
        if key == RAG_ALIAS:
            out[RAG_CUTOFF_KEY] = str(rec["rag_cutoff"])
            if value is not None:
                out[str(rec["model"])] = value
            continue
        out[f"{key}{CUTOFF_SUFFIX}"] = str(rec["rag_cutoff"])
        if value is not None:
            out.setdefault(key, {})[str(rec["model"])] = value
    return out


PLOT_COLUMNS = {
    "brier_tf": ["forecaster", "model", "setting", "elicitation", "brier_tf", "n_tf"],
    "accuracy": ["forecaster", "model", "setting", "accuracy", "n"],
}
"""Columns of each DVC plot data file (``<name>.csv``); ``setting`` is the summary's
setting key, so a swept cutoff keeps one bar across experiments."""


def plot_tables(accuracy: pd.DataFrame, board: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The DVC plot data: each model's headline TF Brier score and its accuracy (%, all
    question types) per setting, one bar per ``forecaster`` (model and setting key), in
    the summary's order (models as first scored, settings in key order)."""
    pooled = accuracy.loc[accuracy["qtype"] == ALL] if not accuracy.empty else accuracy
    rows = headline_rows(board)
    keys = stable_keys(_cells(pooled, rows))

    def frame(source: pd.DataFrame, columns: list[str], value: str) -> pd.DataFrame:
        if source is None or source.empty:
            return pd.DataFrame(columns=columns)
        out = source.assign(setting=source["cell"].map(keys))
        out = out.assign(forecaster=out["model"].astype(str) + " " + out["setting"])
        if value == "accuracy":
            out = out.assign(accuracy=(100.0 * out["accuracy"].astype(float)).round(6))
        out = out.loc[out[value].notna()]
        order = {m: i for i, m in enumerate(dict.fromkeys(source["model"]))}
        out = out.assign(_m=out["model"].map(order), _k=out["setting"].map(_key_order))
        out = out.sort_values(["_m", "_k"], kind="stable")
        return out[columns].reset_index(drop=True)

    return {
        "brier_tf": frame(rows, PLOT_COLUMNS["brier_tf"], "brier_tf"),
        "accuracy": frame(pooled, PLOT_COLUMNS["accuracy"], "accuracy"),
    }


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
