"""A fourth benchmark joins by its own files alone (tests/fixtures/toy_benchmark): its
folder and its conf group. In a scratch copy of the project, its question source is read
by the shared ``questions`` stage, its analysis table is written by ``analyze`` beside the
shared tables, its section and first-screen line appear in the report, it imports no
other benchmark, and the stages that compose the benchmarks are the only ones whose code
dependencies grow (``prescient dag sync`` derives them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from prescient.plumbing import dag
from tests.conftest import ROOT
from tests.fixtures.analysis.frames import SCORE_COLUMNS
from tests.unit.test_import_graph import benchmark_import_violations, import_graph

TOY = ROOT / "tests" / "fixtures" / "toy_benchmark"
COPIED = ("prescient", "stages", "conf", "pipelines", "dvc.yaml", "pyproject.toml")
SOURCE_OVERRIDE = "+question_source@questions.sources.toy=toy"


def _copy_project(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)


def _toy_files() -> list[Path]:
    return sorted(
        p.relative_to(TOY) for p in TOY.rglob("*") if p.is_file() and p.name != "README.md"
    )


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy_project")
    _copy_project(root)
    before = {sc.stage: sc.derived for sc in dag.stage_code(root, dag.load_dvc_yaml(root))}
    for rel in _toy_files():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(TOY / rel, root / rel)
    changed = dag.sync(root)
    after = {sc.stage: sc.derived for sc in dag.stage_code(root, dag.load_dvc_yaml(root))}
    (root / "changed.json").write_text(
        json.dumps({"changed": changed, "before": before, "after": after})
    )
    return root


def test_the_benchmark_is_its_folder_and_its_conf_group() -> None:
    tops = {
        rel.parts[0] if rel.parts[0] != "prescient" else "/".join(rel.parts[:3])
        for rel in _toy_files()
    }
    assert tops == {"prescient/benchmarks/toy", "conf"}
    assert {rel.parent.as_posix() for rel in _toy_files() if rel.parts[0] == "conf"} == {
        "conf/question_source"
    }


def test_it_imports_no_other_benchmark_and_only_the_composing_stages_see_it(project: Path) -> None:
    graph = import_graph(project, ["prescient", "stages"])
    assert "prescient.benchmarks.toy.contract" in graph["prescient.benchmarks.registry"]
    assert benchmark_import_violations(graph) == []
    record = json.loads((project / "changed.json").read_text())
    assert sorted(record["changed"]) == ["analyze", "plot", "report"]
    for stage in record["changed"]:
        added = set(record["after"][stage]) - set(record["before"][stage])
        assert added and all(a.startswith("prescient/benchmarks/toy") for a in added), added
        assert set(record["before"][stage]) <= set(record["after"][stage])


def test_its_questions_table_analysis_and_report_part(project: Path) -> None:
    params = _run(
        project,
        "-c",
        "import sys, yaml; from pathlib import Path; from prescient.plumbing import params; "
        f"p = params.compose(Path('.'), [{SOURCE_OVERRIDE!r}]); "
        "p['models'] = {'m': {'knowledge_cutoff': '2023-06-30', 'release_date': '2023-09-01'}}; "
        "Path('params.yaml').write_text(yaml.safe_dump(p, sort_keys=False))",
    )
    assert params.returncode == 0, params.stderr
    out = project / "work"
    out.mkdir()
    read = _run(
        project, "-m", "stages.questions", "--params", "params.yaml", "--source", "toy",
        "--out", str(out / "toy.parquet"),
    )  # fmt: skip
    assert read.returncode == 0, read.stderr
    questions = pd.read_parquet(out / "toy.parquet")
    assert questions["question_id"].tolist() == ["toy-1", "toy-2", "toy-3"]
    assert set(questions["source"]) == {"toy"}

    scores = pd.DataFrame(
        [
            {
                "model": "m", "setting": "closed_book", "rag_cutoff": None, "question_id": qid,
                "qtype": "tf", "resolution_date": day, "raw_response": "Yes", "error": None,
                "parsed_answer": 0, "correct": answer == "Yes", "refused": False,
                "parse_failed": False,
            }
            for qid, day, answer in zip(
                questions["question_id"], questions["resolution_date"], questions["answer"],
                strict=True,
            )
        ],
        columns=SCORE_COLUMNS,
    )  # fmt: skip
    scores.to_parquet(out / "scores.parquet", index=False)
    questions.to_parquet(out / "questions.parquet", index=False)
    analysed = _run(
        project, "-m", "stages.analyze", "--params", "params.yaml",
        "--scores", str(out / "scores.parquet"), "--questions", str(out / "questions.parquet"),
        "--articles", str(out / "none.parquet"), "--candidates", str(out / "none.parquet"),
        "--tables", str(out / "tables"), "--metrics", str(out / "analysis.json"),
        "--summary", str(out / "summary.json"),
        "--rag", str(out / "rag.json"), "--plots", str(out / "plots"),
    )  # fmt: skip
    assert analysed.returncode == 0, analysed.stderr
    table = pd.read_csv(out / "tables" / "toy_by_cell.csv")
    assert table.to_dict("records") == [
        {"model": "m", "cell": "closed_book", "n": 3, "n_correct": 2}
    ]
    assert json.loads((out / "analysis.json").read_text())["toy"] == {"rows": 3}
    notes = pd.read_csv(out / "tables" / "notes.csv")["note"].tolist()
    assert "Toy: 3 scored rows of its own questions." in notes
    # The other benchmarks' tables are there as before.
    assert (out / "tables" / "table3.csv").exists() and (
        out / "tables" / "freshbench_bias.csv"
    ).exists()

    optional = ["--bpc", str(out / "tables"), "--openforecast", str(out / "tables")]
    plotted = _run(
        project, "-m", "stages.plot", "--tables", str(out / "tables"), *optional,
        "--out", str(out / "figures"),
    )  # fmt: skip
    assert plotted.returncode == 0, plotted.stderr
    reported = _run(
        project, "-m", "stages.report", "--params", "params.yaml", "--tables", str(out / "tables"),
        *optional, "--figures", str(out / "figures"), "--out", str(out / "index.html"),
    )  # fmt: skip
    assert reported.returncode == 0, reported.stderr
    html = (out / "index.html").read_text()
    assert '<section id="toy"><h2>Toy benchmark</h2>' in html
    assert "Toy questions answered right" in html and "Toy: 3 scored rows" in html
    assert html.index('id="open-forecast"') < html.index('id="toy"') < html.index('id="dataset"')
    assert "Daily Oracle, FreshBench, OpenForecast and Toy" in html
    params_doc = yaml.safe_load((project / "params.yaml").read_text())
    assert (
        params_doc["questions"]["sources"]["toy"]["path"]
        == "prescient/benchmarks/toy/questions.csv"
    )
