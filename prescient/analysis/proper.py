"""Proper scores of the forecasts per group, and the Brier score per month.

Beyond the three papers, which score the label a model picks. Every measure is one
declaration of :mod:`prescient.proper_metrics` (its rule from
:mod:`prescient.proper_scores`); this module groups the forecasts of
:func:`~.forecasts.forecast_frame` and reads each declared measure off each group, so the
columns below follow the declarations:

- :func:`proper_scores_table` (``proper_scores``): per model x setting x RAG cutoff x
  elicitation x question type (TF, MC, and ``all`` pooling both): n, accuracy with its
  Wilson interval, then every declared measure: the mean item scores (Brier, log score),
  the skills against reference forecasts (Brier skill against the uninformed forecast,
  0.5 / uniform over the options, and against the question set's base rate: TF the
  share of Yes, MC the options' frequencies by position, over the row's own questions,
  held fixed under resampling), and the calibration measures (ECE over equal-width and
  equal-mass bins, Murphy's decomposition), with percentile bootstrap intervals where a
  measure declares one (questions resampled with replacement,
  ``analysis.proper.bootstrap``; rows over the same questions read the same resamples,
  :func:`_replicates`).
- :func:`monthly_brier` (``proper_monthly``): the mean Brier score per resolution month
  with its bootstrap interval and moving average (``analysis.moving_average``), the
  probabilistic analogue of Daily Oracle's Fig. 3.

The reliability diagrams (``proper_reliability``) and what calibration reads are in
:mod:`.proper_calibration`, the paired model comparisons (``proper_paired``) in
:mod:`.proper_paired`. Murphy's parts add up to the binary forecast's Brier score that
calibration reads (``murphy_brier``), which for MC and ``all`` rows is not the row's
``brier``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from prescient import proper_metrics as declared
from prescient import proper_scores
from prescient.analysis import proper_groups
from prescient.analysis.monthly import month_columns, moving_average
from prescient.analysis.proper_calibration import calibration_kind, calibration_pairs
from prescient.analysis.proper_groups import GROUP_KEYS, ordered, with_all
from prescient.analysis.proper_groups import interval as percentile_interval
from prescient.analysis.schema import CELL_KEYS
from prescient.analysis.settings import MovingAverageSettings
from prescient.evaluation.forecasts import UNIFORM_FILL
from prescient.kept import DIGEST_SIZE, KeptStore, code_of, digest
from prescient.proper_metrics import BRIER, LOG_SCORE
from prescient.proper_scores import checked, means_into, resampled_means, skill
from prescient.seeds import derive_seed
from prescient.settings import Bootstrap
from prescient.stats import wilson_interval
from prescient.threads import ordered_map
from prescient.vocab import MC, QTYPES, TF

FloatArray = npt.NDArray[np.float64]
Row = dict[str, Any]


def score_columns() -> list[str]:
    """Columns of ``proper_scores``, from the declared measures (module doc)."""
    out = [*GROUP_KEYS, "n", "n_uniform_fill", "accuracy", "accuracy_low", "accuracy_high"]
    for s in declared.item_scores():
        out += [s.name, f"{s.interval}_low", f"{s.interval}_high"]
    for k in declared.skills():
        out += [k.reference_column, k.name, f"{k.name}_low", f"{k.name}_high"]
    out.append("calibration")
    for c in declared.calibration_measures():
        head = [f"{c.columns[0]}_low", f"{c.columns[0]}_high"] if c.replicates else []
        out += [c.columns[0], *head, *c.columns[1:]]
    return out


def _intervals() -> list[str]:
    """The stem of every interval of ``proper_scores`` (``<stem>_low``, ``<stem>_high``)."""
    return [
        *(s.interval for s in declared.item_scores()),
        *(k.name for k in declared.skills()),
        *(c.columns[0] for c in declared.calibration_measures() if c.replicates),
    ]


MONTHLY_COLUMNS = [
    *GROUP_KEYS,
    "month",
    "month_index",
    "month_start",
    "month_end",
    "n",
    "brier",
    "ci_low",
    "ci_high",
    "log_score",
    "brier_ma",
    "ma_months",
]
"""Columns of ``proper_monthly``."""


# --- per-item arrays --------------------------------------------------------------


def _by_width(probs: Sequence[Sequence[float]]) -> list[np.ndarray]:
    """Row positions grouped by number of options (the scoring rules take a matrix)."""
    widths = np.array([len(p) for p in probs])
    return [np.flatnonzero(widths == k) for k in sorted(set(widths.tolist()))]


def item_values(
    probs: Sequence[Sequence[float]], outcome: npt.ArrayLike, qtype: npt.ArrayLike
) -> dict[str, FloatArray]:
    """Each forecast's score under every declared item score, by name, for questions
    with any number of options (an MC question is scored as such even of two)."""
    n = len(probs)
    out = {s.name: np.zeros(n) for s in declared.item_scores()}
    y = np.asarray(outcome, dtype=np.int64)
    mc = np.asarray(qtype) == MC
    for rows in _by_width(probs):
        m, yr = checked(np.array([probs[i] for i in rows], dtype=float), y[rows])
        for kind in (False, True):
            sel = mc[rows] == kind
            if sel.any():
                for s in declared.item_scores():
                    out[s.name][rows[sel]] = s.rule(m[sel], yr[sel], kind)
    return out


def item_column(name: str) -> str:
    """The column :func:`with_items` gives the item score ``name``."""
    return f"_item_{name}"


def with_items(forecasts: pd.DataFrame) -> pd.DataFrame:
    """The forecasts with every declared item score of each row as a column
    (:func:`item_column`), computed once for the tables that read them; a frame that
    has them is returned as it is."""
    columns = [item_column(s.name) for s in declared.item_scores()]
    if all(c in forecasts.columns for c in columns):
        return forecasts
    items = item_values(
        list(forecasts["probs"]), forecasts["outcome"].to_numpy(int), forecasts["qtype"]
    )
    return forecasts.assign(**{item_column(k): v for k, v in items.items()})


def item_scores(
    probs: Sequence[Sequence[float]], outcome: npt.ArrayLike, qtype: npt.ArrayLike
) -> tuple[FloatArray, ...]:
    """:func:`item_values` in declaration order: ``(brier, log_score)``."""
    return tuple(item_values(probs, outcome, qtype).values())


def reference_values(
    probs: Sequence[Sequence[float]], outcome: npt.ArrayLike, qtype: npt.ArrayLike
) -> dict[str, FloatArray]:
    """Each question's score under every declared skill's reference forecast, by skill
    name; a reference reads the outcome frequency of each option position among the
    given questions of the same type."""
    y = np.asarray(outcome, dtype=np.int64)
    types = np.asarray(qtype)
    width = np.array([len(p) for p in probs])
    out = {k.name: np.zeros(y.size) for k in declared.skills()}
    for kind in (TF, MC):
        rows = np.flatnonzero(types == kind)
        if not rows.size:
            continue
        freq = np.bincount(y[rows], minlength=int(width[rows].max())) / rows.size
        for k in sorted(set(width[rows].tolist())):
            at = rows[width[rows] == k]
            for sk in declared.skills():
                forecast = np.tile(sk.reference(freq, k), (at.size, 1))
                out[sk.name][at] = declared.item_score(sk.score).rule(forecast, y[at], kind == MC)
    return out


# --- proper_scores ----------------------------------------------------------------


def _point_values(
    items: dict[str, FloatArray],
    refs: dict[str, FloatArray],
    p: FloatArray,
    y: FloatArray,
    bins: int,
) -> Row:
    """Every declared measure of one group (without intervals)."""
    row: Row = {s.name: float(items[s.name].mean()) for s in declared.item_scores()}
    for k in declared.skills():
        ref = float(refs[k.name].mean())
        row[k.reference_column] = ref
        row[k.name] = skill(float(items[k.score].mean()), ref)
    for c in declared.calibration_measures():
        row.update(zip(c.columns, c.rule(p, y, bins), strict=True))
    return row


@dataclass
class _Group:
    """One group's point values (a row of ``proper_scores`` without its intervals) and
    what its resamples read."""

    row: Row
    items: dict[str, FloatArray]
    refs: dict[str, FloatArray]
    p: FloatArray
    y: FloatArray
    ids: tuple[str, ...]


def _prepared(part: pd.DataFrame, bins: int) -> _Group:
    """One group's point values and per-question arrays, from its forecasts."""
    probs, outcome = list(part["probs"]), part["outcome"].to_numpy(int)
    correct = part["correct"].to_numpy(bool)
    qtypes = part["_type"].to_numpy(str)
    kind = calibration_kind(part)
    items = {s.name: part[item_column(s.name)].to_numpy(float) for s in declared.item_scores()}
    refs = reference_values(probs, outcome, qtypes)
    p, y = calibration_pairs(probs, outcome, correct, kind)
    n = len(part)
    row: Row = {
        "n": n,
        "n_uniform_fill": int((part["prob_source"] == UNIFORM_FILL).sum()),
        "accuracy": float(correct.mean()),
        "calibration": kind,
        **_point_values(items, refs, p, y, bins),
    }
    low, high = wilson_interval([int(correct.sum())], [n])
    row["accuracy_low"], row["accuracy_high"] = float(low[0]), float(high[0])
    ids = tuple(part["question_id"].astype(str))
    return _Group(row, items, refs, p, y, ids)


