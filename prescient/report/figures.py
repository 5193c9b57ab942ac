"""The paper's figures, drawn with matplotlib from the analysis tables.

Every figure is a pure function ``tables -> Figure`` listed in :data:`FIGURES` under its
file stem, so the ``plot`` stage and the report agree on one list. Figures draw the
columns of the analysis tables and compute nothing: counts, Wilson intervals and the
bounds of months, windows and periods are columns there. Shared conventions: one colour
per model everywhere (:func:`model_colours`); monthly points with Wilson 95% bars and a
shaded band, the moving average as the bold line; a model's knowledge cutoff as a dashed
vertical line in its colour; months where no series of a panel has questions shaded grey
and labelled "no questions"; a panel without any data says so in words instead of
staying blank. Text from the data (model, category and source names) is drawn as written:
:meth:`FigureSpec.png` turns matplotlib's ``$...$`` mathtext off, so a ``$`` in a name
neither crashes a figure nor turns into math.
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
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from prescient.benchmarks.daily_oracle.analysis.settings import PRE_ANCHOR  # noqa: E402
from prescient.benchmarks.daily_oracle.evaluation.settings import (  # noqa: E402
    CLOSED_BOOK,
    GOLD,
    RAG,
)
from prescient.benchmarks.freshbench.analysis import ALL  # noqa: E402
from prescient.dates import DYNAMIC, parse_rag_cutoff  # noqa: E402
from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402
from prescient.vocab import MC, QTYPES, TF  # noqa: E402

Tables = Mapping[str, pd.DataFrame]
GAP_COLOUR = "#d9d9d9"
# The RAG setting without a dated cutoff (not a shade of the dated cutoffs).
DYNAMIC_COLOUR = "#c51b7d"
# Series with at most this many months show their Wilson intervals as error bars.
FEW_MONTHS = 6
DPI = 110
# Days per calendar month on average: positions windows on a months-from-anchor axis.
MONTH_DAYS = 365.2425 / 12


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


def _all_models(tables: Tables) -> list[str]:
    models = tables.get("models")
    if models is not None and not models.empty:
        return [str(m) for m in models["model"]]
    monthly = tables.get("monthly_accuracy")
    return [] if monthly is None or monthly.empty else sorted(set(monthly["model"]))


def _cutoffs(tables: Tables, column: str = "knowledge_cutoff") -> dict[str, pd.Timestamp]:
    models = tables.get("models")
    if models is None or models.empty:
        return {}
    return {
        str(r["model"]): pd.Timestamp(r[column])
        for r in models.to_dict("records")
        if str(r.get(column, "") or "")
    }


def _midpoints(starts: pd.Series, ends: pd.Series) -> pd.Series:
    """The middle of each ``[start, end)`` day range (date columns of the tables)."""
    first, last = pd.to_datetime(starts), pd.to_datetime(ends)
    return first + (last - first) / 2


def _no_data(ax: Axes, message: str) -> None:
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


def _new(rows: int, cols: int, width: float, height: float) -> tuple[Figure, np.ndarray]:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    axes = np.atleast_2d(np.asarray(fig.subplots(rows, cols, squeeze=False)))
    return fig, axes


def _month_axis(ax: Axes, starts: pd.Series, ends: pd.Series) -> tuple[pd.Timestamp, pd.Timestamp]:
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


class TimePanel:
    """One monthly panel: calendar, gap shading, series offsets, cutoff lines, legend."""

    def __init__(self, ax: Axes, panel: pd.DataFrame, n_series: int) -> None:
        self.ax = ax
        self.first, self.last = _month_axis(ax, panel["month_start"], panel["month_end"])
        self.few = int(panel.loc[panel["n"] > 0, "month"].nunique()) <= FEW_MONTHS
        self.n_series = max(1, n_series)
        self.drawn = 0
        self.cutoff_drawn = False
        self.cutoff_outside: list[str] = []
        self.empty_series: list[str] = []
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
        x = _midpoints(series["month_start"], series["month_end"])
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

    def finish(self, ylabel: str, top: float | None = None) -> None:
        ax = self.ax
        ax.set_ylabel(ylabel)
        ax.set_xlabel("Resolution month")
        ax.set_ylim(-2 if top is None else -0.02 * top, 102 if top is None else top)
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
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
    colours = model_colours(_all_models(tables))
    cutoffs = _cutoffs(tables)
    fig, axes = _new(1, 2, 12, 4.6)
    data = monthly.loc[monthly["setting"] == setting] if not monthly.empty else monthly
    for ax, qtype in zip(axes[0], QTYPES, strict=True):
        panel = data.loc[data["qtype"] == qtype] if not data.empty else data
        ax.set_title(f"{qtype.upper()} questions")
        if panel.empty or panel["n"].sum() == 0:
            _no_data(ax, f"No {setting.replace('_', '-')} {qtype.upper()} scores")
            continue
        groups = list(panel.groupby(["model", "cell"], sort=False))
        tp = TimePanel(ax, panel, len(groups))
        for (model, _cell), series in groups:
            tp.series(series, colours.get(str(model), "black"), _model_label(str(model), cutoffs))
        for model in panel["model"].unique():
            tp.cutoff(cutoffs.get(str(model)), colours.get(str(model), "black"), str(model))
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
    cutoffs = _cutoffs(tables)
    dynamic = dynamic_label(retrieval_gap(tables))
    colours = model_colours(_all_models(tables))
    fig, axes = _new(max(1, len(models)), 2, 12, 4.2 * max(1, len(models)))
    title = "Constrained open-book (RAG) accuracy by RAG cutoff (dotted verticals: RAG cutoffs)"
    if not models:
        for ax in axes[0]:
            _no_data(ax, "No RAG scores: run the evaluation with rag cutoffs")
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
                _no_data(ax, f"No RAG {qtype.upper()} scores for {model}")
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
    colours = model_colours(_all_models(tables))
    cutoffs = _cutoffs(tables)
    cols = min(2, max(1, len(models)))
    rows = max(1, math.ceil(len(models) / cols))
    fig, axes = _new(rows, cols, 6.2 * cols, 3.8 * rows)
    flat = list(axes.ravel())
    if not models:
        _no_data(
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
        x = _midpoints(s["end_month_start"], s["end_month_end"])
        ax.plot(x, s["slope_pp_per_month"], "-o", ms=3, color=colours.get(model, "black"))
        ax.axhline(0.0, color="black", lw=0.8)
        first, last = _month_axis(ax, s["end_month_start"], s["end_month_end"])
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
    colours = model_colours(_all_models(tables))
    cutoffs = _cutoffs(tables)
    data = monthly.loc[monthly["setting"] == setting] if not monthly.empty else monthly
    fig, axes = _new(2, 2, 12, 8)
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
                _no_data(ax, f"No {setting.replace('_', '-')} {qtype.upper()} scores")
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


def category_colours(count: int) -> list[Any]:
    """Colours for ``count`` labels in table order: Set3 (tab20 beyond twelve), a palette
    apart from the models' tab10 so a category never looks like a model."""
    cmap = matplotlib.colormaps["Set3" if count <= 12 else "tab20"]
    return [cmap(i % cmap.N) for i in range(count)]


