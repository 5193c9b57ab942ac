"""OpenForecast's results figure, drawn from the tables of stage ``of_tables``.

Left: accuracy of the closed forms (MCNC, MCAC, VQA) per task and model in the
closed-book setting, with the Wilson 95% intervals of ``closed_accuracy.csv``. Right:
LRAE's macro F1 of the open forms (STF, LTF, AQA) per task and model, with the bootstrap
intervals of ``open_scores.csv``, and the labels-only F1 as hollow markers (the gap is
what the evidence check adds; OpenForecast, COLING 2025, Table 8). The figure draws the
columns as they are and computes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from prescient.report.figures import model_colours  # noqa: E402
from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402

NAME = "openforecast"
"""File stem of the figure (reports/figures/openforecast.png)."""
CAPTION = (
    "OpenForecast: closed-form accuracy (closed book, Wilson 95% intervals) and LRAE macro "
    "F1 of the open forms (bootstrap 95% intervals; hollow: gold labels only)."
)
CLOSED_TABLE = "of_closed_accuracy"
OPEN_TABLE = "of_open_scores"
CLOSED_ORDER = ("mcnc", "mcac", "vqa")
OPEN_ORDER = ("stf", "ltf", "aqa")


def _no_data(ax: Axes, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def _bars(
    ax: Axes,
    table: pd.DataFrame,
    order: tuple[str, ...],
    value: str,
    colours: Mapping[str, object],
    hollow: pd.DataFrame | None = None,
) -> None:
    tasks = [t for t in order if t in set(table["task"])]
    models = sorted(set(table["model"]))
    width = 0.8 / max(1, len(models))
    x = np.arange(len(tasks))
    for j, model in enumerate(models):
        rows = table[table["model"] == model].set_index("task").reindex(tasks)
        pos = x - 0.4 + width * (j + 0.5)
        y = rows[value].to_numpy(dtype=float)
        err = np.vstack([y - rows["low"].to_numpy(float), rows["high"].to_numpy(float) - y])
        # no bar from fewer than MIN_INTERVAL_N samples, nor where there is none
        few = rows["n"].to_numpy(float) < MIN_INTERVAL_N
        err = np.where(np.isnan(err) | few, 0.0, err)
        ax.bar(pos, y, width, color=colours[model], label=model)
        ax.errorbar(pos, y, yerr=err, fmt="none", ecolor="0.2", capsize=3, lw=1)
        if hollow is not None:
            h = hollow[hollow["model"] == model].set_index("task").reindex(tasks)
            ax.scatter(
                pos, h["value"].to_numpy(float), facecolors="none", edgecolors="0.1", zorder=3
            )
    ax.set_xticks(x, [t.upper() for t in tasks])
    ax.set_ylim(0, 1.05)


def openforecast_results(tables: Mapping[str, pd.DataFrame]) -> Figure:
    """The figure from ``tables[CLOSED_TABLE]`` and ``tables[OPEN_TABLE]``."""
    closed = tables[CLOSED_TABLE]
    open_ = tables[OPEN_TABLE]
    colours = model_colours([*closed["model"].astype(str), *open_["model"].astype(str)])
    fig = Figure(figsize=(10, 4), dpi=110)
    left, right = fig.subplots(1, 2)
    book = closed[closed["setting"] == "closed_book"]
    if book.empty or book["n"].sum() == 0:
        _no_data(left, "no closed-form questions scored")
    else:
        _bars(left, book.rename(columns={"accuracy": "value"}), CLOSED_ORDER, "value", colours)
        left.set_ylabel("accuracy")
        left.legend(fontsize=8, loc="upper right")
    left.set_title("Closed forms (closed book)")
    f1 = open_[open_["metric"] == "f1"]
    if f1.empty or f1["n"].sum() == 0:
        _no_data(right, "no open-form predictions judged")
    else:
        _bars(right, f1, OPEN_ORDER, "value", colours, open_[open_["metric"] == "f1_gold"])
        right.set_ylabel("macro F1 (LRAE)")
        right.legend(fontsize=8, loc="upper right")
    right.set_title("Open forms (LRAE)")
    fig.tight_layout()
    return fig
