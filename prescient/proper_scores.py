"""Proper scores of probabilistic forecasts, calibration, and paired comparisons.

Beyond the three papers, which score the label a model picks (accuracy): forecasting
practice scores the probability behind it. Each function owns one rule and works on
plain arrays, so it can be checked by hand; per-item scores are kept apart from their
aggregation (a caller averages them over whatever group it reports).

Conventions, stated once:

- A forecast is a probability matrix ``probs`` of shape ``(n, k)``, one row per
  question over its ``k`` allowed answers in prompt order (rows sum to 1), and
  ``outcome`` the index of the answer that resolved. A true/false question has the
  options (Yes, No), index 0 = Yes as everywhere in the evaluation; :func:`tf_matrix`
  builds its matrix from P(Yes).
- **Brier score.** Binary questions: ``(p - y)^2`` on P(Yes), in [0, 1], the forecasting
  field's convention (equal to scikit-learn's ``brier_score_loss``). Multiple choice:
  Brier's original sum over the options, ``sum_k (p_k - 1[y = k])^2``, in [0, 2]. Lower
  is better.
- **Log score.** ``-ln p_y``, the probability given to what happened, clipped below at
  ``clip`` (default 1e-6, so a forecast of 0 for the outcome scores 13.8 instead of
  infinity). Lower is better.
- **Skill** against a reference forecast: ``1 - score / reference_score``; 0 is no better
  than the reference, 1 is perfect.
"""

from __future__ import annotations

import concurrent.futures
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from prescient.threads import thread_count

FloatArray = npt.NDArray[np.float64]
LOG_CLIP = 1e-6
Strategy = Literal["uniform", "quantile"]
RESAMPLE_BLOCK = 1 << 18
"""At most about this many resampled positions are drawn and gathered at once."""


def tf_matrix(p_yes: npt.ArrayLike) -> FloatArray:
    """The ``(n, 2)`` forecast matrix ``[P(Yes), P(No)]`` of true/false questions."""
    p = np.asarray(p_yes, dtype=float).reshape(-1)
    return np.column_stack([p, 1.0 - p])


def _checked(probs: npt.ArrayLike, outcome: npt.ArrayLike) -> tuple[FloatArray, np.ndarray]:
    m = np.asarray(probs, dtype=float)
    y = np.asarray(outcome).astype(int).reshape(-1)
    if m.ndim != 2 or m.shape[0] != y.size:
        raise ValueError(f"probs must be (n, k) with n = {y.size} outcomes, got {m.shape}")
    if y.size and (y.min() < 0 or y.max() >= m.shape[1]):
        raise ValueError(f"outcome indices must lie in 0..{m.shape[1] - 1}")
    if np.any(m < 0) or np.any(m > 1) or not np.allclose(m.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("each row of probs must be probabilities summing to 1")
    return m, y


def checked(probs: npt.ArrayLike, outcome: npt.ArrayLike) -> tuple[FloatArray, np.ndarray]:
    """``probs`` as an ``(n, k)`` matrix of probabilities and ``outcome`` as indices into
    its rows, refused (ValueError) when they are not a forecast and its outcomes."""
    return _checked(probs, outcome)


def squared_error(m: FloatArray, y: np.ndarray) -> FloatArray:
    """Brier's sum over the options, ``sum_k (p_k - 1[y = k])^2``, of each row of a
    checked matrix (:func:`brier_items` halves it for two options)."""
    hit = np.zeros_like(m)
    hit[np.arange(y.size), y] = 1.0
    sq: FloatArray = ((m - hit) ** 2).sum(axis=1)
    return sq


def brier_items(probs: npt.ArrayLike, outcome: npt.ArrayLike) -> FloatArray:
    """Each question's Brier score (module doc: binary on P(Yes), else the sum)."""
    m, y = _checked(probs, outcome)
    sq = squared_error(m, y)
    return sq / 2.0 if m.shape[1] == 2 else sq


def log_of(m: FloatArray, y: np.ndarray, clip: float = LOG_CLIP) -> FloatArray:
    """``-ln max(p_y, clip)`` of each row of a checked matrix."""
    # math.log (the C library's, one code path) rather than numpy's, whose vectorised
    # logarithm differs in the last bit between AVX2 and AVX-512 machines.
    picked = m[np.arange(y.size), y]
    return np.array([-math.log(max(float(p), clip)) for p in picked], dtype=float)


def log_items(probs: npt.ArrayLike, outcome: npt.ArrayLike, clip: float = LOG_CLIP) -> FloatArray:
    """Each question's log score ``-ln max(p_y, clip)``."""
    m, y = _checked(probs, outcome)
    return log_of(m, y, clip)


def skill(score: float, reference: float) -> float:
    """``1 - score / reference`` (NaN when the reference scores 0: nothing to beat)."""
    return 1.0 - score / reference if reference > 0 else math.nan


@dataclass(frozen=True)
class Reliability:
    """A reliability diagram's bins of a binary forecast (empty bins dropped).

    Attributes:
        forecast: mean forecast probability in each bin.
        observed: share of the bin's questions that resolved Yes.
        count: questions in each bin.
        edges: the bin edges used (``bins + 1`` values from 0 to 1).
    """

    forecast: FloatArray
    observed: FloatArray
    count: npt.NDArray[np.int64]
    edges: FloatArray


def reliability(
    p_yes: npt.ArrayLike, yes: npt.ArrayLike, bins: int = 10, strategy: Strategy = "uniform"
) -> Reliability:
    """Bin forecasts by probability: ``uniform`` bins of equal width on [0, 1], or
    ``quantile`` bins holding equal numbers of forecasts (edges at the forecasts'
    quantiles). A forecast on an inner edge falls in the bin below it, as in
    scikit-learn's ``calibration_curve``, whose bins these are."""
    p = np.asarray(p_yes, dtype=float).reshape(-1)
    y = np.asarray(yes, dtype=float).reshape(-1)
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, bins + 1)
    else:
        edges = np.percentile(p, np.linspace(0.0, 100.0, bins + 1)) if p.size else np.zeros(1)
    which = np.searchsorted(edges[1:-1], p, side="left")
    n_bins = max(len(edges) - 1, 1)
    count = np.bincount(which, minlength=n_bins)
    keep = count > 0
    f = np.bincount(which, weights=p, minlength=n_bins)[keep] / count[keep]
    o = np.bincount(which, weights=y, minlength=n_bins)[keep] / count[keep]
    return Reliability(f, o, count[keep].astype(np.int64), np.asarray(edges, dtype=float))