def _pie(ax: Axes, table: pd.DataFrame, label: str, title: str) -> None:
    ax.set_title(title)
    if table.empty or table["n"].sum() == 0:
        _no_data(ax, f"No {title.lower()} in the questions table")
        return
    wedges, _texts, _autotexts = ax.pie(
        table["n"],
        colors=category_colours(len(table)),
        autopct=lambda pct: f"{pct:.1f}%" if pct >= 4 else "",
        startangle=90,
        counterclock=False,
        wedgeprops={"linewidth": 0.8, "edgecolor": "white"},
        textprops={"fontsize": 8},
    )
    ax.legend(
        wedges,
        [f"{name} ({n})" for name, n in zip(table[label], table["n"], strict=True)],
        fontsize=8,
        loc="center left",
        bbox_to_anchor=(1.0, 0.5),
    )
    ax.set_aspect("equal")


def fig1_dataset_pies(tables: Tables) -> Figure:
    fig, axes = _new(1, 2, 13, 5)
    _pie(
        axes[0, 0],
        tables.get("dataset_mc_types", pd.DataFrame()),
        "mc_type",
        "MC question types",
    )
    _pie(
        axes[0, 1],
        tables.get("dataset_categories", pd.DataFrame()),
        "category",
        "Question categories",
    )
    fig.suptitle("Questions by MC type and by category")
    return fig


