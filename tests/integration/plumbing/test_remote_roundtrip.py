"""Peer audit through the project's DVC remote, end to end.

A publisher runs the real ingest -> select -> construct stages (copied verbatim from
dvc.yaml, with the crawl pipeline file beside them) on the demo corpus, with the
construction model served by a loopback OpenAI-compatible server through the real
gateway, then commits and runs `dvc push` to the remote the shipped .dvc/config names.
A fresh `git clone` beside it runs `python -m prescient pull` and `dvc repro`: nothing
runs, the model server sees no request, every artifact is byte-identical to the
publisher's, the pulled ledger verifies, and `dvc status` finds everything up to date.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from prescient.plumbing import params
from prescient.vocab import CATEGORIES
from tests.conftest import ROOT
from tests.support.fake_openai import FakeOpenAI

BIN = Path(sys.executable).parent
DVC = BIN / "dvc"
STAGES = ("ingest", "select", "construct")
ARTIFACTS = ("data/interim", "data/processed", "data/llm", "reports/metrics")


def answer(messages: list[dict[str, object]]) -> str:
    """Replies in the formats of the compact construction templates, by step."""
    text = str(messages[-1]["content"])
    if text.startswith("Title:"):
        return "The council approved the new harbour plan in December 2024."
    if text.startswith("Published:"):
        return (
            "Question 1: Will the council approve the harbour plan by December 2024?\n"
            "Answer 1: Yes\n"
            "Question 2: Will the council reject the harbour plan by December 2024?\n"
            "Answer 2: No\n"
            "Question 3: Which body will approve the harbour plan in December 2024?\n"
            "Answer 3: The council\n"
            "Question 4: What will the council approve in December 2024?\n"
            "Answer 4: The harbour plan"
        )
    if text.startswith("Question:"):
        return "(b) The mayor\n(c) The court\n(d) The port authority"
    if text.startswith("Article:"):
        names = (
            "Correctness",
            "Only answerable on the date",
            "No new information",
            "Objectivity",
            "Clear time element",
            "Public interest",
            "Not obvious",
        )
        return "\n".join(f"{n}: 2" for n in names)
    return CATEGORIES[0]


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{' '.join(cmd)}\n{out.stdout}\n{out.stderr}"
    return out.stdout + out.stderr


def snapshot(root: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for top in ARTIFACTS:
        for p in sorted((root / top).rglob("*")):
            if p.is_file() and p.name != ".gitignore":
                files[p.relative_to(root).as_posix()] = p.read_bytes()
    return files


def make_project(root: Path, server: FakeOpenAI, git: list[str], env: dict[str, str]) -> None:
    root.mkdir()
    for d in ("prescient", "stages", "conf"):
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    # Python writes bytecode caches into the folders the stages depend on: ignored.
    shutil.copy(ROOT / ".dvcignore", root / ".dvcignore")
    (root / "data/raw/demo").mkdir(parents=True)
    shutil.copy(ROOT / "data/raw/demo/news.jsonl.gz", root / "data/raw/demo/")
    full = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    (root / "dvc.yaml").write_text(
        yaml.safe_dump({"stages": {s: full["stages"][s] for s in STAGES}})
    )
    (root / "pipelines/crawl").mkdir(parents=True)
    shutil.copy(ROOT / "pipelines/crawl/dvc.yaml", root / "pipelines/crawl/")
    model = "local_openai_server"
    p = params.compose(
        ROOT,
        [
            f"models.{model}.api_base={server.url}",
            *(
                f"construct.models.{step}={model}"
                for step in ("summary", "generate", "distract", "filter", "categorize")
            ),
            "ingest.date_start=2024-10-01",
            "construct.date_start=2024-12-10",
            "construct.date_end=2024-12-10",
            "ingest.max_date=2025-01-31",
            "llm.progress=false",
        ],
    )
    (root / "params.yaml").write_text(yaml.safe_dump(p))
    run([*git, "init", "-q", "-b", "main"], root, env)
    run([str(DVC), "init", "-q"], root, env)
    shutil.copy(ROOT / ".dvc/config", root / ".dvc/config")  # the shipped remote


@pytest.mark.slow
def test_a_fresh_clone_pulls_and_reproduces_without_calling_a_model(tmp_path: Path) -> None:
    if not DVC.exists():
        pytest.skip("dvc is not installed in this environment")
    publisher, peer = tmp_path / "publisher", tmp_path / "peer"
    git = ["git", "-c", "user.name=Publisher", "-c", "user.email=publisher@example.org"]
    with FakeOpenAI(answer=answer) as server:
        env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(publisher),
        }
        make_project(publisher, server, git, env)
        out = run([str(DVC), "repro"], publisher, env)
        assert sorted(
            line.split("'")[1] for line in out.splitlines() if line.startswith("Running stage")
        ) == sorted(STAGES)
        calls = server.requests
        assert calls > 0
        run([*git, "add", "-A"], publisher, env)
        run([*git, "commit", "-q", "-m", "results"], publisher, env)
        pushed = run([str(DVC), "push"], publisher, env)
        assert "pushed" in pushed
        remote = tmp_path / "prescient-dvc-remote"  # beside the repository, as shipped
        assert (remote / "files" / "md5").is_dir()

        run(["git", "clone", "-q", str(publisher), str(peer)], tmp_path, env)
        env["PYTHONPATH"] = str(peer)
        assert not (peer / "data/llm/construct.jsonl").exists()
        run([sys.executable, "-m", "prescient", "pull"], peer, env)  # as the README says
        out = run([str(DVC), "repro"], peer, env)
        assert "Running stage" not in out
        assert out.count("didn't change, skipping") == len(STAGES)
        assert server.requests == calls  # zero model calls on the peer
    published, pulled = snapshot(publisher), snapshot(peer)
    assert "data/llm/construct.jsonl" in pulled and "data/processed/questions.parquet" in pulled
    assert pulled.keys() == published.keys()
    assert [k for k in published if published[k] != pulled[k]] == []
    entries = len((peer / "data/llm/construct.jsonl").read_text().splitlines())
    verify = run([sys.executable, "-m", "prescient", "ledger", "verify", "data/llm"], peer, env)
    assert f"{entries} entries checked, 0 problems" in verify and entries >= calls
    # The whole project, the crawl pipeline file included (no crawl stage on the demo).
    assert run([str(DVC), "status"], peer, env).strip() == "Data and pipelines are up to date."
    assert "failed to load" not in run([str(DVC), "metrics", "show"], peer, env)