def ece(
    p_yes: npt.ArrayLike, yes: npt.ArrayLike, bins: int = 10, strategy: Strategy = "uniform"
) -> float:
    """Expected calibration error: ``sum_b n_b / N * |observed_b - forecast_b|``."""
    r = reliability(p_yes, yes, bins, strategy)
    n = r.count.sum()
    return float((r.count * np.abs(r.observed - r.forecast)).sum() / n) if n else math.nan


def uniform_bins(p: FloatArray, bins: int) -> npt.NDArray[np.int64]:
    """Equal-width bin of each forecast, as :func:`reliability` bins them."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    return np.searchsorted(edges[1:-1], p, side="left").astype(np.int64)


def ece_replicates(p: FloatArray, y: FloatArray, bins: int) -> Callable[[Draws], FloatArray]:
    """Equal-width ECE on resamples (:class:`Draws`), prepared once per group: the bins
    do not move, so a resample's ``ECE = sum_b |sum (y - p)| / n`` over its questions in
    each bin, each question weighted by how often it was drawn (:attr:`Draws.counts`);
    with the questions put in bin order once, a bin's sum is a run of them."""
    n = p.size
    which = uniform_bins(p, bins)
    order = np.argsort(which, kind="stable")
    starts = np.flatnonzero(np.r_[True, which[order][1:] != which[order][:-1]])
    gap = (y - p)[order]

    def on(draws: Draws) -> FloatArray:
        per_bin = np.add.reduceat(draws.counts[:, order] * gap, starts, axis=1)
        out: FloatArray = np.abs(per_bin).sum(axis=1) / n
        return out

    return on


@dataclass(frozen=True)
class Murphy:
    """Murphy's decomposition of the binary Brier score over reliability bins.

    ``brier = reliability - resolution + uncertainty + within_bin``: the first three are
    Murphy's terms on the bins' mean forecasts; ``within_bin`` is what binning leaves
    out (0 when every forecast in a bin is the same, as with forecasts on a grid), so the
    parts always add up to the Brier score.
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin: float


def murphy(
    p_yes: npt.ArrayLike, yes: npt.ArrayLike, bins: int = 10, strategy: Strategy = "uniform"
) -> Murphy:
    """The decomposition (class doc) of true/false forecasts ``p_yes`` against ``yes``."""
    p = np.asarray(p_yes, dtype=float).reshape(-1)
    y = np.asarray(yes, dtype=float).reshape(-1)
    if not p.size:
        return Murphy(math.nan, math.nan, math.nan, math.nan, math.nan)
    r = reliability(p, y, bins, strategy)
    n, base = p.size, float(y.mean())
    brier = float(((p - y) ** 2).mean())
    rel = float((r.count * (r.forecast - r.observed) ** 2).sum() / n)
    res = float((r.count * (r.observed - base) ** 2).sum() / n)
    unc = base * (1.0 - base)
    return Murphy(brier, rel, res, unc, brier - (rel - res + unc))


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test of two models' correctness on the same questions.

    Attributes:
        only_a: questions model A got right and B wrong.
        only_b: questions B got right and A wrong.
        p: two-sided exact p-value (binomial on the discordant pairs, ``p = 1/2``).
    """

    only_a: int
    only_b: int
    p: float


