"""dvc.yaml declares exactly what the analyze, plot and report stages read and write,
and a switched model or RAG cutoff changes what `dvc metrics diff` / `dvc plots diff`
compare."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from prescient.analysis.pipeline import MARKDOWN_NAMES, TABLE_NAMES
from prescient.report.figures import FIGURES
from tests.conftest import ROOT
from tests.fixtures.analysis.frames import sparse_demo
from tests.fixtures.analysis.run import run_stages

CSV = [f"reports/tables/{n}.csv" for n in TABLE_NAMES]
MD = [f"reports/tables/{n}.md" for n in MARKDOWN_NAMES]
PNG = [f"reports/figures/{f.name}.png" for f in FIGURES]


def _names(entries: list[object]) -> list[str]:
    return [e if isinstance(e, str) else next(iter(e)) for e in entries]  # type: ignore[call-overload]


def _stages() -> dict[str, dict[str, list[object]]]:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def test_analyze_stage_declares_its_inputs_and_every_table() -> None:
    stage = _stages()["analyze"]
    assert "--scores ${analysis.scores}" in str(stage["cmd"])
    assert "${analysis.scores}" in stage["deps"]
    assert {"data/processed/questions.parquet", "data/interim/articles.parquet"} <= set(
        stage["deps"]
    )
    assert stage["params"] == ["base.seed", "analysis", "models"]
    assert sorted(_names(stage["outs"])) == sorted(CSV + MD)
    assert _names(stage["metrics"]) == ["reports/metrics/analysis.json"]
    assert stage["metrics"][0]["reports/metrics/analysis.json"] == {"cache": False}


def test_plot_stage_declares_every_figure_as_a_plot() -> None:
    stage = _stages()["plot"]
    assert sorted(_names(stage["plots"])) == sorted(PNG)
    assert set(CSV) <= set(stage["deps"])


def test_report_stage_depends_on_every_table_figure_and_the_params() -> None:
    stage = _stages()["report"]
    assert set(CSV + PNG + ["reports/metrics/ingest.json"]) <= set(stage["deps"])
    assert stage["params"] == [{"params.yaml": None}]
    assert _names(stage["outs"]) == ["reports/index.html"]


def test_switching_a_rag_cutoff_changes_metrics_and_figures(tmp_path: Path) -> None:
    scores, questions, articles = sparse_demo()
    a = run_stages(tmp_path / "a", scores, questions, articles, {})
    switched = scores.assign(rag_cutoff=scores["rag_cutoff"].replace({"2024-03-01": "2024-04-01"}))
    b = run_stages(tmp_path / "b", switched, questions, articles, {})
    ma = json.loads(a.metrics.read_text())["accuracy"]["smollm2_135m"]
    mb = json.loads(b.metrics.read_text())["accuracy"]["smollm2_135m"]
    assert "rag@2024-03-01" in ma and "rag@2024-04-01" in mb and "rag@2024-03-01" not in mb
    changed = {
        f.name
        for f in FIGURES
        if (a.figures / f"{f.name}.png").read_bytes() != (b.figures / f"{f.name}.png").read_bytes()
    }
    assert {"fig4_rag_cutoffs", "fig10_refusals_rag"} <= changed
    assert "fig3_closed_book" not in changed
