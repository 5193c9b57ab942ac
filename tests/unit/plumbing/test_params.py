"""conf/ is the single source of truth: params.yaml must be its composition."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from prescient.plumbing import params
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


SECTIONS = (
    "ingest",
    "select",
    "construct",
    "retrieval",
    "eval",
    "analysis",
    "annotation",
    "bpc",
    "chains",
    "openforecast",
)


def test_config_yaml_holds_the_defaults_and_the_shared_sections_only() -> None:
    config = yaml.safe_load((ROOT / "conf" / "config.yaml").read_text())
    assert list(config) == ["defaults", "base", "llm"]
    for section in SECTIONS:
        assert (ROOT / "conf" / section / "default.yaml").is_file()


def test_each_section_file_lands_in_its_section_in_the_order_of_params() -> None:
    p = params.compose(ROOT, ["corpus=shared_news"])  # the papers' budget: nothing overridden
    assert list(p)[: 2 + len(SECTIONS)] == ["base", "llm", *SECTIONS]
    for section in SECTIONS:
        own = list(yaml.safe_load((ROOT / "conf" / section / "default.yaml").read_text()))
        assert list(p[section])[: len(own)] == own, section
    assert p["ingest"]["min_chars"] == 800 and p["select"]["eps"] == 0.5
    assert list(p["chains"])[2:] == ["demo", "cluster", "import"]  # the chain sources follow


def test_a_preset_adds_to_its_section_and_the_budget_overrides_the_sections() -> None:
    p = params.compose(ROOT, ["corpus=shared_news", "budget=demo", "analysis=freshbench"])
    assert p["analysis"]["freshbench"]["month_rule"] == "freshbench"  # the preset
    assert p["analysis"]["exclude_sources"] == ["openforecast"]  # the section, kept
    assert p["analysis"]["scores"] == "data/processed/scores.parquet"  # analysis_inputs
    assert (p["select"]["eps"], p["select"]["min_samples"]) == (0.7, 2)  # the budget
    assert (p["retrieval"]["top_k"], p["retrieval"]["gold_max_words"]) == (3, 100)
    q = params.compose(ROOT, ["corpus=shared_news", "budget=demo", "select.eps=0.6"])
    assert q["select"]["eps"] == 0.6  # a value given on the command line wins over both
