"""Typed settings of Daily Oracle's own analyses: the ``analysis.slope``,
``analysis.table3`` and ``analysis.headline`` sections of params.yaml (Daily Oracle, ICML
2025, sections 4.1-4.3; values in ``conf/analysis/``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveInt

from prescient.settings import Settings


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
        min_month_n: the fewest questions any month of an average's YoY pairs may hold
            for the average to be reported (beyond the paper, which states none); below
            it the figure is left out and ``yoy_<r>_status`` says why.
    """

    yearly: YearlyRule
    windows: WindowRule
    pre_months: PositiveInt
    post_months: PositiveInt
    min_month_n: PositiveInt


class HeadlineSettings(Settings):
    """The headline decline (Daily Oracle, section 4.2): per question type, the mean over
    models of the closed-book monthly accuracy in the first and the last month of the
    period, and its relative change.

    Attributes:
        exclude_baselines: leave out models whose registry entry is a baseline
            (``litellm_model: baseline/...``): a reference floor is not an evaluated model.
        min_month_n: the fewest questions each model's first and last month may hold for
            the relative change to be reported (beyond the paper, which states none);
            below it the change is left out and ``change_status`` says why.
    """

    exclude_baselines: bool
    min_month_n: PositiveInt
