"""Table 4: agreement among human annotators and between their consensus and the LLM filter
(Daily Oracle, ICML 2025, section 3.3 and appendix A.4).

Definitions (also in the report notes and docs/stages.md):

- **Fleiss' kappa** per principle over the items rated by *every* annotator (Fleiss'
  statistic needs the same number of ratings per item), categories 0/1/2; the average
  is the mean over principles whose kappa is defined (kappa is undefined when every
  rating of a principle is the same value). 95% intervals: percentile bootstrap over
  items, the seven kappas and their average computed on the same resamples.
- **Krippendorff's alpha** per principle over all items, missing ratings allowed, at the
  level of measurement configured (interval by default: the filter adds the 0/1/2
  scores into a total, i.e. treats them as equally spaced).
- **Consensus** per item and principle: the mean of the available human scores, rounded
  to 0/1/2 with the configured rule (``half_up`` by default: a mean of 0.5 -> 1, 1.5 -> 2),
  for items with at least ``consensus_min_raters`` ratings.
- **Accuracy**: exact match of the consensus with the LLM score, per principle; the
  average is the mean of the seven accuracies (as in the paper).
- **Accept decision**: consensus total (sum of the seven rounded consensus scores) vs the
  LLM total, each accepted when at least ``accept_threshold``; accuracy and the 2x2
  confusion matrix over the items with all seven consensus scores.

Each bootstrap draws its resamples from ``derive_seed(base.seed, "agreement", <statistic>)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from prescient.annotation.ratings import AnnotatorRatings
from prescient.annotation.settings import AgreementSettings, TableSettings
from prescient.annotation.stats import (
    Interval,
    Rounding,
    bootstrap,
    bootstrap_indices,
    category_counts,
    fleiss_kappa,
    fleiss_kappa_batch,
    krippendorff_alpha,
    round_mean,
)
from prescient.seeds import derive_seed
from prescient.vocab import PRINCIPLE_LABELS, PRINCIPLES, SCORE_VALUES, accepted

TABLE_COLUMNS: tuple[str, ...] = (
    "row",
    "metric",
    "fleiss_kappa",
    "fleiss_kappa_ci_low",
    "fleiss_kappa_ci_high",
    "krippendorff_alpha",
    "accuracy_pct",
    "accuracy_ci_low_pct",
    "accuracy_ci_high_pct",
    "n_items_kappa",
    "n_items_accuracy",
)


def bootstrap_seed(seed: int, statistic: str) -> int:
    """The seed of one statistic's bootstrap resamples (``kappa``, ``accuracy``,
    ``decision``): independent streams from ``base.seed``."""
    return derive_seed(seed, "agreement", statistic)


def ratings_cube(
    annotators: Sequence[AnnotatorRatings], item_ids: Sequence[str]
) -> NDArray[np.float64]:
    """Scores as an (items, annotators, principles) array, NaN where not rated."""
    cube = np.full((len(item_ids), len(annotators), len(PRINCIPLES)), np.nan)
    pos = {item: i for i, item in enumerate(item_ids)}
    for a, ann in enumerate(annotators):
        for item_id, rating in ann.ratings.items():
            cube[pos[item_id], a, :] = [rating.scores[k] for k in PRINCIPLES]
    return cube


def consensus_scores(
    cube: NDArray[np.float64], rule: Rounding, min_raters: int
) -> NDArray[np.float64]:
    """Rounded mean human score per (item, principle); NaN with fewer than ``min_raters``."""
    n_items, _, n_principles = cube.shape
    out = np.full((n_items, n_principles), np.nan)
    for i in range(n_items):
        for p in range(n_principles):
            vals = cube[i, :, p]
            vals = vals[~np.isnan(vals)]
            if vals.size >= max(1, min_raters):
                out[i, p] = round_mean(int(vals.sum()), int(vals.size), rule)
    return out


def _fmt(x: float | None, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{round(x, digits) + 0.0:.{digits}f}"  # + 0.0 turns -0.00 into 0.00


def _num(x: float) -> float | None:
    """JSON-safe number: NaN becomes null (no invented value)."""
    return None if math.isnan(x) else float(x)


@dataclass
class AgreementResult:
    """Everything Table 4 and the metrics report; NaN marks an undefined statistic."""

    annotators: list[str]
    n_items: int
    n_items_complete: int
    ratings_per_annotator: dict[str, int]
    kappa: dict[str, float]
    kappa_ci: dict[str, Interval]
    kappa_average: float
    kappa_average_ci: Interval
    alpha: dict[str, float]
    accuracy: dict[str, float]
    accuracy_n: dict[str, int]
    accuracy_ci: dict[str, Interval]
    accuracy_average: float
    accuracy_average_ci: Interval
    decision_accuracy: float
    decision_accuracy_ci: Interval
    decision_n: int
    confusion: dict[str, dict[str, int]]
    settings: TableSettings

    def table(self) -> pd.DataFrame:
        """Table 4 as rows: the seven principles, their average, the accept decision."""
        rows: list[dict[str, Any]] = []
        for k in PRINCIPLES:
            rows.append(
                {
                    "row": k,
                    "metric": PRINCIPLE_LABELS[k],
                    "fleiss_kappa": self.kappa[k],
                    "fleiss_kappa_ci_low": self.kappa_ci[k].low,
                    "fleiss_kappa_ci_high": self.kappa_ci[k].high,
                    "krippendorff_alpha": self.alpha[k],
                    "accuracy_pct": 100 * self.accuracy[k],
                    "accuracy_ci_low_pct": 100 * self.accuracy_ci[k].low,
                    "accuracy_ci_high_pct": 100 * self.accuracy_ci[k].high,
                    "n_items_kappa": self.n_items_complete,
                    "n_items_accuracy": self.accuracy_n[k],
                }
            )
        rows.append(
            {
                "row": "average",
                "metric": "Average",
                "fleiss_kappa": self.kappa_average,
                "fleiss_kappa_ci_low": self.kappa_average_ci.low,
                "fleiss_kappa_ci_high": self.kappa_average_ci.high,
                "krippendorff_alpha": math.nan,
                "accuracy_pct": 100 * self.accuracy_average,
                "accuracy_ci_low_pct": 100 * self.accuracy_average_ci.low,
                "accuracy_ci_high_pct": 100 * self.accuracy_average_ci.high,
                "n_items_kappa": self.n_items_complete,
                "n_items_accuracy": min(self.accuracy_n.values()) if self.accuracy_n else 0,
            }
        )
        rows.append(
            {
                "row": "accept_decision",
                "metric": f"Accept decision (total >= {self.settings.accept_threshold})",
                "fleiss_kappa": math.nan,
                "fleiss_kappa_ci_low": math.nan,
                "fleiss_kappa_ci_high": math.nan,
                "krippendorff_alpha": math.nan,
                "accuracy_pct": 100 * self.decision_accuracy,
                "accuracy_ci_low_pct": 100 * self.decision_accuracy_ci.low,
                "accuracy_ci_high_pct": 100 * self.decision_accuracy_ci.high,
                "n_items_kappa": None,
                "n_items_accuracy": self.decision_n,
            }
        )
        return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))

    def markdown(self) -> str:
        """Table 4 in the paper's layout, with intervals, alpha and the confusion matrix."""
        s = self.settings.agreement
        threshold = self.settings.accept_threshold
        pct = round(100 * s.bootstrap.confidence)
        lines = [
            "# Table 4: human agreement and human vs LLM filter",
            "",
            f"{len(self.annotators)} annotators ({', '.join(self.annotators)}), "
            f"{self.n_items} items in the packets, {self.n_items_complete} rated by all "
            "annotators.",
            "",
            f"| Metric | Human agreement: Fleiss' kappa [{pct}% CI] | Human vs LLM: "
            f"accuracy % [{pct}% CI] | Krippendorff's alpha ({s.krippendorff_level}) |",
            "| --- | --- | --- | --- |",
        ]
        for k in PRINCIPLES:
            lines.append(
                f"| {PRINCIPLE_LABELS[k]} | {_cell(self.kappa[k], self.kappa_ci[k], 2)} | "
                f"{_cell(100 * self.accuracy[k], self.accuracy_ci[k], 2, 1, 100)} | "
                f"{_fmt(self.alpha[k], 2)} |"
            )
        lines.append(
            f"| **Average** | **{_fmt(self.kappa_average, 2)}** {_ci(self.kappa_average_ci, 2)} | "
            f"**{_fmt(100 * self.accuracy_average, 2)}** "
            f"{_ci(self.accuracy_average_ci, 1, 100)} | |"
        )
        lines.append(
            f"| Accept decision (total >= {threshold}) | | "
            f"{_fmt(100 * self.decision_accuracy, 2)} {_ci(self.decision_accuracy_ci, 1, 100)} | |"
        )
        c = self.confusion
        lines += [
            "",
            f"Accept decision, {self.decision_n} items (rows: human consensus, columns: LLM filter):",
            "",
            "| | LLM accepts | LLM rejects |",
            "| --- | --- | --- |",
            f"| Humans accept | {c['human_accept']['llm_accept']} | {c['human_accept']['llm_reject']} |",
            f"| Humans reject | {c['human_reject']['llm_accept']} | {c['human_reject']['llm_reject']} |",
            "",
            "Notes: kappa over the items rated by every annotator; the average is the mean "
            "over principles with a defined kappa (n/a: every rating of that principle was "
            "the same). Consensus = mean of the human scores rounded "
            f"{s.consensus_rounding.replace('_', ' ')}, from at least {s.consensus_min_raters} "
            "rating(s). Intervals: percentile bootstrap over items, "
            f"{s.bootstrap.reps} resamples.",
            "",
        ]
        return "\n".join(lines)

    def metrics(self) -> dict[str, Any]:
        """The metrics JSON (NaN -> null)."""

        def ci(iv: Interval) -> dict[str, Any]:
            return {"low": _num(iv.low), "high": _num(iv.high), "n_valid": iv.n_valid}

        s = self.settings.agreement
        return {
            "status": "ok",
            "annotators": self.annotators,
            "n_annotators": len(self.annotators),
            "n_items": self.n_items,
            "n_items_rated_by_all": self.n_items_complete,
            "ratings_per_annotator": self.ratings_per_annotator,
            "fleiss_kappa": {k: _num(v) for k, v in self.kappa.items()},
            "fleiss_kappa_ci": {k: ci(v) for k, v in self.kappa_ci.items()},
            "fleiss_kappa_average": _num(self.kappa_average),
            "fleiss_kappa_average_ci": ci(self.kappa_average_ci),
            "krippendorff_alpha": {k: _num(v) for k, v in self.alpha.items()},
            "krippendorff_level": s.krippendorff_level,
            "accuracy": {k: _num(v) for k, v in self.accuracy.items()},
            "accuracy_n": self.accuracy_n,
            "accuracy_ci": {k: ci(v) for k, v in self.accuracy_ci.items()},
            "accuracy_average": _num(self.accuracy_average),
            "accuracy_average_ci": ci(self.accuracy_average_ci),
            "accept_decision": {
                "threshold": self.settings.accept_threshold,
                "accuracy": _num(self.decision_accuracy),
                "accuracy_ci": ci(self.decision_accuracy_ci),
                "n": self.decision_n,
                "confusion": self.confusion,
            },
            "consensus_rounding": s.consensus_rounding,
            "consensus_min_raters": s.consensus_min_raters,
            "bootstrap": {"reps": s.bootstrap.reps, "confidence": s.bootstrap.confidence},
        }


