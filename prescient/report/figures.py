"""What every figure of the report shares, drawn with matplotlib from the tables.

Every figure is a pure function ``tables -> Figure`` described by a :class:`FigureSpec`
under its file stem; each benchmark lists its own (Daily Oracle's in
:mod:`prescient.benchmarks.daily_oracle.figures`, FreshBench's and OpenForecast's in
their folders) and :mod:`prescient.page.contents` gathers them, so the ``plot`` stage
and the report agree on one list. Figures draw the columns of the tables and compute
nothing. Shared conventions: one colour per model everywhere (:func:`model_colours`);
months where no series of a panel has questions shaded grey (:data:`GAP_COLOUR`); a panel
without any data says so in words instead of staying blank (:func:`no_data`). Text from
the data (model, category and source names) is drawn as written: :meth:`FigureSpec.png`
turns matplotlib's ``$...$`` mathtext off, so a ``$`` in a name neither crashes a figure
nor turns into math.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

Tables = Mapping[str, pd.DataFrame]
GAP_COLOUR = "#d9d9d9"
DPI = 110


@contextmanager
def literal_text() -> Iterator[None]:
    """Draw every text as written: no mathtext, so ``$`` in a name is a dollar sign."""
    with matplotlib.rc_context({"text.parse_math": False}):
        yield


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report.

    Attributes:
        name: file stem (``reports/figures/<name>.png``) and HTML id.
        caption: what the figure shows.
        draw: the drawing function.
        part: the id of the report part it belongs to (:mod:`prescient.report.outline`).
        needs: tables it cannot be drawn without; when one is absent (a stage that is
            not part of the run) the figure is not drawn.
        empty: why the figure has nothing to show, in one line, or "" when it has data;
            the report prints the line instead of an image of empty axes.
    """

    name: str
    caption: str
    draw: Callable[[Tables], Figure]
    part: str
    needs: tuple[str, ...] = ()
    empty: Callable[[Tables], str] | None = None

    def drawable(self, tables: Tables) -> bool:
        """Every table the figure needs is there."""
        return all(name in tables for name in self.needs)

    def why_empty(self, tables: Tables) -> str:
        """One line saying why the figure has no data, or "" when it has some."""
        return self.empty(tables) if self.empty is not None else ""

    def png(self, tables: Tables) -> bytes:
        """The figure as PNG bytes, drawn with :func:`literal_text`. No "Software"
        metadata: identical tables give identical bytes."""
        with literal_text():
            fig = self.draw(tables)
            buffer = BytesIO()
            fig.savefig(buffer, format="png", metadata={"Software": None})
        return buffer.getvalue()


def model_colours(models: list[str]) -> dict[str, Any]:
    """A stable colour per model: sorted names mapped onto tab10 (tab20 beyond ten)."""
    names = sorted(dict.fromkeys(models))
    cmap = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {m: cmap(i % cmap.N) for i, m in enumerate(names)}


def all_models(tables: Tables) -> list[str]:
    models = tables.get("models")
    if models is not None and not models.empty:
        return [str(m) for m in models["model"]]
    monthly = tables.get("monthly_accuracy")
    return [] if monthly is None or monthly.empty else sorted(set(monthly["model"]))


def model_dates(tables: Tables, column: str = "knowledge_cutoff") -> dict[str, pd.Timestamp]:
    models = tables.get("models")
    if models is None or models.empty:
        return {}
    return {
        str(r["model"]): pd.Timestamp(r[column])
        for r in models.to_dict("records")
        if str(r.get(column, "") or "")
    }


def midpoints(starts: pd.Series, ends: pd.Series) -> pd.Series:
    """The middle of each ``[start, end)`` day range (date columns of the tables)."""
    first, last = pd.to_datetime(starts), pd.to_datetime(ends)
    return first + (last - first) / 2


def no_data(ax: Axes, message: str) -> None:
    ax.text(
        0.5,
        0.5,
        message,
        ha="center",
        va="center",
        wrap=True,
        fontsize=10,
        color="#555555",
        transform=ax.transAxes,
        bbox={"boxstyle": "round", "facecolor": "#f4f4f4", "edgecolor": GAP_COLOUR},
    )
    ax.set_xticks([])
    ax.set_yticks([])


def new_figure(rows: int, cols: int, width: float, height: float) -> tuple[Figure, np.ndarray]:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    axes = np.atleast_2d(np.asarray(fig.subplots(rows, cols, squeeze=False)))
    return fig, axes


def month_axis(ax: Axes, starts: pd.Series, ends: pd.Series) -> tuple[pd.Timestamp, pd.Timestamp]:
    """Limit the x axis to the calendar months of a panel (their ``month_start`` and
    ``month_end`` columns); ticks on month starts."""
    first, last = pd.Timestamp(min(starts)), pd.Timestamp(max(ends))
    ax.set_xlim(float(mdates.date2num(first)), float(mdates.date2num(last)))
    span = len(set(starts))
    if span <= 24:
        locator: mdates.DateLocator = mdates.MonthLocator(interval=max(1, math.ceil(span / 8)))
    else:
        locator = mdates.AutoDateLocator(minticks=3, maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    return first, last
