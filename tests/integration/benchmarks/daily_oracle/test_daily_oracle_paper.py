"""Daily Oracle's Table 3, headline and curves as the paper computes them, on a scores
table built by hand and analysed alone (``-S analysis=daily_oracle_paper
-S analysis_inputs=scores_file``): the stages called as DVC calls them, and once through
``dvc exp run report`` in a scratch clone.

The table runs from 2019-11 to 2025-02, past both ends of the paper's period
(2020-01..2024-12), with one month (2022-02) without questions. Every expected number is
computed here from the counts the table was built from, by the paper's formulas, with
plain Python: a year's accuracy pooled over its questions; the YoY change
100 (acc[m] - acc[m-12]) / acc[m-12] averaged over 2021-01..2024-12 (Avg), over the 24
months before the knowledge-cutoff month (Pre) and the 7 months from it (Post); the
headline as the mean over the evaluated (not baseline) models of the closed-book
accuracy in 2020-01 and 2024-12; and a trailing 5-month moving average of whatever
months have questions.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.plumbing import params as params_mod
from prescient.report.table_files import read_tables
from prescient.report.tables import MISSING
from stages import analyze, plot, report
from tests.conftest import ROOT
from tests.integration.evaluation.test_question_sources_dvc import (
    DVC,
    _clone,
    _commit,
    _ran,
    _run,
    needs_dvc,
)

PRESET = ("analysis=daily_oracle_paper", "analysis_inputs=scores_file")
FIRST, LAST = (2019, 11), (2025, 2)  # the table's months; the period is 2020-01..2024-12
GAP = (2022, 2)  # no questions at all
# model -> (knowledge cutoff in the scores table, TF base %, MC base %, decline pp/year).
# baseline_random is the registry's baseline (its entry has no cutoff): it enters
# Table 3 but not the headline.
MODELS: dict[str, tuple[str | None, int, int, int]] = {
    "alpha-13b": ("2023-04-20", 80, 70, 4),
    "beta-7b": (None, 62, 55, 6),
    "gamma-2b": ("2024-09-10", 58, 50, 2),
    "baseline_random": (None, 50, 25, 0),
}
CUTOFFS = {"alpha-13b": (2023, 4), "gamma-2b": (2024, 9)}


def _index(ym: tuple[int, int]) -> int:
    return ym[0] * 12 + ym[1] - 1


def _ym(index: int) -> tuple[int, int]:
    return index // 12, index % 12 + 1


def _label(index: int) -> str:
    y, m = _ym(index)
    return f"{y:04d}-{m:02d}"


MONTHS = [i for i in range(_index(FIRST), _index(LAST) + 1) if i != _index(GAP)]
P_FIRST, P_LAST = _index((2020, 1)), _index((2024, 12))


def _n(qtype: str, month: int) -> int:
    """Questions of a type in a month: 30-39 TF, 30-38 MC (every month at least the
    floor of the YoY averages and the headline change, analysis.*.min_month_n: 30)."""
    return 30 + 3 * (month % 4) if qtype == "tf" else 30 + 4 * (month % 3)


def _k(model: str, qtype: str, month: int) -> int:
    """Correct answers: the model's base accuracy, its decline since 2020-01 and a
    wiggle of up to 4 points, floored to whole questions."""
    _, tf, mc, drop = MODELS[model]
    t = month - P_FIRST
    pct = (tf if qtype == "tf" else mc) - drop * t / 12 + (t * 7) % 5
    return max(0, min(_n(qtype, month), math.floor(_n(qtype, month) * pct / 100)))


COUNTS = {
    (model, qtype, month): (_k(model, qtype, month), _n(qtype, month))
    for model in MODELS
    for qtype in ("tf", "mc")
    for month in MONTHS
}


def _scores() -> pd.DataFrame:
    """One row per (model, question): the same questions for every model, resolved on
    different days of their month; some wrong answers are refusals (still wrong)."""
    rows = []
    for (model, qtype, month), (k, n) in COUNTS.items():
        y, m = _ym(month)
        for j in range(n):
            refused = j >= k and (j - k) < month % 3
            rows.append(
                {
                    "model": model,
                    "setting": "closed_book",
                    "question_id": f"{qtype}-{_label(month)}-{j}",
                    "qtype": qtype,
                    "resolution_date": dt.date(y, m, 1 + (7 * j) % 28).isoformat(),
                    "correct": j < k,
                    "refused": refused,
                    "knowledge_cutoff": MODELS[model][0],
                }
            )
    return pd.DataFrame(rows)


# The paper's formulas on the counts, by hand ------------------------------------------


def _acc(model: str, qtype: str, month: int) -> float | None:
    k, n = COUNTS.get((model, qtype, month), (0, 0))
    return k / n if n else None


def _yearly(model: str, qtype: str, year: int) -> float:
    ks = [COUNTS[(model, qtype, m)] for m in MONTHS if _ym(m)[0] == year]
    return 100 * sum(k for k, _ in ks) / sum(n for _, n in ks)


def _yoy(model: str, qtype: str, month: int) -> float | None:
    now, before = _acc(model, qtype, month), _acc(model, qtype, month - 12)
    if now is None or before is None or before == 0:
        return None
    return 100 * (now - before) / before


def _mean_yoy(model: str, qtype: str, first: int, last: int) -> tuple[float, int]:
    first, last = max(first, P_FIRST + 12), min(last, P_LAST)
    values = [_yoy(model, qtype, m) for m in range(first, last + 1)]
    defined = [v for v in values if v is not None]
    return (mean(defined) if defined else math.nan), len(defined)


def _expected_row(model: str, qtype: str) -> dict[str, Any]:
    row: dict[str, Any] = {f"acc_{y}": _yearly(model, qtype, y) for y in range(2020, 2025)}
    row["yoy_all"], row["yoy_all_pairs"] = _mean_yoy(model, qtype, P_FIRST, P_LAST)
    if model in CUTOFFS:
        c = _index(CUTOFFS[model])
        row["yoy_pre"], row["yoy_pre_pairs"] = _mean_yoy(model, qtype, c - 24, c - 1)
        row["yoy_post"], row["yoy_post_pairs"] = _mean_yoy(model, qtype, c, c + 6)
    return row


# Running the stages as DVC runs them ---------------------------------------------------


@dataclass(frozen=True)
class PaperRun:
    root: Path
    params: dict[str, Any]

    @property
    def tables(self) -> Path:
        return self.root / "tables"


def _run_stages(root: Path) -> PaperRun:
    """analyze, plot and report with params composed from conf/ and the preset, the
    stages' paths those that dvc.yaml gives them from the params."""
    root.mkdir(parents=True, exist_ok=True)
    scores_path = root / "their_scores.parquet"
    _scores().to_parquet(scores_path, index=False)
    p = params_mod.compose(ROOT, [*PRESET, f"analysis.scores={scores_path}"])
    (root / "params.yaml").write_text(yaml.safe_dump(p, sort_keys=False))
    a = p["analysis"]
    assert a["questions"] == a["articles"] == a["candidates"] == str(scores_path)
    tables, figures = root / "tables", root / "figures"
    assert (
        analyze.main(
            [
                "--params",
                str(root / "params.yaml"),
                "--scores",
                a["scores"],
                "--questions",
                a["questions"],
                "--articles",
                a["articles"],
                "--candidates",
                a["candidates"],
                "--tables",
                str(tables),
                "--metrics",
                str(root / "analysis.json"),
                "--summary",
                str(root / "summary.json"),
                "--rag",
                str(root / "rag.json"),
                "--plots",
                str(root / "plots"),
            ]
        )  # fmt: skip
        == 0
    )
    optional = ["--bpc", str(tables), "--openforecast", str(tables)]
    assert plot.main(["--tables", str(tables), *optional, "--out", str(figures)]) == 0
    assert (
        report.main(
            [
                "--params",
                str(root / "params.yaml"),
                "--tables",
                str(tables),
                *optional,
                "--figures",
                str(figures),
                "--out",
                str(root / "index.html"),
            ]
        )  # fmt: skip
        == 0
    )
    return PaperRun(root, p)


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> PaperRun:
    return _run_stages(tmp_path_factory.mktemp("paper"))


