"""Daily Oracle's figures (ICML 2025, Fig. 1-6 and 8-11), drawn from the analysis tables.

Every figure is a pure function ``tables -> Figure`` listed in :data:`FIGURES` under its
file stem; the dataset's (Fig. 1, 2 and 8) are drawn in :mod:`.dataset_figures`. Figures draw the columns of the analysis tables and compute nothing: counts,
Wilson intervals and the bounds of months are columns there. Conventions, beside the
report's (:mod:`prescient.report.figures`): monthly points with Wilson 95% bars and a
shaded band, the moving average as the bold line; a model's knowledge cutoff as a dashed
vertical line in its colour; months where no series of a panel has questions shaded grey
and labelled "no questions"; the chance accuracy of the panel's question type (a
uniform guess among the options, table ``chance_levels``) as a labelled dash-dot
horizontal line on every accuracy panel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from prescient.benchmarks.daily_oracle.dataset_figures import (
    empty_anderson_schooler,
    empty_categories_by_month,
    empty_pies,
    fig1_dataset_pies,
    fig2_anderson_schooler,
    fig8_categories_by_month,
)
from prescient.dates import DYNAMIC, parse_rag_cutoff  # noqa: E402
from prescient.evaluation.settings import (  # noqa: E402
    CLOSED_BOOK,
    GOLD,
    RAG,
)
from prescient.report.figures import (  # noqa: E402
    GAP_COLOUR,
    FigureSpec,
    Tables,
    all_models,
    midpoints,
    model_colours,
    model_dates,
    month_axis,
    new_figure,
    no_data,
)
from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402
from prescient.vocab import MC, QTYPES, TF  # noqa: E402

# The RAG setting without a dated cutoff (not a shade of the dated cutoffs).
DYNAMIC_COLOUR = "#c51b7d"
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
            # no interval from one question (MIN_INTERVAL_N): the point alone
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


def _model_label(model: str, cutoffs: Mapping[str, pd.Timestamp]) -> str:
    cut = cutoffs.get(model)
    return f"{model} (K {cut:%Y-%m})" if cut is not None else f"{model} (K unknown)"


def _curve_panels(tables: Tables, setting: str, title: str) -> Figure:
    """Fig. 3 / 5: one panel per question type, one curve per model."""
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    colours = model_colours(all_models(tables))
    cutoffs = model_dates(tables)
    fig, axes = new_figure(1, 2, 12, 4.6)
    data = monthly.loc[monthly["setting"] == setting] if not monthly.empty else monthly
    for ax, qtype in zip(axes[0], QTYPES, strict=True):
        panel = data.loc[data["qtype"] == qtype] if not data.empty else data
        ax.set_title(f"{qtype.upper()} questions")
        if panel.empty or panel["n"].sum() == 0:
            no_data(ax, f"No {setting.replace('_', '-')} {qtype.upper()} scores")
            continue
        groups = list(panel.groupby(["model", "cell"], sort=False))
        tp = TimePanel(ax, panel, len(groups))
        for (model, _cell), series in groups:
            tp.series(series, colours.get(str(model), "black"), _model_label(str(model), cutoffs))
        for model in panel["model"].unique():
            tp.cutoff(cutoffs.get(str(model)), colours.get(str(model), "black"), str(model))
        tp.chance(chance_level(tables, qtype))
        tp.finish("Accuracy (%)")
    fig.suptitle(title + "\n" + _ma_window_note(tables), fontsize=11)
    return fig


def _ma_window_note(tables: Tables) -> str:
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    if monthly.empty or monthly["accuracy_ma"].notna().any():
        return "bold lines: moving average; points: monthly values with Wilson 95% intervals"
    return "points: monthly values with Wilson 95% intervals; too few months for a moving average"


def fig3_closed_book(tables: Tables) -> Figure:
    return _curve_panels(tables, CLOSED_BOOK, "Closed-book accuracy by resolution month")


def fig5_gold(tables: Tables) -> Figure:
    return _curve_panels(tables, GOLD, "Gold-article accuracy by resolution month")


def retrieval_gap(tables: Tables) -> int | None:
    """The run's visibility gap (``retrieval.gap_days``) as the analysis recorded it in
    its provenance table; None when the questions record none, or several."""
    prov = tables.get("provenance", pd.DataFrame())
    if prov.empty or "key" not in prov.columns:
        return None
    values = dict(zip(prov["key"].astype(str), prov["value"], strict=True))
    text = str(values.get("retrieval_gap_days", "")).strip()
    return int(text) if text.isdigit() else None


def dynamic_label(gap: int | None) -> str:
    """The legend of the RAG cells without a dated cutoff, worded from the visibility rule:
    with a gap of g days the window is ``[start, d - g)``, so its last visible day is
    g + 1 days before the resolution date d."""
    if gap is None:
        return "RAG, no dated cutoff"
    last = gap + 1
    return f"RAG up to {'the day' if last == 1 else f'{last} days'} before resolution"


def fig4_rag_cutoffs(tables: Tables) -> Figure:
    """One row per model with RAG cells; one curve per RAG cutoff plus closed-book."""
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    rag = monthly.loc[monthly["setting"] == RAG] if not monthly.empty else monthly
    models = list(dict.fromkeys(rag["model"])) if not rag.empty else []
    cutoffs = model_dates(tables)
    dynamic = dynamic_label(retrieval_gap(tables))
    colours = model_colours(all_models(tables))
    fig, axes = new_figure(max(1, len(models)), 2, 12, 4.2 * max(1, len(models)))
    title = "Constrained open-book (RAG) accuracy by RAG cutoff (dotted verticals: RAG cutoffs)"
    if not models:
        for ax in axes[0]:
            no_data(ax, "No RAG scores: run the evaluation with rag cutoffs")
        fig.suptitle(title)
        return fig
    for row, model in enumerate(models):
        cells = sorted(
            rag.loc[rag["model"] == model, "rag_cutoff"].unique(),
            key=lambda c: (c == DYNAMIC, c),
        )
        dated = [c for c in cells if c != DYNAMIC]
        cmap = matplotlib.colormaps["viridis"]
        shade: dict[str, Any] = {
            c: cmap(0.1 + 0.75 * i / max(1, len(dated) - 1)) for i, c in enumerate(dated)
        }
        shade[DYNAMIC] = DYNAMIC_COLOUR
        for ax, qtype in zip(axes[row], QTYPES, strict=True):
            ax.set_title(f"{model}: {qtype.upper()} questions")
            panel = rag.loc[(rag["model"] == model) & (rag["qtype"] == qtype)]
            if panel["n"].sum() == 0:
                no_data(ax, f"No RAG {qtype.upper()} scores for {model}")
                continue
            closed = monthly.loc[
                (monthly["model"] == model)
                & (monthly["setting"] == CLOSED_BOOK)
                & (monthly["qtype"] == qtype)
            ]
            has_closed = not closed.empty and closed["n"].sum() > 0
            tp = TimePanel(ax, panel, len(cells) + int(has_closed))
            if has_closed:
                tp.series(
                    closed, colours.get(model, "grey"), "closed-book", "accuracy", None, None, ":"
                )
            for cut in cells:
                series = panel.loc[panel["rag_cutoff"] == cut]
                label = dynamic if cut == DYNAMIC else f"RAG cutoff {cut}"
                tp.series(series, shade[cut], label)
                day = parse_rag_cutoff(cut)
                if day is not None:
                    tp.cutoff(pd.Timestamp(day), shade[cut], f"RAG {cut}", ":")
            tp.cutoff(cutoffs.get(model), colours.get(model, "black"), f"{model} K")
            tp.chance(chance_level(tables, qtype))
            tp.finish("Accuracy (%)")
    fig.suptitle(title)
    return fig


def fig6_slopes(tables: Tables) -> Figure:
    """Expanding-window weighted slope of the MC moving average, one panel per model (the
    TF one when the evaluated questions have no MC question, as a True/False benchmark)."""
    slopes = tables.get("slopes", pd.DataFrame())
    qtype = MC if slopes.empty or (slopes["qtype"] == MC).any() else TF
    kind = qtype.upper()
    closed = (
        slopes.loc[(slopes["setting"] == CLOSED_BOOK) & (slopes["qtype"] == qtype)]
        if not slopes.empty
        else slopes
    )
    closed = closed.dropna(subset=["slope_pp_per_month"]) if not closed.empty else closed
    models = list(dict.fromkeys(closed["model"])) if not closed.empty else []
    colours = model_colours(all_models(tables))
    cutoffs = model_dates(tables)
    cols = min(2, max(1, len(models)))
    rows = max(1, math.ceil(len(models) / cols))
    fig, axes = new_figure(rows, cols, 6.2 * cols, 3.8 * rows)
    flat = list(axes.ravel())
    if not models:
        no_data(
            flat[0],
            "No slopes: the expanding window needs its first 10 months of\n"
            f"moving-average closed-book {kind} accuracy",
        )
        for ax in flat[1:]:
            ax.set_visible(False)
        fig.suptitle(f"Slope of {kind} accuracy over an expanding window")
        return fig
    for ax, model in zip(flat, models, strict=False):
        s = closed.loc[closed["model"] == model]
        x = midpoints(s["end_month_start"], s["end_month_end"])
        ax.plot(x, s["slope_pp_per_month"], "-o", ms=3, color=colours.get(model, "black"))
        ax.axhline(0.0, color="black", lw=0.8)
        first, last = month_axis(ax, s["end_month_start"], s["end_month_end"])
        cut = cutoffs.get(model)
        if cut is not None and first <= cut < last:
            ax.axvline(float(mdates.date2num(cut)), color=colours.get(model, "black"), ls="--")
        ax.set_title(_model_label(model, cutoffs))
        ax.set_xlabel("Last month of the window")
        ax.set_ylabel("Slope (pp / month)")
        ax.grid(alpha=0.3)
    for ax in flat[len(models) :]:
        ax.set_visible(False)
    fig.suptitle(
        f"Slope of closed-book {kind} moving-average accuracy over an expanding window\n"
        "(weights decay^(k-t); dashed: knowledge cutoff)",
        fontsize=11,
    )
    return fig


def _refusal_figure(tables: Tables, setting: str, title: str) -> Figure:
    """Accuracy excluding refusals and refusal rate, TF and MC (Fig. 9-11)."""
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    colours = model_colours(all_models(tables))
    cutoffs = model_dates(tables)
    data = monthly.loc[monthly["setting"] == setting] if not monthly.empty else monthly
    fig, axes = new_figure(2, 2, 12, 8)
    styles = ["-", "--", "-.", ":"]
    rows = (
        ("accuracy_excl_refusals", "Accuracy excl. refusals (%)", "excl_ci_low", "excl_ci_high"),
        ("refusal_rate", "Refusal rate (%)", "refusal_ci_low", "refusal_ci_high"),
    )
    for col, qtype in enumerate(QTYPES):
        panel = data.loc[data["qtype"] == qtype] if not data.empty else data
        for row, (value, ylabel, low, high) in enumerate(rows):
            ax = axes[row, col]
            ax.set_title(f"{qtype.upper()}: {ylabel.split(' (')[0].lower()}")
            if panel.empty or panel["n"].sum() == 0:
                no_data(ax, f"No {setting.replace('_', '-')} {qtype.upper()} scores")
                continue
            groups = list(panel.groupby(["model", "cell"], sort=False))
            tp = TimePanel(ax, panel, len(groups))
            for (model, cell), series in groups:
                cuts = list(dict.fromkeys(panel.loc[panel["model"] == model, "cell"]))
                label = str(model) if len(cuts) == 1 else f"{model} {cell}"
                tp.series(
                    series,
                    colours.get(str(model), "black"),
                    label,
                    value,
                    low,
                    high,
                    styles[cuts.index(cell) % len(styles)],
                )
            for model in panel["model"].unique():
                tp.cutoff(cutoffs.get(str(model)), colours.get(str(model), "black"), str(model))
            if value == "accuracy_excl_refusals":
                tp.chance(chance_level(tables, qtype))
            top = None
            if value == "refusal_rate":  # rates are small: do not waste the panel on 0-100
                peak = 100.0 * float(np.nanmax(panel[high].to_numpy(dtype=float), initial=0.0))
                top = max(5.0, min(100.0, 1.15 * peak))
            tp.finish(ylabel, top=top)
    fig.suptitle(title + "\n" + _ma_window_note(tables), fontsize=11)
    return fig


def fig9_refusals_closed_book(tables: Tables) -> Figure:
    return _refusal_figure(tables, CLOSED_BOOK, "Closed-book: refusals and accuracy without them")


def fig10_refusals_rag(tables: Tables) -> Figure:
    return _refusal_figure(tables, RAG, "RAG: refusals and accuracy without them")


def fig11_refusals_gold(tables: Tables) -> Figure:
    return _refusal_figure(tables, GOLD, "Gold article: refusals and accuracy without them")


def _has_scores(tables: Tables, setting: str) -> bool:
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    return not monthly.empty and int(monthly.loc[monthly["setting"] == setting, "n"].sum()) > 0


def _no_scores(setting: str, message: str) -> Callable[[Tables], str]:
    return lambda tables: "" if _has_scores(tables, setting) else message


NO_CLOSED_BOOK = "No closed-book scores in this run."
NO_RAG = "No RAG scores in this run (eval.settings lists no rag_dynamic or rag_YYYY-MM-DD)."
NO_GOLD = "No gold-article scores in this run (eval.settings lists no gold)."


def _empty_slopes(tables: Tables) -> str:
    slopes = tables.get("slopes", pd.DataFrame())
    if not slopes.empty and slopes["slope_pp_per_month"].notna().any():
        return ""
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    months = int(monthly["month"].nunique()) if not monthly.empty else 0
    return (
        "No slope: the expanding window needs more months with a defined moving average "
        f"(analysis.slope) than the {months} calendar months the scores span."
    )


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "fig1_dataset_pies",
        "Fig. 1: MC question types and question categories.",
        fig1_dataset_pies,
        part="categories",
        empty=empty_pies,
    ),
    FigureSpec(
        "fig2_anderson_schooler",
        "Fig. 2: probability that a word appears on the next day against the number of past "
        "days it appeared on, with the least-squares line and R².",
        fig2_anderson_schooler,
        part="anderson-schooler",
        empty=empty_anderson_schooler,
    ),
    FigureSpec(
        "fig3_closed_book",
        "Fig. 3: closed-book accuracy per resolution month, moving average, Wilson 95% "
        "intervals, knowledge cutoffs and the chance level.",
        fig3_closed_book,
        part="accuracy-over-time",
        empty=_no_scores(CLOSED_BOOK, NO_CLOSED_BOOK),
    ),
    FigureSpec(
        "fig4_rag_cutoffs",
        "Fig. 4: RAG accuracy per RAG cutoff against closed-book, with RAG and knowledge "
        "cutoffs and the chance level.",
        fig4_rag_cutoffs,
        part="accuracy-over-time",
        empty=_no_scores(RAG, NO_RAG),
    ),
    FigureSpec(
        "fig5_gold",
        "Fig. 5: gold-article accuracy per resolution month, with the chance level.",
        fig5_gold,
        part="accuracy-over-time",
        empty=_no_scores(GOLD, NO_GOLD),
    ),
    FigureSpec(
        "fig6_slopes",
        "Fig. 6: slope of the weighted regression of closed-book MC moving-average accuracy "
        "(TF when there are no MC questions) on time, over an expanding window.",
        fig6_slopes,
        part="decline-slopes",
        empty=_empty_slopes,
    ),
    FigureSpec(
        "fig8_categories_by_month",
        "Fig. 8: category shares per resolution month.",
        fig8_categories_by_month,
        part="categories",
        empty=empty_categories_by_month,
    ),
    FigureSpec(
        "fig9_refusals_closed_book",
        "Fig. 9: closed-book accuracy excluding refusals (with the chance level) and refusal rate.",
        fig9_refusals_closed_book,
        part="refusals",
        empty=_no_scores(CLOSED_BOOK, NO_CLOSED_BOOK),
    ),
    FigureSpec(
        "fig10_refusals_rag",
        "Fig. 10: RAG accuracy excluding refusals (with the chance level) and refusal rate.",
        fig10_refusals_rag,
        part="refusals",
        empty=_no_scores(RAG, NO_RAG),
    ),
    FigureSpec(
        "fig11_refusals_gold",
        "Fig. 11: gold-article accuracy excluding refusals (with the chance level) and "
        "refusal rate.",
        fig11_refusals_gold,
        part="refusals",
        empty=_no_scores(GOLD, NO_GOLD),
    ),
)
