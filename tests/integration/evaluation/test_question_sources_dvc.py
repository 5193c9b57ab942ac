"""What DVC runs for each way of bringing questions or results, in a clean clone.

A scratch repository is made from the project's code and configuration (git init + dvc
init, no outputs of any earlier run); the inputs are files the tests write. Importing a
question file runs ingest, the file's questions stage, retrieve, the evaluation grid,
score, analyze, plot and report, and nothing of construction; a scores table from
elsewhere runs analyze, plot and report alone; neither runs BPC or OpenForecast, whose
sections then say in one line that they are not part of the run; a queued experiment
(run in a temporary workspace under .dvc/tmp/exps) finds a corpus outside the project
through a location.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd
import pytest
import yaml

from prescient.plumbing import params
from tests.conftest import ROOT

DVC = Path(sys.executable).parent / "dvc"
COPIED = ("conf", "prescient", "stages", "dvc.yaml", ".dvcignore", "data/raw/demo/news.jsonl.gz")
DVC_CONFIG = (
    "[core]\n    analytics = false\n    check_update = false\n[hydra]\n    enabled = true\n"
)
IMP = "questions.sources.imported"
MARKETS_CSV = """id,question,outcome,opened,closed,topic,market
m1,Will the Aldmark Reserve Bank raise rates in July 2024?,1,2024-05-01,2024-07-20,Economics & Business,0.8
m2,Will the Lyra-2 satellite launch before September 2024?,0,2024-06-01,2024-09-01,Science & Technology,0.4
m3,Will the Port Velden tram open in 2024?,1,2024-01-15,2024-11-30,Transport,
"""
NOT_BPC = "Not part of this run: reports/tables (analysis.bpc) holds no BPC tables."
NOT_OPENFORECAST = (
    "Not part of this run: reports/tables (analysis.openforecast) holds no OpenForecast tables."
)
# Stages of BPC and OpenForecast: the report of an imported benchmark runs none of them.
OWN_CORPUS = ("bpc", "chains", "of_samples", "of_predict", "lrae", "of_tables")
GRID = (
    "eval.models=[baseline_always_yes,baseline_random]",
    "eval.settings=[closed_book,rag_dynamic]",
)


def _env(root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(root),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "MPLBACKEND": "Agg",
    }


def _run(root: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        args, cwd=root, env=_env(root), capture_output=True, text=True, timeout=900
    )
    if ok:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


def _clone(root: Path) -> Path:
    """A fresh repository holding the project's code and configuration, committed."""
    root.mkdir(parents=True)
    for rel in COPIED:
        src, dst = ROOT / rel, root / rel
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    _run(root, "git", "init", "-q")
    _run(root, "git", "config", "user.email", "test@example.org")
    _run(root, "git", "config", "user.name", "test")
    _run(root, str(DVC), "init", "-q")
    (root / ".dvc" / "config").write_text(DVC_CONFIG)
    return root


def _commit(root: Path) -> None:
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-qm", "inputs")


