"""The leaderboard: one row per model, setting and elicitation, TF and MC Brier apart,
ranked within a setting by the TF Brier score, failures counted."""

from __future__ import annotations

import math

import pandas as pd

from prescient.analysis.leaderboard import leaderboard_table
from prescient.analysis.proper_report import leaderboard_display


def _row(model: str, cell: str, elicitation: str, qtype: str, brier: float, **kw: float) -> dict:
    setting, _, cutoff = cell.partition("_") if cell.startswith("rag") else (cell, "", "")
    n = int(kw.get("n", 10))
    return {
        "model": model,
        "setting": setting,
        "rag_cutoff": cutoff or math.nan,
        "cell": cell,
        "elicitation": elicitation,
        "qtype": qtype,
        "n": n,
        "n_uniform_fill": int(kw.get("fills", 0)),
        "accuracy": kw.get("acc", 0.5),
        "accuracy_low": 0.2,
        "accuracy_high": 0.8,
        "brier": brier,
        "brier_low": brier - 0.01,
        "brier_high": brier + 0.01,
        "log_score": kw.get("log", 0.7),
        "log_low": 0.6,
        "log_high": 0.8,
    }


def _proper() -> pd.DataFrame:
    rows = []
    for model, elicitation, tf, mc, fills in (
        ("a", "label", 0.40, 1.10, 0),
        ("a", "token_logprobs", 0.22, 0.70, 0),
        ("b", "label", 0.30, 1.50, 0),
        ("b", "verbal_probability", 0.26, 0.75, 8),
    ):
        for cell in ("closed_book", "rag_2024-06-01"):
            rows.append(_row(model, cell, elicitation, "tf", tf))
            rows.append(_row(model, cell, elicitation, "mc", mc))
            # "all" pools both scales: the leaderboard never shows its Brier
            rows.append(_row(model, cell, elicitation, "all", (tf + mc) / 2, n=20, fills=fills))
    return pd.DataFrame(rows)


def test_rows_rank_by_tf_brier_within_each_setting_with_mc_apart() -> None:
    board = leaderboard_table(_proper())
    assert len(board) == 8
    first = board.loc[board["cell"] == "closed_book"]
    assert list(zip(first["model"], first["elicitation"], strict=True)) == [
        ("a", "token_logprobs"),
        ("b", "verbal_probability"),
        ("b", "label"),
        ("a", "label"),
    ]
    top = first.iloc[0]
    assert (top["brier_tf"], top["brier_mc"], top["n_tf"], top["n_mc"], top["n"]) == (
        0.22,
        0.70,
        10,
        10,
        20,
    )
    assert list(board["cell"]) == ["closed_book"] * 4 + ["rag_2024-06-01"] * 4
    shown = leaderboard_display(board)
    failing = shown.loc[(shown["Model"] == "b") & (shown["Asked for"] == "verbal probability")]
    assert failing["Unreadable"].iloc[0] == "8 (40%)"
    assert shown["Brier TF"].iloc[0] == "0.220 [0.210, 0.230]"
    assert leaderboard_table(pd.DataFrame()).empty


def test_rows_mostly_unreadable_rank_after_every_readable_row() -> None:
    rows = []
    for model, elicitation, tf, fills in (
        ("a", "scratchpad", 0.25, 11),  # 11 of 20 unreadable: the uniform forecast's 0.25
        ("a", "label", 0.40, 10),  # half: still ranked by its score
        ("b", "token_logprobs", 0.30, 0),
    ):
        rows.append(_row(model, "closed_book", elicitation, "tf", tf))
        rows.append(_row(model, "closed_book", elicitation, "mc", 0.75))
        rows.append(_row(model, "closed_book", elicitation, "all", 0.5, n=20, fills=fills))
    board = leaderboard_table(pd.DataFrame(rows))
    assert list(board["elicitation"]) == ["token_logprobs", "label", "scratchpad"]
