"""Stage ``of_tables``: OpenForecast's results per model and task (COLING 2025, Table 2).

- Closed forms (MCNC, MCAC, VQA): accuracy per model, task and evaluation setting, from
  the evaluation's scores table restricted to the OpenForecast questions; rows whose call
  failed are left out and counted; refusals and unparseable replies are wrong. Wilson 95%
  intervals (:func:`prescient.stats.wilson_interval`).
- Open forms (STF, LTF, AQA): LRAE's macro precision, recall and F1 (and the labels-only
  variants) per model and task with percentile bootstrap intervals over samples; AQA's
  accuracy with a Wilson interval too.

The figure (:mod:`prescient.benchmarks.openforecast.figures`) draws these tables as they are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.metrics import MIN_BOOTSTRAP_SAMPLES, macro
from prescient.benchmarks.openforecast.tasks import AQA, CLOSED_TASKS
from prescient.dates import as_date
from prescient.llm.registry import ModelSpec
from prescient.seeds import derive_seed
from prescient.stats import wilson_interval

CLOSED_SCHEMA: dict[str, str] = {
    "model": "string",
    "task": "string",
    "setting": "string",
    "rag_cutoff": "string",
    "n": "int64",
    "n_correct": "int64",
    "n_failed": "int64",
    "accuracy": "float64",
    "low": "float64",
    "high": "float64",
}
"""``reports/openforecast/closed_accuracy.csv``."""

OPEN_SCHEMA: dict[str, str] = {
    "model": "string",
    "task": "string",
    "metric": "string",
    "n": "int64",
    "n_failed": "int64",
    "value": "float64",
    "low": "float64",
    "high": "float64",
    "interval": "string",
}
"""``reports/openforecast/open_scores.csv``: one row per model, task and metric
(``precision``, ``recall``, ``f1``, their ``*_gold`` variants, and ``accuracy`` for AQA);
``interval`` names how low/high were made (``bootstrap`` or ``wilson``; ``none (one
sample)`` where a single sample leaves no bootstrap interval)."""

OPEN_METRICS: tuple[str, ...] = (
    "precision",
    "recall",
    "f1",
    "precision_gold",
    "recall_gold",
    "f1_gold",
)


def closed_accuracy(
    scores: pd.DataFrame,
    questions: pd.DataFrame,
    cutoffs: Mapping[str, dt.date | None] | None = None,
) -> pd.DataFrame:
    """Accuracy of the closed forms per model, task and setting (see module docstring).

    Args:
        scores: the evaluation's scores table.
        questions: the closed-form question table (question_id -> task).
        cutoffs: model -> knowledge cutoff; a model's questions resolved on or before
            its cutoff are left out (``openforecast.split.relative_to_cutoff``). None:
            every question counts.
    """
    tasks = questions.set_index("question_id")["task"]
    mine = scores[scores["question_id"].isin(tasks.index)].copy()
    mine["task"] = mine["question_id"].map(tasks)
    mine = mine[mine["task"].isin(CLOSED_TASKS)]
    if cutoffs is not None:
        resolved = questions.set_index("question_id")["resolution_date"].map(as_date)
        after = [
            (cutoff := cutoffs.get(str(m))) is None or resolved[q] > cutoff
            for m, q in zip(mine["model"], mine["question_id"], strict=True)
        ]
        mine = mine[after]
    rows: dict[str, list[Any]] = {c: [] for c in CLOSED_SCHEMA}
    keys = ["model", "task", "setting", "rag_cutoff"]
    for key, group in mine.groupby(keys, sort=True, dropna=False):
        ok = group[group["error"].isna()]
        n, k = len(ok), int(ok["correct"].sum())
        low, high = wilson_interval(k, n)
        for c, v in zip(keys, key, strict=True):
            rows[c].append(v)
        rows["n"].append(n)
        rows["n_correct"].append(k)
        rows["n_failed"].append(len(group) - n)
        rows["accuracy"].append(k / n if n else float("nan"))
        rows["low"].append(float(low))
        rows["high"].append(float(high))
    return io.typed_frame(CLOSED_SCHEMA, rows)


def open_scores(
    lrae_scores: pd.DataFrame, reps: int, confidence: float, base_seed: int
) -> pd.DataFrame:
    """LRAE's macro averages per model and task (see module docstring)."""
    rows: dict[str, list[Any]] = {c: [] for c in OPEN_SCHEMA}

    def add(
        model: str,
        task: str,
        metric: str,
        n: int,
        failed: int,
        value: float,
        low: float,
        high: float,
        how: str,
    ) -> None:
        for c, v in zip(
            OPEN_SCHEMA, (model, task, metric, n, failed, value, low, high, how), strict=True
        ):
            rows[c].append(v)

    for (model, task), group in lrae_scores.groupby(["model", "task"], sort=True):
        ok = group[group["error"].isna()]
        failed = len(group) - len(ok)
        for metric in OPEN_METRICS:
            seed = derive_seed(base_seed, "lrae", str(model), str(task), metric)
            m = macro(ok[metric].astype(float).tolist(), reps, confidence, seed)
            how = "bootstrap" if m.n >= MIN_BOOTSTRAP_SAMPLES else "none (one sample)"
            add(str(model), str(task), metric, m.n, failed, m.value, m.low, m.high, how)
        if task == AQA:
            k, n = int((ok["tp"] > 0).sum()), len(ok)
            low, high = wilson_interval(k, n)
            add(
                str(model),
                AQA,
                "accuracy",
                n,
                failed,
                k / n if n else float("nan"),
                float(low),
                float(high),
                "wilson",
            )
    return io.typed_frame(OPEN_SCHEMA, rows)


def _num(x: Any) -> float | None:
    return None if pd.isna(x) else round(float(x), 6)


def openforecast_metrics(
    closed: pd.DataFrame, open_: pd.DataFrame, samples: pd.DataFrame
) -> dict[str, Any]:
    """DVC metrics, keyed by model and cell so a switched model shows in a diff."""
    out: dict[str, Any] = {"samples": {}, "closed": {}, "open": {}}
    ok = samples[samples["status"] == "ok"]
    out["samples"] = {str(k): int(v) for k, v in ok["task"].value_counts().sort_index().items()}
    for r in closed.to_dict("records"):
        cell = r["setting"] if r["setting"] != "rag" else f"rag_{r['rag_cutoff']}"
        out["closed"].setdefault(r["model"], {}).setdefault(r["task"], {})[str(cell)] = {
            "n": int(r["n"]),
            "accuracy": _num(r["accuracy"]),
        }
    for r in open_.to_dict("records"):
        cell = out["open"].setdefault(r["model"], {}).setdefault(r["task"], {"n": int(r["n"])})
        cell[r["metric"]] = _num(r["value"])
    return out


def knowledge_cutoffs(
    registry: Mapping[str, ModelSpec], models: Iterable[str]
) -> dict[str, dt.date | None]:
    """Model -> knowledge cutoff, for the ``models`` a table scores.

    Only those entries are validated (a broken entry of a model the table does not show
    does not stop it); a model missing from the registry, as one scored elsewhere may be,
    has no known cutoff, so every question counts for it.
    """
    return {m: registry[m].knowledge_cutoff if m in registry else None for m in models}