def _replicates(
    groups: Sequence[_Group], reps: int, seed: int, bins: int
) -> list[dict[str, FloatArray] | None]:
    """Every declared interval's measure of each group (by stem) on ``reps`` resamples of
    its questions, None for a group of fewer than two.

    Groups over the same questions in the same order (every model and setting asked
    the same questions) read the same resamples, drawn once per set from a seed of the
    questions' ids (:func:`~prescient.proper_scores.on_resamples`), so the models'
    intervals differ by the models, not by their draws; the reference forecasts, which
    read only the questions, are averaged once per set."""
    sets: dict[tuple[str, ...], list[int]] = {}
    for i, g in enumerate(groups):
        if len(g.ids) >= 2:
            sets.setdefault(g.ids, []).append(i)
    means: dict[int, dict[str, FloatArray]] = {}
    calibrated: dict[int, dict[str, FloatArray]] = {}
    ref_means: dict[bytes, dict[str, FloatArray]] = {}
    ref_of: dict[int, bytes] = {}
    jobs: list[proper_scores.DrawJob] = []
    for ids, members in sets.items():
        consumers: list[proper_scores.Consumer] = []
        for i in members:
            g = groups[i]
            means[i] = {s.name: np.empty(reps) for s in declared.item_scores()}
            calibrated[i] = {
                c.columns[0]: np.empty(reps)
                for c in declared.calibration_measures()
                if c.replicates is not None
            }
            consumers += [means_into(g.items, means[i]), _calibration_of(g, calibrated[i], bins)]
            ref_of[i] = digest(
                str(len(jobs)).encode(), *(g.refs[k.name].tobytes() for k in declared.skills())
            )
            if ref_of[i] not in ref_means:
                ref_means[ref_of[i]] = {k.name: np.empty(reps) for k in declared.skills()}
                consumers.append(means_into(g.refs, ref_means[ref_of[i]]))
        jobs.append(proper_scores.DrawJob(len(ids), derive_seed(seed, "proper", *ids), consumers))
    proper_scores.on_resamples(jobs, reps)
    out: list[dict[str, FloatArray] | None] = [None] * len(groups)
    for i, m in means.items():
        found = {s.interval: m[s.name] for s in declared.item_scores()}
        with np.errstate(divide="ignore", invalid="ignore"):
            for k in declared.skills():
                found[k.name] = 1.0 - m[k.score] / ref_means[ref_of[i]][k.name]
        out[i] = {**found, **calibrated[i]}
    return out


