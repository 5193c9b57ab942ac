"""Failed model calls make a stage fail, so `dvc repro` tries again and pays only for them.

A scratch git + DVC project runs retrieve -> evaluate -> score (copied from dvc.yaml) on
the evaluation fixtures, with one model served by the loopback server. While the server
answers 500 to some questions, `dvc repro` fails and records nothing as done; once it
recovers, `dvc repro` succeeds, and the server sees exactly the requests that failed.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.llm.failures import FAILED_CALLS_EXIT
from prescient.llm.ledger import read_entries
from prescient.plumbing import params
from stages import evaluate as evaluate_stage
from stages import score as score_stage
from tests.conftest import ROOT
from tests.fixtures.eval import articles, construct_questions, scratch_eval_project
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import composed, model_entry

DVC = Path(sys.executable).parent / "dvc"
FAILING = ("river bridge", "bakery")  # two of the four fixture questions


def fail_some(body: dict[str, Any]) -> str | None:
    text = json.dumps(body.get("messages"))
    return "500" if any(word in text for word in FAILING) else None


def questions_asked(bodies: list[dict[str, Any]]) -> list[str]:
    """The fixture question each request was about."""
    ids = {
        "river bridge": "q_tf_bridge",
        "piers be fully": "q_tf_harbour",
        "bakery": "q_mc_merger",
        "How much": "q_mc_cost",
    }
    out = []
    for body in bodies:
        text = json.dumps(body.get("messages"))
        out.extend(qid for word, qid in ids.items() if word in text)
    return sorted(out)


def write_params(root: Path, url: str, price: dict[str, float] | None = None, **llm: Any) -> None:
    p = composed()
    p["questions"] = params.compose(ROOT, ["questions=daily_oracle"])["questions"]
    p["models"]["flaky"] = model_entry(
        "flaky", "hosted_vllm/flaky", api_base=url, concurrency=2, price=price
    )
    p["eval"]["models"] = ["flaky"]
    p["eval"]["settings"] = ["closed_book"]
    p["eval"]["elicitation"] = ["label"]  # one request per question and setting
    # Travel keys: fewer, faster retries (no stage declares them).
    p["llm"].update(progress=False, max_tries=2, backoff_base_s=0.01, backoff_max_s=0.05)
    p["llm"].update(llm)
    (root / "params.yaml").write_text(yaml.safe_dump(p))


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        [str(DVC), *args], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )


def locked(root: Path) -> set[str]:
    lock = root / "dvc.lock"
    return set(yaml.safe_load(lock.read_text())["stages"]) if lock.exists() else set()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if not DVC.exists():
        pytest.skip("dvc is not installed in this environment")
    return scratch_eval_project(tmp_path / "proj", ROOT, git=True)


@pytest.mark.slow
def test_failed_calls_fail_the_stage_and_repro_asks_only_them(project: Path) -> None:
    stage = "evaluate@flaky-all"
    with FakeOpenAI() as server:
        server.fail_when = fail_some
        write_params(project, server.url)
        first = run(project, "repro")
        assert first.returncode != 0, first.stdout + first.stderr
        log = first.stdout + first.stderr
        assert "2 of 4 model calls failed (50.0%, llm.max_failed_share 0)" in log
        assert "flaky (2)" in log and "InternalServerError" in log
        # Nothing is recorded as done but the questions and retrieval; the model's stage
        # wrote its ledger only.
        assert locked(project) == {"questions@daily_oracle", "retrieve"}
        assert not (project / "data/processed/predictions/flaky/all").exists()
        ledger = project / "data/llm/evaluate/flaky/all.jsonl"
        entries = list(read_entries(ledger))
        assert sorted(e["error"] is None for e in entries) == [False, False, True, True]
        # Two good answers, two failures asked twice each (max_tries 2).
        assert questions_asked(server.bodies) == sorted(
            ["q_tf_bridge"] * 2 + ["q_mc_merger"] * 2 + ["q_tf_harbour", "q_mc_cost"]
        )
        status = run(project, "status")
        assert stage in status.stdout

        server.fail_when = None  # the server recovers
        seen = len(server.bodies)
        second = run(project, "repro")
        assert second.returncode == 0, second.stdout + second.stderr
        assert questions_asked(server.bodies[seen:]) == ["q_mc_merger", "q_tf_bridge"]
        assert locked(project) == {"questions@daily_oracle", "retrieve", stage, "score"}
        metrics = json.loads((project / "reports/metrics/evaluate.json").read_text())
        assert metrics["model_calls"]["max_failed_share"] == 0.0
        cell = metrics["model_calls"]["cells"]["flaky"]["closed_book"]
        assert (cell["requests"], cell["failed"], cell["failed_share"]) == (4, 0, 0.0)
        # What the 4 replies cost: the server counts 10 + 3 tokens a reply, names no price.
        assert (cell["prompt_tokens"], cell["completion_tokens"], cell["unpriced"]) == (40, 12, 4)
        seen = len(server.bodies)
        third = run(project, "repro")
        assert third.returncode == 0 and "Running stage" not in third.stdout
        assert len(server.bodies) == seen


def prepare_evaluation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fixture articles and questions in ``tmp_path`` (the working directory); the
    evaluate stage's command line for model ``flaky``."""
    monkeypatch.chdir(tmp_path)
    Path("data/interim").mkdir(parents=True)
    Path("data/processed").mkdir(parents=True)
    articles().to_parquet("data/interim/articles.parquet")
    construct_questions().to_parquet("data/processed/questions.parquet")
    argv = ["--model", "flaky", "--questions", "data/interim/eval_questions.parquet"]
    argv += ["--contexts", "data/interim/partitions/all/contexts"]
    argv += ["--prompts", str(ROOT / "conf/prompts/eval")]
    argv += ["--out", "data/processed/predictions/flaky/all"]
    argv += ["--ledger", "data/llm/evaluate/flaky/all.jsonl"]
    return argv


