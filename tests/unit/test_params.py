"""conf/ is the single source of truth: params.yaml must be its composition."""

from __future__ import annotations

import re

import yaml

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
    """Every params key a stage declares, and every ${...} it interpolates, is in params.yaml."""
    p = params.load(ROOT / "params.yaml")
    text = (ROOT / "dvc.yaml").read_text()
    dvc = yaml.safe_load(text)

    def has(key: str) -> bool:
        node: object = p
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
        return True

    for name, stage in dvc["stages"].items():
        for entry in stage.get("params", []):
            keys = entry if isinstance(entry, str) else None
            if keys is None:
                continue  # a {file: [keys]} entry reads another file
            assert has(keys), f"stage {name} declares missing param {keys}"
    for ref in re.findall(r"\$\{([^}]+)\}", text):
        if ref.startswith("item."):
            continue
        assert has(ref), f"dvc.yaml interpolates missing param {ref}"
