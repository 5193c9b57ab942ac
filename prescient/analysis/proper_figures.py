"""Figures of the proper scores, beyond the three papers: the Brier score per resolution
month (the probabilistic analogue of Daily Oracle's Fig. 3) and reliability diagrams.

Drawn from the tables of :mod:`prescient.analysis.proper`
(``proper_monthly``, ``proper_reliability``, ``proper_scores``); the figures compute
nothing. Over time, one colour per model as everywhere (``crowd``, an imported question set's
crowd forecast, is a model like the others) and the setting as the line style; the
reliability diagrams, one model per panel, colour each setting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from prescient.dates import DYNAMIC  # noqa: E402
from prescient.evaluation.settings import (  # noqa: E402
    CLOSED_BOOK,
    ELICITATIONS,
    KINDS,
)
from prescient.report.figures import (  # noqa: E402
    GAP_COLOUR,
    FigureSpec,
    Tables,
    midpoints,
    model_colours,
    month_axis,
    new_figure,
    no_data,
)
from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402
from prescient.vocab import MC, QTYPES, TF  # noqa: E402

PART_TIME = "brier-over-time"
PART_CALIBRATION = "calibration"
STYLES = dict(zip(KINDS, ("-", "--", ":"), strict=False))
"""Line style per setting kind (closed book, RAG, gold)."""
DYNAMIC_STYLE = "-."
"""The RAG setting without a dated cutoff, apart from the dated ones."""


def _style(setting: object, rag_cutoff: object) -> str:
    if str(rag_cutoff) == DYNAMIC:
        return DYNAMIC_STYLE
    return STYLES.get(str(setting), "-")


def cell_colours(cells: list[str]) -> dict[str, Any]:
    """A stable colour per evaluation cell (sorted names onto tab10): the reliability
    diagrams draw one model per panel, so their lines differ by cell."""
    names = sorted(dict.fromkeys(cells))
    cmap = matplotlib.colormaps["tab10"]
    return {c: cmap(i % cmap.N) for i, c in enumerate(names)}


def _present(values: pd.Series, order: tuple[str, ...]) -> list[str]:
    found = set(values.astype(str))
    return [v for v in order if v in found]


def _models(*frames: pd.DataFrame) -> list[str]:
    names: set[str] = set()
    for frame in frames:
        if not frame.empty and "model" in frame.columns:
            names |= set(frame["model"].astype(str))
    return sorted(names)


def _chance(tables: Tables, qtype: str) -> float | None:
    """The uninformed forecast's Brier score of a question type (``proper_scores``)."""
    scores = tables.get("proper_scores", pd.DataFrame())
    if scores.empty:
        return None
    values = scores.loc[scores["qtype"] == qtype, "brier_uniform"].dropna()
    return float(values.median()) if len(values) else None


def _shade_gaps(ax: Axes, panel: pd.DataFrame) -> None:
    per_month = panel.groupby(["month_start", "month_end"])["n"].sum()
    for start, end in per_month.index[per_month.to_numpy() == 0]:
        ax.axvspan(
            float(mdates.date2num(pd.Timestamp(str(start)))),
            float(mdates.date2num(pd.Timestamp(str(end)))),
            color=GAP_COLOUR,
            alpha=0.5,
            lw=0,
        )


def _series(ax: Axes, series: pd.DataFrame, colour: object, style: str, label: str) -> None:
    """Monthly means with their bootstrap band, and the moving average as the line."""
    if series["n"].sum() == 0:
        return
    x = midpoints(series["month_start"], series["month_end"])
    y = series["brier"].astype(float)
    few = series["n"].astype(float) < MIN_INTERVAL_N
    lo = series["ci_low"].astype(float).where(~few, y)
    hi = series["ci_high"].astype(float).where(~few, y)
    ax.fill_between(x, lo, hi, color=colour, alpha=0.10, lw=0)
    ax.plot(x, y, "o", ms=2.5, color=colour, alpha=0.5)
    ma = series["brier_ma"].astype(float)
    if bool(np.isfinite(ma).any()):
        ax.plot(x, ma, color=colour, lw=2.0, ls=style, label=label)
    else:
        ax.plot(x, y, "o", ms=2.5, color=colour, label=f"{label} (monthly)")


