"""LRAE's open precision, recall and F1 (OpenForecast, COLING 2025, appendix B.3,
formula 2), per sample and macro-averaged.

Verdicts of a sample's atomic predictions: ``tp`` (matches gold label ``k``), ``mtp``
(matches no label but the evidence supports it), ``fp`` (neither), ``duplicate`` (a
near-duplicate of an earlier prediction, dropped before judging), ``truncated`` (the last
item of a reply cut at its token limit, incomplete, not judged) and ``repeat`` (matches a
label an earlier prediction already matched). A label matched twice counts once: TP is
the number of distinct labels matched, FN the labels never matched. ``repeat_match``
decides what a repeat is: ``ignore`` (neither true nor false) or ``false_positive`` (what
the paper's code does: its precision divides by every prediction).

    P = (TP + MTP) / (TP + MTP + FP)      R = (TP + MTP) / (TP + MTP + FN)
    F1 = 2 P R / (P + R)

A sample without predictions scores 0 (P = R = F1 = 0), as in the paper's code.
Scores are macro-averaged over samples, with percentile bootstrap intervals over samples
(none from a single sample).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TP, MTP, FP, DUPLICATE, TRUNCATED, REPEAT = "tp", "mtp", "fp", "duplicate", "truncated", "repeat"
NOT_JUDGED: frozenset[str] = frozenset({DUPLICATE, TRUNCATED})
"""Verdicts given before judging; such predictions count nowhere."""


@dataclass(frozen=True)
class Counts:
    """A sample's counts (repeats already resolved by ``repeat_match``)."""

    tp: int
    mtp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        judged = self.tp + self.mtp + self.fp
        return (self.tp + self.mtp) / judged if judged else 0.0

    @property
    def recall(self) -> float:
        total = self.tp + self.mtp + self.fn
        return (self.tp + self.mtp) / total if total else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r > 0 else 0.0


def count(
    verdicts: Sequence[str], labels: Sequence[int | None], n_labels: int, repeat_match: str
) -> Counts:
    """A sample's counts from its atomic predictions' verdicts.

    Args:
        verdicts: one of ``tp``, ``mtp``, ``fp``, ``duplicate``, ``truncated`` or
            ``repeat`` per atomic prediction.
        labels: the matched gold label (1-based) of each ``tp`` / ``repeat``, else None.
        n_labels: number of gold labels.
        repeat_match: ``ignore`` or ``false_positive``.
    """
    matched = {lab for v, lab in zip(verdicts, labels, strict=True) if v == TP}
    if len(matched) != sum(v == TP for v in verdicts):
        raise ValueError("two tp verdicts name the same label; the later one is a repeat")
    repeats = sum(v == REPEAT for v in verdicts)
    fp = sum(v == FP for v in verdicts) + (repeats if repeat_match == "false_positive" else 0)
    return Counts(
        tp=len(matched),
        mtp=sum(v == MTP for v in verdicts),
        fp=fp,
        fn=n_labels - len(matched),
    )


MIN_BOOTSTRAP_SAMPLES = 2
"""The fewest samples a bootstrap interval is computed from: every resample of one sample
is that sample, so its interval would be the value itself ("100.00 [100.00, 100.00]")."""


@dataclass(frozen=True)
class Mean:
    """A macro average with its bootstrap interval (NaN bounds: no reps, or fewer than
    :data:`MIN_BOOTSTRAP_SAMPLES` samples)."""

    value: float
    low: float
    high: float
    n: int


def macro(values: Sequence[float], reps: int, confidence: float, seed: int) -> Mean:
    """Mean over samples and its percentile bootstrap interval (samples resampled); no
    interval (NaN bounds) from fewer than :data:`MIN_BOOTSTRAP_SAMPLES` samples."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return Mean(float("nan"), float("nan"), float("nan"), 0)
    if reps <= 0 or x.size < MIN_BOOTSTRAP_SAMPLES:
        return Mean(float(x.mean()), float("nan"), float("nan"), int(x.size))
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(reps, x.size))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Mean(float(x.mean()), float(low), float(high), int(x.size))