def test_the_preset_fixes_the_papers_period_and_definitions(paper: PaperRun) -> None:
    a = paper.params["analysis"]
    assert (a["date_start"], a["date_end"]) == ("2020-01-01", "2024-12-31")
    assert a["table3"] == {
        "yearly": "pooled",
        "windows": "paper",
        "pre_months": 24,
        "post_months": 7,
        "min_month_n": 30,  # beyond the paper: every month here clears it
    }
    assert a["headline"] == {"exclude_baselines": True, "min_month_n": 30}
    assert a["moving_average"] == {"window": 5, "kind": "trailing", "min_periods": 1}
    assert a["bootstrap"]["reps"] == 0
    assert (a["slope"]["start_months"], a["slope"]["decay"]) == (10, 0.995)


def test_the_scores_past_the_period_are_cut(paper: PaperRun) -> None:
    tables = read_tables(paper.tables)
    monthly = tables["monthly_accuracy"]
    assert (monthly["month"].min(), monthly["month"].max()) == ("2020-01", "2024-12")
    assert monthly.groupby(["model", "qtype"]).size().unique().tolist() == [60]
    years = [c for c in tables["table3"].columns if c.startswith("acc_")]
    assert years == [f"acc_{y}" for y in range(2020, 2025)]
    outside = sum(n for (_, _, month), (_, n) in COUNTS.items() if not P_FIRST <= month <= P_LAST)
    notes = " ".join(tables["notes"]["note"])
    assert f"{outside} of {len(_scores())} scored rows fall outside" in notes
    metrics = json.loads((paper.root / "analysis.json").read_text())
    assert metrics["months_span"] == 60 and metrics["months_with_scores"] == 59


