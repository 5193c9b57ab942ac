"""The proper scores and calibration measures, each declared once.

A declaration names a measure, says what it reads, which way is better and where its
definition comes from, and holds the one function that computes it (the arithmetic
itself is :mod:`prescient.proper_scores`'). Everything that reports a measure reads it
from here, so that the score stage's per-forecast columns, the ``analyze`` stage's
``proper_scores`` table and both stages' metrics cannot disagree on a definition, and a
new measure is one declaration in this module (and its test):

- :class:`ItemScore`: a proper score of each forecast, averaged over a group: a column
  of the scores table (rounded per row), a column of ``proper_scores`` with its
  bootstrap interval, and a key of the metrics. It reads the forecast probabilities
  over the answers and the outcome (:data:`READS_FORECAST`).
- :class:`Skill`: an item score's skill against a reference forecast,
  ``1 - score / reference score`` (:func:`prescient.proper_scores.skill`), with the
  reference's own score beside it.
- :class:`CalibrationMeasure`: a measure of the binary forecast a group's calibration
  reads and its 0/1 outcome (:data:`READS_BINARY`), over ``bins`` reliability bins; one
  or more columns, the first with a bootstrap interval where the measure can resample.

:func:`register` adds a declaration (a study's own score); :func:`registered` adds some
for the length of a ``with`` block, as a test does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from prescient.proper_scores import (
    Draws,
    Strategy,
    ece,
    ece_replicates,
    log_of,
    murphy,
    squared_error,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Direction = Literal["lower", "higher"]
LOWER: Direction = "lower"
HIGHER: Direction = "higher"
READS_FORECAST = "forecast probabilities over the answers and the outcome"
READS_BINARY = "binary forecast of the calibration and its 0/1 outcome, binned"

ItemRule = Callable[[FloatArray, IntArray, bool], FloatArray]
"""``(probs, outcome, mc) -> scores``: an ``(n, k)`` matrix of forecasts (rows summing to
1), the index of each row's outcome, and whether the questions are multiple choice."""
ReferenceRule = Callable[[FloatArray, int], FloatArray]
"""``(freq, k) -> forecast``: the reference forecast over ``k`` options of a question,
given how often each option position resolved among the questions of its type."""
CalibrationRule = Callable[[FloatArray, FloatArray, int], tuple[float, ...]]
"""``(p, y, bins) -> values``: one value per column of the measure."""
Replicates = Callable[[FloatArray, FloatArray, int], Callable[[Draws], FloatArray]]
"""``(p, y, bins) -> on``, prepared once per group: ``on(draws)`` is the measure on each
resample of a block of draws (:class:`~prescient.proper_scores.Draws`)."""


@dataclass(frozen=True)
class ItemScore:
    """A proper score of each forecast (module doc).

    Attributes:
        name: its column in the scores table and ``proper_scores``, its metrics key.
        interval: stem of its bootstrap interval's columns (``<interval>_low``,
            ``<interval>_high``).
        direction: whether lower or higher is better.
        definition: the rule in words and where it comes from.
        rule: the score of each forecast (:data:`ItemRule`).
        label: its column's heading in the report (the name where empty).
        reads: what the rule reads.
    """

    name: str
    interval: str
    direction: Direction
    definition: str
    rule: ItemRule
    label: str = ""
    reads: str = READS_FORECAST


@dataclass(frozen=True)
class Skill:
    """An item score's skill against a reference forecast (module doc).

    Attributes:
        name: its column (``<name>_low`` and ``<name>_high`` hold its interval).
        reference_column: the column of the reference forecast's mean score.
        score: the :class:`ItemScore` it is the skill of, by name.
        direction: whether lower or higher is better.
        definition: the reference in words.
        reference: the reference forecast (:data:`ReferenceRule`).
        label: its column's heading in the report (the name where empty).
    """

    name: str
    reference_column: str
    score: str
    direction: Direction
    definition: str
    reference: ReferenceRule
    label: str = ""
    reads: str = READS_FORECAST


@dataclass(frozen=True)
class CalibrationMeasure:
    """A calibration measure of a binary forecast (module doc).

    Attributes:
        name: the measure; ``columns[0]`` is its headline column.
        columns: the columns it writes, in order.
        direction: whether lower or higher is better (of the headline).
        definition: the measure in words and where it comes from.
        rule: its values (:data:`CalibrationRule`).
        replicates: the headline on bootstrap resamples, or None for no interval.
        labels: each column's heading in the report (the column names where empty).
    """

    name: str
    columns: tuple[str, ...]
    direction: Direction
    definition: str
    rule: CalibrationRule
    replicates: Replicates | None = None
    labels: tuple[str, ...] = ()
    reads: str = READS_BINARY

    def headings(self) -> tuple[str, ...]:
        """The report's heading of each column."""
        return self.labels or self.columns


Metric = ItemScore | Skill | CalibrationMeasure


def brier(m: FloatArray, y: IntArray, mc: bool) -> FloatArray:
    """Binary ``(P(Yes) - y)^2`` for a true/false question, Brier's sum over the options
    for multiple choice, even of two options. The binary score is computed as half the
    sum over both options, one arithmetic for a single row and a whole table, so the
    score stage's rows and the analysis's means agree to the last bit."""
    sq = squared_error(m, y)
    return sq / 2.0 if m.shape[1] == 2 and not mc else sq