def _calibration_of(g: _Group, out: dict[str, FloatArray], bins: int) -> proper_scores.Consumer:
    """A consumer of resamples writing each calibration measure's replicates to ``out``
    (each measure prepared for the group once)."""
    rules = [
        (c.columns[0], c.replicates(g.p, g.y, bins))
        for c in declared.calibration_measures()
        if c.replicates is not None
    ]

    def consume(draws: proper_scores.Draws) -> None:
        for column, on in rules:
            out[column][draws.rows] = on(draws)

    return consume


def proper_scores_table(
    forecasts: pd.DataFrame, bins: int, bootstrap: Bootstrap, seed: int
) -> pd.DataFrame:
    """The ``proper_scores`` table (module doc); :func:`score_columns`.

    Args:
        forecasts: :func:`~.forecasts.forecast_frame` rows.
        bins: bins of ECE, Murphy and the reliability diagrams.
        bootstrap: replicates and confidence of the intervals (0 reps: none).
        seed: ``base.seed``; the draws of each set of questions derive from it and the
            questions' ids (:func:`_replicates`), so the groups are computed on several
            threads (:mod:`prescient.threads`) with the same results.
    """
    columns = score_columns()
    if forecasts.empty:
        return pd.DataFrame(columns=columns)
    groups = list(with_all(with_items(forecasts)).groupby(GROUP_KEYS, sort=False))
    prepared = ordered_map(lambda group: _prepared(group[1], bins), groups)
    replicates: list[dict[str, FloatArray] | None] = [None] * len(prepared)
    if bootstrap.reps > 0:
        replicates = _replicates(prepared, bootstrap.reps, seed, bins)
    stems = _intervals()
    rows = []
    for (keys, _), g, reps in zip(groups, prepared, replicates, strict=True):
        row: Row = {**dict(zip(GROUP_KEYS, keys, strict=True)), **g.row}
        for stem in stems:
            row[f"{stem}_low"], row[f"{stem}_high"] = (
                (math.nan, math.nan)
                if reps is None
                else percentile_interval(reps[stem], bootstrap.confidence)
            )
        rows.append(row)
    return ordered(pd.DataFrame(rows))[columns].reset_index(drop=True)


