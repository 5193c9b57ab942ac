"""The monthly panel every Daily Oracle accuracy-over-time figure is drawn on.

One class holds the conventions the figures share, so Fig. 3-5 and 9-11 read alike:
monthly points with Wilson 95% intervals (error bars when a series has few months, a
shaded band otherwise) and the moving average as the bold line; a model's knowledge
cutoff as a dashed vertical line in its colour, or a legend note when it falls outside
the calendar; months where no series of the panel has questions shaded grey and
labelled "no questions"; the chance accuracy of the panel's question type (a uniform
guess among the options, table ``chance_levels``) as a labelled dash-dot horizontal
line; and the legend below the axes, where it never hides a point.
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from prescient.report.figures import GAP_COLOUR, Tables, midpoints, month_axis  # noqa: E402
from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402

# Series with at most this many months show their Wilson intervals as error bars.
FEW_MONTHS = 6
# The chance level: a uniform guess among a question's options (table chance_levels).
CHANCE_COLOUR = "#4d4d4d"
CHANCE_STYLE = (0, (7, 3, 1, 3))


def _pct(value: float) -> str:
    """A percentage with at most one decimal, no trailing zero (50, 25, 33.3)."""
    return f"{100.0 * value:.1f}".rstrip("0").rstrip(".")


def chance_level(tables: Tables, qtype: str) -> tuple[float, str] | None:
    """The chance accuracy of a question type (the ``chance_levels`` table) and its
    legend label; None when the table has none (options unknown, no such questions)."""
    levels = tables.get("chance_levels", pd.DataFrame())
    if levels.empty:
        return None
    row = levels.loc[levels["qtype"] == qtype]
    if row.empty or pd.isna(row["chance"].iloc[0]):
        return None
    value = float(row["chance"].iloc[0])
    low, high = int(row["min_options"].iloc[0]), int(row["max_options"].iloc[0])
    if low == high:
        return value, f"chance {_pct(value)}% (a guess among {low} options)"
    return value, f"chance {_pct(value)}% (a guess among {low}-{high} options, mean)"


class TimePanel:
    """One monthly panel: calendar, gap shading, series offsets, cutoff lines, legend."""

    def __init__(self, ax: Axes, panel: pd.DataFrame, n_series: int) -> None:
        self.ax = ax
        self.first, self.last = month_axis(ax, panel["month_start"], panel["month_end"])
        self.few = int(panel.loc[panel["n"] > 0, "month"].nunique()) <= FEW_MONTHS
        self.n_series = max(1, n_series)
        self.drawn = 0
        self.cutoff_drawn = False
        self.cutoff_outside: list[str] = []
        self.empty_series: list[str] = []
        self.chance_label = ""
        self.gaps = self._shade_gaps(panel)

    def _shade_gaps(self, panel: pd.DataFrame) -> bool:
        """Shade calendar months where no series of the panel has questions."""
        per_month = panel.groupby(["month_start", "month_end"])["n"].sum()
        empty = [(str(s), str(e)) for s, e in per_month.index[per_month.to_numpy() == 0]]
        for start, end in empty:
            self.ax.axvspan(
                float(mdates.date2num(pd.Timestamp(start))),
                float(mdates.date2num(pd.Timestamp(end))),
                color=GAP_COLOUR,
                alpha=0.5,
                lw=0,
            )
        return bool(empty)

    def series(
        self,
        series: pd.DataFrame,
        colour: Any,
        label: str,
        value: str = "accuracy",
        low: str | None = "ci_low",
        high: str | None = "ci_high",
        linestyle: str = "-",
    ) -> None:
        """Monthly points with Wilson intervals, plus the moving average as a bold line.

        With many months the interval is a faint band; with a few months (a band between
        isolated months would invent values in between) it is an error bar, and the
        series are nudged apart by a few days so coinciding points stay visible.
        """
        ax = self.ax
        if series["n"].sum() == 0:  # named in the legend as having no scores here
            self.empty_series.append(label)
            self.drawn += 1
            return
        x = midpoints(series["month_start"], series["month_end"])
        if self.few and self.n_series > 1:
            shift = (self.drawn - (self.n_series - 1) / 2) * min(4.0, 20.0 / self.n_series)
            x = x + pd.to_timedelta(shift, unit="D")
        self.drawn += 1
        y = 100.0 * series[value].astype(float)
        ma = 100.0 * series[f"{value}_ma"].astype(float)
        has_ma = bool(np.isfinite(ma).any())
        point_label = None if has_ma else f"{label} (monthly)"
        if low and high:
            # no interval from fewer than MIN_INTERVAL_N questions: the point alone
            few = series["n"].astype(float) < MIN_INTERVAL_N
            lo = (100.0 * series[low].astype(float)).where(~few, y)
            hi = (100.0 * series[high].astype(float)).where(~few, y)
            if self.few:
                ax.errorbar(
                    x,
                    y,
                    yerr=[(y - lo).clip(lower=0), (hi - y).clip(lower=0)],
                    fmt="o",
                    ms=4.5,
                    color=colour,
                    alpha=0.85,
                    elinewidth=1.2,
                    capsize=3,
                    label=point_label,
                )
            else:
                ax.fill_between(x, lo, hi, color=colour, alpha=0.10, lw=0)
                ax.plot(x, y, "o", ms=2.5, color=colour, alpha=0.45, label=point_label)
        else:
            size = 4.5 if self.few else 2.5
            ax.plot(x, y, "o", ms=size, color=colour, alpha=0.6, label=point_label)
        if has_ma:
            ax.plot(x, ma, color=colour, lw=2.0, ls=linestyle, label=label)

    def cutoff(self, date: pd.Timestamp | None, colour: Any, name: str, style: str = "--") -> None:
        """A vertical line at a cutoff inside the calendar; outside it, a legend note."""
        if date is None:
            return
        if self.first <= date < self.last:
            self.ax.axvline(float(mdates.date2num(date)), color=colour, ls=style, lw=1.3)
            self.cutoff_drawn = self.cutoff_drawn or style == "--"
        elif style == "--":
            self.cutoff_outside.append(f"{name}: {date:%Y-%m-%d}")

    def chance(self, level: tuple[float, str] | None) -> None:
        """A labelled horizontal line at the chance accuracy (in percent)."""
        if level is None:
            return
        value, label = level
        self.ax.axhline(100.0 * value, color=CHANCE_COLOUR, ls=CHANCE_STYLE, lw=1.1, zorder=1.5)
        self.chance_label = label

    def finish(self, ylabel: str, top: float | None = None) -> None:
        ax = self.ax
        ax.set_ylabel(ylabel)
        ax.set_xlabel("Resolution month")
        ax.set_ylim(-2 if top is None else -0.02 * top, 102 if top is None else top)
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        if self.chance_label:
            handles.append(Line2D([], [], color=CHANCE_COLOUR, ls=CHANCE_STYLE, lw=1.1))
            labels.append(self.chance_label)
        if self.cutoff_drawn:
            handles.append(Line2D([], [], color="black", ls="--", lw=1.3))
            labels.append("knowledge cutoff")
        if self.cutoff_outside:
            handles.append(Line2D([], [], color="none"))
            labels.append("cutoff outside the range: " + "; ".join(self.cutoff_outside))
        if self.gaps:
            handles.append(Patch(color=GAP_COLOUR, alpha=0.5))
            labels.append("no questions")
        if self.empty_series:
            handles.append(Line2D([], [], color="none"))
            labels.append("no scores: " + ", ".join(self.empty_series))
        # below the axes, so the legend never hides a point
        ax.legend(
            handles,
            labels,
            fontsize=8,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            ncol=2,
            frameon=False,
        )
