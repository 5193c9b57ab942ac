"""DVC runs the grid as the project's dvc.yaml declares it: adding a model or a RAG
cutoff runs only the new cells (and the cheap retrieval/scoring around them).

The stages questions/retrieve/evaluate/score are copied verbatim from dvc.yaml into a scratch DVC
project with the fixture corpus and the baselines (no LLM); params change as
`dvc exp run -S` would change them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from prescient import params
from tests.conftest import ROOT
from tests.fixtures.eval import articles, construct_questions

STAGES = ("questions", "retrieve", "evaluate", "score")
DVC = Path(sys.executable).parent / "dvc"


def write_params(root: Path, models: list[str], settings: list[str]) -> None:
    p: dict[str, Any] = params.compose(ROOT)
    p["eval"]["models"] = models
    p["eval"]["settings"] = settings
    p["llm"]["progress"] = False
    (root / "params.yaml").write_text(yaml.safe_dump(p))


def repro(root: Path) -> list[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    out = subprocess.run(
        [str(DVC), "repro", "score"], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return sorted(re.findall(r"Running stage '([^']+)'", out.stdout))


@pytest.mark.slow
def test_adding_a_model_or_a_cutoff_runs_only_the_new_cells(tmp_path: Path) -> None:
    if not DVC.exists():
        pytest.skip("dvc is not installed in this environment")
    root = tmp_path / "proj"
    root.mkdir()
    full = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    (root / "dvc.yaml").write_text(
        yaml.safe_dump({"stages": {s: full["stages"][s] for s in STAGES}})
    )
    for d in ("stages", "prescient", "conf/prompts/eval"):
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "data/interim").mkdir(parents=True)
    (root / "data/processed").mkdir(parents=True)
    articles().to_parquet(root / "data/interim/articles.parquet")
    construct_questions().to_parquet(root / "data/processed/questions.parquet")
    subprocess.run([str(DVC), "init", "--no-scm", "-q"], cwd=root, check=True)

    write_params(root, ["baseline_always_yes"], ["closed_book", "rag_dynamic"])
    assert repro(root) == [
        "evaluate@baseline_always_yes-closed_book",
        "evaluate@baseline_always_yes-rag_dynamic",
        "questions@daily_oracle",
        "retrieve",
        "score",
    ]
    assert repro(root) == []

    # A RAG cutoff: retrieval (cheap) re-runs, its other context tables are
    # byte-identical, so only the new cell is evaluated.
    write_params(root, ["baseline_always_yes"], ["closed_book", "rag_dynamic", "rag_2024-03-06"])
    assert repro(root) == ["evaluate@baseline_always_yes-rag_2024-03-06", "retrieve", "score"]

    # A model: only its cells; retrieval does not depend on the model list.
    write_params(
        root,
        ["baseline_always_yes", "baseline_first_choice"],
        ["closed_book", "rag_dynamic", "rag_2024-03-06"],
    )
    assert repro(root) == [
        "evaluate@baseline_first_choice-closed_book",
        "evaluate@baseline_first_choice-rag_2024-03-06",
        "evaluate@baseline_first_choice-rag_dynamic",
        "score",
    ]
    ledgers = sorted(p.name for p in (root / "data/llm/evaluate").iterdir())
    assert len(ledgers) == 6 and all(n.endswith(".jsonl") for n in ledgers)
