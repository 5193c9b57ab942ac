"""FreshBench's figures: bits per character over time, and accuracy by period around
each model's release.

BPC over time is drawn from the ``bpc`` stage's tables alone. One panel: per model, the mean bits per character of each bucket's documents at the
bucket's middle, with its bootstrap interval as a band; buckets without documents are
gaps in the line (shaded grey where no model has documents); each model's release date
is a dashed vertical line in its colour; the legend gives its Temporal Bias Index over
all buckets with the interval.

The periods figure draws the analysis's FreshBench tables (``freshbench_bias``,
``freshbench_degeneration``): closed-book accuracy in the windows before each model's
release and the periods after it, with Wilson 95% bars. Both functions read the columns
they draw and derive nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from prescient.analysis.schema import ALL  # noqa: E402
from prescient.benchmarks.freshbench.settings import PRE_ANCHOR  # noqa: E402
from prescient.evaluation.settings import CLOSED_BOOK  # noqa: E402
from prescient.report.figures import (  # noqa: E402
    GAP_COLOUR,
    Tables,
    all_models,
    midpoints,
    model_colours,
    new_figure,
    no_data,
)
from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402


def _label(model: str, shown: str, tbi: pd.DataFrame) -> str:
    rows = tbi[(tbi["model"] == model) & (tbi["span"] == "all")] if not tbi.empty else tbi
    if rows.empty or pd.isna(rows["tbi"].iloc[0]):
        return f"{shown} (TBI n/a)"
    r = rows.iloc[0]
    band = ""
    if pd.notna(r["tbi_lo"]) and pd.notna(r["tbi_hi"]):
        band = f" [{r['tbi_lo']:+.4f}, {r['tbi_hi']:+.4f}]"
    return f"{shown}: TBI {r['tbi']:+.4f}{band} per bucket"


def _day(value: object) -> float:
    """A date as matplotlib's axis number."""
    return float(mdates.date2num(pd.Timestamp(str(value)).to_pydatetime()))


def _release(model: str, tbi: pd.DataFrame) -> float | None:
    if tbi.empty:
        return None
    values = [v for v in tbi.loc[tbi["model"] == model, "release_date"] if isinstance(v, str) and v]
    return _day(values[0]) if values else None


def _shade_gaps(ax: Axes, buckets: pd.DataFrame) -> None:
    docs = buckets.groupby("bucket_start", sort=True)["n_docs"].sum()
    ends = dict(zip(buckets["bucket_start"], buckets["bucket_end"], strict=True))
    gaps = [start for start, n in docs.items() if n == 0]
    for start in gaps:
        ax.axvspan(_day(start), _day(ends[start]), color=GAP_COLOUR, alpha=0.7, lw=0)
    if gaps:
        ax.plot([], [], color=GAP_COLOUR, lw=6, label="no documents")


def draw_bpc(tables: Mapping[str, pd.DataFrame]) -> Figure:
    """BPC over time per model with the release date marked.

    Args:
        tables: ``bpc_buckets`` (model, display_name, bucket_start, bucket_end, n_docs,
            bpc, bpc_lo, bpc_hi) and ``bpc_tbi`` (model, span, tbi, tbi_lo, tbi_hi,
            release_date), as the ``bpc`` stage writes them.
    """
    buckets = tables.get("bpc_buckets", pd.DataFrame())
    tbi = tables.get("bpc_tbi", pd.DataFrame())
    fig = Figure(figsize=(9.0, 4.2), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    if buckets.empty or buckets["bpc"].notna().sum() == 0:
        ax.text(
            0.5,
            0.5,
            "No BPC scores: no model of bpc.models could be scored",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
        return fig
    start = pd.to_datetime(buckets["bucket_start"])
    end = pd.to_datetime(buckets["bucket_end"])
    mid = start + (end - start) / 2
    _shade_gaps(ax, buckets)
    cmap = matplotlib.colormaps["tab10"]
    for k, model in enumerate(dict.fromkeys(buckets["model"].astype(str))):
        mine = buckets["model"] == model
        colour = cmap(k % cmap.N)
        shown = str(buckets.loc[mine, "display_name"].iloc[0] or model)
        x = mid[mine]
        ax.plot(x, buckets.loc[mine, "bpc"], marker="o", ms=3.5, lw=1.4, color=colour,
                label=_label(model, shown, tbi))  # fmt: skip
        # no band from fewer than MIN_INTERVAL_N documents: a bootstrap of a few is noise
        few = buckets.loc[mine, "n_docs"].astype(float) < MIN_INTERVAL_N
        ax.fill_between(x, buckets.loc[mine, "bpc_lo"].where(~few),
                        buckets.loc[mine, "bpc_hi"].where(~few),
                        color=colour, alpha=0.18, lw=0)  # fmt: skip
        release = _release(model, tbi)
        if release is not None:
            ax.axvline(release, color=colour, ls="--", lw=1.0)
            ax.annotate(f"{shown} released", (release, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(-3, -12), textcoords="offset points", fontsize=8, color=colour,
                        ha="right")  # fmt: skip
    ax.xaxis.set_major_locator(mdates.YearLocator())
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y"))
    ax.set_xlim(_day(start.min()), _day(end.max()))
    ax.set_ylabel("bits per character")
    ax.set_title("Bits per character over time (mean per bucket, 95% bootstrap band)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


# Days per calendar month on average: positions windows on a months-from-anchor axis.
MONTH_DAYS = 365.2425 / 12


def _months_from(anchor: object, starts: pd.Series, ends: pd.Series) -> np.ndarray:
    """Midpoints of ``[start, end)`` day ranges in (average) months from the anchor."""
    days = (midpoints(starts, ends) - pd.Timestamp(str(anchor))).dt.total_seconds() / 86400
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
    fig, axes = new_figure(1, 1, 12, 4.8)
    ax = axes[0, 0]
    ax.set_title("Closed-book accuracy by period relative to release (TF and MC pooled)")
    if b.empty and d.empty:
        no_data(ax, "No closed-book model with a release date (see the skipped list)")
        return fig
    colours = model_colours(all_models(tables))
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
        few = points["n"] < MIN_INTERVAL_N  # too few questions: the point, no bar
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
        no_data(ax, "No questions fall in any FreshBench window")
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


def empty_periods(tables: Tables) -> str:
    b = _closed_book_release(tables.get("freshbench_bias", pd.DataFrame()))
    d = _closed_book_release(tables.get("freshbench_degeneration", pd.DataFrame()))
    if b.empty and d.empty:
        return "No closed-book scores of a model with a release date (skipped models below)."
    models = dict.fromkeys([*b.get("model", []), *d.get("model", [])])
    for model in models:
        if not freshbench_points(b.loc[b["model"] == model], d.loc[d["model"] == model]).empty:
            return ""
    return "No question falls in a FreshBench window around a model's release date."
