"""Typed settings of the analysis: the ``analysis`` section of params.yaml.

The models state types and constraints only; every value lives in ``conf/`` (the
``analysis`` section in ``conf/analysis/default.yaml``, presets beside it). A value the
analysis cannot use stops the stage with a :class:`prescient.settings.ParamsError` line
naming the parameter, before any table is computed.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    NonNegativeInt,
    PositiveInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from prescient.settings import (
    Bootstrap,
    Day,
    ParamsError,
    Settings,
    WindowEnd,
    load_settings,
    section,
)

CALENDAR = "calendar"
MonthRule = Literal["calendar", "freshbench"]
"""How a question is placed in a window of months before the anchor date (see
:mod:`prescient.benchmarks.freshbench.analysis`)."""

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


class MovingAverageSettings(Settings):
    """The smoothing of monthly curves (Daily Oracle, ICML 2025, section 4.1, Fig. 3-5).

    Attributes:
        window: months in the window (paper: 5).
        kind: ``trailing`` (month t and the window-1 months before it) or ``centered``.
        min_periods: months with data the window needs before it is averaged; fewer gives
            an explicit gap. The paper's curves average whatever months of the window
            have data (1); the window's size (5) keeps full windows only.
    """

    window: PositiveInt
    kind: Literal["trailing", "centered"]
    min_periods: PositiveInt

    @model_validator(mode="after")
    def _fits(self) -> MovingAverageSettings:
        if self.min_periods > self.window:
            raise ValueError(
                f"min_periods ({self.min_periods}) cannot exceed window ({self.window})"
            )
        return self


class SlopeSettings(Settings):
    """The expanding-window weighted regression of Fig. 6 (Daily Oracle, section 4.3).

    Attributes:
        start_months: calendar months in the first window (paper: 10).
        step_months: months added per step (paper: 1).
        decay: lambda of the weights lambda**(k - t) (paper: 0.995).
        min_points: defined moving-average months a window needs before it is fitted.
    """

    start_months: Annotated[int, Field(ge=2)]
    step_months: PositiveInt
    decay: Annotated[float, Field(gt=0.0, le=1.0)]
    min_points: Annotated[int, Field(ge=2)]


YearlyRule = Literal["pooled", "mean_of_months"]
"""A year's accuracy in Table 3: ``pooled`` (correct / scored over the year's questions,
the paper's) or ``mean_of_months`` (the unweighted mean of the year's monthly accuracies)."""

WindowRule = Literal["paper", "all_months"]
"""Table 3's pre/post-cutoff months: ``paper`` (the ``pre_months`` months before the
cutoff month and the ``post_months`` months from it) or ``all_months`` (every month up to
and including the cutoff month, and every month after it)."""


class Table3Settings(Settings):
    """How Table 3 is computed (Daily Oracle, ICML 2025, section 4.1 and Table 3).

    Attributes:
        yearly: :data:`YearlyRule` (paper: pooled).
        windows: :data:`WindowRule` (paper: paper).
        pre_months: under ``paper``, the months before the knowledge-cutoff month whose
            YoY changes are averaged as "Pre-cutoff" (paper: 24).
        post_months: under ``paper``, the months from the knowledge-cutoff month on whose
            YoY changes are averaged as "Post-cutoff" (paper: 7).
    """

    yearly: YearlyRule
    windows: WindowRule
    pre_months: PositiveInt
    post_months: PositiveInt


class HeadlineSettings(Settings):
    """The headline decline (Daily Oracle, section 4.2): per question type, the mean over
    models of the closed-book monthly accuracy in the first and the last month of the
    period, and its relative change.

    Attributes:
        exclude_baselines: leave out models whose registry entry is a baseline
            (``litellm_model: baseline/...``): a reference floor is not an evaluated model.
    """

    exclude_baselines: bool


class BootstrapSettings(Bootstrap):
    """Bootstrap intervals of the YoY figures (0 reps: no intervals).

    Attributes:
        interval: ``percentile`` (the replicates' quantiles) or ``bc`` (Efron's
            bias-corrected percentile interval). Either can exclude the estimate when the
            statistic is strongly biased under resampling; such rows are flagged.
    """

    interval: Literal["percentile", "bc"]


def _bucket_edges(value: Any) -> Any:
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(f"expected a list of day counts starting at 0, got {value!r}")
    for edge in value:
        if isinstance(edge, bool) or not isinstance(edge, int):
            raise ValueError(f"bucket edges are whole days, got {edge!r}")
    if value[0] != 0 or any(b <= a for a, b in itertools.pairwise(value)):
        raise ValueError(f"bucket edges must start at 0 and increase, got {list(value)}")
    return tuple(value)


class HorizonSettings(Settings):
    """Accuracy by forecast horizon: days from the forecast date to the resolution date.

    Attributes:
        buckets_days: the left edges of the buckets, from 0: ``[0, 7, 30]`` makes
            0-6, 7-29 and 30+ days.
    """

    buckets_days: Annotated[tuple[int, ...], BeforeValidator(_bucket_edges)]


class FreshBenchSettings(Settings):
    """FreshBench's temporal tests (FreshBench, NAACL 2025, section 4) on forecasting scores.

    Attributes:
        month_rule: how a question is placed in the windows before the anchor date:
            ``calendar`` (calendar months) or ``freshbench`` (FreshBench's 30-day months;
            :mod:`prescient.benchmarks.freshbench.analysis` sets the two side by side).
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


