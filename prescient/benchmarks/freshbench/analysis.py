"""FreshBench's temporal tests (FreshBench, NAACL 2025, section 4) on forecasting scores.

Every test places questions by their resolution date (FreshBench's close time) relative
to an anchor date of the model: its release date, as in FreshBench, and optionally its
knowledge cutoff. Three outputs per series (a cell crossed with TF, MC and both pooled):

* bias tests (section 4.1, Table 2): each past window against the present window, H1
  acc_past < acc_present (Neophilia) and H1 acc_past > acc_present (Nostalgia), each the
  one-sided z-test of :func:`prescient.stats.one_sided_z_test` (their Eq. 6);
* degeneration tests (section 4.2, Table 3): each post-anchor period against the
  reference accuracy, H1 acc_period < acc_reference;
* the decline table (appendix C, Table 4): reference accuracy, post-anchor accuracy,
  their difference and ``100 * (pre - post) / pre``.

No test is run, and no mark or verdict printed, where a compared group is below the
floor (``min_n`` questions, ``min_outcomes`` correct and as many wrong answers:
:func:`below_floor`): the row keeps its accuracies and n, and its status says why.
FreshBench states no floor; conf/analysis/default.yaml gives the reasoning for the shipped one.

The windows and periods, and the two rules that place a question in them
(``analysis.freshbench.month_rule``), are in :mod:`.windows`. Reading the paper for the
definitions of Table 3 and Table 4:

* Table 3's columns are fixed two-month calendar periods (23/1-23/2, 23/3-23/4, ...);
  a model's row has a cell for each period from the one holding its release date on
  (Llama-2-13B, released in July 2023: seven, 23/7-23/8 to 24/7-24/8); its grey cell
  is the model's average before its release, and its stars test each period against
  that accuracy: ``periods: calendar``, ``reference: pre_anchor``.
* Table 4 (appendix C): "Pre-release Accuracy" repeats Table 3's grey cell, and "First
  Post-release Accuracy" is the mean of Table 3's first two post-release periods, taken
  from their two-decimal values: Llama-2-7B 0.27 against (0.26 + 0.27) / 2 gives the
  printed 1.85%; Gemini-1.5-flash 0.39 against (0.23 + 0.22) / 2 gives 42.31%; a model
  with one period (GPT-4o-mini, 0.48 against 0.28: 41.67%) uses that one. Hence
  ``decline_periods: 2`` and ``decline_round_digits: 2``.

``conf/analysis/freshbench.yaml`` sets all of these (``-S analysis=freshbench``). A model
whose anchor date is unknown is listed as skipped for that anchor; nothing is guessed.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from prescient.analysis.schema import (
    ALL,
    CELL_KEYS,
    ModelInfo,
    cells_of,
    iso,
)
from prescient.benchmarks.freshbench.settings import (
    PRESENT,
    FreshBenchSettings,
)
from prescient.benchmarks.freshbench.windows import (
    Outcomes,
    Span,
    Tally,
    post_periods,
    window_span,
)
from prescient.stats import ZTest, one_sided_z_test, significance_mark
from prescient.vocab import QTYPES

QTYPES_ALL = (*QTYPES, ALL)
NO_BIAS = "-"
NOT_TESTED = "not tested"
"""The verdict of a bias row whose groups are below the floor (``min_n``, ``min_outcomes``)."""
TOO_FEW_DECLINE = "too few questions to read a decline"
"""The end of a decline's status when a side holds fewer than ``min_n`` questions; the
report prints "too few" in place of such a decline."""
OPEN = ""
"""A span bound that is open (the pre-anchor reference starts with the first question)."""

BASE_KEYS = [*CELL_KEYS, "qtype", "anchor", "anchor_date", "month_rule"]
BIAS_COLUMNS = [
    *BASE_KEYS,
    "window",
    "window_start",
    "window_end",
    "present_window",
    "present_start",
    "present_end",
    "acc_present",
    "n_present",
    "n_correct_present",
    "ci_low_present",
    "ci_high_present",
    "acc_past",
    "n_past",
    "n_correct_past",
    "ci_low_past",
    "ci_high_past",
    "z_neophilia",
    "p_neophilia",
    "z_nostalgia",
    "p_nostalgia",
    "verdict",
    "status",
]
DEGENERATION_COLUMNS = [
    *BASE_KEYS,
    "period_rule",
    "reference",
    "period",
    "period_start",
    "period_end",
    "reference_start",
    "reference_end",
    "acc_reference",
    "n_reference",
    "n_correct_reference",
    "ci_low_reference",
    "ci_high_reference",
    "acc_future",
    "n_future",
    "n_correct_future",
    "ci_low_future",
    "ci_high_future",
    "z",
    "p",
    "mark",
    "status",
]
DECLINE_COLUMNS = [
    *BASE_KEYS,
    "period_rule",
    "reference",
    "decline_periods",
    "rounding",
    "pre_start",
    "pre_end",
    "pre_accuracy",
    "n_pre",
    "post_start",
    "post_end",
    "n_post_periods",
    "post_accuracy",
    "n_post",
    "decline",
    "pct_decline",
    "status",
]
SKIPPED_COLUMNS = ["model", "anchor", "reason"]


# --- counting and testing ------------------------------------------------------------


def below_floor(groups: tuple[Tally, ...], s: FreshBenchSettings) -> str:
    """Why the groups are too small to test (empty when every group clears the floor).

    The floor (``min_n`` questions, ``min_outcomes`` correct and as many wrong answers per
    group) keeps a z-test on a handful of questions, e.g. 0 of 1 against 15 of 24, from
    printing ``***``. An empty group is left to the test, which reports no questions.
    """
    if any(t.n == 0 for t in groups):
        return ""
    for t in groups:
        if t.n < s.min_n:
            return f"too few questions (n {t.n} < min_n {s.min_n})"
        fewest = min(t.n_correct, t.n - t.n_correct)
        if fewest < s.min_outcomes:
            which = "correct" if t.n_correct <= t.n - t.n_correct else "wrong"
            return f"too few questions ({fewest} {which} of {t.n} < min_outcomes {s.min_outcomes})"
    return ""


def _test(acc1: Tally, acc2: Tally, floor: str) -> ZTest:
    """FreshBench's H1 acc1 > acc2, or no test (NaN, the floor's reason) below the floor."""
    if floor:
        return ZTest(math.nan, math.nan, floor)
    return one_sided_z_test(acc1.accuracy, acc1.n, acc2.accuracy, acc2.n)


def bias_verdict(p_neophilia: float, p_nostalgia: float, thresholds: tuple[float, ...]) -> str:
    """``Nostalgia **``, ``Neophilia *`` or ``-`` (neither significant at the loosest level)."""
    for name, p in (("Nostalgia", p_nostalgia), ("Neophilia", p_neophilia)):
        mark = significance_mark(p, thresholds)
        if mark:
            return f"{name} {mark}"
    return NO_BIAS


def _label(window: tuple[int, int]) -> str:
    return f"{window[0]}-{window[1]}"


def bias_rows(outcomes: Outcomes, anchor: dt.date, s: FreshBenchSettings) -> list[dict[str, Any]]:
    """One row per past window: its accuracy against the present window's, both tests."""
    present_span = window_span(anchor, s.present_months, s.month_rule)
    present = outcomes.tally(present_span)
    rows = []
    for window in s.past_windows_months:
        span = window_span(anchor, window, s.month_rule)
        past = outcomes.tally(span)
        floor = below_floor((present, past), s)
        neo = _test(present, past, floor)
        nos = _test(past, present, floor)
        rows.append(
            {
                "window": _label(window),
                **span.columns("window"),
                "present_window": _label(s.present_months),
                **present_span.columns("present"),
                **present.columns("present"),
                **past.columns("past"),
                "z_neophilia": neo.z,
                "p_neophilia": neo.p,
                "z_nostalgia": nos.z,
                "p_nostalgia": nos.p,
                "verdict": NOT_TESTED if floor else bias_verdict(neo.p, nos.p, s.significance),
                "status": neo.status,
            }
        )
    return rows


