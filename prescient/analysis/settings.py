"""Typed settings of the analysis, built from the ``analysis`` section of params.yaml.

Every knob the analysis reads lives here with the paper's value as its default, so a test
can build settings without a params file and a stage can build them from one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

MA_KINDS = ("trailing", "centered")
FRESHBENCH_ANCHORS = ("release_date", "knowledge_cutoff")
TITLE_SOURCES = ("question_articles", "all_articles")


@dataclass(frozen=True)
class MovingAverageSettings:
    """The smoothing of monthly curves (Fig. 3-5, 9-11).

    Attributes:
        window: months in the window (paper: 5).
        kind: ``trailing`` (month t and the window-1 months before it) or ``centered``.
        min_periods: months with data the window needs before it is averaged; fewer gives
            an explicit gap instead of an average of one or two noisy months.
    """

    window: int = 5
    kind: str = "trailing"
    min_periods: int = 5

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"moving_average.window must be >= 1, got {self.window}")
        if self.kind not in MA_KINDS:
            raise ValueError(f"moving_average.kind must be one of {MA_KINDS}, got {self.kind!r}")
        if not 1 <= self.min_periods <= self.window:
            raise ValueError(
                f"moving_average.min_periods must be in [1, window={self.window}], "
                f"got {self.min_periods}"
            )


@dataclass(frozen=True)
class SlopeSettings:
    """The expanding-window weighted regression of Fig. 6.

    Attributes:
        start_months: calendar months in the first window (paper: 10).
        step_months: months added per step (paper: 1).
        decay: lambda of the weights lambda**(k - t) (paper: 0.995).
        min_points: defined moving-average months a window needs before it is fitted.
    """

    start_months: int = 10
    step_months: int = 1
    decay: float = 0.995
    min_points: int = 10

    def __post_init__(self) -> None:
        if self.start_months < 2 or self.step_months < 1:
            raise ValueError("slope.start_months must be >= 2 and slope.step_months >= 1")
        if not 0.0 < self.decay <= 1.0:
            raise ValueError(f"slope.decay must be in (0, 1], got {self.decay}")
        if self.min_points < 2:
            raise ValueError(f"slope.min_points must be >= 2, got {self.min_points}")


@dataclass(frozen=True)
class BootstrapSettings:
    """Percentile bootstrap of the YoY figures (questions resampled within each month)."""

    reps: int = 1000
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.reps < 0:
            raise ValueError(f"bootstrap.reps must be >= 0, got {self.reps}")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"bootstrap.confidence must be in (0, 1), got {self.confidence}")


@dataclass(frozen=True)
class FreshBenchSettings:
    """FreshBench's temporal tests on Daily Oracle questions (SPEC.md 2).

    Attributes:
        present_months: ``[a, b]``: the anchor period is a to b months before the anchor
            date (paper: 0-20); every other window is compared with it.
        past_windows_months: earlier windows, each ``[a, b]`` months before the anchor
            (paper: 20-40, 40-60, 60-80).
        future_bin_months: width of the post-anchor periods tested for temporal
            degeneration (FreshBench reports two-month periods).
        anchors: which model dates anchor the windows; ``release_date`` is FreshBench's,
            ``knowledge_cutoff`` is the Daily Oracle view. A model lacking one is skipped
            for that anchor.
        significance: p-value thresholds of the marks ``*``, ``**``, ``***``.
    """

    present_months: tuple[int, int] = (0, 20)
    past_windows_months: tuple[tuple[int, int], ...] = ((20, 40), (40, 60), (60, 80))
    future_bin_months: int = 2
    anchors: tuple[str, ...] = ("release_date", "knowledge_cutoff")
    significance: tuple[float, ...] = (0.05, 0.01, 0.001)

    def __post_init__(self) -> None:
        for a, b in (self.present_months, *self.past_windows_months):
            if not 0 <= a < b:
                raise ValueError(f"freshbench window [{a}, {b}] must satisfy 0 <= a < b")
        if self.future_bin_months < 1:
            raise ValueError("freshbench.future_bin_months must be >= 1")
        bad = [a for a in self.anchors if a not in FRESHBENCH_ANCHORS]
        if bad:
            raise ValueError(f"freshbench.anchors: unknown {bad}; use {FRESHBENCH_ANCHORS}")
        if list(self.significance) != sorted(self.significance, reverse=True):
            raise ValueError("freshbench.significance must be decreasing, e.g. [0.05, 0.01, 0.001]")


@dataclass(frozen=True)
class AndersonSchoolerSettings:
    """Fig. 2: past-window word frequency against appearance on the next day.

    Attributes:
        window_days: length of the past window in days with documents (paper: 100).
        titles: ``question_articles`` (titles of the articles questions were generated
            from, as the paper) or ``all_articles`` (the whole corpus).
        drop_stopwords: drop scikit-learn's English stop words before counting.
    """

    window_days: int = 100
    titles: str = "question_articles"
    drop_stopwords: bool = False

    def __post_init__(self) -> None:
        if self.window_days < 1:
            raise ValueError("anderson_schooler.window_days must be >= 1")
        if self.titles not in TITLE_SOURCES:
            raise ValueError(f"anderson_schooler.titles must be one of {TITLE_SOURCES}")


@dataclass(frozen=True)
class AnalysisSettings:
    """Everything the ``analyze`` stage reads, besides the input paths."""

    seed: int = 0
    exclude_errors: bool = True
    moving_average: MovingAverageSettings = field(default_factory=MovingAverageSettings)
    slope: SlopeSettings = field(default_factory=SlopeSettings)
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    freshbench: FreshBenchSettings = field(default_factory=FreshBenchSettings)
    anderson_schooler: AndersonSchoolerSettings = field(default_factory=AndersonSchoolerSettings)

    @classmethod
    def from_params(cls, analysis: Mapping[str, Any], seed: int) -> AnalysisSettings:
        """Build settings from the ``analysis`` params section and ``base.seed``."""
        fb = dict(analysis.get("freshbench") or {})
        fresh = FreshBenchSettings(
            present_months=_pair(fb.get("present_months", (0, 20))),
            past_windows_months=tuple(
                _pair(w) for w in fb.get("past_windows_months", ((20, 40), (40, 60), (60, 80)))
            ),
            future_bin_months=int(fb.get("future_bin_months", 2)),
            anchors=tuple(fb.get("anchors", FRESHBENCH_ANCHORS)),
            significance=tuple(float(x) for x in fb.get("significance", (0.05, 0.01, 0.001))),
        )
        return cls(
            seed=int(seed),
            exclude_errors=bool(analysis.get("exclude_errors", True)),
            moving_average=MovingAverageSettings(**dict(analysis.get("moving_average") or {})),
            slope=SlopeSettings(**dict(analysis.get("slope") or {})),
            bootstrap=BootstrapSettings(**dict(analysis.get("bootstrap") or {})),
            freshbench=fresh,
            anderson_schooler=AndersonSchoolerSettings(
                **dict(analysis.get("anderson_schooler") or {})
            ),
        )


def _pair(value: Sequence[int]) -> tuple[int, int]:
    items = list(value)
    if len(items) != 2:
        raise ValueError(f"expected a [start, end] pair of months, got {value!r}")
    return int(items[0]), int(items[1])