def _ran(out: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(re.findall(r"Running stage '([^']+)'", out.stdout + out.stderr))


needs_dvc = pytest.mark.skipif(not DVC.exists(), reason="dvc is not installed here")


@needs_dvc
@pytest.mark.slow
def test_an_imported_file_runs_retrieval_evaluation_and_the_report_only(tmp_path: Path) -> None:
    root = _clone(tmp_path / "clone")
    (root / "markets.csv").write_text(MARKETS_CSV)
    _commit(root)
    overrides = [
        "questions=file",
        f"{IMP}.path=markets.csv",
        f"{IMP}.columns.question_id=id",
        f"{IMP}.columns.answer=outcome",
        f"{IMP}.answer_format=binary",
        f"{IMP}.columns.resolution_date=closed",
        f"{IMP}.columns.forecast_date=opened",
        f"{IMP}.columns.category=topic",
        f"{IMP}.columns.crowd_prob=market",
        *GRID,
    ]
    out = _run(root, str(DVC), "exp", "run", "report", *(f"-S{o}" for o in overrides))
    assert _ran(out) == [
        "analyze",
        "evaluate@baseline_always_yes-all",
        "evaluate@baseline_random-all",
        "ingest",
        "plot",
        "questions@imported",
        "report",
        "retrieve",
        "score",
    ]
    sources = pd.read_csv(root / "reports/tables/dataset_sources.csv")
    digest = hashlib.sha256(MARKETS_CSV.encode()).hexdigest()
    assert sources[["source", "path", "checksum", "n", "n_tf", "n_mc"]].values.tolist() == [
        ["imported", "markets.csv", digest, 3, 3, 0]
    ]
    cats = pd.read_csv(root / "reports/tables/dataset_categories.csv")
    assert sorted(cats["category"]) == ["Economics & Business", "Science & Technology", "Transport"]
    provenance = dict(pd.read_csv(root / "reports/tables/provenance.csv").values.tolist())
    assert provenance["retrieval_window"] == (
        "[corpus start, min(resolution date - 1 day(s), RAG cutoff, forecast date))"
    )
    assert provenance["questions_path"] == "data/interim/eval_questions.parquet"
    horizon = pd.read_csv(root / "reports/tables/horizon_accuracy.csv")
    # m1 asked 80 days ahead, m2 92, m3 320; always-yes is right on m1 and m3
    yes = horizon.query(
        "model == 'baseline_always_yes' and cell == 'closed_book' and qtype == 'all'"
    )
    assert yes[["bucket", "n", "n_correct"]].values.tolist() == [
        ["30-89 days", 1, 1],
        ["90-179 days", 1, 0],
        ["180-364 days", 1, 1],
    ]
    monthly = pd.read_csv(root / "reports/tables/monthly_accuracy.csv")
    assert set(monthly["qtype"]) == {"tf"}  # no empty MC series for a True/False import
    page = (root / "reports/index.html").read_text()
    assert "markets.csv" in page and digest in page and "forecast date))" in page
    for line in (NOT_BPC, NOT_OPENFORECAST):
        assert page.count(line) == 1, line  # one line in place of the part
    assert not (root / "reports/bpc").exists() and not (root / "reports/openforecast").exists()
    retrieval = pd.read_parquet(root / "data/interim/retrieval.parquet")
    questions = pd.read_parquet(root / "data/interim/eval_questions.parquet")
    asked = retrieval["question_id"].map(questions.set_index("question_id")["forecast_date"])
    assert len(retrieval) and (retrieval["article_date"] < asked).all()
    assert not (root / "data/processed/questions.parquet").exists()  # no construction
    # The market's forecast is the model `crowd`, scored by the same rules in every cell:
    # m1 P(Yes) 0.8 resolved Yes, Brier 0.04; m2 P(Yes) 0.4 resolved No, Brier 0.16; m3 has
    # none.
    proper = pd.read_csv(root / "reports/tables/proper_scores.csv")
    crowd = proper.query("model == 'crowd' and qtype == 'all'")
    assert len(crowd) and set(crowd["n"]) == {2}
    assert crowd["brier"].tolist() == pytest.approx([0.1] * len(crowd))
    assert crowd["accuracy"].tolist() == pytest.approx([1.0] * len(crowd))
    paired = pd.read_csv(root / "reports/tables/proper_paired.csv")
    assert {"crowd"} <= set(paired["model_b"])
    assert "crowd" in set(horizon["model"])
    assert "crowd" in page


@needs_dvc
@pytest.mark.slow
def test_a_scores_table_from_elsewhere_is_analysed_alone(tmp_path: Path) -> None:
    root = _clone(tmp_path / "clone")
    rows = [
        {
            "model": model,
            "setting": "closed_book",
            "rag_cutoff": None,
            "question_id": f"q{i}",
            "qtype": "mc" if i % 2 else "tf",
            "resolution_date": dt.date(2023, 1, 1) + dt.timedelta(days=9 * i),
            "correct": (i * 7 + len(model)) % 3 == 0,
            "refused": False,
            "source": "their_bench",
            "category": ["Sports", "Politics & Governance"][i % 2],
            "knowledge_cutoff": "2023-06-30",
        }
        for model in ("their-7b", "their-70b")
        for i in range(40)
    ]
    (root / "results").mkdir()
    pd.DataFrame(rows).to_parquet(root / "results/their_scores.parquet")
    _commit(root)
    out = _run(
        root,
        str(DVC),
        "exp",
        "run",
        "report",
        "-S",
        "analysis_inputs=scores_file",
        "-S",
        "analysis.scores=results/their_scores.parquet",
    )
    assert _ran(out) == ["analyze", "plot", "report"]
    sources = pd.read_csv(root / "reports/tables/dataset_sources.csv")
    assert sources[["source", "n", "n_tf", "n_mc", "n_categories"]].values.tolist() == [
        ["their_bench", 40, 20, 20, 2]
    ]
    provenance = dict(
        pd.read_csv(root / "reports/tables/provenance.csv").fillna("").values.tolist()
    )
    assert provenance["scores_path"] == "results/their_scores.parquet"
    assert provenance["questions_path"] == "(the scores table)"
    assert provenance["corpus_checksum"] == ""
    assert "not recorded" in provenance["retrieval_window"]
    page = (root / "reports/index.html").read_text()
    assert "results/their_scores.parquet" in page and "none (scores analysed alone)" in page
    assert NOT_BPC in page and NOT_OPENFORECAST in page


def _graph(tmp_path: Path, overrides: list[str]) -> Any:
    """The pipeline DVC builds from dvc.yaml and params composed with ``overrides``."""
    from dvc.repo import Repo

    root = tmp_path / "graph"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    shutil.copy2(ROOT / "dvc.yaml", root / "dvc.yaml")
    composed = params.compose(ROOT, overrides)
    (root / "params.yaml").write_text(yaml.safe_dump(composed, sort_keys=False))
    subprocess.run([str(DVC), "init", "--no-scm", "-q"], cwd=root, check=True)
    with Repo(str(root)) as repo:
        graph = repo.index.graph
        return {s.name: s for s in graph}, graph


def _upstream(tmp_path: Path, overrides: list[str]) -> set[str]:
    stages, graph = _graph(tmp_path, overrides)
    # DVC's graph points from a stage to the stages it depends on
    return {s.name for s in nx.descendants(graph, stages["report"])}


@needs_dvc
def test_what_the_report_depends_on_for_each_question_source(tmp_path: Path) -> None:
    default = _upstream(tmp_path, [])
    assert {"construct", "select", "ingest", "questions@daily_oracle", "retrieve"} <= default
    assert {"bpc", "chains", "of_samples", "lrae", "of_tables"} <= default
    assert any(s.startswith("of_predict@") for s in default)
    imported = _upstream(tmp_path, ["questions=file"])
    assert "questions@imported" in imported and "ingest" in imported
    assert not {"construct", "select"} & imported
    assert not [s for s in imported if s.split("@")[0] in OWN_CORPUS]
    combined = _upstream(tmp_path, ["questions=daily_oracle_openforecast"])
    assert {"questions@daily_oracle", "questions@openforecast", "construct"} <= combined
    alone = _upstream(
        tmp_path, ["analysis_inputs=scores_file", "analysis.scores=results/s.parquet"]
    )
    assert alone == {"analyze", "plot"}


@needs_dvc
@pytest.mark.slow
def test_a_queued_experiment_reads_a_corpus_outside_the_project(tmp_path: Path) -> None:
    """Queued experiments run in .dvc/tmp/exps/<tmp>: ../shared/x names a file there, so
    the relative path fails; the location recorded in .dvc/config.local does not."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.copy2(ROOT / "data/raw/demo/news.jsonl.gz", shared / "news.jsonl.gz")
    root = _clone(tmp_path / "proj")
    _run(root, str(DVC), "remote", "add", "--local", "shared", "../shared")
    _commit(root)
    dvc = str(DVC)
    for path, name in (
        ("remote://shared/news.jsonl.gz", "located"),
        ("../shared/news.jsonl.gz", "relative"),
    ):
        _run(root, dvc, "exp", "run", "--queue", "ingest", "-n", name,
             "-S", "corpus=jsonl", "-S", f"corpus.path={path}")  # fmt: skip
    _run(root, dvc, "exp", "run", "--run-all", ok=False)
    status = _run(root, dvc, "queue", "status").stdout
    assert re.search(r"located\s.*Success", status), status
    assert re.search(r"relative\s.*Failed", status), status
    ref = _run(root, "git", "for-each-ref", "--format=%(refname)", "refs/exps").stdout.split()
    located = next(r for r in ref if r.endswith("/located"))
    lock = _run(root, "git", "show", f"{located}:dvc.lock").stdout
    assert "path: remote://shared/news.jsonl.gz" in lock and str(tmp_path) not in lock
    metrics = yaml.safe_load(
        _run(root, "git", "show", f"{located}:reports/metrics/ingest.json").stdout
    )
    assert metrics["rows_read"] == 371 and metrics["rows_kept"] == 363
