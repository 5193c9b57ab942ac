"""DVC runs the evaluation as the project's dvc.yaml declares it: one stage per model
and partition. Adding a model runs only its stage (and scoring); adding a RAG cutoff runs retrieval and
every model's stage again, but each pays only for the requests its ledger has not
answered: the new cutoff's prompts that differ from those of the other settings. With
the evaluation split by month, a new day's question re-runs only its month's stages.

The stages questions/retrieve/evaluate/score are copied verbatim from dvc.yaml into a scratch DVC
project with the fixture corpus and the baselines (no LLM); params change as
`dvc exp run -S` would change them."""

from __future__ import annotations

import datetime as dt
import json
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


def write_params(
    root: Path, models: list[str], settings: list[str], partitions: tuple[str, ...] = ("all",)
) -> None:
    p: dict[str, Any] = params.compose(ROOT, ["questions=daily_oracle"])
    p["eval"]["models"] = models
    p["eval"]["settings"] = settings
    p["eval"]["partitions"] = list(partitions)
    p["eval"]["elicitation"] = ["label"]  # one request per question and setting
    p["llm"]["progress"] = False
    (root / "params.yaml").write_text(yaml.safe_dump(p))


def scratch_run(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """``command`` in the scratch project, with this environment's tools."""
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def dvc_repro(root: Path) -> subprocess.CompletedProcess[str]:
    """``dvc repro score`` in the scratch project."""
    return scratch_run(root, str(DVC), "repro", "score")


def repro(root: Path) -> list[str]:
    out = dvc_repro(root)
    assert out.returncode == 0, out.stdout + out.stderr
    return sorted(re.findall(r"Running stage '([^']+)'", out.stdout))


def ledger_lines(root: Path, model: str, partition: str = "all") -> int:
    return len((root / f"data/llm/evaluate/{model}/{partition}.jsonl").read_text().splitlines())


def context_ids(root: Path, setting: str) -> dict[str, list[str]]:
    table = pd.read_parquet(root / f"data/interim/partitions/all/contexts/{setting}.parquet")
    return table.sort_values("rank").groupby("question_id")["article_id"].agg(list).to_dict()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A scratch DVC project with the evaluation stages (skipped without DVC)."""
    if not DVC.exists():
        pytest.skip("dvc is not installed in this environment")
    return scratch_eval_project(tmp_path / "proj", ROOT, git=False)


@pytest.mark.slow
def test_adding_a_model_adds_a_stage_and_a_cutoff_pays_only_for_new_prompts(
    root: Path,
) -> None:

    yes = "baseline_always_yes"
    write_params(root, [yes], ["closed_book", "rag_dynamic"])
    assert repro(root) == [f"evaluate@{yes}-all", "questions@daily_oracle", "retrieve", "score"]
    assert ledger_lines(root, yes) == 8  # 4 questions x 2 settings
    assert repro(root) == []
    predictions = root / "data/processed/predictions"
    before = {p.name: pd.read_parquet(p) for p in (predictions / yes / "all").iterdir()}
    assert sorted(before) == ["closed_book.parquet", "rag_dynamic.parquet"]

    # A RAG cutoff: retrieval (cheap) and the model's stage run again. The questions
    # resolved on 10 March see the same articles under the cutoff 10 March as under
    # rag_dynamic, and so does the bridge question; only the merger question sees fewer
    # (a09, of 10 March, is among its top three under rag_dynamic): one new request.
    settings = ["closed_book", "rag_dynamic", "rag_2024-03-10"]
    write_params(root, [yes], settings)
    assert repro(root) == [f"evaluate@{yes}-all", "retrieve", "score"]
    dynamic, cutoff = context_ids(root, "rag_dynamic"), context_ids(root, "rag_2024-03-10")
    assert sorted(q for q in dynamic if dynamic[q] != cutoff[q]) == ["q_mc_merger"]
    assert ledger_lines(root, yes) == 8 + 1
    after = {p.name: pd.read_parquet(p) for p in (predictions / yes / "all").iterdir()}
    assert sorted(after) == sorted(f"{s}.parquet" for s in settings)
    for name, frame in before.items():
        pd.testing.assert_frame_equal(after[name], frame)
    assert len(after["rag_2024-03-10.parquet"]) == 4

    # A model: only its stage; retrieval does not depend on the model list.
    first = "baseline_first_choice"
    write_params(root, [yes, first], settings)
    assert repro(root) == [f"evaluate@{first}-all", "score"]
    assert ledger_lines(root, first) == 4 * 3 - 3  # three prompts shared by two settings
    ledgers = sorted(
        str(p.relative_to(root)) for p in (root / "data/llm/evaluate").rglob("*.jsonl")
    )
    assert ledgers == [f"data/llm/evaluate/{m}/all.jsonl" for m in sorted([yes, first])]
    assert sorted(p.name for p in predictions.iterdir()) == [yes, first]


def files(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_a_new_days_question_runs_only_its_months_stages(root: Path, tmp_path: Path) -> None:
    models, months = ["baseline_always_yes", "baseline_random"], ("2024-03", "2024-04")
    write_params(root, models, ["closed_book", "rag_dynamic"], months)
    first = repro(root)
    assert first == sorted(
        [f"evaluate@{m}-{p}" for m in models for p in months]
        + ["questions@daily_oracle", "retrieve", "score"]
    )
    parts = root / "data/interim/partitions"
    assert len(pd.read_parquet(parts / "2024-03/questions.parquet")) == 4
    assert len(pd.read_parquet(parts / "2024-04/questions.parquet")) == 0
    march = {
        d: files(root / d)
        for d in ("data/interim/partitions/2024-03", "data/processed/predictions")
    }
    march_ledgers = {m: ledger_lines(root, m, "2024-03") for m in models}
    scores_before = pd.read_parquet(root / "data/processed/scores.parquet")

    # A new day: a question resolving on 2 April. Only April's stages run (and the
    # stages that read every question); March's tables are rewritten with the same
    # bytes, so DVC skips its stages and its ledgers gain nothing.
    q = pd.read_parquet(root / "data/processed/questions.parquet")
    new = q.iloc[[0]].assign(question_id="q_tf_april", resolution_date=dt.date(2024, 4, 2))
    new["resolution_date"] = new["resolution_date"].astype(q["resolution_date"].dtype)
    pd.concat([q, new], ignore_index=True).to_parquet(root / "data/processed/questions.parquet")
    # Planned first: one process per model plans both months; March is answered.
    # Retrieval asks only the new question's queries: March's come from what it kept
    # (prescient/retrieval/reuse.py), and the from-scratch run below checks the bytes.
    out = scratch_run(root, str(DVC), "repro", "retrieve")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 of 5 queries answered from it, 1 asked" in out.stderr
    out = scratch_run(root, sys.executable, "-m", "prescient", "plan", "--json", "plan.json")
    assert out.returncode == 0, out.stdout + out.stderr
    plans = {p["model"]: p for p in json.loads((root / "plan.json").read_text())}
    assert {m: (p["requests"], p["answered"], p["to_send"]) for m, p in plans.items()} == {
        m: (10, 8, 2) for m in models
    }
    assert repro(root) == sorted([f"evaluate@{m}-2024-04" for m in models] + ["score"])
    assert (
        files(root / "data/interim/partitions/2024-03") == march["data/interim/partitions/2024-03"]
    )
    predictions = files(root / "data/processed/predictions")
    assert {k: v for k, v in predictions.items() if "/2024-03/" in k} == {
        k: v for k, v in march["data/processed/predictions"].items() if "/2024-03/" in k
    }
    assert {m: ledger_lines(root, m, "2024-03") for m in models} == march_ledgers
    assert all(ledger_lines(root, m, "2024-04") > 0 for m in models)
    scores = pd.read_parquet(root / "data/processed/scores.parquet")
    assert set(scores["question_id"]) == set(scores_before["question_id"]) | {"q_tf_april"}
    assert repro(root) == []

    # The same bytes as one run of the grown question table from scratch.
    fresh = scratch_eval_project(tmp_path / "fresh", ROOT, git=False)
    write_params(fresh, models, ["closed_book", "rag_dynamic"], months)
    (fresh / "data/processed/questions.parquet").write_bytes(
        (root / "data/processed/questions.parquet").read_bytes()
    )
    repro(fresh)
    for d in ("data/interim/partitions", "data/processed/predictions"):
        assert files(fresh / d) == files(root / d)
    assert (fresh / "data/processed/scores.parquet").read_bytes() == (
        root / "data/processed/scores.parquet"
    ).read_bytes()


@pytest.mark.slow
def test_a_question_outside_every_partition_stops_retrieval_naming_its_month(
    root: Path,
) -> None:
    write_params(root, ["baseline_always_yes"], ["closed_book"], ("2024-04",))
    out = dvc_repro(root)
    assert out.returncode != 0
    assert "4 questions resolve outside eval.partitions ['2024-04']" in out.stdout + out.stderr
    assert "2024-03" in out.stdout + out.stderr
    assert not (root / "data/interim/partitions").exists()
