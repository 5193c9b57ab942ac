"""Typed settings of FreshBench's temporal tests: the ``analysis.freshbench`` section of
params.yaml (FreshBench, NAACL 2025, section 4; values in ``conf/analysis/``)."""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    NonNegativeInt,
    PositiveInt,
    ValidationInfo,
    field_validator,
)

from prescient.settings import Settings

CALENDAR = "calendar"
MonthRule = Literal["calendar", "freshbench"]
"""How a question is placed in a window of months before the anchor date (see
:mod:`prescient.benchmarks.freshbench.windows`)."""

PRESENT = "present"
PRE_ANCHOR = "pre_anchor"
Reference = Literal["present", "pre_anchor"]
"""What the degeneration tests and the decline table compare with: the present window,
or every question closed before the anchor date (FreshBench's Tables 3 and 4)."""

ANCHORED = "anchored"
PeriodRule = Literal["anchored", "calendar"]
"""Post-anchor periods: ``anchored`` (w months from the anchor date on) or ``calendar``
(fixed calendar periods of w months, Jan-Feb, Mar-Apr, ..., from the one holding the
anchor date)."""

Anchor = Literal["release_date", "knowledge_cutoff"]


def _whole_months(value: Any) -> Any:
    """A window is a pair of whole months: ``[20, 40]``; 20.5 is refused, not truncated."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"a window is a pair [a, b] of months before the anchor, got {value!r}")
    for bound in value:
        if isinstance(bound, bool) or not isinstance(bound, int | float) or bound != int(bound):
            raise ValueError(f"window bounds are whole months, got {bound!r} in {list(value)}")
    a, b = (int(x) for x in value)
    if not a < b:
        raise ValueError(f"window [{a}, {b}] must have a < b (a to b months before the anchor)")
    return (a, b)


Window = Annotated[tuple[int, int], BeforeValidator(_whole_months)]


class FreshBenchSettings(Settings):
    """FreshBench's temporal tests (FreshBench, NAACL 2025, section 4) on forecasting scores.

    Attributes:
        month_rule: how a question is placed in the windows before the anchor date:
            ``calendar`` (calendar months) or ``freshbench`` (FreshBench's 30-day months;
            :mod:`prescient.benchmarks.freshbench.windows` sets the two side by side).
        present_months: ``[a, b]``: the present window, a to b months before the anchor
            (paper: 0-20); every past window is compared with it. Under ``freshbench`` a
            may be negative (the window then reaches -a months past the anchor).
        past_windows_months: the past windows, each ``[a, b]`` months before the anchor
            (paper: 20-40, 40-60, 60-80). No two windows may overlap.
        anchors: the model dates that anchor the windows; ``release_date`` is
            FreshBench's, ``knowledge_cutoff`` the Daily Oracle view. A model lacking one
            is listed as skipped for it.
        reference: what each post-anchor period (degeneration test) and the decline
            table compare with: ``present`` (the present window) or ``pre_anchor`` (every
            question closed before the anchor date, FreshBench's Tables 3 and 4).
        periods: ``anchored`` or ``calendar`` post-anchor periods (:data:`PeriodRule`).
        period_months: months per post-anchor period (FreshBench: 2). Calendar periods
            need a divisor of 12, so that they are the same periods every year.
        decline_periods: the decline table's post-anchor accuracy is the mean accuracy of
            the first this many periods with questions (FreshBench's Table 4: 2).
        decline_round_digits: round the accuracies to this many decimals before the
            decline is computed (FreshBench's Table 4 is computed from its Table 3's
            two-decimal accuracies: 2); null keeps them exact.
        significance: p-value thresholds of the marks ``*``, ``**``, ``***``.
        min_n: questions each compared group needs before its test is run (and a mark
            or verdict printed); FreshBench states none.
        min_outcomes: correct and wrong answers each compared group needs (the normal
            approximation rule n p >= 5 and n (1 - p) >= 5 at 5); 0 turns it off.
    """

    month_rule: MonthRule
    present_months: Window
    past_windows_months: tuple[Window, ...]
    anchors: Annotated[tuple[Anchor, ...], Field(min_length=1)]
    reference: Reference
    periods: PeriodRule
    period_months: PositiveInt
    decline_periods: PositiveInt
    decline_round_digits: NonNegativeInt | None
    significance: Annotated[
        tuple[Annotated[float, Field(gt=0.0, lt=1.0)], ...], Field(min_length=1)
    ]
    min_n: PositiveInt
    min_outcomes: NonNegativeInt

    @field_validator("present_months")
    @classmethod
    def _present_before_anchor(
        cls, value: tuple[int, int], info: ValidationInfo
    ) -> tuple[int, int]:
        _check_start(value, info.data.get("month_rule"))
        return value

    @field_validator("past_windows_months")
    @classmethod
    def _past_windows_apart(
        cls, value: tuple[tuple[int, int], ...], info: ValidationInfo
    ) -> tuple[tuple[int, int], ...]:
        for window in value:
            _check_start(window, info.data.get("month_rule"))
        present = info.data.get("present_months")
        named = [("present_months", present)] if present is not None else []
        named += [("past_windows_months", w) for w in value]
        for (n1, w1), (n2, w2) in itertools.combinations(named, 2):
            if max(w1[0], w2[0]) < min(w1[1], w2[1]):
                raise ValueError(
                    f"windows {list(w1)} ({n1}) and {list(w2)} ({n2}) overlap: a question "
                    "would count on both sides of a test; make them disjoint"
                )
        return value

    @field_validator("significance")
    @classmethod
    def _decreasing(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if list(value) != sorted(set(value), reverse=True):
            raise ValueError("thresholds must be strictly decreasing, e.g. [0.05, 0.01, 0.001]")
        return value

    @field_validator("period_months")
    @classmethod
    def _calendar_periods_divide_the_year(cls, value: int, info: ValidationInfo) -> int:
        if info.data.get("periods") == CALENDAR and 12 % value:
            raise ValueError(
                f"calendar periods of {value} months do not tile a year; use 1, 2, 3, 4, 6 "
                "or 12 (or periods: anchored)"
            )
        return value


def _check_start(window: tuple[int, int], rule: str | None) -> None:
    if rule == CALENDAR and window[0] < 0:
        raise ValueError(
            f"window {list(window)}: under month_rule calendar a window ends at the anchor "
            "date at the latest (a >= 0); a window reaching past the anchor needs month_rule "
            "freshbench"
        )
