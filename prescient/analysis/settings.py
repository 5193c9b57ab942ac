"""Typed settings of the analysis: the ``analysis`` section of params.yaml.

The models state types and constraints only; every value lives in ``conf/`` (the
``analysis`` section in ``conf/analysis/default.yaml``, presets beside it). A value the
analysis cannot use stops the stage with a :class:`prescient.settings.ParamsError` line
naming the parameter, before any table is computed.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    NonNegativeInt,
    PositiveInt,
    model_validator,
)

from prescient.settings import (
    Bootstrap,
    Day,
    ParamsError,
    Settings,
    WindowEnd,
    section,
    validate,
)


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
    """Repeated questions in the evaluated set (:func:`prescient.duplicates.duplicates`).

    Attributes:
        threshold: TF-IDF cosine similarity from which a question near-duplicates one of
            an earlier day.
        handling: ``flag`` (count them in the metrics, the notes and the duplicates
            table; evaluate them all), ``drop_repeats`` (leave every repeat of an earlier
            question, word for word or near, out of every table; the first stays) or
            ``drop_contradictory`` (leave out every repeat whose gold answer differs
            from that of the same question asked on its day or before; the first
            asking stays).
    """

    threshold: Annotated[float, Field(gt=0.0, le=1.0)]
    handling: Literal["flag", "drop_repeats", "drop_contradictory"]


class ProperSettings(Settings):
    """Proper scores of probabilistic forecasts (beyond the three papers, which score
    the label a model picks): :mod:`prescient.analysis.proper`.

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
    bootstrap: BootstrapSettings
    horizon: HorizonSettings
    anderson_schooler: AndersonSchoolerSettings
    proper: ProperSettings
    examples: ExampleSettings


def load_analysis(
    params: Mapping[str, Any], owned: Collection[str] = ()
) -> tuple[AnalysisSettings, int]:
    """The shared ``analysis`` settings and ``base.seed`` from composed params.

    Args:
        params: the composed params.
        owned: sub-sections of ``analysis`` that a benchmark's own analysis reads and
            validates (Daily Oracle's ``table3``, FreshBench's ``freshbench``, ...): left
            out here, so each home validates only its own keys.

    Raises:
        ParamsError: one line per parameter the analysis cannot use.
    """
    body = section(params, "analysis")
    if not isinstance(body, Mapping):
        raise ParamsError(f"analysis: expected a mapping, got {body!r}; fix it in conf/")
    shared = {k: v for k, v in body.items() if k not in set(owned)}
    settings = validate(AnalysisSettings, shared, "analysis")
    seed = section(params, "base.seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ParamsError(f"base.seed: expected an integer, got {seed!r}; fix it in conf/")
    return settings, seed