def _ci(iv: Interval, digits: int, scale: float = 1.0) -> str:
    if iv.n_valid == 0:
        return ""
    return f"[{_fmt(scale * iv.low, digits)}, {_fmt(scale * iv.high, digits)}]"


def _cell(
    x: float, iv: Interval, digits: int, ci_digits: int | None = None, scale: float = 1.0
) -> str:
    """``value [low, high]``, or just ``n/a`` for an undefined value."""
    return f"{_fmt(x, digits)} {_ci(iv, digits if ci_digits is None else ci_digits, scale)}".strip()


_UNDEFINED = Interval(math.nan, math.nan, 0)


@dataclass(frozen=True)
class _Kappa:
    n_complete: int
    per_principle: dict[str, float]
    average: float
    intervals: list[Interval]  # per principle, then the average


@dataclass(frozen=True)
class _Accuracy:
    per_principle: dict[str, float]
    n: dict[str, int]
    average: float
    intervals: list[Interval]  # per principle, then the average


@dataclass(frozen=True)
class _Decision:
    accuracy: float
    interval: Interval
    n: int
    confusion: dict[str, dict[str, int]]


def _kappa(cube: NDArray[np.float64], settings: AgreementSettings, seed: int) -> _Kappa:
    """Fleiss' kappa on the items every annotator rated, with a joint bootstrap (the seven
    kappas and their average on the same resamples)."""
    complete = ~np.isnan(cube).any(axis=(1, 2))
    counts = np.stack(
        [category_counts(cube[complete, :, p], SCORE_VALUES) for p in range(len(PRINCIPLES))]
    )  # (principles, items, categories)
    n_complete = int(complete.sum())
    kappa = {
        k: fleiss_kappa(counts[p]) if n_complete else math.nan for p, k in enumerate(PRINCIPLES)
    }
    if not n_complete:
        return _Kappa(0, kappa, math.nan, [_UNDEFINED] * (len(PRINCIPLES) + 1))
    idx = bootstrap_indices(n_complete, settings.bootstrap.reps, bootstrap_seed(seed, "kappa"))

    def stat(ix: NDArray[np.int64]) -> NDArray[np.float64]:
        per = fleiss_kappa_batch(counts[:, ix, :])  # (principles, reps)
        return np.column_stack([per.T, _nanmean_axis(per.T, 1)])

    intervals = bootstrap(stat, idx, settings.bootstrap.confidence)
    return _Kappa(n_complete, kappa, _nanmean(list(kappa.values())), intervals)