# --- proper_monthly ---------------------------------------------------------------


def _month_row(g: pd.DataFrame, bootstrap: Bootstrap, seed: int) -> Row:
    """One month's mean Brier and log score of a series, with the Brier's interval."""
    n = len(g)
    low = high = math.nan
    if n >= 2 and bootstrap.reps > 0:
        (means,) = resampled_means([g["_brier"].to_numpy(float)], bootstrap.reps, seed)
        low, high = percentile_interval(means, bootstrap.confidence)
    return {
        "n": n,
        "brier": float(g["_brier"].mean()) if n else math.nan,
        "ci_low": low,
        "ci_high": high,
        "log_score": float(g["_log"].mean()) if n else math.nan,
    }


MONTH_FIELDS = ("n", "brier", "ci_low", "ci_high", "log_score")
MONTHS = "proper_months"
"""The kind of :class:`MonthRows`' part in its store."""


class MonthRows:
    """The month rows of ``proper_monthly`` computed before, by the digest of what each
    was computed from (its draws' seed, which names the series and the month, and its
    questions' Brier and log scores, in order): a daily update resamples the months it
    changed (the current one) and reads the others back, the same floats.

    One part holds them all, named by the bootstrap's settings and this code, rewritten
    with the rows of each run (a month no longer asked for is left out). ``store`` None:
    every row is computed.
    """

    def __init__(self, store: KeptStore | None, bootstrap: Bootstrap) -> None:
        self.store = store
        self.bootstrap = bootstrap
        self.name = digest(
            b"proper months",
            code_of(sys.modules[__name__], proper_scores, proper_groups),
            repr((int(bootstrap.reps), float(bootstrap.confidence))).encode(),
        )
        self.known: dict[bytes, tuple[float, ...]] = {}
        self.used: dict[bytes, tuple[float, ...]] = {}
        self.reused = 0
        arrays = store.read(MONTHS, self.name) if store is not None else None
        if arrays is not None and len(arrays) == 2 and arrays[0].ndim == 2:
            keys, values = arrays
            if keys.shape[1] == DIGEST_SIZE and values.shape == (len(keys), len(MONTH_FIELDS)):
                self.known = {
                    k.tobytes(): tuple(v) for k, v in zip(keys, values.tolist(), strict=True)
                }

    def row(self, g: pd.DataFrame, seed: int) -> Row:
        """:func:`_month_row` of one month's rows ``g`` with draws from ``seed``."""
        if self.store is None or len(g) < 2 or self.bootstrap.reps <= 0:
            return _month_row(g, self.bootstrap, seed)
        key = digest(
            str(int(seed)).encode(),
            np.ascontiguousarray(g["_brier"].to_numpy(float)).tobytes(),
            np.ascontiguousarray(g["_log"].to_numpy(float)).tobytes(),
        )
        found = self.known.get(key)
        if found is not None:
            self.reused += 1
            row: Row = dict(zip(MONTH_FIELDS, found, strict=True))
            row["n"] = int(row["n"])
        else:
            row = _month_row(g, self.bootstrap, seed)
        self.used[key] = tuple(float(row[f]) for f in MONTH_FIELDS)
        return row

    def save(self) -> None:
        """Keep this run's rows for the next (nothing without a store or a row)."""
        if self.store is None or not self.used:
            return
        keys = np.frombuffer(b"".join(self.used), dtype=np.uint8).reshape(-1, DIGEST_SIZE)
        values = np.array(list(self.used.values()), dtype=np.float64)
        self.store.write(MONTHS, self.name, [keys.copy(), values])


