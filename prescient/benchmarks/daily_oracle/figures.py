"""Daily Oracle's figures (ICML 2025, Fig. 1-6 and 8-11), drawn from the analysis tables.

Every figure is a pure function ``tables -> Figure`` listed in :data:`FIGURES` under its
file stem; the dataset's (Fig. 1, 2 and 8) are drawn in :mod:`.dataset_figures`. Figures
draw the columns of the analysis tables and compute nothing: counts, Wilson intervals
and the bounds of months are columns there. The accuracy-over-time figures share one
monthly panel (:class:`~.time_panel.TimePanel`): its conventions, beside the report's
(:mod:`prescient.report.figures`), are Wilson 95% bars or bands around monthly points,
the moving average as the bold line, knowledge cutoffs as dashed verticals, months
without questions shaded grey, and the chance accuracy as a dash-dot line.
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
from matplotlib.figure import Figure  # noqa: E402

from prescient.benchmarks.daily_oracle.dataset_figures import (  # noqa: E402
    empty_anderson_schooler,
    empty_categories_by_month,
    empty_pies,
    fig1_dataset_pies,
    fig2_anderson_schooler,
    fig8_categories_by_month,
)
from prescient.benchmarks.daily_oracle.time_panel import TimePanel, chance_level  # noqa: E402
from prescient.dates import DYNAMIC, parse_rag_cutoff  # noqa: E402
from prescient.evaluation.settings import (  # noqa: E402
    CLOSED_BOOK,
    GOLD,
    RAG,
)
from prescient.report.figures import (  # noqa: E402
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
from prescient.vocab import MC, QTYPES, TF  # noqa: E402

# The RAG setting without a dated cutoff (not a shade of the dated cutoffs).
DYNAMIC_COLOUR = "#c51b7d"


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
