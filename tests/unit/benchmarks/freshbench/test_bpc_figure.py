"""The BPC figure reads the stage's tables and draws what they hold."""

from __future__ import annotations

import math

import pandas as pd

from prescient.benchmarks.freshbench.figures import draw_bpc


def _tables() -> dict[str, pd.DataFrame]:
    buckets = pd.DataFrame(
        {
            "model": ["m"] * 3,
            "display_name": ["Model M"] * 3,
            "bucket": ["2024-01", "2024-03", "2024-05"],
            "bucket_start": ["2024-01-01", "2024-03-01", "2024-05-01"],
            "bucket_end": ["2024-03-01", "2024-05-01", "2024-07-01"],
            "n_docs": [2, 0, 2],
            "bpc": [1.0, math.nan, 1.2],
            "bpc_lo": [0.9, math.nan, 1.1],
            "bpc_hi": [1.1, math.nan, 1.3],
        }
    )
    tbi = pd.DataFrame(
        {
            "model": ["m", "m"],
            "span": ["all", "pre_release"],
            "tbi": [0.1, math.nan],
            "tbi_lo": [0.05, math.nan],
            "tbi_hi": [0.15, math.nan],
            "release_date": ["2024-04-15", "2024-04-15"],
        }
    )
    return {"bpc_buckets": buckets, "bpc_tbi": tbi}


def test_draws_the_curve_gap_release_and_tbi() -> None:
    fig = draw_bpc(_tables())
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["no documents", "Model M: TBI +0.1000 [+0.0500, +0.1500] per bucket"]
    curve = next(line for line in ax.get_lines() if line.get_label().startswith("Model M"))
    assert [float(v) for v in curve.get_ydata()][0::2] == [1.0, 1.2]
    assert math.isnan(float(curve.get_ydata()[1]))  # the gap breaks the line
    assert any("released" in t.get_text() for t in ax.texts)


def test_no_scores_say_so() -> None:
    fig = draw_bpc({"bpc_buckets": pd.DataFrame(), "bpc_tbi": pd.DataFrame()})
    assert "No BPC scores" in fig.axes[0].texts[0].get_text()