def _accuracy(match: NDArray[np.float64], settings: AgreementSettings, seed: int) -> _Accuracy:
    """Per-principle exact-match accuracy of the LLM against the consensus (``match``:
    items x principles, 1/0, NaN where either score is missing), and its mean; the
    intervals resample the items that have a consensus on any principle."""
    valid = ~np.isnan(match)
    accuracy = {k: _nanmean(list(match[:, p])) for p, k in enumerate(PRINCIPLES)}
    n = {k: int(valid[:, p].sum()) for p, k in enumerate(PRINCIPLES)}
    rows = np.flatnonzero(valid.any(axis=1))
    if not rows.size:
        intervals = [_UNDEFINED] * (len(PRINCIPLES) + 1)
    else:
        idx = bootstrap_indices(
            rows.size, settings.bootstrap.reps, bootstrap_seed(seed, "accuracy")
        )
        m = match[rows]

        def stat(ix: NDArray[np.int64]) -> NDArray[np.float64]:
            per = _nanmean_axis(m[ix], 1)  # (reps, principles)
            return np.column_stack([per, _nanmean_axis(per, 1)])

        intervals = bootstrap(stat, idx, settings.bootstrap.confidence)
    return _Accuracy(accuracy, n, _nanmean(list(accuracy.values())), intervals)