def test_table3_cells_are_the_papers(paper: PaperRun) -> None:
    t3 = read_tables(paper.tables)["table3"].set_index(["model", "qtype"])
    assert len(t3) == len(MODELS) * 2
    for model in MODELS:
        for qtype in ("tf", "mc"):
            got = t3.loc[(model, qtype)]
            for column, value in _expected_row(model, qtype).items():
                assert got[column] == pytest.approx(value, rel=1e-9), (model, qtype, column)
            if model not in CUTOFFS:
                assert math.isnan(got["yoy_pre"]) and math.isnan(got["yoy_post"])
                assert got["yoy_pre_pairs"] == got["yoy_post_pairs"] == 0
    alpha = t3.loc[("alpha-13b", "tf")]
    # 24 months before 2023-04 less the two YoY months the gap removes (2022-02, 2023-02)
    assert (alpha["yoy_pre_from"], alpha["yoy_pre_to"], alpha["yoy_pre_pairs"]) == (
        "2021-04",
        "2023-03",
        22,
    )
    assert (alpha["yoy_post_from"], alpha["yoy_post_to"], alpha["yoy_post_pairs"]) == (
        "2023-04",
        "2023-10",
        7,
    )
    gamma = t3.loc[("gamma-2b", "mc")]  # its 7 months are clipped at 2024-12
    assert (gamma["yoy_post_to"], gamma["yoy_post_pairs"]) == ("2024-12", 4)
    assert (alpha["yoy_all_from"], alpha["yoy_all_to"], alpha["yoy_all_pairs"]) == (
        "2021-01",
        "2024-12",
        46,
    )
    assert (alpha["n_2020"], alpha["n_2022"]) == (
        sum(_n("tf", m) for m in MONTHS if _ym(m)[0] == 2020),
        sum(_n("tf", m) for m in MONTHS if _ym(m)[0] == 2022),
    )


def test_the_headline_is_first_against_last_month_of_the_period(paper: PaperRun) -> None:
    headline = read_tables(paper.tables)["headline_decline"].set_index("qtype")
    metrics = json.loads((paper.root / "analysis.json").read_text())["headline_closed_book"]
    evaluated = ["alpha-13b", "beta-7b", "gamma-2b"]  # baseline_random is left out
    for qtype in ("tf", "mc"):
        first = 100 * mean(_acc(m, qtype, P_FIRST) or 0.0 for m in evaluated)
        last = 100 * mean(_acc(m, qtype, P_LAST) or 0.0 for m in evaluated)
        row = headline.loc[qtype]
        assert (row["first_month"], row["last_month"]) == ("2020-01", "2024-12")
        assert row["models"] == ", ".join(evaluated) and row["n_models"] == 3
        assert row["left_out"] == "baseline_random (baseline)"
        assert row["first_accuracy"] == pytest.approx(first, rel=1e-9)
        assert row["last_accuracy"] == pytest.approx(last, rel=1e-9)
        assert row["change_pct"] == pytest.approx(100 * (last - first) / first, rel=1e-9)
        assert (row["n_first"], row["n_last"]) == (3 * _n(qtype, P_FIRST), 3 * _n(qtype, P_LAST))
        assert metrics[qtype]["change_pct"] == pytest.approx(100 * (last - first) / first, abs=1e-5)
        assert metrics[qtype]["models"] == 3


