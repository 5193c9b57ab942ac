"""FreshBench's temporal tests (SPEC.md 2) applied to Daily Oracle scores.

Windows are defined relative to an anchor date of the model (its release date, as in
FreshBench, and optionally its knowledge cutoff), on the questions' resolution dates
(FreshBench's close time), in calendar months: the window "a-b months before" is the
half-open range ``[anchor - b months, anchor - a months)`` and the k-th post-anchor
period is ``[anchor + k w months, anchor + (k+1) w months)`` for bin width w.

* Bias tests: every past window against the present window (default 0-20 months
  before). Neophilia bias is H1: acc_past < acc_present; Nostalgia bias is H1: acc_past >
  acc_present; both use the one-sided z-test of :func:`prescient.analysis.stats.one_sided_z_test`.
* Temporal degeneration: every post-anchor period against the present window, H1:
  acc_future < acc_present.
* Decline table: present-window ("pre-release") accuracy, the accuracy of the first
  post-anchor period that has questions, their difference and the percentage decline
  ``100 * (pre - post) / pre``.

A model whose anchor date is unknown is listed as skipped for that anchor; nothing is
guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from prescient.analysis.schema import ModelInfo, cell_order
from prescient.analysis.settings import FreshBenchSettings
from prescient.analysis.stats import one_sided_z_test, significance_mark

QTYPES_ALL = ("tf", "mc", "all")
BASE_KEYS = ["model", "setting", "rag_cutoff", "cell", "qtype", "anchor", "anchor_date"]
NO_BIAS = "-"


def window_bounds(anchor: pd.Timestamp, a: int, b: int) -> tuple[pd.Timestamp, pd.Timestamp]:
    """``[anchor - b months, anchor - a months)``: the window a-b months before the anchor."""
    return anchor - pd.DateOffset(months=b), anchor - pd.DateOffset(months=a)


def future_bins(
    anchor: pd.Timestamp, width: int, last_date: pd.Timestamp
) -> list[tuple[pd.Timestamp, pd.Timestamp]]:
    """Consecutive post-anchor periods of ``width`` months up to the one holding last_date."""
    bins: list[tuple[pd.Timestamp, pd.Timestamp]] = []
    k = 0
    while True:
        start = anchor + pd.DateOffset(months=k * width)
        if start > last_date:
            return bins
        bins.append((start, anchor + pd.DateOffset(months=(k + 1) * width)))
        k += 1


@dataclass(frozen=True)
class WindowAccuracy:
    """Accuracy of the questions resolved in one window."""

    n: int
    n_correct: int

    @property
    def accuracy(self) -> float:
        return self.n_correct / self.n if self.n else math.nan


def window_accuracy(
    dates: np.ndarray, correct: np.ndarray, start: pd.Timestamp, end: pd.Timestamp
) -> WindowAccuracy:
    """Correct / scored among questions with ``start <= resolution_date < end``."""
    mask = (dates >= start.to_datetime64()) & (dates < end.to_datetime64())
    return WindowAccuracy(int(mask.sum()), int(correct[mask].sum()))


def bias_verdict(p_neophilia: float, p_nostalgia: float, thresholds: tuple[float, ...]) -> str:
    """``Nostalgia **``, ``Neophilia *`` or ``-`` (neither significant at the loosest level)."""
    for name, p in (("Nostalgia", p_nostalgia), ("Neophilia", p_neophilia)):
        mark = significance_mark(p, thresholds)
        if mark:
            return f"{name} {mark}"
    return NO_BIAS


@dataclass
class FreshBenchResult:
    """The three FreshBench tables and the models that could not be anchored."""

    bias: pd.DataFrame
    degeneration: pd.DataFrame
    decline: pd.DataFrame
    skipped: pd.DataFrame = field(default_factory=pd.DataFrame)


def _fmt(d: pd.Timestamp) -> str:
    return d.strftime("%Y-%m-%d")


def freshbench(
    scores: pd.DataFrame, models: Mapping[str, ModelInfo], settings: FreshBenchSettings
) -> FreshBenchResult:
    """Run the bias tests, the degeneration tests and the decline table for every series.

    Series are (model, setting, RAG cutoff) cells crossed with question type (``tf``,
    ``mc`` and ``all``) and anchor. Models lacking an anchor date are listed in
    ``skipped`` with the reason.
    """
    marks = settings.significance
    bias_rows: list[dict[str, object]] = []
    degen_rows: list[dict[str, object]] = []
    decline_rows: list[dict[str, object]] = []
    skipped: list[dict[str, str]] = []
    cells = (
        cell_order(scores[["model", "setting", "rag_cutoff", "cell"]].drop_duplicates())
        if not scores.empty
        else pd.DataFrame(columns=["model", "setting", "rag_cutoff", "cell"])
    )
    for model in dict.fromkeys(cells["model"]):
        info = models.get(model)
        for anchor in settings.anchors:
            date = getattr(info, anchor) if info is not None else None
            if date is None:
                skipped.append(
                    {"model": model, "anchor": anchor, "reason": f"no {anchor.replace('_', ' ')}"}
                )
    skipped_pairs = {(s["model"], s["anchor"]) for s in skipped}
    for cell in cells.itertuples(index=False):
        in_cell = scores.loc[(scores["model"] == cell.model) & (scores["cell"] == cell.cell)]
        for qtype in QTYPES_ALL:
            part = in_cell if qtype == "all" else in_cell.loc[in_cell["qtype"] == qtype]
            if part.empty:
                continue
            dates = part["resolution_date"].to_numpy(dtype="datetime64[ns]")
            correct = part["correct"].to_numpy(dtype=bool)
            last = pd.Timestamp(dates.max())
            info = models.get(str(cell.model))
            for anchor in settings.anchors:
                if (cell.model, anchor) in skipped_pairs or info is None:
                    continue
                anchor_date = getattr(info, anchor)
                base = {
                    "model": cell.model,
                    "setting": cell.setting,
                    "rag_cutoff": cell.rag_cutoff,
                    "cell": cell.cell,
                    "qtype": qtype,
                    "anchor": anchor,
                    "anchor_date": _fmt(anchor_date),
                }
                p0, p1 = window_bounds(anchor_date, *settings.present_months)
                present = window_accuracy(dates, correct, p0, p1)
                for a, b in settings.past_windows_months:
                    w0, w1 = window_bounds(anchor_date, a, b)
                    past = window_accuracy(dates, correct, w0, w1)
                    neo = one_sided_z_test(present.accuracy, present.n, past.accuracy, past.n)
                    nos = one_sided_z_test(past.accuracy, past.n, present.accuracy, present.n)
                    bias_rows.append(
                        {
                            **base,
                            "window": f"{a}-{b}",
                            "present_window": "{}-{}".format(*settings.present_months),
                            "window_start": _fmt(w0),
                            "window_end": _fmt(w1),
                            "acc_present": present.accuracy,
                            "n_present": present.n,
                            "acc_past": past.accuracy,
                            "n_past": past.n,
                            "z_neophilia": neo.z,
                            "p_neophilia": neo.p,
                            "z_nostalgia": nos.z,
                            "p_nostalgia": nos.p,
                            "verdict": bias_verdict(neo.p, nos.p, marks),
                            "status": neo.status,
                        }
                    )
                first: tuple[int, WindowAccuracy, pd.Timestamp, pd.Timestamp] | None = None
                for k, (f0, f1) in enumerate(
                    future_bins(anchor_date, settings.future_bin_months, last)
                ):
                    fut = window_accuracy(dates, correct, f0, f1)
                    test = one_sided_z_test(present.accuracy, present.n, fut.accuracy, fut.n)
                    degen_rows.append(
                        {
                            **base,
                            "period": k,
                            "period_start": _fmt(f0),
                            "period_end": _fmt(f1),
                            "acc_present": present.accuracy,
                            "n_present": present.n,
                            "acc_future": fut.accuracy,
                            "n_future": fut.n,
                            "z": test.z,
                            "p": test.p,
                            "mark": significance_mark(test.p, marks),
                            "status": test.status,
                        }
                    )
                    if first is None and fut.n > 0:
                        first = (k, fut, f0, f1)
                pre = present.accuracy
                post = first[1].accuracy if first else math.nan
                decline = pre - post
                decline_rows.append(
                    {
                        **base,
                        "pre_release_accuracy": pre,
                        "n_pre": present.n,
                        "first_post_accuracy": post,
                        "n_post": first[1].n if first else 0,
                        "first_post_period": (
                            f"{_fmt(first[2])}..{_fmt(first[3])}" if first else ""
                        ),
                        "decline": decline,
                        "pct_decline": 100.0 * decline / pre if pre and pre > 0 else math.nan,
                        "status": (
                            "ok"
                            if present.n and first
                            else "no present-window questions"
                            if not present.n
                            else "no post-anchor questions"
                        ),
                    }
                )
    bias_cols = [
        *BASE_KEYS,
        "window",
        "present_window",
        "window_start",
        "window_end",
        "acc_present",
        "n_present",
        "acc_past",
        "n_past",
        "z_neophilia",
        "p_neophilia",
        "z_nostalgia",
        "p_nostalgia",
        "verdict",
        "status",
    ]
    degen_cols = [
        *BASE_KEYS,
        "period",
        "period_start",
        "period_end",
        "acc_present",
        "n_present",
        "acc_future",
        "n_future",
        "z",
        "p",
        "mark",
        "status",
    ]
    decline_cols = [
        *BASE_KEYS,
        "pre_release_accuracy",
        "n_pre",
        "first_post_accuracy",
        "n_post",
        "first_post_period",
        "decline",
        "pct_decline",
        "status",
    ]
    return FreshBenchResult(
        bias=pd.DataFrame(bias_rows, columns=bias_cols),
        degeneration=pd.DataFrame(degen_rows, columns=degen_cols),
        decline=pd.DataFrame(decline_rows, columns=decline_cols),
        skipped=pd.DataFrame(skipped, columns=["model", "anchor", "reason"]),
    )
