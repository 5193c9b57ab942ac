"""The BPC-over-time figure, drawn from the ``bpc`` stage's tables alone.

One panel: per model, the mean bits per character of each bucket's documents at the
bucket's middle, with its bootstrap interval as a band; buckets without documents are
gaps in the line (shaded grey where no model has documents); each model's release date
is a dashed vertical line in its colour; the legend gives its Temporal Bias Index over
all buckets with the interval. The function reads the columns it draws and derives
nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from prescient.report.tables import MIN_INTERVAL_N  # noqa: E402

GAP_COLOUR = "#d9d9d9"


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
        # no band from one document (MIN_INTERVAL_N): a one-sample bootstrap is the value
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
