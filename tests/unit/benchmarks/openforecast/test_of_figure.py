"""The OpenForecast figure draws the tables' columns and says so when there is nothing."""

from __future__ import annotations

import pandas as pd

from prescient.benchmarks.openforecast.figures import (
    CLOSED_TABLE,
    OPEN_TABLE,
    openforecast_results,
)


def tables(n_closed: int) -> dict[str, pd.DataFrame]:
    closed = pd.DataFrame(
        {
            "model": ["a", "a", "b"],
            "task": ["mcnc", "vqa", "mcnc"],
            "setting": ["closed_book", "closed_book", "closed_book"],
            "rag_cutoff": [None, None, None],
            "n": [n_closed, n_closed, n_closed],
            "n_correct": [1, 2, 0],
            "n_failed": [0, 0, 0],
            "accuracy": [0.25, 0.5, 0.0],
            "low": [0.05, 0.15, 0.0],
            "high": [0.7, 0.85, 0.49],
        }
    )
    open_ = pd.DataFrame(
        {
            "model": ["a", "a", "a", "a"],
            "task": ["stf", "stf", "ltf", "ltf"],
            "metric": ["f1", "f1_gold", "f1", "f1_gold"],
            "n": [3, 3, 2, 2],
            "n_failed": [0, 0, 0, 0],
            "value": [0.4, 0.2, 0.3, float("nan")],
            "low": [0.1, 0.0, 0.0, float("nan")],
            "high": [0.7, 0.5, 0.6, float("nan")],
            "interval": ["bootstrap"] * 4,
        }
    )
    return {CLOSED_TABLE: closed, OPEN_TABLE: open_}


def test_draws_bars_with_the_tables_intervals() -> None:
    fig = openforecast_results(tables(4))
    left, right = fig.axes
    heights = [b.get_height() for b in left.patches]  # model a: MCNC, VQA; model b: MCNC, -
    assert heights[:3] == [0.25, 0.5, 0.0] and pd.isna(heights[3])
    assert [t.get_text() for t in left.get_xticklabels()] == ["MCNC", "VQA"]
    assert sorted(round(b.get_height(), 3) for b in right.patches) == [0.3, 0.4]


def test_empty_tables_say_so() -> None:
    t = tables(0)
    t[OPEN_TABLE] = t[OPEN_TABLE].iloc[0:0]
    fig = openforecast_results(t)
    texts = [x.get_text() for ax in fig.axes for x in ax.texts]
    assert "no closed-form questions scored" in texts
    assert "no open-form predictions judged" in texts
