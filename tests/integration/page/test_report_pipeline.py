"""The analyze -> plot -> report stages end to end on fixture tables: every table and
figure is written, numbers survive the CSV round trip, reruns are byte-identical, and
sparse, empty or malformed inputs give labelled gaps or one clear error."""

from __future__ import annotations

import argparse
import json
import math
import re
import struct
from pathlib import Path

import pandas as pd
import pytest
import yaml

from prescient.analysis.pipeline import table_names
from prescient.benchmarks import registry
from prescient.io import frame_checksum
from prescient.page.contents import (
    analysis_figures,
    input_options,
    markdown_tables,
    read_stage_inputs,
)
from prescient.page.drawing import draw_figures
from prescient.report.provenance import params_digest
from prescient.report.table_files import read_tables
from stages import analyze
from tests.conftest import ROOT
from tests.fixtures.analysis.frames import (
    MULTI_YEAR_REGISTRY,
    multi_year,
    score_rows,
    scores_frame,
    sparse_demo,
)
from tests.fixtures.analysis.run import Run, run_stages
from tests.fixtures.analysis.settings import composed


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> Run:
    scores, questions, articles = multi_year()
    return run_stages(
        tmp_path_factory.mktemp("multi"), scores, questions, articles, MULTI_YEAR_REGISTRY
    )


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_every_table_and_figure_is_written(multi: Run) -> None:
    for name in table_names(registry.analyses()):
        assert (multi.tables / f"{name}.csv").is_file(), name
    for spec in markdown_tables():
        text = (multi.tables / f"{spec.name}.md").read_text()
        assert text.startswith("# ") and "| --- |" in text
    for spec in analysis_figures():
        width, height = _png_size(multi.figures / f"{spec.name}.png")
        assert width >= 600 and height >= 300, spec.name


def test_metrics_match_the_scores(multi: Run) -> None:
    metrics = json.loads(multi.metrics.read_text())
    scores = pd.read_parquet(multi.root / "scores.parquet")
    cell = scores.query("model == 'alpha-7b' and setting == 'closed_book' and qtype == 'mc'")
    entry = metrics["accuracy"]["alpha-7b"]["closed_book"]["mc"]
    assert entry["n"] == len(cell)
    assert entry["accuracy"] == pytest.approx(100 * cell["correct"].mean(), abs=1e-4)
    assert entry["refusal_rate"] == pytest.approx(100 * cell["refused"].mean(), abs=1e-4)
    assert set(metrics["accuracy"]["alpha-7b"]) == {
        "closed_book",
        "gold",
        "rag_2022-01-01",
        "rag_dynamic",
    }
    assert (
        metrics["accuracy"]["gamma-1b"]["closed_book"]["tf"]["freshbench_pct_decline"] is not None
    )
    assert metrics["questions"] == {"n_questions": 708, "n_tf": 354, "n_mc": 354}
    assert metrics["months_span"] == 60 and metrics["months_with_scores"] == 59


def test_tables_round_trip_through_csv(multi: Run) -> None:
    tables = read_tables(multi.tables)
    monthly = tables["monthly_accuracy"]
    assert monthly["rag_cutoff"].tolist()[:1] == [""]
    gap = monthly.query("month == '2021-07'")
    assert (gap["n"] == 0).all() and gap["accuracy"].isna().all()
    t3 = tables["table3"].set_index(["model", "cell", "qtype"])
    row = t3.loc[("alpha-7b", "closed_book", "tf")]
    jan = monthly.query("model == 'alpha-7b' and cell == 'closed_book' and qtype == 'tf'")
    jan = jan[jan["month"].str.startswith("2020")]
    assert row["acc_2020"] == pytest.approx(100 * jan["n_correct"].sum() / jan["n"].sum())
    assert row["n_2020"] == jan["n"].sum()
    assert row["knowledge_cutoff"] == "2022-03-31"
    # months of a few questions: below the YoY floor, left out with the reason
    assert row["yoy_all_status"].startswith("too few: a month of ")
    assert math.isnan(row["yoy_all"]) and row["yoy_all_pairs"] > 0
    models = tables["models"].set_index("model")
    assert models.loc["gamma-1b", "source"] == "scores table"
    assert models.loc["beta-2b", "release_date"] == ""
    skipped = tables["freshbench_skipped"]
    assert skipped.to_dict("records") == [
        {"model": "beta-2b", "anchor": "release_date", "reason": "no release date"}
    ]


def test_report_is_self_contained_and_complete(multi: Run) -> None:
    page = multi.html.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<script" not in page
    assert page.count('src="data:image/png;base64,') == len(analysis_figures())
    for spec in analysis_figures():
        assert f'id="{spec.name}"' in page
    for table_id in ("table3", "freshbench-bias", "freshbench-degeneration", "freshbench-decline",
                     "freshbench-skipped", "slopes", "monthly-accuracy", "models", "cells",
                     "question-counts", "anderson-schooler-fit", "dataset-categories"):  # fmt: skip
        assert f'id="{table_id}"' in page, table_id
    # the corpus the analysis read: its checksum is the one ingest computes
    assert frame_checksum(pd.read_parquet(multi.root / "articles.parquet")) in page
    assert params_digest(yaml.safe_load((multi.root / "params.yaml").read_text())) in page
    assert "2022-03-31" in page and "2023-06-30" in page  # model cutoffs
    assert ">708<" in page  # question count