def _decision(
    cons: NDArray[np.float64],
    llm: NDArray[np.float64],
    settings: TableSettings,
    seed: int,
) -> _Decision:
    """The accept decision (``vocab.accepted`` on the consensus total and the LLM total)
    over the items with all seven consensus and LLM scores: accuracy, interval and the
    2x2 confusion matrix."""
    full = (~np.isnan(cons) & ~np.isnan(llm)).all(axis=1)
    threshold = settings.accept_threshold
    human_acc = np.array([accepted(int(t), threshold) for t in cons[full].sum(axis=1)], bool)
    llm_acc = np.array([accepted(int(t), threshold) for t in llm[full].sum(axis=1)], bool)
    confusion = {
        "human_accept": {
            "llm_accept": int((human_acc & llm_acc).sum()),
            "llm_reject": int((human_acc & ~llm_acc).sum()),
        },
        "human_reject": {
            "llm_accept": int((~human_acc & llm_acc).sum()),
            "llm_reject": int((~human_acc & ~llm_acc).sum()),
        },
    }
    match = (human_acc == llm_acc).astype(float)
    if not match.size:
        return _Decision(math.nan, _UNDEFINED, 0, confusion)
    reps, level = settings.agreement.bootstrap.reps, settings.agreement.bootstrap.confidence
    idx = bootstrap_indices(match.size, reps, bootstrap_seed(seed, "decision"))
    interval = bootstrap(lambda ix: match[ix].mean(axis=1), idx, level)[0]
    return _Decision(float(match.mean()), interval, int(match.size), confusion)


