"""The demo's budget stays in the demo: the demo corpus selects it, every other corpus (and
an imported question set on one) runs with the papers' settings, and the demo's fictional
event chains never reach a run on real news."""

from __future__ import annotations

import logging

import pytest

from prescient.plumbing import params
from tests.conftest import ROOT

# Keys the demo budget shrinks, with the papers' values (Daily Oracle, ICML 2025, sections
# 3.1 and 4.1; OpenForecast, COLING 2025, section 4).
PAPER = {
    ("retrieval", "top_k"): 5,
    ("retrieval", "max_words"): 512,
    ("retrieval", "gold_max_words"): None,
    ("construct", "article_max_chars"): None,
    ("construct", "articles_per_month"): None,
    ("construct", "date_start"): None,
    ("construct", "distractor_fallback"): None,
    ("select", "eps"): 0.5,
    ("select", "min_samples"): 3,
    ("openforecast", "samples", "distractor_fallback"): None,
    ("analysis", "anderson_schooler", "window_days"): 100,
    ("crawl", "max_files"): None,  # every file of the window, not a trial
}


def _get(p: dict[str, object], key: tuple[str, ...]) -> object:
    node: object = p
    for part in key:
        assert isinstance(node, dict), key
        node = node[part]
    return node


def test_the_demo_corpus_brings_the_demo_budget() -> None:
    p = params.compose(ROOT)
    assert p["budget"]["name"] == "demo"
    assert "not comparable" in p["budget"]["note"]
    assert p["retrieval"]["top_k"] == 3 and p["retrieval"]["max_words"] == 60
    assert p["construct"]["templates"]["summary"] == "summary_compact"
    assert p["chains"]["source"] == "demo"


@pytest.mark.parametrize(
    "overrides",
    [
        ["corpus=shared_news"],
        ["corpus=jsonl"],
        ["corpus=ccnews"],
        ["corpus=shared_news", "questions=file"],
        ["budget=paper"],
    ],
)
def test_everything_else_gets_the_papers_settings(overrides: list[str]) -> None:
    p = params.compose(ROOT, overrides)
    assert p["budget"]["name"] == "paper"
    for key, value in PAPER.items():
        assert _get(p, key) == value, key
    assert all(v is None for v in p["openforecast"]["samples"]["max_samples"].values())
    assert p["construct"]["templates"]["generate"] == "generate"


@pytest.mark.parametrize("corpus", ["shared_news", "jsonl", "csv", "parquet", "warc", "ccnews"])
def test_no_fictional_chain_outside_the_demo(corpus: str) -> None:
    for extra in ([], ["budget=demo"]):
        p = params.compose(ROOT, [f"corpus={corpus}", *extra])
        assert p["chains"]["source"] == "cluster"
        assert p["chains"]["path"] == "data/interim/articles.parquet"


def test_the_chain_source_is_still_chosen_by_hand() -> None:
    p = params.compose(ROOT, ["corpus=shared_news", "chains.source=import"])
    assert p["chains"]["source"] == "import"


def test_the_demo_budget_on_another_corpus() -> None:
    p = params.compose(ROOT, ["corpus=shared_news", "budget=demo"])
    assert p["budget"]["name"] == "demo"
    assert p["retrieval"]["max_words"] == 60


def test_loading_params_logs_the_budget(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="prescient.plumbing.params"):
        params.load(ROOT / "params.yaml")
    assert any(r.getMessage().startswith("budget demo: ") for r in caplog.records)


def test_no_default_outside_the_demo_budget_is_labelled_a_demo_value() -> None:
    """A value the demo needs lives in conf/budget/demo.yaml, not in a default that every
    corpus reads with a note saying it is the demo's."""
    labelled = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "conf").rglob("*.yaml"))
        if path.parent.name != "budget" and path.name != "demo.yaml"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "DEMO BUDGET" in line and line.lstrip().startswith("#")
    ]
    assert labelled == []