def test_reruns_are_byte_identical(multi: Run, tmp_path: Path) -> None:
    scores, questions, articles = multi_year()
    again = run_stages(tmp_path / "again", scores, questions, articles, MULTI_YEAR_REGISTRY)
    for name in table_names(registry.analyses()):
        if name == "provenance":  # holds the scratch path of the scores file
            continue
        assert (again.tables / f"{name}.csv").read_bytes() == (
            multi.tables / f"{name}.csv"
        ).read_bytes(), name
    assert again.metrics.read_bytes() == multi.metrics.read_bytes()
    for spec in analysis_figures():
        assert (again.figures / f"{spec.name}.png").read_bytes() == (
            multi.figures / f"{spec.name}.png"
        ).read_bytes(), spec.name


def test_sparse_demo_gives_labelled_gaps(tmp_path: Path) -> None:
    scores, questions, articles = sparse_demo()
    registry = {"smollm2_135m": {"knowledge_cutoff": None, "release_date": "2024-11-01"}}
    run = run_stages(tmp_path, scores, questions, articles, registry)
    page = run.html.read_text()
    assert "Fig. 6 slopes need 10 months" in page  # two months: a moving average, no slope
    assert "needs more than 20 days with documents, has 3" in page
    assert "no knowledge cutoff" in page
    assert 'class="gap"' in page
    tables = read_tables(run.tables)
    assert tables["slopes"].empty
    decline = tables["freshbench_decline"].query("model == 'smollm2_135m' and qtype == 'tf'")
    # released 2024-11-01, questions from March-April 2024: no post-release questions
    assert decline.iloc[0]["status"] == "no post-anchor questions"


def test_empty_scores_still_build_a_report(tmp_path: Path) -> None:
    run = run_stages(tmp_path, scores_frame([]), None, None, {})
    page = run.html.read_text()
    assert "The scores table has no scored rows" in page
    assert "No rows: nothing to report." in page
    assert json.loads(run.metrics.read_text())["scored_rows"] == 0


def test_bad_inputs_fail_with_one_clear_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    params = tmp_path / "params.yaml"
    params.write_text((ROOT / "params.yaml").read_text())
    args = [
        "--params",
        str(params),
        "--questions",
        str(tmp_path / "no_questions.parquet"),
        "--articles",
        str(tmp_path / "no_articles.parquet"),
        "--candidates",
        str(tmp_path / "no_candidates.parquet"),
        "--tables",
        str(tmp_path / "t"),
        "--metrics",
        str(tmp_path / "m.json"),
        "--summary",
        str(tmp_path / "s.json"),
        "--rag",
        str(tmp_path / "r.json"),
        "--plots",
        str(tmp_path / "plots"),
    ]
    assert analyze.main([*args, "--scores", str(tmp_path / "missing.parquet")]) == 2
    assert "not found" in caplog.text
    bad = scores_frame(score_rows("m", "closed_book", None, "2024-01-01", "tf", "c")).drop(
        columns=["correct"]
    )
    bad.to_parquet(tmp_path / "bad.parquet")
    assert analyze.main([*args, "--scores", str(tmp_path / "bad.parquet")]) == 2
    assert "lacks required columns ['correct']" in caplog.text
    assert not (tmp_path / "t").exists()


def test_unusable_settings_stop_the_stage_with_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    p = composed("analysis.freshbench.past_windows_months=[[10,30]]")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(p, sort_keys=False))
    scores_frame(score_rows("m", "closed_book", None, "2024-01-01", "tf", "c")).to_parquet(
        tmp_path / "scores.parquet"
    )
    rc = analyze.main(
        [
            "--params", str(tmp_path / "params.yaml"),
            "--scores", str(tmp_path / "scores.parquet"),
            "--questions", str(tmp_path / "q.parquet"),
            "--articles", str(tmp_path / "a.parquet"),
            "--candidates", str(tmp_path / "c.parquet"),
            "--tables", str(tmp_path / "t"),
            "--metrics", str(tmp_path / "m.json"),
            "--summary", str(tmp_path / "s.json"),
            "--rag", str(tmp_path / "r.json"), "--plots", str(tmp_path / "plots"),
        ]
    )  # fmt: skip
    assert rc == 2
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "\n" not in errors[0]
    assert "analysis.freshbench.past_windows_months" in errors[0] and "overlap" in errors[0]
    assert not (tmp_path / "t").exists()


def test_a_rerun_replaces_the_table_and_figure_directories_whole(tmp_path: Path) -> None:
    scores, questions, articles = sparse_demo()
    for stale in (tmp_path / "tables" / "dropped_table.csv", tmp_path / "figures" / "old.png"):
        stale.parent.mkdir(parents=True)
        stale.write_text("from an earlier run")
    run = run_stages(tmp_path, scores, questions, articles, {})
    assert sorted(p.name for p in run.tables.iterdir()) == sorted(
        [f"{n}.csv" for n in table_names(registry.analyses())]
        + [f"{s.name}.md" for s in markdown_tables()]
    )
    assert sorted(p.name for p in run.figures.iterdir()) == sorted(
        f"{s.name}.png" for s in analysis_figures()
    )
    assert not list(tmp_path.glob(".*"))  # no temporary directory left beside them


def test_figures_drawn_on_several_processes_are_the_ones_drawn_here(multi: Run) -> None:
    """The stage's figures, drawn by worker processes that read the tables themselves,
    are the bytes drawn one by one in this process."""
    ap = argparse.ArgumentParser()
    input_options(ap)
    args = ap.parse_args(
        ["--tables", str(multi.tables), "--bpc", str(multi.tables)]
        + ["--openforecast", str(multi.tables)]
    )
    inputs = read_stage_inputs(args)
    names = [s.name for s in analysis_figures()][:4]
    here = dict(draw_figures(args, inputs, names, 1))
    there = list(draw_figures(args, inputs, names, 2))
    assert [name for name, _ in there] == names
    assert dict(there) == here
    assert all(png[:8] == b"\x89PNG\r\n\x1a\n" for png in here.values())