def mcnemar(a_correct: npt.ArrayLike, b_correct: npt.ArrayLike) -> McNemar:
    """Two-sided exact McNemar test: ``min(1, 2 P(X <= min(b, c)))`` with
    ``X ~ Binomial(b + c, 1/2)`` (1 when there is no discordant pair)."""
    a = np.asarray(a_correct, dtype=bool).reshape(-1)
    b = np.asarray(b_correct, dtype=bool).reshape(-1)
    if a.size != b.size:
        raise ValueError(f"paired arrays differ in length: {a.size} and {b.size}")
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    n, k = only_a + only_b, min(only_a, only_b)
    # integer arithmetic: 2.0**n overflows a float from 1024 discordant pairs on, and
    # int / int division rounds the exact ratio once
    return McNemar(only_a, only_b, min(1.0, 2.0 * (_lower_tail_count(n, k) / 2**n)))


def _lower_tail_count(n: int, k: int) -> int:
    """``sum(comb(n, i) for i in range(k + 1))``, exactly, in time linear in ``k`` big-int
    steps (each coefficient from the previous one, not each from scratch)."""
    term = total = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return total


@dataclass(frozen=True)
class PairedDifference:
    """A paired bootstrap of the mean per-question difference ``a - b``.

    Attributes:
        mean: the observed mean difference.
        low, high: percentile interval of the resampled means.
        p: two-sided bootstrap p-value, ``2 min(P(d* <= 0), P(d* >= 0))`` capped at 1.
        n: paired questions.
    """

    mean: float
    low: float
    high: float
    p: float
    n: int