class AndersonSchoolerSettings(Settings):
    """Fig. 2: past-window word frequency against appearance on the next day.

    Attributes:
        window_days: length of the past window in days with documents (paper: 100).
        titles: ``question_articles`` (titles of the articles questions were generated
            from, as the paper) or ``all_articles`` (the whole corpus).
        drop_stopwords: drop scikit-learn's English stop words before counting.
    """

    window_days: PositiveInt
    titles: Literal["question_articles", "all_articles"]
    drop_stopwords: bool


FLAG = "flag"
DROP_REPEATS = "drop_repeats"
DROP_CONTRADICTORY = "drop_contradictory"


class DuplicateQuestionSettings(Settings):
    """Repeated questions in the evaluated set (:func:`prescient.benchmarks.daily_oracle.leakage.duplicates`).

    Attributes:
        threshold: TF-IDF cosine similarity from which a question near-duplicates one of
            an earlier day.
        handling: ``flag`` (count them in the metrics, the notes and the duplicates
            table; evaluate them all), ``drop_repeats`` (leave every repeat of an earlier
            question, word for word or near, out of every table; the first stays) or
            ``drop_contradictory`` (leave out every question asked more than once with
            different gold answers).
    """

    threshold: Annotated[float, Field(gt=0.0, le=1.0)]
    handling: Literal["flag", "drop_repeats", "drop_contradictory"]


class ProperSettings(Settings):
    """Proper scores of probabilistic forecasts (beyond the three papers, which score
    the label a model picks): :mod:`prescient.benchmarks.daily_oracle.analysis.proper`.

    Attributes:
        bins: bins of the reliability diagrams, ECE and Murphy's decomposition (equal
            width on [0, 1], and as many equal-mass bins).
        bootstrap: questions resampled per table row (percentile intervals of the Brier
            and log scores, skills and equal-width ECE; the paired differences and their
            p-values); 0 reps: no intervals and no bootstrap p-values (McNemar's test
            stays).
    """

    bins: Annotated[int, Field(ge=2)]
    bootstrap: Bootstrap


class ExampleSettings(Settings):
    """The example questions of the report (:mod:`.examples`).

    Attributes:
        per_type: questions of each type shown whole (0: none).
    """

    per_type: NonNegativeInt


class AnalysisSettings(Settings):
    """Params section ``analysis``.

    Attributes:
        scores: the scores table DVC hands the stage (``--scores ${analysis.scores}``);
            the stage reads the path from its argument, this key names it for DVC.
        questions: the question table (``--questions``): the evaluated table, or the
            scores table itself when it carries its questions' columns.
        articles: the corpus (``--articles``; Fig. 2's titles and the corpus checksum),
            or the scores table itself when there is none.
        bpc: the directory of the BPC tables that ``plot`` and ``report`` read (a
            directory without them leaves the section out of the run).
        openforecast: the directory of OpenForecast's results tables, likewise.
        candidates: the construct stage's candidates table (``--candidates``; the
            construction funnel and the leakage audit), or the scores table itself when
            the questions were not made by this pipeline.
        exclude_sources: question sources left out of the time-series analyses (monthly
            accuracy, Table 3, Fig. 3-6, FreshBench); they stay in the per-source cells,
            horizon and dataset tables.
        duplicates: a (model, cell, question) scored twice: ``error``, or keep the
            ``keep_first`` / ``keep_last`` row and count the others.
        exclude_errors: leave rows whose model call failed out of accuracy (true) rather
            than count them wrong.
        date_start: the first resolution day the Daily Oracle analyses keep (monthly
            accuracy, Table 3, Fig. 3-6, the headline); null: from the first scored day.
        date_end: the last such day; null: to the last scored day. The period sets the
            calendar of the monthly series, so its months without questions are gaps.
        duplicate_questions: repeated questions across the evaluated set.
        proper: the proper scores of probabilistic forecasts (:class:`ProperSettings`).
        examples: the example questions of the report.
    """

    scores: Annotated[str, Field(min_length=1)]
    questions: Annotated[str, Field(min_length=1)]
    articles: Annotated[str, Field(min_length=1)]
    bpc: Annotated[str, Field(min_length=1)]
    openforecast: Annotated[str, Field(min_length=1)]
    candidates: Annotated[str, Field(min_length=1)]
    exclude_sources: tuple[str, ...]
    duplicates: Literal["error", "keep_first", "keep_last"]
    exclude_errors: bool
    date_start: Day | None
    date_end: WindowEnd
    duplicate_questions: DuplicateQuestionSettings
    moving_average: MovingAverageSettings
    slope: SlopeSettings
    table3: Table3Settings
    headline: HeadlineSettings
    bootstrap: BootstrapSettings
    horizon: HorizonSettings
    freshbench: FreshBenchSettings
    anderson_schooler: AndersonSchoolerSettings
    proper: ProperSettings
    examples: ExampleSettings


def load_analysis(params: Mapping[str, Any]) -> tuple[AnalysisSettings, int]:
    """The ``analysis`` settings and ``base.seed`` from composed params.

    Raises:
        ParamsError: one line per parameter the analysis cannot use.
    """
    settings = load_settings(AnalysisSettings, params, "analysis")
    seed = section(params, "base.seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ParamsError(f"base.seed: expected an integer, got {seed!r}; fix it in conf/")
    return settings, seed
