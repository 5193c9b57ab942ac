"""dvc.yaml declares what the analyze, plot and report stages read and write: one
directory of tables (tracked by git), the BPC and OpenForecast directories the params
name, and one directory of figures (DVC plots); a switched model or RAG cutoff changes
what `dvc metrics diff` / `dvc plots diff` compare."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from prescient.analysis.pipeline import table_names
from prescient.benchmarks import registry
from prescient.page.contents import analysis_figures
from tests.conftest import ROOT
from tests.fixtures.analysis.frames import sparse_demo
from tests.fixtures.analysis.run import run_stages
from tests.fixtures.analysis.settings import composed


def _names(entries: list[object]) -> list[str]:
    return [e if isinstance(e, str) else next(iter(e)) for e in entries]  # type: ignore[call-overload]


def _stages() -> dict[str, dict[str, list[object]]]:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def _data_deps(stage: dict[str, list[object]]) -> set[str]:
    return {str(d) for d in stage["deps"] if not str(d).startswith(("prescient/", "stages/"))}


def test_analyze_writes_one_directory_of_tables_tracked_by_git() -> None:
    stage = _stages()["analyze"]
    assert "--scores ${analysis.scores}" in str(stage["cmd"])
    assert "--tables reports/tables" in " ".join(str(stage["cmd"]).split())
    assert _data_deps(stage) == {
        "${analysis.scores}",
        "${analysis.questions}",
        "${analysis.articles}",
        "${analysis.candidates}",
    }
    assert stage["params"] == ["base.seed", "analysis", "models"]
    assert stage["outs"] == [{"reports/tables": {"cache": False}}]
    assert stage["metrics"] == [
        {"reports/metrics/analysis.json": {"cache": False}},
        {"reports/metrics/summary.json": {"cache": False}},
        {"reports/metrics/rag.json": {"cache": False}},
    ]
    cmd = " ".join(str(stage["cmd"]).split())
    assert "--summary reports/metrics/summary.json" in cmd
    assert "--rag reports/metrics/rag.json --plots reports/plots" in cmd
    # data plots, one file each, so `dvc plots diff` overlays revisions in one chart
    plots = {name: spec for entry in stage["plots"] for name, spec in entry.items()}
    assert set(plots) == {"reports/plots/brier_tf.csv", "reports/plots/accuracy.csv"}
    for name, spec in plots.items():
        assert spec["template"] == "bar_horizontal" and spec["y"] == "forecaster", name
        assert spec["x"] == Path(name).stem and spec["cache"] is False, name


OPTIONAL = {"${analysis.bpc}", "${analysis.openforecast}"}


def test_plot_reads_the_tables_directories_and_writes_one_directory_of_plots() -> None:
    stage = _stages()["plot"]
    assert _data_deps(stage) == {"reports/tables", *OPTIONAL}
    cmd = " ".join(str(stage["cmd"]).split())
    assert "--bpc ${analysis.bpc} --openforecast ${analysis.openforecast}" in cmd
    assert _names(stage["plots"]) == ["reports/figures"]
    assert "outs" not in stage
    ignored = (ROOT / "reports" / ".gitignore").read_text().split()
    assert "/figures" in ignored  # cached by DVC, not committed


def test_report_depends_on_both_directories_and_the_params() -> None:
    stage = _stages()["report"]
    assert _data_deps(stage) == {"reports/tables", "reports/figures", *OPTIONAL}
    assert stage["params"] == [{"params.yaml": None}]
    assert _names(stage["outs"]) == ["reports/index.html"]


def test_switching_a_rag_cutoff_changes_metrics_and_figures(tmp_path: Path) -> None:
    scores, questions, articles = sparse_demo()
    a = run_stages(tmp_path / "a", scores, questions, articles, {})
    switched = scores.assign(rag_cutoff=scores["rag_cutoff"].replace({"2024-03-01": "2024-04-01"}))
    b = run_stages(tmp_path / "b", switched, questions, articles, {})
    ma = json.loads(a.metrics.read_text())["accuracy"]["smollm2_135m"]
    mb = json.loads(b.metrics.read_text())["accuracy"]["smollm2_135m"]
    assert "rag_2024-03-01" in ma and "rag_2024-04-01" in mb and "rag_2024-03-01" not in mb
    changed = {
        f.name
        for f in analysis_figures()
        if (a.figures / f"{f.name}.png").read_bytes() != (b.figures / f"{f.name}.png").read_bytes()
    }
    assert {"fig4_rag_cutoffs", "fig10_refusals_rag"} <= changed
    assert "fig3_closed_book" not in changed


def _outs(stage: dict[str, list[object]]) -> set[str]:
    return {str(o) for o in _names(stage.get("outs", []))}


def test_the_presets_name_the_bpc_and_openforecast_directories() -> None:
    """The pipeline's preset names the directories the bpc and of_tables stages write
    into (so plot and report depend on them); the presets of an imported benchmark and
    of a scores table analysed alone name the analysis tables' directory, which holds
    none of their tables (so those stages do not run)."""
    stages = _stages()
    pipeline = composed()["analysis"]
    bpc_outs = {str(Path(o).parent) for o in _outs(stages["bpc"]) if o.endswith(".csv")}
    of_outs = {str(Path(o).parent) for o in _outs(stages["of_tables"])}
    assert bpc_outs == {pipeline["bpc"]} == {"reports/bpc"}
    assert of_outs == {pipeline["openforecast"]} == {"reports/openforecast"}
    analysis_tables = {"reports/tables"}
    assert _outs(stages["analyze"]) == analysis_tables
    stems = {f"{n}.csv" for n in table_names(registry.analyses())}
    assert not stems & {Path(o).name for o in _outs(stages["bpc"]) | _outs(stages["of_tables"])}
    for overrides in (
        ("questions=file",),
        ("analysis_inputs=scores_file", "analysis.scores=results/s.parquet"),
    ):
        chosen = composed(*overrides)["analysis"]
        assert {chosen["bpc"], chosen["openforecast"]} == analysis_tables, overrides


def test_the_construction_funnel_reads_the_construct_stages_candidates() -> None:
    """The pipeline's preset names the candidates table stage construct writes; the
    presets of an imported benchmark and of a scores table analysed alone name the scores
    file, which the analysis does not read again (no funnel: the questions were made
    elsewhere)."""
    stages = _stages()
    assert composed()["analysis"]["candidates"] in _outs(stages["construct"])
    assert "--candidates ${analysis.candidates}" in " ".join(str(stages["analyze"]["cmd"]).split())
    for overrides in (
        ("questions=file",),
        ("analysis_inputs=scores_file", "analysis.scores=results/s.parquet"),
    ):
        chosen = composed(*overrides)["analysis"]
        assert chosen["candidates"] == chosen["scores"], overrides