def _headline_cell(monthly: pd.DataFrame) -> str | None:
    """The cell the figure draws: closed book (as Daily Oracle's Fig. 3), else the first."""
    if monthly.empty:
        return None
    cells = list(dict.fromkeys(monthly["cell"].astype(str)))
    return CLOSED_BOOK if CLOSED_BOOK in cells else cells[0]


def brier_by_month(tables: Tables) -> Figure:
    """One panel per elicitation (rows) and question type (columns), one curve per model
    in one setting (closed book, as Fig. 3; the others are in the ``proper_monthly``
    table), so a panel holds a few curves; the uninformed forecast's Brier score as a
    grey dashed line."""
    monthly = tables.get("proper_monthly", pd.DataFrame())
    cell = _headline_cell(monthly)
    if cell is not None:
        monthly = monthly.loc[monthly["cell"].astype(str) == cell]
    elicitations = _present(monthly["elicitation"], ELICITATIONS) if not monthly.empty else []
    types = _present(monthly["qtype"], QTYPES) if not monthly.empty else [TF, MC]
    rows = max(1, len(elicitations))
    fig, axes = new_figure(rows, max(1, len(types)), 6.0 * max(1, len(types)), 4.2 * rows)
    colours = model_colours(_models(monthly, tables.get("proper_scores", pd.DataFrame())))
    for r, elicitation in enumerate(elicitations or [""]):
        for c, qtype in enumerate(types):
            ax = axes[r][c]
            panel = (
                monthly.loc[(monthly["elicitation"] == elicitation) & (monthly["qtype"] == qtype)]
                if not monthly.empty
                else monthly
            )
            ax.set_title(f"{elicitation}: {qtype.upper()} questions")
            if panel.empty or panel["n"].sum() == 0:
                no_data(ax, f"No {elicitation} {qtype.upper()} forecasts")
                continue
            month_axis(ax, panel["month_start"], panel["month_end"])
            _shade_gaps(ax, panel)
            for (model, setting, cutoff), series in panel.groupby(
                ["model", "setting", "rag_cutoff"], sort=False
            ):
                _series(
                    ax,
                    series,
                    colours.get(str(model), "black"),
                    _style(setting, cutoff),
                    str(model),
                )
            chance = _chance(tables, qtype)
            if chance is not None:
                ax.axhline(
                    chance, color="grey", ls="--", lw=1.0, label=f"uninformed ({chance:.2f})"
                )
            ax.set_ylabel("Brier score (lower is better)")
            ax.set_xlabel("Resolution month")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            ax.legend(
                fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False
            )
    fig.suptitle(
        f"Brier score by resolution month, {cell or 'no setting'} (beyond the papers)\n"
        "bold lines: moving average; points: monthly means with bootstrap intervals; "
        "grey: no questions; other settings: the proper_monthly table",
        fontsize=11,
    )
    return fig


POINT_AREA = 160.0
"""Point area (points^2) of the fullest bin of a reliability figure; others in proportion."""


