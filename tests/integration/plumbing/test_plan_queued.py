"""`prescient plan --queued`: the plan of every queued experiment is what the queue then
sends.

A scratch DVC project (git, the evaluation stages copied verbatim from dvc.yaml, the
fixture corpus) evaluates a priced model served by a real HTTP server on 127.0.0.1 that
counts what it is asked. The workspace has answered the closed-book prompts; three
experiments are queued with other settings (two of them sharing the gold prompts, two
sharing the prompts of a RAG cutoff, and one asking identical prompts under two RAG
settings). The plan first names the command that makes their retrieved tables, which
the test runs as printed; then it plans each experiment, and the queue, run by one worker,
sends what the plans said: each experiment's requests, and each distinct request once.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from prescient.plumbing import params
from prescient.plumbing.llm_cli import read_runs
from tests.conftest import ROOT
from tests.fixtures.eval import scratch_eval_project
from tests.integration.plumbing.test_store_dvc import env, git, sh
from tests.support.fake_openai import FakeOpenAI
from tests.support.queue import run_queue

BIN = Path(sys.executable).parent
DVC = BIN / "dvc"
MODEL = "srv"
CEILING = 0.05
EXPERIMENTS = {
    "gold-only": "eval.settings=[closed_book,gold]",
    "gold-rag": "eval.settings=[closed_book,gold,rag_2024-03-10]",
    "two-rag": "eval.settings=[closed_book,rag_dynamic,rag_2024-03-10]",
}


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=root, env=env(root), capture_output=True, text=True, timeout=600
    )


def write_params(root: Path, url: str) -> None:
    p: dict[str, Any] = params.compose(ROOT, ["questions=daily_oracle"])
    entry = dict(p["models"]["local_openai_server"])
    entry.update(name=MODEL, display_name=MODEL, litellm_model=f"hosted_vllm/{MODEL}")
    entry.update(api_base=url, concurrency=1)
    entry["price"] = {"prompt_usd_per_mtok": 1.0, "completion_usd_per_mtok": 4.0}
    p["models"][MODEL] = entry
    p["eval"]["models"] = [MODEL]
    p["eval"]["settings"] = ["closed_book"]
    p["eval"]["elicitation"] = ["label"]  # one request per question and setting
    p["llm"]["progress"] = False
    p["llm"]["max_cost_usd"] = CEILING
    (root / "params.yaml").write_text(yaml.safe_dump(p))


def plan(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(root, sys.executable, "-m", "prescient", "plan", "--queued", *args)


@pytest.mark.slow
def test_the_plan_of_a_queued_sweep_is_what_the_queue_sends(tmp_path: Path) -> None:
    if not DVC.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed")
    with FakeOpenAI(answer=lambda messages: "Yes") as server:
        root = scratch_eval_project(tmp_path / "proj", ROOT, git=True)
        write_params(root, server.url)
        sh(root, str(DVC), "repro", "score")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "closed book")
        assert server.requests == 4

        out = plan(root)
        assert out.returncode == 1 and "no queued experiment" in out.stderr

        for name, override in EXPERIMENTS.items():
            sh(root, str(DVC), "exp", "run", "--queue", "-n", name, "-S", override)

        # The workspace has retrieved closed_book only: no experiment is planned, and
        # one command makes every experiment's tables.
        out = plan(root)
        assert out.returncode == 1, out.stdout + out.stderr
        for name in EXPERIMENTS:
            assert f"experiment {name} (" in out.stdout
        assert out.stdout.count("not planned: no context table") == 3
        union = "eval.settings=[closed_book,gold,rag_2024-03-10,rag_dynamic]"
        command = f"dvc exp run retrieve -S {shlex.quote(union)}"
        assert out.stdout.count(f"`{command}`") == 3, out.stdout
        sh(root, *shlex.split(command))
        assert server.requests == 4  # retrieving sends nothing

        out = plan(root, "--json", str(tmp_path / "plan.json"))
        assert out.returncode == 0, out.stdout + out.stderr
        assert server.requests == 4  # planning sends nothing
        document = json.loads((tmp_path / "plan.json").read_text())
        planned = {e["name"]: e for e in document["experiments"]}
        assert list(planned) == list(EXPERIMENTS)  # dvc queue status's order
        for name, override in EXPERIMENTS.items():
            key, value = override.split("=", 1)
            # what each changes with respect to the workspace (now four settings)
            assert planned[name]["changes"] == {key: value[1:-1].split(",")}
            assert f"experiment {name} (" in out.stdout
        plans = {n: e["plans"][0] for n, e in planned.items()}
        counts = {
            n: (p["requests"], p["answered"], p["repeated"], p["to_send"]) for n, p in plans.items()
        }
        # closed_book answered everywhere; rag_dynamic and rag_2024-03-10 ask three
        # identical prompts (tests/integration/evaluation/test_evaluate_stages.py)
        assert counts == {
            "gold-only": (8, 4, 0, 4),
            "gold-rag": (12, 4, 0, 8),
            "two-rag": (12, 4, 3, 5),
        }
        sends = {n: set(p["sends"]) for n, p in plans.items()}
        union_keys = set().union(*sends.values())
        (total,) = document["totals"]["models"]
        assert (total["to_send"], total["shared"]) == (len(union_keys), 17 - len(union_keys))
        assert total["to_send"] == 9 and total["requests"] == 32
        costs = {k: c for p in plans.values() for k, c in p["sends"].items()}
        assert total["max_cost_usd"] == pytest.approx(sum(costs.values()))
        assert total["max_cost_usd"] < sum(p["max_cost_usd"] for p in plans.values())
        assert document["totals"]["stage_runs_within_ceiling"] == 3
        assert f"within llm.max_cost_usd={CEILING:g}" in out.stdout
        assert "3 of 3 within their experiment's ceiling" in out.stdout

        status = run_queue(sh, root, 1, 400)
        assert status.count("Success") == 3, status
        # Each distinct request reached the server once, across the experiments.
        assert server.requests - 4 == total["to_send"]
        runs = [
            r
            for r in read_runs(root / ".dvc/cache/prescient/runs.jsonl")
            if r.get("experiment") in EXPERIMENTS and r.get("stage") == "evaluate"
        ]
        assert sorted(r["experiment"] for r in runs) == sorted(EXPERIMENTS)
        earlier: set[str] = set()
        for r in runs:  # in the order the worker ran them
            name = r["experiment"]
            assert r["results"] == plans[name]["requests"]
            # an experiment sends what it plans less what an earlier one already sent
            assert r["sent"] == len(sends[name] - earlier), name
            earlier |= sends[name]
        assert sum(r["sent"] for r in runs) == total["to_send"]
        assert sum(r["cost_usd"] for r in runs) <= total["max_cost_usd"]
