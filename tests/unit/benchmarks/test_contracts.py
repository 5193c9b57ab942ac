"""Every benchmark folder fills the contract: the registry finds each by its folder, its
stages are dvc.yaml's, its conf groups are conf/'s, and its analysis and its report part
load and fit together (its tables and figures sit in parts of the page's outline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prescient.benchmarks import registry
from prescient.contract.benchmark import Benchmark, resolve
from prescient.plumbing import dag
from tests.conftest import ROOT


def test_the_registry_finds_every_benchmark_folder_in_name_order() -> None:
    assert registry.names() == ("daily_oracle", "freshbench", "openforecast")
    assert [b.title for b in registry.benchmarks()] == [
        "Daily Oracle",
        "FreshBench",
        "OpenForecast",
    ]
    assert [a.name for a in registry.analyses()] == ["daily_oracle", "freshbench"]
    assert [p.title for p in registry.report_parts()] == [
        "Daily Oracle",
        "FreshBench",
        "OpenForecast",
    ]


@pytest.mark.parametrize("name", registry.names())
def test_a_contract_names_real_stages_and_conf_groups(name: str) -> None:
    contract = registry.contract(name)
    stages = set(dag.load_dvc_yaml(ROOT)["stages"])
    assert set(contract.stages) <= stages, contract.stages
    for group in contract.conf_groups:
        assert (ROOT / "conf" / group).is_dir(), group


@pytest.mark.parametrize("name", registry.names())
def test_its_analysis_and_report_part_load_and_fit_the_outline(name: str) -> None:
    contract = registry.contract(name)
    analysis, part = contract.load_analysis(), contract.load_report()
    assert part is not None and part.title == contract.title
    if analysis is not None:
        assert analysis.name == name
    placed = {p.id for p in part.outline}
    assert {t.part for t in part.tables} | {f.part for f in part.figures} <= (
        placed | {c.id for p in part.outline for c in p.children} | _page_parts()
    )


def test_each_analysis_section_has_one_owner() -> None:
    owners = [s for a in registry.analyses() for s in a.sections]
    assert sorted(owners) == ["freshbench", "headline", "slope", "table3"]
    assert len(owners) == len(set(owners))


def _page_parts() -> set[str]:
    from prescient.page.contents import outline

    return set(outline().ids())


def test_references_must_name_what_they_promise(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="module:attribute"):
        resolve("prescient.stats")
    wrong = Benchmark("x", "X", analysis="prescient.stats:wilson_interval")
    with pytest.raises(TypeError, match="not a BenchmarkAnalysis"):
        wrong.load_analysis()
    assert Benchmark("y", "Y").load_analysis() is None and Benchmark("y", "Y").load_report() is None