def resamples(
    n: int, reps: int, seed: int, block: int = RESAMPLE_BLOCK
) -> Iterator[npt.NDArray[np.int64]]:
    """The bootstrap's draws, ``np.random.default_rng(seed).integers(0, n, size=(reps,
    n))`` (one resample of ``n`` question positions per row), a block of whole rows at
    a time: the same draws in the same order, since the generator's stream does not
    depend on how the draws are split, while what is held stays near ``block`` positions
    whatever ``n`` (one matrix over every question at the paper's size is hundreds of
    megabytes per group, and touching fresh memory costs more than the arithmetic)."""
    rng = np.random.default_rng(seed)
    rows = max(1, block // max(n, 1))
    for start in range(0, reps, rows):
        yield rng.integers(0, n, size=(min(rows, reps - start), n))


def resampled_means(columns: Sequence[FloatArray], reps: int, seed: int) -> list[FloatArray]:
    """The mean of each column (the same questions, in the same order) on each of
    ``reps`` resamples, every column on the same draws (:func:`resamples`)."""
    n = columns[0].size if columns else 0
    out = [np.empty(reps) for _ in columns]
    named = {str(i): x for i, x in enumerate(columns)}
    into = means_into(named, {str(i): means for i, means in enumerate(out)})
    on_resamples([DrawJob(n, seed, [into])], reps, threads=1)
    return out


class Draws:
    """One block of the bootstrap's draws (:func:`resamples`): ``idx``, a row of question
    positions per replicate, for the replicates ``rows`` of the whole; and
    :attr:`counts`, how often each question was drawn in each of them."""

    __slots__ = ("_counts", "idx", "rows")

    def __init__(self, idx: npt.NDArray[np.int64], rows: slice) -> None:
        self.idx, self.rows = idx, rows
        self._counts: npt.NDArray[np.int64] | None = None

    @property
    def counts(self) -> npt.NDArray[np.int64]:
        """Replicates x questions: each question's draws in each replicate (counted once,
        when first read)."""
        if self._counts is None:
            reps, n = self.idx.shape
            flat = (np.arange(reps)[:, None] * n + self.idx).ravel()
            self._counts = np.bincount(flat, minlength=reps * n).reshape(reps, n)
        return self._counts


Consumer = Callable[[Draws], None]
"""Reads one block of draws."""


def means_into(values: Mapping[str, FloatArray], out: Mapping[str, FloatArray]) -> Consumer:
    """A consumer writing the mean of each of ``values`` on every resample to ``out``
    (by name): the gathered values' mean, as :func:`resampled_means` computes it."""

    def consume(draws: Draws) -> None:
        for name, means in out.items():
            means[draws.rows] = values[name][draws.idx].mean(axis=1)

    return consume


@dataclass(frozen=True)
class DrawJob:
    """Measures of one question set read off the same resamples: ``n`` questions, the
    draws seeded with ``seed``, each consumer one or more measures."""

    n: int
    seed: int
    consumers: Sequence[Consumer]


def on_resamples(jobs: Sequence[DrawJob], reps: int, threads: int | None = None) -> None:
    """Give every consumer of every job each block of its job's :func:`resamples` in
    order, ``reps`` replicates in all. The consumers are dealt to ``threads`` threads
    (:func:`~prescient.threads.thread_count` when None), and each thread draws the
    blocks of its own jobs: a set's draws are made once per thread, not once per
    measure, and what a consumer reads is the same on any number of threads."""
    work = [(j, c) for j, job in enumerate(jobs) for c in job.consumers]
    count = min(thread_count() if threads is None else max(1, threads), len(work))

    def run(share: Sequence[tuple[int, Consumer]]) -> None:
        by_job: dict[int, list[Consumer]] = {}
        for j, consumer in share:
            by_job.setdefault(j, []).append(consumer)
        for j, consumers in by_job.items():
            start = 0
            for idx in resamples(jobs[j].n, reps, jobs[j].seed):
                draws = Draws(idx, slice(start, start + idx.shape[0]))
                for consumer in consumers:
                    consumer(draws)
                start = draws.rows.stop

    if count <= 1:
        run(work)
        return
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        for done in [pool.submit(run, work[t::count]) for t in range(count)]:
            done.result()


def paired_bootstrap(
    a: npt.ArrayLike, b: npt.ArrayLike, reps: int, seed: int, confidence: float = 0.95
) -> PairedDifference:
    """Resample questions with replacement (the same draw for both models, so the
    comparison keeps the pairing) and read the difference of means off the replicates."""
    return paired_bootstraps([(a, b)], reps, seed, confidence)[0]


def paired_bootstraps(
    pairs: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    reps: int,
    seed: int,
    confidence: float = 0.95,
) -> list[PairedDifference]:
    """:func:`paired_bootstrap` of several measures of the same questions (each pair
    ``a``, ``b`` of equal length, every pair as long as the others) on one draw: each
    result equals that pair's own :func:`paired_bootstrap` with this seed."""
    diffs = [
        np.asarray(a, dtype=float).reshape(-1) - np.asarray(b, dtype=float).reshape(-1)
        for a, b in pairs
    ]
    n = diffs[0].size if diffs else 0
    if any(x.size != n for x in diffs):
        raise ValueError(f"paired measures differ in length: {[x.size for x in diffs]}")
    if n == 0 or reps < 1:
        return [
            PairedDifference(float(x.mean()) if n else math.nan, math.nan, math.nan, math.nan, n)
            for x in diffs
        ]
    return [
        _read_off(x, means, confidence)
        for x, means in zip(diffs, resampled_means(diffs, reps, seed), strict=True)
    ]


def paired_difference(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    a_means: FloatArray,
    b_means: FloatArray,
    confidence: float = 0.95,
) -> PairedDifference:
    """:func:`paired_bootstrap` of ``a`` and ``b`` (the same questions, in order) from
    each one's means on the same resamples (``a_means``, ``b_means``, one per replicate):
    a replicate's mean difference is the difference of its means."""
    x = np.asarray(a, dtype=float).reshape(-1) - np.asarray(b, dtype=float).reshape(-1)
    if x.size == 0 or a_means.size == 0:
        return PairedDifference(
            float(x.mean()) if x.size else math.nan, math.nan, math.nan, math.nan, x.size
        )
    return _read_off(x, a_means - b_means, confidence)


def _read_off(x: FloatArray, means: FloatArray, confidence: float) -> PairedDifference:
    """The observed mean difference ``x`` with the interval and p-value of its
    replicates ``means``."""
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    p = min(1.0, 2.0 * min(float((means <= 0).mean()), float((means >= 0).mean())))
    return PairedDifference(float(x.mean()), float(low), float(high), p, x.size)


def holm(p_values: npt.ArrayLike) -> FloatArray:
    """Holm's step-down adjustment of a family of p-values (same order as given): the
    i-th smallest is multiplied by ``m - i`` (i from 0), made non-decreasing, capped at 1."""
    p = np.asarray(p_values, dtype=float).reshape(-1)
    order = np.argsort(p, kind="stable")
    m = p.size
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order]) if m else p
    out = np.empty_like(p)
    out[order] = np.minimum(stepped, 1.0)
    return out