def monthly_brier(
    forecasts: pd.DataFrame,
    ma: MovingAverageSettings,
    months: tuple[int, int] | None,
    bootstrap: Bootstrap,
    seed: int,
    kept: KeptStore | None = None,
) -> pd.DataFrame:
    """Mean Brier (and log) score per series (model, cell, elicitation, question type)
    and calendar month, with the bootstrap interval of the month's mean and the moving
    average of the monthly means; a month without questions is a row with ``n = 0`` and
    NaN scores (a gap), as in the monthly accuracy table. ``kept``: where the month rows
    of earlier runs are kept (:class:`MonthRows`)."""
    if forecasts.empty or months is None:
        return pd.DataFrame(columns=MONTHLY_COLUMNS)
    memo = MonthRows(kept, bootstrap)
    items = with_items(forecasts)
    scored = forecasts.assign(
        _brier=items[item_column(BRIER.name)], _log=items[item_column(LOG_SCORE.name)]
    )
    calendar = np.arange(months[0], months[1] + 1)
    types = [q for q in QTYPES if q in set(scored["qtype"].unique())]
    out = []
    series_keys = [*CELL_KEYS, "elicitation"]
    for keys, part in scored.groupby(series_keys, sort=False):
        for qtype in types:
            rows = part.loc[part["qtype"] == qtype]
            by_month = {int(str(m)): g for m, g in rows.groupby("month")}
            values = []
            for m in calendar:
                s = derive_seed(seed, "proper_month", *(str(k) for k in keys), qtype, int(m))
                values.append(
                    {
                        **dict(zip(series_keys, keys, strict=True)),
                        "qtype": qtype,
                        "month_index": int(m),
                        **memo.row(by_month.get(int(m), part.iloc[:0]), s),
                    }
                )
            frame = pd.DataFrame(values)
            frame["brier_ma"], frame["ma_months"] = moving_average(frame["brier"].to_numpy(), ma)
            out.append(frame)
    memo.save()
    table = pd.concat(out, ignore_index=True)
    table = table.assign(**month_columns(table["month_index"]))
    return ordered(table, ["month_index"])[MONTHLY_COLUMNS].reset_index(drop=True)