def test_the_curves_average_the_months_there_are(paper: PaperRun) -> None:
    monthly = read_tables(paper.tables)["monthly_accuracy"]
    series = monthly.query("model == 'beta-7b' and qtype == 'mc'").set_index("month")
    for month in range(P_FIRST, P_LAST + 1):
        # trailing 5 months within the period (2019's months are cut), gaps skipped
        window = [_acc("beta-7b", "mc", m) for m in range(max(P_FIRST, month - 4), month + 1)]
        defined = [a for a in window if a is not None]
        assert series.loc[_label(month), "accuracy_ma"] == pytest.approx(mean(defined), rel=1e-9)
    assert series.loc["2020-01", "ma_months"] == 1 and series.loc["2022-04", "ma_months"] == 4
    assert math.isnan(series.loc["2022-02", "accuracy"])


def test_the_slopes_start_with_the_period(paper: PaperRun) -> None:
    slopes = read_tables(paper.tables)["slopes"].query("model == 'alpha-13b' and qtype == 'mc'")
    first = slopes.iloc[0]
    assert (first["window_start"], first["window_end"], first["n_months"]) == (
        "2020-01",
        "2020-10",
        10,
    )
    assert slopes["window_end"].iloc[-1] == "2024-12" and len(slopes) == 51
    # the window holding the gap month has one defined month fewer than its length, but
    # its moving average is defined (min_periods 1): every window is fitted
    assert slopes["slope_pp_per_month"].notna().all()


def _markdown_rows(text: str) -> list[dict[str, str]]:
    """The rows of a Markdown table (no cell holds a pipe), keyed by header."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    split = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return [dict(zip(split[0], cells, strict=True)) for cells in split[2:]]


def test_the_report_shows_table3_with_its_n_and_dashes(paper: PaperRun) -> None:
    rows = _markdown_rows((paper.tables / "table3.md").read_text())
    beta = next(r for r in rows if r["Model"] == "beta-7b" and r["Type"] == "TF")
    assert beta["K-cutoff"] == beta["Pre-cutoff YoY"] == beta["Post-cutoff YoY"] == MISSING
    # No interval by default: the paper's Table 3 has none (analysis.bootstrap.reps: 0).
    assert beta["Avg YoY"].endswith(" n=46") and " [" not in beta["Avg YoY"]
    n_2020 = sum(_n("tf", m) for m in MONTHS if _ym(m)[0] == 2020)
    assert beta["2020"] == f"{_yearly('beta-7b', 'tf', 2020):.2f} n={n_2020}"
    assert beta["YoY months (pre; post; avg)"] == f"{MISSING}; {MISSING}; 2021-01..2024-12"
    alpha = next(r for r in rows if r["Model"] == "alpha-13b" and r["Type"] == "MC")
    assert alpha["K-cutoff"] == "2023-04-20" and alpha["Post-cutoff YoY"].endswith(" n=7")
    spans = "2021-04..2023-03; 2023-04..2023-10; 2021-01..2024-12"
    assert alpha["YoY months (pre; post; avg)"] == spans
    headline = _markdown_rows((paper.tables / "headline_decline.md").read_text())
    assert [(r["Type"], r["Models (n)"]) for r in headline] == [("TF", "3"), ("MC", "3")]
    page = (paper.root / "index.html").read_text()
    assert 'id="table3"' in page and 'id="headline-decline"' in page
    assert page.index('id="table3"') < page.index('id="headline-decline"')


@needs_dvc
@pytest.mark.slow
def test_dvc_exp_run_with_the_preset_gives_the_papers_cells(tmp_path: Path) -> None:
    root = _clone(tmp_path / "clone")
    (root / "results").mkdir()
    _scores().to_parquet(root / "results/their_scores.parquet", index=False)
    _commit(root)
    out = _run(
        root,
        str(DVC),
        "exp",
        "run",
        "report",
        "-S",
        "analysis=daily_oracle_paper",
        "-S",
        "analysis_inputs=scores_file",
        "-S",
        "analysis.scores=results/their_scores.parquet",
    )
    assert _ran(out) == ["analyze", "plot", "report"]
    t3 = read_tables(root / "reports/tables")["table3"].set_index(["model", "qtype"])
    for model in MODELS:
        for qtype in ("tf", "mc"):
            for column, value in _expected_row(model, qtype).items():
                assert t3.loc[(model, qtype), column] == pytest.approx(value, rel=1e-9)
    metrics = json.loads((root / "reports/metrics/analysis.json").read_text())
    assert metrics["headline_closed_book"]["tf"]["first_month"] == "2020-01"
    assert 'id="headline-decline"' in (root / "reports/index.html").read_text()