def log_score(m: FloatArray, y: IntArray, mc: bool) -> FloatArray:
    """``-ln max(p_y, LOG_CLIP)``, the same for every question type."""
    return log_of(m, y)


def uninformed(freq: FloatArray, k: int) -> FloatArray:
    """The uniform forecast over the question's options."""
    return np.full(k, 1.0 / k)


def base_rate(freq: FloatArray, k: int) -> FloatArray:
    """Each option position's share of the answers among the questions of its type,
    renormalised over the question's own options (uniform where none is known)."""
    f = freq[:k]
    return f / f.sum() if f.sum() > 0 else np.full(k, 1.0 / k)


def _ece_by(strategy: Strategy) -> CalibrationRule:
    def rule(p: FloatArray, y: FloatArray, bins: int) -> tuple[float, ...]:
        return (ece(p, y, bins, strategy),)

    return rule


def murphy_parts(p: FloatArray, y: FloatArray, bins: int) -> tuple[float, ...]:
    """Murphy's decomposition over equal-width bins; what rounding leaves of an exact 0
    within-bin remainder (forecasts on a grid) reads as 0."""
    parts = murphy(p, y, bins)
    within = round(parts.within_bin, 12) + 0.0
    return (parts.brier, parts.reliability, parts.resolution, parts.uncertainty, within)


BRIER = ItemScore(
    "brier",
    "brier",
    LOWER,
    "Brier (1950), Monthly Weather Review 78(1): (P(Yes) - y)^2 on true/false questions, "
    "from 0 to 1; the sum over the options of (p - 1[option resolved])^2 on multiple "
    "choice, from 0 to 2.",
    brier,
    "Brier",
)
LOG_SCORE = ItemScore(
    "log_score",
    "log",
    LOWER,
    "Good (1952), JRSS B 14(1): -ln of the probability given to the answer that "
    "resolved, clipped below at 1e-6 (at most 13.8).",
    log_score,
    "Log score",
)
SKILL_UNIFORM = Skill(
    "skill_uniform",
    "brier_uniform",
    "brier",
    HIGHER,
    "Brier skill against the uninformed forecast (0.5; uniform over the options).",
    uninformed,
    "Skill vs uninformed",
)
SKILL_BASE = Skill(
    "skill_base",
    "brier_base",
    "brier",
    HIGHER,
    "Brier skill against the base rate of the row's own questions (TF: the share of Yes; "
    "MC: each position's share of the answers), held fixed under resampling.",
    base_rate,
    "Skill vs base rate",
)
ECE = CalibrationMeasure(
    "ece",
    ("ece",),
    LOWER,
    "Expected calibration error (Naeini et al. 2015, AAAI): the question-weighted mean "
    "of |observed frequency - mean forecast| over equal-width bins.",
    _ece_by("uniform"),
    ece_replicates,
    ("ECE (equal width)",),
)
ECE_MASS = CalibrationMeasure(
    "ece_mass",
    ("ece_mass",),
    LOWER,
    "Expected calibration error over equal-mass bins (edges at the forecasts' quantiles).",
    _ece_by("quantile"),
    labels=("ECE (equal mass)",),
)
MURPHY = CalibrationMeasure(
    "murphy",
    ("murphy_brier", "reliability", "resolution", "uncertainty", "within_bin"),
    LOWER,
    "Murphy (1973), J. Applied Meteorology 12(4): the binary Brier score = reliability - "
    "resolution + uncertainty + the within-bin remainder, over equal-width bins.",
    murphy_parts,
    labels=("Binary Brier (Murphy)", "Reliability", "Resolution", "Uncertainty", "Within bins"),
)

_DECLARED: list[Metric] = [BRIER, LOG_SCORE, SKILL_UNIFORM, SKILL_BASE, ECE, ECE_MASS, MURPHY]


def declared() -> tuple[Metric, ...]:
    """Every declaration, in the order the tables show them."""
    return tuple(_DECLARED)


def item_scores() -> tuple[ItemScore, ...]:
    """The declared :class:`ItemScore` s, in order."""
    return tuple(m for m in _DECLARED if isinstance(m, ItemScore))


def skills() -> tuple[Skill, ...]:
    """The declared :class:`Skill` s, in order."""
    return tuple(m for m in _DECLARED if isinstance(m, Skill))


def calibration_measures() -> tuple[CalibrationMeasure, ...]:
    """The declared :class:`CalibrationMeasure` s, in order."""
    return tuple(m for m in _DECLARED if isinstance(m, CalibrationMeasure))


def item_score(name: str) -> ItemScore:
    """The item score called ``name`` (KeyError when none is)."""
    for score in item_scores():
        if score.name == name:
            return score
    raise KeyError(f"no item score {name!r}; declared: {[s.name for s in item_scores()]}")


def register(metric: Metric) -> Metric:
    """Declare one more measure, shown after those of its kind.

    Raises:
        ValueError: a measure of that name is declared already, or a skill names an
            item score that is not.
    """
    if any(m.name == metric.name for m in _DECLARED):
        raise ValueError(f"a measure named {metric.name!r} is declared already")
    if isinstance(metric, Skill):
        item_score(metric.score)
    _DECLARED.append(metric)
    return metric


@contextmanager
def registered(*metrics: Metric) -> Iterator[None]:
    """:func:`register` ``metrics`` for the ``with`` block, and withdraw them after."""
    added: list[Metric] = []
    try:
        for metric in metrics:
            added.append(register(metric))
        yield
    finally:
        for metric in added:
            _DECLARED.remove(metric)