def compute_agreement(
    annotators: Sequence[AnnotatorRatings],
    item_ids: Sequence[str],
    llm_scores: pd.DataFrame,
    settings: TableSettings,
    seed: int,
) -> AgreementResult:
    """All Table 4 statistics from validated ratings and the LLM filter's scores.

    Args:
        annotators: validated ratings (see ``ratings.load_ratings``), at least 2.
        item_ids: the packet items, in a fixed order.
        llm_scores: indexed by item id, the seven principle columns (0/1/2).
        settings: the accept threshold, rounding and bootstrap parameters.
        seed: ``base.seed``; each bootstrap draws from its own derived seed.
    """
    if len(annotators) < 2:
        raise ValueError("agreement needs at least 2 annotators")
    missing = [i for i in item_ids if i not in llm_scores.index]
    if missing:
        raise ValueError(f"no LLM filter scores for packet item(s) {missing[:10]}")
    agr = settings.agreement
    cube = ratings_cube(annotators, item_ids)
    llm = llm_scores.loc[list(item_ids), list(PRINCIPLES)].to_numpy(dtype=float)
    kappa = _kappa(cube, agr, seed)
    alpha = {
        k: krippendorff_alpha(cube[:, :, p], agr.krippendorff_level)
        for p, k in enumerate(PRINCIPLES)
    }
    cons = consensus_scores(cube, agr.consensus_rounding, agr.consensus_min_raters)
    match = np.where(~np.isnan(cons) & ~np.isnan(llm), cons == llm, np.nan)
    acc = _accuracy(match, agr, seed)
    decision = _decision(cons, llm, settings, seed)
    return AgreementResult(
        annotators=[a.annotator for a in annotators],
        n_items=len(item_ids),
        n_items_complete=kappa.n_complete,
        ratings_per_annotator={a.annotator: len(a.ratings) for a in annotators},
        kappa=kappa.per_principle,
        kappa_ci=dict(zip(PRINCIPLES, kappa.intervals[:-1], strict=True)),
        kappa_average=kappa.average,
        kappa_average_ci=kappa.intervals[-1],
        alpha=alpha,
        accuracy=acc.per_principle,
        accuracy_n=acc.n,
        accuracy_ci=dict(zip(PRINCIPLES, acc.intervals[:-1], strict=True)),
        accuracy_average=acc.average,
        accuracy_average_ci=acc.intervals[-1],
        decision_accuracy=decision.accuracy,
        decision_accuracy_ci=decision.interval,
        decision_n=decision.n,
        confusion=decision.confusion,
        settings=settings,
    )


def _nanmean(values: Sequence[float]) -> float:
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    return float(arr.mean()) if arr.size else math.nan


def _nanmean_axis(a: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
    """Means along ``axis`` ignoring NaN; NaN where all are NaN (without numpy's warning)."""
    ok = ~np.isnan(a)
    n = ok.sum(axis=axis)
    total = np.where(ok, a, 0.0).sum(axis=axis)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def awaiting_report(
    manifest: Mapping[str, Any], ratings_found: Sequence[str], ratings_dir: str
) -> tuple[dict[str, Any], str, pd.DataFrame]:
    """Metrics, Markdown and an empty-valued table for when no annotation exists yet.

    No statistic is computed or guessed: the table keeps the Table 4 rows with empty
    values, and the report says which packets await annotation and where files go.
    """
    annotators = list(manifest.get("annotators", []))
    awaiting = [a for a in annotators if a not in set(ratings_found)]
    n_items = len(manifest.get("item_ids", []))
    metrics = {
        "status": "awaiting_annotations",
        "n_items": n_items,
        "n_packets": len(annotators),
        "n_annotation_files": len(ratings_found),
        "packets_awaiting": awaiting,
        "ratings_dir": ratings_dir,
        "sample": manifest.get("sample", {}),
    }
    lines = [
        "# Table 4: human agreement and human vs LLM filter",
        "",
        f"**Awaiting annotations.** No annotation file in `{ratings_dir}` yet, so no "
        "agreement statistic is reported.",
        "",
        f"{n_items} items in each of {len(annotators)} packets; awaiting: "
        + (", ".join(f"`{a}`" for a in awaiting) or "none")
        + ".",
        "",
        "Annotate with `python -m prescient annotate serve --annotator NAME` (or fill the "
        "packet CSV and run `python -m prescient annotate import`), then `dvc repro`.",
        "",
    ]
    table = pd.DataFrame(
        [{"row": k, "metric": PRINCIPLE_LABELS[k]} for k in PRINCIPLES]
        + [
            {"row": "average", "metric": "Average"},
            {"row": "accept_decision", "metric": "Accept decision"},
        ],
        columns=list(TABLE_COLUMNS),
    )
    return metrics, "\n".join(lines), table