def fig8_categories_by_month(tables: Tables) -> Figure:
    data = tables.get("dataset_categories_by_month", pd.DataFrame())
    fig, axes = _new(1, 1, 12, 5)
    ax = axes[0, 0]
    ax.set_title("Share of questions per category and resolution month")
    if data.empty or data["n"].sum() == 0:
        _no_data(ax, "No categorised questions")
        return fig
    # pivot, not pivot_table: a month without questions (all NaN) must stay a row
    wide = data.pivot(index="month", columns="category", values="share_pct")
    order = list(tables.get("dataset_categories", pd.DataFrame()).get("category", wide.columns))
    wide = wide[[c for c in order if c in wide.columns]]
    x = np.arange(len(wide))
    bottom = np.zeros(len(wide))
    colours = category_colours(len(wide.columns))
    for i, cat in enumerate(wide.columns):
        values = wide[cat].fillna(0.0).to_numpy()
        ax.bar(x, values, bottom=bottom, color=colours[i], label=cat, width=0.9)
        bottom += values
    empty = wide.isna().all(axis=1).to_numpy()
    for gap in np.flatnonzero(empty):
        ax.bar(x[gap], 100, color=GAP_COLOUR, alpha=0.5, width=0.9, hatch="//")
    step = max(1, len(x) // 12)
    ax.set_xticks(x[::step], [str(m) for m in wide.index[::step]], rotation=45, ha="right")
    ax.set_xlabel("Resolution month")
    ax.set_ylabel("Share of the month's questions (%)")
    ax.set_ylim(0, 100)
    handles, labels = ax.get_legend_handles_labels()
    if empty.any():
        handles.append(Patch(color=GAP_COLOUR, alpha=0.5, hatch="//"))
        labels.append("no questions")
    ax.legend(handles, labels, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def fig2_anderson_schooler(tables: Tables) -> Figure:
    points = tables.get("anderson_schooler", pd.DataFrame())
    fits = tables.get("anderson_schooler_fit", pd.DataFrame())
    fig, axes = _new(1, 3, 15, 4.6)
    sources = ["article titles", "TF questions", "MC questions"]
    for ax, source in zip(axes[0], sources, strict=True):
        ax.set_title(source.capitalize() if source[0].islower() else source)
        fit = fits.loc[fits["source"] == source] if not fits.empty else fits
        pts = points.loc[points["source"] == source] if not points.empty else points
        if pts.empty:
            reason = str(fit["status"].iloc[0]) if not fit.empty else "no documents"
            _no_data(ax, f"Not computed: {reason}")
            continue
        ax.scatter(
            pts["frequency"], pts["probability"], s=12, alpha=0.7, color="#1f77b4", label="words"
        )
        f = fit.iloc[0] if not fit.empty else None
        if f is not None and np.isfinite(float(f["slope"])):
            xs = np.array([pts["frequency"].min(), pts["frequency"].max()], dtype=float)
            ax.plot(
                xs,
                float(f["slope"]) * xs + float(f["intercept"]),
                color="#d62728",
                label=f"linear fit, R² = {float(f['r2']):.3f}",
            )
        ax.set_xlabel("Days with the word in the past window")
        ax.set_ylabel("P(word appears the next day)")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle("Word recurrence (Anderson & Schooler): past frequency vs next-day probability")
    return fig


def _months_from(anchor: object, starts: pd.Series, ends: pd.Series) -> np.ndarray:
    """Midpoints of ``[start, end)`` day ranges in (average) months from the anchor."""
    days = (_midpoints(starts, ends) - pd.Timestamp(str(anchor))).dt.total_seconds() / 86400
    return (days / MONTH_DAYS).to_numpy(dtype=float)


def _points(rows: pd.DataFrame, span: str, suffix: str) -> pd.DataFrame:
    """x (months from the anchor), accuracy, Wilson bounds and n of one kind of column."""
    return pd.DataFrame(
        {
            "x": _months_from(
                rows["anchor_date"].iloc[0], rows[f"{span}_start"], rows[f"{span}_end"]
            ),
            "acc": rows[f"acc_{suffix}"].to_numpy(dtype=float),
            "low": rows[f"ci_low_{suffix}"].to_numpy(dtype=float),
            "high": rows[f"ci_high_{suffix}"].to_numpy(dtype=float),
            "n": rows[f"n_{suffix}"].to_numpy(dtype=float),
        }
    )


def freshbench_points(bias: pd.DataFrame, degeneration: pd.DataFrame) -> pd.DataFrame:
    """One model's past windows, present window and post-anchor periods as points, read
    from the FreshBench tables' columns; spans without questions are left out."""
    parts = []
    if not bias.empty:
        parts += [_points(bias, "window", "past"), _points(bias.iloc[:1], "present", "present")]
    if not degeneration.empty:
        parts.append(_points(degeneration, "period", "future"))
    if not parts:
        return pd.DataFrame(columns=["x", "acc", "low", "high", "n"])
    points = pd.concat(parts, ignore_index=True)
    return points.loc[points["n"] > 0]


def _closed_book_release(df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return df
    keep = (df["setting"] == CLOSED_BOOK) & (df["qtype"] == ALL) & (df["anchor"] == "release_date")
    return df.loc[keep]


def _freshbench_axis_label(bias: pd.DataFrame, degeneration: pd.DataFrame) -> str:
    parts = ["window midpoints"]
    if not bias.empty:
        first = bias.iloc[0]
        parts.append(
            f"present window = {first['present_window']} months before "
            f"({first['month_rule']} months)"
        )
    if not degeneration.empty:
        parts.append(f"{degeneration['period_rule'].iloc[0]} periods after")
    return "Months relative to release (" + "; ".join(parts) + ")"


def fig_freshbench(tables: Tables) -> Figure:
    """Closed-book accuracy (TF and MC pooled) per FreshBench window around release."""
    b = _closed_book_release(tables.get("freshbench_bias", pd.DataFrame()))
    d = _closed_book_release(tables.get("freshbench_degeneration", pd.DataFrame()))
    fig, axes = _new(1, 1, 12, 4.8)
    ax = axes[0, 0]
    ax.set_title("Closed-book accuracy by period relative to release (TF and MC pooled)")
    if b.empty and d.empty:
        _no_data(ax, "No closed-book model with a release date (see the skipped list)")
        return fig
    colours = model_colours(_all_models(tables))
    models = list(dict.fromkeys([*b.get("model", []), *d.get("model", [])]))
    offsets = np.linspace(-0.8, 0.8, max(1, len(models)))
    any_points = False
    for off, model in zip(offsets, models, strict=True):
        md = d.loc[d["model"] == model]
        points = freshbench_points(b.loc[b["model"] == model], md)
        if points.empty:
            continue
        any_points = True
        colour = colours.get(model, "black")
        y = 100.0 * points["acc"]
        few = points["n"] < MIN_INTERVAL_N  # one question: the point, no bar
        ax.errorbar(
            points["x"] + off,
            y,
            yerr=[
                (y - 100.0 * points["low"]).where(~few, 0.0),
                (100.0 * points["high"] - y).where(~few, 0.0),
            ],
            fmt="o",
            capsize=3,
            color=colour,
            label=model,
        )
        if not md.empty and (md["reference"] == PRE_ANCHOR).all():
            ax.hlines(
                100.0 * float(md["acc_reference"].iloc[0]),
                float(points["x"].min()) + off,
                0.0,
                colors=[colour],
                linestyles=":",
                lw=1.2,
            )
    if not any_points:
        _no_data(ax, "No questions fall in any FreshBench window")
        return fig
    ax.axvline(0.0, color="black", ls="--", lw=1.2, label="release")
    if not d.empty and (d["reference"] == PRE_ANCHOR).any():
        ax.plot([], [], color="grey", ls=":", label="accuracy before release (reference)")
    ax.set_xlabel(_freshbench_axis_label(b, d))
    ax.set_ylabel("Accuracy (%) with Wilson 95% CI")
    ax.set_ylim(-2, 102)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _has_scores(tables: Tables, setting: str) -> bool:
    monthly = tables.get("monthly_accuracy", pd.DataFrame())
    return not monthly.empty and int(monthly.loc[monthly["setting"] == setting, "n"].sum()) > 0


def _no_scores(setting: str, message: str) -> Callable[[Tables], str]:
    return lambda tables: "" if _has_scores(tables, setting) else message


NO_CLOSED_BOOK = "No closed-book scores in this run."
NO_RAG = "No RAG scores in this run (eval.settings lists no rag_dynamic or rag_YYYY-MM-DD)."
NO_GOLD = "No gold-article scores in this run (eval.settings lists no gold)."


def _empty_pies(tables: Tables) -> str:
    counts = [tables.get(n, pd.DataFrame()) for n in ("dataset_mc_types", "dataset_categories")]
    if any(not t.empty and int(t["n"].sum()) > 0 for t in counts):
        return ""
    return "The evaluated questions have neither MC types nor categories."


def _empty_categories_by_month(tables: Tables) -> str:
    data = tables.get("dataset_categories_by_month", pd.DataFrame())
    return "" if not data.empty and int(data["n"].sum()) > 0 else "No categorised questions."


def _empty_anderson_schooler(tables: Tables) -> str:
    if not tables.get("anderson_schooler", pd.DataFrame()).empty:
        return ""
    fits = tables.get("anderson_schooler_fit", pd.DataFrame())
    if fits.empty:
        return "Not computed: no article titles or questions to count words in."
    why = "; ".join(f"{r['source']}: {r['status']}" for r in fits.to_dict("records"))
    return f"Not computed ({why})."


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


def _empty_freshbench(tables: Tables) -> str:
    b = _closed_book_release(tables.get("freshbench_bias", pd.DataFrame()))
    d = _closed_book_release(tables.get("freshbench_degeneration", pd.DataFrame()))
    if b.empty and d.empty:
        return "No closed-book scores of a model with a release date (skipped models below)."
    models = dict.fromkeys([*b.get("model", []), *d.get("model", [])])
    for model in models:
        if not freshbench_points(b.loc[b["model"] == model], d.loc[d["model"] == model]).empty:
            return ""
    return "No question falls in a FreshBench window around a model's release date."


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "fig1_dataset_pies",
        "Fig. 1: MC question types and question categories.",
        fig1_dataset_pies,
        part="categories",
        empty=_empty_pies,
    ),
    FigureSpec(
        "fig2_anderson_schooler",
        "Fig. 2: probability that a word appears on the next day against the number of past "
        "days it appeared on, with the least-squares line and R².",
        fig2_anderson_schooler,
        part="anderson-schooler",
        empty=_empty_anderson_schooler,
    ),
    FigureSpec(
        "fig3_closed_book",
        "Fig. 3: closed-book accuracy per resolution month, moving average, Wilson 95% "
        "intervals and knowledge cutoffs.",
        fig3_closed_book,
        part="accuracy-over-time",
        empty=_no_scores(CLOSED_BOOK, NO_CLOSED_BOOK),
    ),
    FigureSpec(
        "fig4_rag_cutoffs",
        "Fig. 4: RAG accuracy per RAG cutoff against closed-book, with RAG and knowledge cutoffs.",
        fig4_rag_cutoffs,
        part="accuracy-over-time",
        empty=_no_scores(RAG, NO_RAG),
    ),
    FigureSpec(
        "fig5_gold",
        "Fig. 5: gold-article accuracy per resolution month.",
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
        empty=_empty_categories_by_month,
    ),
    FigureSpec(
        "fig9_refusals_closed_book",
        "Fig. 9: closed-book accuracy excluding refusals and refusal rate.",
        fig9_refusals_closed_book,
        part="refusals",
        empty=_no_scores(CLOSED_BOOK, NO_CLOSED_BOOK),
    ),
    FigureSpec(
        "fig10_refusals_rag",
        "Fig. 10: RAG accuracy excluding refusals and refusal rate.",
        fig10_refusals_rag,
        part="refusals",
        empty=_no_scores(RAG, NO_RAG),
    ),
    FigureSpec(
        "fig11_refusals_gold",
        "Fig. 11: gold-article accuracy excluding refusals and refusal rate.",
        fig11_refusals_gold,
        part="refusals",
        empty=_no_scores(GOLD, NO_GOLD),
    ),
    FigureSpec(
        "freshbench_periods",
        "FreshBench periods: closed-book accuracy in the windows before release and the "
        "periods after it.",
        fig_freshbench,
        part="bias-tests",
        empty=_empty_freshbench,
    ),
)
