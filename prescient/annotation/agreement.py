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
The result is laid out as Table 4 by :mod:`prescient.annotation.agreement_report`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from prescient.annotation.agreement_report import AgreementResult
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
from prescient.vocab import PRINCIPLES, SCORE_VALUES, accepted


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
        annotators: validated ratings (see ``annotators.load_ratings``), at least 2.
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