def reference_span(anchor: dt.date, s: FreshBenchSettings) -> Span:
    """The present window, or every day before the anchor (``pre_anchor``)."""
    if s.reference == PRESENT:
        return window_span(anchor, s.present_months, s.month_rule)
    return Span(None, anchor)


def degeneration_rows(
    outcomes: Outcomes, anchor: dt.date, s: FreshBenchSettings
) -> tuple[list[dict[str, Any]], list[tuple[Span, Tally]]]:
    """One row per post-anchor period against the reference; also the periods' tallies."""
    ref_span = reference_span(anchor, s)
    ref = outcomes.tally(ref_span)
    rows, tallies = [], []
    for k, span in enumerate(post_periods(anchor, s.periods, s.period_months, outcomes.last_day)):
        future = outcomes.tally(span)
        test = _test(ref, future, below_floor((ref, future), s))
        tallies.append((span, future))
        rows.append(
            {
                "period_rule": s.periods,
                "reference": s.reference,
                "period": k,
                **span.columns("period"),
                **ref_span.columns("reference"),
                **ref.columns("reference"),
                **future.columns("future"),
                "z": test.z,
                "p": test.p,
                "mark": significance_mark(test.p, s.significance),
                "status": test.status,
            }
        )
    return rows, tallies


def decline_row(
    reference: tuple[Span, Tally], periods: list[tuple[Span, Tally]], s: FreshBenchSettings
) -> dict[str, Any]:
    """The decline table's row: the reference accuracy against the mean accuracy of the
    first ``decline_periods`` post-anchor periods with questions (module docstring)."""
    digits = s.decline_round_digits

    def rounded(x: float) -> float:
        return x if digits is None or math.isnan(x) else round(x, digits)

    ref_span, ref = reference
    used = [(span, t) for span, t in periods if t.n > 0][: s.decline_periods]
    pre = rounded(ref.accuracy)
    post = float(np.mean([rounded(t.accuracy) for _, t in used])) if used else math.nan
    decline = pre - post
    if not ref.n:
        status = "no reference questions"
    elif not used:
        status = "no post-anchor questions"
    elif len(used) < s.decline_periods:
        status = f"ok ({len(used)} of {s.decline_periods} periods have questions)"
    else:
        status = "ok"
    n_post = sum(t.n for _, t in used)
    small = [f"n {w} {n} < min_n {s.min_n}" for w, n in (("pre", ref.n), ("post", n_post))]
    small = [text for text, n in zip(small, (ref.n, n_post), strict=True) if 0 < n < s.min_n]
    if status.startswith("ok") and small:
        status += f"; {', '.join(small)}: {TOO_FEW_DECLINE}"
    return {
        "period_rule": s.periods,
        "reference": s.reference,
        "decline_periods": s.decline_periods,
        "rounding": "none" if digits is None else f"{digits} decimals",
        **ref_span.columns("pre"),
        "pre_accuracy": pre,
        "n_pre": ref.n,
        "post_start": iso(used[0][0].start) if used else OPEN,
        "post_end": used[-1][0].end.isoformat() if used else OPEN,
        "n_post_periods": len(used),
        "post_accuracy": post,
        "n_post": n_post,
        "decline": decline,
        "pct_decline": 100.0 * decline / pre if pre > 0 else math.nan,
        "status": status,
    }


