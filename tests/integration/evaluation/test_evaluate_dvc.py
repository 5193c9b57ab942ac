"""DVC runs the evaluation as the project's dvc.yaml declares it: one stage per model.
Adding a model runs only its stage (and scoring); adding a RAG cutoff runs retrieval and
every model's stage again, but each pays only for the requests its ledger has not
answered: the new cutoff's prompts that differ from those of the other settings.

The stages questions/retrieve/evaluate/score are copied verbatim from dvc.yaml into a scratch DVC
project with the fixture corpus and the baselines (no LLM); params change as
`dvc exp run -S` would change them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.plumbing import params
from tests.conftest import ROOT
from tests.fixtures.eval import scratch_eval_project

DVC = Path(sys.executable).parent / "dvc"


def write_params(root: Path, models: list[str], settings: list[str]) -> None:
    p: dict[str, Any] = params.compose(ROOT, ["questions=daily_oracle"])
    p["eval"]["models"] = models
    p["eval"]["settings"] = settings
    p["eval"]["elicitation"] = ["label"]  # one request per question and setting
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


def ledger_lines(root: Path, model: str) -> int:
    return len((root / f"data/llm/evaluate/{model}.jsonl").read_text().splitlines())


def context_ids(root: Path, setting: str) -> dict[str, list[str]]:
    table = pd.read_parquet(root / f"data/interim/contexts/{setting}.parquet")
    return table.sort_values("rank").groupby("question_id")["article_id"].agg(list).to_dict()


@pytest.mark.slow
def test_adding_a_model_adds_a_stage_and_a_cutoff_pays_only_for_new_prompts(
    tmp_path: Path,
) -> None:
    if not DVC.exists():
        pytest.skip("dvc is not installed in this environment")
    root = scratch_eval_project(tmp_path / "proj", ROOT, git=False)

    yes = "baseline_always_yes"
    write_params(root, [yes], ["closed_book", "rag_dynamic"])
    assert repro(root) == [f"evaluate@{yes}", "questions@daily_oracle", "retrieve", "score"]
    assert ledger_lines(root, yes) == 8  # 4 questions x 2 settings
    assert repro(root) == []
    predictions = root / "data/processed/predictions"
    before = {p.name: pd.read_parquet(p) for p in (predictions / yes).iterdir()}
    assert sorted(before) == ["closed_book.parquet", "rag_dynamic.parquet"]

    # A RAG cutoff: retrieval (cheap) and the model's stage run again. The questions
    # resolved on 10 March see the same articles under the cutoff 10 March as under
    # rag_dynamic, and so does the bridge question; only the merger question sees fewer
    # (a09, of 10 March, is among its top three under rag_dynamic): one new request.
    settings = ["closed_book", "rag_dynamic", "rag_2024-03-10"]
    write_params(root, [yes], settings)
    assert repro(root) == [f"evaluate@{yes}", "retrieve", "score"]
    dynamic, cutoff = context_ids(root, "rag_dynamic"), context_ids(root, "rag_2024-03-10")
    assert sorted(q for q in dynamic if dynamic[q] != cutoff[q]) == ["q_mc_merger"]
    assert ledger_lines(root, yes) == 8 + 1
    after = {p.name: pd.read_parquet(p) for p in (predictions / yes).iterdir()}
    assert sorted(after) == sorted(f"{s}.parquet" for s in settings)
    for name, frame in before.items():
        pd.testing.assert_frame_equal(after[name], frame)
    assert len(after["rag_2024-03-10.parquet"]) == 4

    # A model: only its stage; retrieval does not depend on the model list.
    first = "baseline_first_choice"
    write_params(root, [yes, first], settings)
    assert repro(root) == [f"evaluate@{first}", "score"]
    assert ledger_lines(root, first) == 4 * 3 - 3  # three prompts shared by two settings
    ledgers = sorted(p.name for p in (root / "data/llm/evaluate").iterdir())
    assert ledgers == [f"{yes}.jsonl", f"{first}.jsonl"]
    assert sorted(p.name for p in predictions.iterdir()) == [yes, first]