def _reliability(tables: Tables, qtype: str) -> Figure:
    """One panel per model (rows) and elicitation (columns), one line per setting, each
    equal-width bin a point whose area is its question count, the legend below the
    axes."""
    table = tables.get("proper_reliability", pd.DataFrame())
    data = (
        table.loc[(table["qtype"] == qtype) & (table["strategy"] == "uniform")]
        if not table.empty
        else table
    )
    models = _models(data)
    elicitations = _present(data["elicitation"], ELICITATIONS) if not data.empty else []
    rows, cols = max(1, len(models)), max(1, len(elicitations))
    fig, axes = new_figure(rows, cols, max(7.0, 4.2 * cols), 3.9 * rows)
    shades = cell_colours(sorted(set(table["cell"].astype(str)))) if not table.empty else {}
    what = (
        "P(Yes) against the answer being Yes"
        if qtype == TF
        else ("the chosen answer's probability against it being correct")
    )
    if not models:
        no_data(axes[0][0], f"No {qtype.upper()} forecasts")
    for r, model in enumerate(models):
        for c, elicitation in enumerate(elicitations):
            ax = axes[r][c]
            panel = data.loc[(data["model"] == model) & (data["elicitation"] == elicitation)]
            ax.set_title(f"{model}: {elicitation}", fontsize=9)
            if panel.empty:
                no_data(ax, "No forecasts")
                continue
            ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=1.0, label="perfect calibration")
            for (cell, setting, cutoff), line in panel.groupby(
                ["cell", "setting", "rag_cutoff"], sort=False
            ):
                colour = shades.get(str(cell), "black")
                ax.plot(
                    line["forecast"],
                    line["observed"],
                    lw=1.0,
                    ls=_style(setting, cutoff),
                    color=colour,
                    label=str(cell),
                )
                # a bin's point area is its question count: a bin of one barely shows
                counts = line["count"].astype(float)
                ax.scatter(
                    line["forecast"],
                    line["observed"],
                    s=POINT_AREA * counts / max(1.0, float(data["count"].max())),
                    color=colour,
                    alpha=0.6,
                    lw=0,
                )
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_xlabel("Mean forecast in bin")
            ax.set_ylabel("Observed frequency")
            ax.grid(alpha=0.3)
            ax.legend(
                fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, frameon=False
            )
    fig.suptitle(
        f"Reliability of {qtype.upper()} forecasts (beyond the papers): {what}; "
        "point area: questions per bin",
        fontsize=10,
    )
    return fig


def reliability_tf(tables: Tables) -> Figure:
    return _reliability(tables, TF)


def reliability_mc(tables: Tables) -> Figure:
    return _reliability(tables, MC)


def _empty_monthly(tables: Tables) -> str:
    monthly = tables.get("proper_monthly", pd.DataFrame())
    if not monthly.empty and monthly["n"].sum() > 0:
        return ""
    return "No scored forecasts: the proper scores are empty."


def _empty_reliability(qtype: str) -> Callable[[Tables], str]:
    def why(tables: Tables) -> str:
        table = tables.get("proper_reliability", pd.DataFrame())
        if not table.empty and (table["qtype"] == qtype).any():
            return ""
        return f"No {qtype.upper()} forecasts in this run."

    return why


PROPER_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "proper_brier_by_month",
        "Brier score per resolution month and its moving average in the closed-book "
        "setting (as Fig. 3), one curve per model, per elicitation and question type, with "
        "bootstrap intervals of the monthly means and the uninformed forecast's score (grey "
        "dashed); every setting's months are in the proper_monthly table.",
        brier_by_month,
        part=PART_TIME,
        needs=("proper_monthly",),
        empty=_empty_monthly,
    ),
    FigureSpec(
        "proper_reliability_tf",
        "Reliability diagrams of TF forecasts: mean P(Yes) per equal-width bin against the "
        "share of Yes answers, one line per setting, each point's area its bin's questions; "
        "the diagonal is perfect calibration.",
        reliability_tf,
        part=PART_CALIBRATION,
        needs=("proper_reliability",),
        empty=_empty_reliability(TF),
    ),
    FigureSpec(
        "proper_reliability_mc",
        "Reliability diagrams of MC forecasts (top-label): the chosen answer's mean "
        "probability per equal-width bin against the share answered correctly, each "
        "point's area its bin's questions.",
        reliability_mc,
        part=PART_CALIBRATION,
        needs=("proper_reliability",),
        empty=_empty_reliability(MC),
    ),
)
"""The figures of the proper scores, each in its part of the report."""