def run_questions_and_retrieve() -> None:
    from stages import questions as questions_stage
    from stages import retrieve as retrieve_stage

    questions_argv = ["--source", "daily_oracle"]
    questions_argv += ["--out", "data/interim/questions/daily_oracle.parquet"]
    assert questions_stage.main(questions_argv) == 0
    retrieve_argv = ["--articles", "data/interim/articles.parquet"]
    retrieve_argv += ["--questions", "data/interim/questions"]
    retrieve_argv += ["--questions-out", "data/interim/eval_questions.parquet"]
    retrieve_argv += ["--retrieval", "data/interim/retrieval.parquet"]
    retrieve_argv += ["--partitions", "data/interim/partitions"]
    retrieve_argv += ["--metrics", "reports/metrics/retrieve.json"]
    assert retrieve_stage.main(retrieve_argv) == 0


def test_a_tolerated_share_keeps_the_failed_rows_and_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With llm.max_failed_share 0.5 the same outage is accepted: the stage succeeds, its
    failed rows carry their error, and the score metrics show the share and tolerance."""
    argv = prepare_evaluation(tmp_path, monkeypatch)
    with FakeOpenAI() as server:
        server.fail_when = fail_some
        write_params(tmp_path, server.url, max_failed_share=0.4)
        run_questions_and_retrieve()
        assert evaluate_stage.main(argv) == FAILED_CALLS_EXIT  # 50% > 40%
        assert not Path("data/processed/predictions/flaky/all").exists()
        write_params(tmp_path, server.url, max_failed_share=0.5)
        assert evaluate_stage.main(argv) == 0  # 50% is within 50%
    pred = pd.read_parquet("data/processed/predictions/flaky/all/closed_book.parquet")
    failed = pred.loc[pred["error"].notna(), "question_id"].tolist()
    assert sorted(failed) == ["q_mc_merger", "q_tf_bridge"]
    assert pred.loc[pred["error"].notna(), "raw_response"].isna().all()
    score_argv = ["--questions", "data/interim/eval_questions.parquet"]
    score_argv += ["--predictions", "data/processed/predictions"]
    score_argv += ["--out", "data/processed/scores.parquet"]
    score_argv += ["--metrics", "reports/metrics/evaluate.json"]
    assert score_stage.main(score_argv) == 0
    metrics = json.loads(Path("reports/metrics/evaluate.json").read_text())
    assert metrics["model_calls"]["max_failed_share"] == 0.5
    cell = metrics["model_calls"]["cells"]["flaky"]["closed_book"]
    assert (cell["requests"], cell["failed"], cell["failed_share"]) == (4, 2, 0.5)
    assert (cell["prompt_tokens"], cell["completion_tokens"], cell["unpriced"]) == (20, 6, 2)


def test_requests_held_back_by_the_cost_ceiling_fail_the_stage_until_it_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever the tolerance, a stage whose requests the cost ceiling held back exits 3
    without its predictions and says how to raise the ceiling; raised, the stage sends
    only what it had not sent (here: everything, as the ceiling of 0 sent nothing)."""
    argv = prepare_evaluation(tmp_path, monkeypatch)
    free = {"prompt_usd_per_mtok": 0.0, "completion_usd_per_mtok": 1.0}
    with FakeOpenAI() as server:
        write_params(tmp_path, server.url, price=free, max_failed_share=1.0, max_cost_usd=0.0)
        run_questions_and_retrieve()
        with caplog.at_level(logging.INFO):
            assert evaluate_stage.main(argv) == FAILED_CALLS_EXIT
        assert server.requests == 0
        assert not Path("data/processed/predictions/flaky/all").exists()
        assert "4 of 4 requests were not sent (cost ceiling)" in caplog.text
        assert "$0.0000 spent of llm.max_cost_usd=0" in caplog.text
        write_params(tmp_path, server.url, price=free, max_failed_share=1.0, max_cost_usd=1.0)
        assert evaluate_stage.main(argv) == 0
        assert server.requests == 4
    pred = pd.read_parquet("data/processed/predictions/flaky/all/closed_book.parquet")
    assert pred["error"].isna().all()
    # 3 completion tokens a reply at $1 per million.
    assert pred["cost_usd"].tolist() == pytest.approx([3e-6] * 4)
