"""Stage chains with the cluster source on the demo corpus: stories linked, key points
through the gateway with the construction stage's summary requests, and every article
construction already summarised served from its ledger, never asked again."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from prescient.llm.scripted import register_script
from prescient.plumbing import params
from stages import chains as chains_stage
from stages import construct as construct_stage
from stages import ingest as ingest_stage
from stages import select as select_stage
from tests.conftest import ROOT
from tests.support.llm import model_entry

CALLS: Counter[str] = Counter()


def scripted(messages: Sequence[Mapping[str, Any]], _p: Mapping[str, Any]) -> str:
    text = str(messages[-1]["content"])
    if "what new event does this article report" in text:
        CALLS["summary"] += 1
        title = re.search(r"^Title: (.*)$", text, re.M)
        assert title is not None
        if "survey" in title.group(1).lower():
            return "No new event reported."
        return f"{title.group(1)}, as reported that day."
    return "I cannot help with that."  # the later construction steps: parse errors


def chains_args(tmp: Path) -> list[str]:
    """The chains stage's command line as dvc.yaml wires it, inside ``tmp``."""
    args = ["--params", str(tmp / "params.yaml"), "--articles", str(tmp / "articles.parquet")]
    args += ["--prompts", str(ROOT / "conf/prompts/construct")]
    args += ["--reuse-ledger", str(tmp / "construct.jsonl"), "--ledger", str(tmp / "chains.jsonl")]
    return args + ["--out", str(tmp / "chains.parquet"), "--metrics", str(tmp / "chains.json")]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], int]:
    tmp = tmp_path_factory.mktemp("cluster")
    register_script("of_keypoints", scripted)
    p = params.compose(
        ROOT,
        [
            "chains.source=cluster",
            "chains.cluster.window_days=1000",
            "chains.cluster.max_chains=3",
            "llm.progress=false",
            *[
                f"construct.models.{s}=kp"
                for s in ("summary", "generate", "distract", "filter", "categorize")
            ],
        ],
    )
    p["models"]["kp"] = model_entry("kp", "scripted/of_keypoints", params={}, concurrency=4)
    (tmp / "params.yaml").write_text(yaml.safe_dump(p))
    a = ["--params", str(tmp / "params.yaml")]
    articles = str(tmp / "articles.parquet")
    assert ingest_stage.main([*a, "--out", articles, "--metrics", str(tmp / "i.json")]) == 0
    selected = str(tmp / "selected.parquet")
    assert (
        select_stage.main(
            [*a, "--articles", articles, "--out", selected, "--metrics", str(tmp / "s.json")]
        )
        == 0
    )
    construct_args = [
        *a,
        "--selected",
        selected,
        "--articles",
        articles,
        "--prompts",
        str(ROOT / "conf/prompts/construct"),
        "--questions",
        str(tmp / "q.parquet"),
        "--candidates",
        str(tmp / "c.parquet"),
        "--ledger",
        str(tmp / "construct.jsonl"),
        "--metrics",
        str(tmp / "construct.json"),
    ]
    assert construct_stage.main(construct_args) == 0
    construct_calls = CALLS["summary"]
    CALLS.clear()
    assert chains_stage.main(chains_args(tmp)) == 0
    return tmp, json.loads((tmp / "chains.json").read_text()), construct_calls


def test_key_points_paid_by_construction_are_not_paid_again(
    run: tuple[Path, dict[str, Any], int],
) -> None:
    tmp, metrics, construct_calls = run
    kp = metrics["read"]["keypoints"]
    assert construct_calls > 0
    copied = [json.loads(line) for line in (tmp / "chains.jsonl").read_text().splitlines()]
    copied = [e for e in copied if e.get("copied_from")]
    assert copied  # the last weeks' arc articles were selected
    assert CALLS["summary"] == kp["requests"] - len(copied)
    construct_keys = {
        json.loads(line)["key"] for line in (tmp / "construct.jsonl").read_text().splitlines()
    }
    assert {e["key"] for e in copied} <= construct_keys
    assert {e["stage"] for e in copied} == {"construct"}


def test_chains_are_the_longest_stories_with_key_points(
    run: tuple[Path, dict[str, Any], int],
) -> None:
    tmp, metrics, _ = run
    chains = pd.read_parquet(tmp / "chains.parquet")
    assert chains["chain_id"].nunique() == 3 and set(chains["origin"]) == {"cluster"}
    assert metrics["read"]["budget_dropped"] > 0
    assert (chains.groupby("chain_id")["date"].nunique() >= 5).all()
    assert chains["text"].str.endswith(", as reported that day.").all()
    assert not chains["text"].str.lower().str.contains("survey").any()  # no new event: dropped
    # Outlets reporting one episode on one day give one event with all their articles.
    assert (
        chains["source_article_ids"].map(len).max() >= 2
        or metrics["read"]["keypoints"]["merged_duplicates"] == 0
    )
    articles = pd.read_parquet(tmp / "articles.parquet").set_index("article_id")
    for row in chains.itertuples():
        for aid in row.source_article_ids:
            assert articles.loc[aid, "date"] == row.date


def test_a_rerun_costs_nothing(run: tuple[Path, dict[str, Any], int]) -> None:
    tmp, _, _ = run
    before = pd.read_parquet(tmp / "chains.parquet")
    CALLS.clear()
    assert chains_stage.main(chains_args(tmp)) == 0
    assert CALLS["summary"] == 0
    pd.testing.assert_frame_equal(pd.read_parquet(tmp / "chains.parquet"), before)
