"""`python -m prescient update --through DAY` end to end, as a cron job runs it: a scratch
DVC project with the pipeline's stages copied verbatim from dvc.yaml and the demo
corpus, its models served by a loopback OpenAI-compatible server answering with the
construction script. Updating through the middle day and then the last day releases
both question sets, keeps the first half byte-identical and asks the server only about
the new days."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.llm.ledger import read_entries
from tests.conftest import ROOT
from tests.integration.plumbing.test_update_days import halves
from tests.support import construct_script
from tests.support.fake_openai import FakeOpenAI

STAGES = ("ingest", "select", "construct", "questions", "retrieve", "evaluate", "score")
BIN = Path(sys.executable).parent


def reply(messages: list[dict[str, Any]]) -> str:
    return construct_script.answer(messages) or "Yes"


def scratch_project(root: Path, server: FakeOpenAI) -> None:
    for d in ("prescient", "stages", "conf"):
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    # Python writes bytecode caches into the folders the stages depend on: ignored.
    shutil.copy(ROOT / ".dvcignore", root / ".dvcignore")
    corpus = root / "data/raw/demo/news.jsonl.gz"
    corpus.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / "data/raw/demo/news.jsonl.gz", corpus)
    full = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    (root / "dvc.yaml").write_text(
        yaml.safe_dump({"stages": {s: full["stages"][s] for s in STAGES}}, sort_keys=False)
    )
    entry = yaml.safe_load((ROOT / "conf/model/local_openai_server.yaml").read_text())
    entry.update(name="fake_vllm", litellm_model="hosted_vllm/fake", api_base=server.url)
    (root / "conf/model/fake_vllm.yaml").write_text(yaml.safe_dump(entry))
    config = yaml.safe_load((root / "conf/config.yaml").read_text())
    config["defaults"] = [
        {"questions": "daily_oracle"} if isinstance(d, dict) and "questions" in d else d
        for d in config["defaults"]
    ]
    config["defaults"].append({"model@models.fake_vllm": "fake_vllm"})
    config["llm"].update(progress=False, backoff_base_s=0.01, backoff_max_s=0.1)
    (root / "conf/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    # Each stage's section is its group's file (conf/<section>/default.yaml).
    construct = yaml.safe_load((root / "conf/construct/default.yaml").read_text())
    construct["models"] = dict.fromkeys(construct["models"], "fake_vllm")
    (root / "conf/construct/default.yaml").write_text(yaml.safe_dump(construct, sort_keys=False))
    evaluation = yaml.safe_load((root / "conf/eval/default.yaml").read_text())
    evaluation.update(models=["fake_vllm"], settings=["closed_book"])
    (root / "conf/eval/default.yaml").write_text(yaml.safe_dump(evaluation, sort_keys=False))
    # One request per question and setting: the label elicitation alone.
    budget = yaml.safe_load((root / "conf/budget/demo.yaml").read_text())
    budget["eval"]["elicitation"] = ["label"]
    (root / "conf/budget/demo.yaml").write_text(
        "# @package _global_\n" + yaml.safe_dump(budget, sort_keys=False)
    )


def update(root: Path, day: dt.date) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    out = subprocess.run(
        [sys.executable, "-m", "prescient", "update", "--through", day.isoformat()],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


@pytest.mark.slow
def test_two_daily_updates_release_both_days_and_pay_only_for_the_new_one(
    tmp_path: Path,
) -> None:
    if not (BIN / "dvc").exists():
        pytest.skip("dvc is not installed in this environment")
    mid, end = halves()
    root = tmp_path / "proj"
    root.mkdir()
    with FakeOpenAI(answer=reply) as server:
        scratch_project(root, server)
        subprocess.run([str(BIN / "dvc"), "init", "--no-scm", "-q"], cwd=root, check=True)
        log = update(root, mid)
        asked_mid = server.requests
        assert asked_mid > 0 and "model calls" in log
        paid = {e["key"] for p in (root / "data/llm").rglob("*.jsonl") for e in read_entries(p)}

        log = update(root, end)
        asked_end = server.requests - asked_mid
    assert asked_end > 0
    assert f"{asked_end} model calls" in log
    assert '  through: "' + end.isoformat() + '"' in (root / "conf/config.yaml").read_text()

    releases = root / "data/releases"
    first = pd.read_parquet(releases / f"questions-{mid}.parquet")
    second = pd.read_parquet(releases / f"questions-{end}.parquet")
    old = second[second["resolution_date"] <= mid].reset_index(drop=True)
    pd.testing.assert_frame_equal(old, first)
    manifest = json.loads((releases / f"questions-{end}.json").read_text())
    assert (manifest["previous"], manifest["changed"], manifest["removed"]) == (
        f"questions-{mid}.parquet",
        0,
        0,
    )
    assert manifest["new_questions"] == len(second) - len(first) > 0
    assert (root / "data/releases.dvc").is_file()  # dvc push publishes the releases

    # Every call of the second update was about an article or question of a new day.
    articles = pd.read_parquet(root / "data/interim/articles.parquet")
    day = dict(zip(articles["article_id"], articles["date"], strict=True))
    day.update(zip(second["question_id"], second["resolution_date"], strict=True))
    # A stage's ledger holds the entries its outputs came from: the first update's and the
    # new ones.
    added = 0
    for path in (root / "data/llm").rglob("*.jsonl"):
        for entry in read_entries(path):
            if entry["key"] in paid:
                continue
            tags = entry["tags"]
            assert day[tags.get("article_id") or tags["question_id"]] > mid, entry["tags"]
            added += 1
    assert added == asked_end
