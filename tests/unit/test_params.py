"""conf/ is the single source of truth: params.yaml must be its composition."""

from __future__ import annotations

import re
from pathlib import Path

from prescient import params
from tests.conftest import ROOT


def test_params_yaml_is_not_stale() -> None:
    composed = params.compose(ROOT)
    on_disk = params.load(ROOT / "params.yaml")
    assert on_disk == composed, "params.yaml is stale: run `make params` and commit it"


def test_group_override_switches_the_corpus() -> None:
    p = params.compose(ROOT, ["corpus=shared_news", "ingest.min_chars=1000"])
    assert p["corpus"]["name"] == "shared_news"
    assert p["corpus"]["path"].endswith("rtqa_news_2019_2025.jsonl.gz")
    assert p["ingest"]["min_chars"] == 1000


def test_every_corpus_option_composes() -> None:
    for option in sorted((ROOT / "conf" / "corpus").glob("*.yaml")):
        p = params.compose(ROOT, [f"corpus={option.stem}"])
        assert p["corpus"]["name"] == option.stem
        assert p["corpus"]["format"] in {"jsonl", "csv", "parquet", "warc"}


def test_dvc_yaml_params_and_interpolations_exist() -> None:
    """Every params key a stage declares, after DVC's own interpolation, is in params.yaml."""
    from dvc.dependency.param import ParamsDependency
    from dvc.repo import Repo

    p = params.load(ROOT / "params.yaml")

    def has(key: str) -> bool:
        node: object = p
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
        return True

    with Repo(str(ROOT)) as repo:
        stages = list(repo.index.stages)  # resolving fails on a missing ${...}
    assert stages
    for stage in stages:
        for dep in stage.deps:
            if isinstance(dep, ParamsDependency) and Path(dep.def_path).name == "params.yaml":
                for key in dep.params:
                    assert has(key), f"stage {stage.addressing} declares missing param {key}"
    text = (ROOT / "dvc.yaml").read_text()
    for ref in re.findall(r"\$\{([^}]+)\}", text):
        if ref.startswith("item.") or ref in ("item", "key") or "${" in ref:
            continue
        assert has(ref), f"dvc.yaml interpolates missing param {ref}"
