"""Daily Oracle's dataset figures (ICML 2025, Fig. 1, 2 and 8): the MC question types and
categories, the categories per month, and the word recurrence of Anderson and Schooler,
drawn from the analysis's dataset tables (:mod:`.figures` lists them)."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from prescient.report.figures import (  # noqa: E402
    GAP_COLOUR,
    Tables,
    new_figure,
    no_data,
)


def category_colours(count: int) -> list[Any]:
    """Colours for ``count`` labels in table order: Set3 (tab20 beyond twelve), a palette
    apart from the models' tab10 so a category never looks like a model."""
    cmap = matplotlib.colormaps["Set3" if count <= 12 else "tab20"]
    return [cmap(i % cmap.N) for i in range(count)]


def _pie(ax: Axes, table: pd.DataFrame, label: str, title: str) -> None:
    ax.set_title(title)
    if table.empty or table["n"].sum() == 0:
        no_data(ax, f"No {title.lower()} in the questions table")
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
    fig, axes = new_figure(1, 2, 13, 5)
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
    fig, axes = new_figure(1, 1, 12, 5)
    ax = axes[0, 0]
    ax.set_title("Share of questions per category and resolution month")
    if data.empty or data["n"].sum() == 0:
        no_data(ax, "No categorised questions")
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
    fig, axes = new_figure(1, 3, 15, 4.6)
    sources = ["article titles", "TF questions", "MC questions"]
    for ax, source in zip(axes[0], sources, strict=True):
        ax.set_title(source.capitalize() if source[0].islower() else source)
        fit = fits.loc[fits["source"] == source] if not fits.empty else fits
        pts = points.loc[points["source"] == source] if not points.empty else points
        if pts.empty:
            reason = str(fit["status"].iloc[0]) if not fit.empty else "no documents"
            no_data(ax, f"Not computed: {reason}")
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


def empty_pies(tables: Tables) -> str:
    counts = [tables.get(n, pd.DataFrame()) for n in ("dataset_mc_types", "dataset_categories")]
    if any(not t.empty and int(t["n"].sum()) > 0 for t in counts):
        return ""
    return "The evaluated questions have neither MC types nor categories."


def empty_categories_by_month(tables: Tables) -> str:
    data = tables.get("dataset_categories_by_month", pd.DataFrame())
    return "" if not data.empty and int(data["n"].sum()) > 0 else "No categorised questions."


def empty_anderson_schooler(tables: Tables) -> str:
    if not tables.get("anderson_schooler", pd.DataFrame()).empty:
        return ""
    fits = tables.get("anderson_schooler_fit", pd.DataFrame())
    if fits.empty:
        return "Not computed: no article titles or questions to count words in."
    why = "; ".join(f"{r['source']}: {r['status']}" for r in fits.to_dict("records"))
    return f"Not computed ({why})."