# --- the tables ------------------------------------------------------------------------


@dataclass
class FreshBenchResult:
    """The three FreshBench tables and the models that could not be anchored."""

    bias: pd.DataFrame
    degeneration: pd.DataFrame
    decline: pd.DataFrame
    skipped: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SKIPPED_COLUMNS))


def skipped_anchors(
    models_in_scores: list[str], models: Mapping[str, ModelInfo], anchors: tuple[str, ...]
) -> pd.DataFrame:
    """(model, anchor, reason) for every model lacking an anchor date."""
    rows = []
    for model in models_in_scores:
        info = models.get(model)
        for anchor in anchors:
            if info is None or getattr(info, anchor) is None:
                rows.append(
                    {"model": model, "anchor": anchor, "reason": f"no {anchor.replace('_', ' ')}"}
                )
    return pd.DataFrame(rows, columns=SKIPPED_COLUMNS)


def series_tables(
    outcomes: Outcomes, anchor: dt.date, s: FreshBenchSettings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """Bias rows, degeneration rows and the decline row of one series and anchor."""
    degeneration, periods = degeneration_rows(outcomes, anchor, s)
    ref_span = reference_span(anchor, s)
    decline = decline_row((ref_span, outcomes.tally(ref_span)), periods, s)
    return bias_rows(outcomes, anchor, s), degeneration, decline


def freshbench(
    scores: pd.DataFrame, models: Mapping[str, ModelInfo], settings: FreshBenchSettings
) -> FreshBenchResult:
    """The bias tests, degeneration tests and decline table of every series.

    Series are the cells of the normalised scores crossed with question type (``tf``,
    ``mc`` and ``all``) and anchor. Each row names the rules it was computed under
    (``month_rule``; ``period_rule`` and ``reference`` where they apply).
    """
    bias: list[dict[str, Any]] = []
    degeneration: list[dict[str, Any]] = []
    decline: list[dict[str, Any]] = []
    cells = cells_of(scores) if not scores.empty else pd.DataFrame(columns=list(CELL_KEYS))
    # each cell's rows in their order, split once (not one pass over every row per cell)
    by_cell = dict(iter(scores.groupby(["model", "cell"], sort=False))) if len(cells) else {}
    for cell in cells.to_dict("records"):
        in_cell = by_cell.get((cell["model"], cell["cell"]), scores.iloc[:0])
        info = models.get(str(cell["model"]))
        for qtype in QTYPES_ALL:
            part = in_cell if qtype == ALL else in_cell.loc[in_cell["qtype"] == qtype]
            if part.empty or info is None:
                continue
            outcomes = Outcomes.of(part)
            for anchor_name in settings.anchors:
                anchor = getattr(info, anchor_name)
                if anchor is None:
                    continue
                base: dict[str, Any] = {
                    **{str(k): v for k, v in cell.items()},
                    "qtype": qtype,
                    "anchor": anchor_name,
                    "anchor_date": anchor.isoformat(),
                    "month_rule": settings.month_rule,
                }
                b, d, dl = series_tables(outcomes, anchor, settings)
                bias += [{**base, **row} for row in b]
                degeneration += [{**base, **row} for row in d]
                decline.append({**base, **dl})
    return FreshBenchResult(
        bias=pd.DataFrame(bias, columns=BIAS_COLUMNS),
        degeneration=pd.DataFrame(degeneration, columns=DEGENERATION_COLUMNS),
        decline=pd.DataFrame(decline, columns=DECLINE_COLUMNS),
        skipped=skipped_anchors(list(dict.fromkeys(cells["model"])), models, settings.anchors),
    )
