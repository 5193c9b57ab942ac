"""`prescient plan --queued`'s parts: what an experiment changes and the override that
sets it back, the workspace's retrieved tables against a run's params, and the sweep's
totals, where a request several experiments send is counted once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hydra.core.override_parser.overrides_parser import OverridesParser

from prescient.plumbing.plan_cli import (
    ExperimentPlan,
    partition_argvs,
    render_queued,
    retrieval_gap,
    sweep_totals,
)
from prescient.plumbing.queued import REMOVED, changed, hydra_value, override
from tests.conftest import ROOT


@pytest.mark.parametrize(
    "value",
    [
        "rag_2024-03-08",
        "2024-03-08",
        "12",
        "true",
        "a b, c",
        'say "no"',
        "http://127.0.0.1:8000/v1",
        ["closed_book", "gold", "rag_2024-03-08"],
        {"a": "x:y", "b": [1, 2.5, None, True]},
        1e-05,
        None,
    ],
)
def test_an_override_sets_the_value_back(value: Any) -> None:
    parsed = OverridesParser.create().parse_override(f"k={hydra_value(value)}")
    assert parsed.value() == value


def test_changes_are_named_leaf_by_leaf() -> None:
    base = {"eval": {"settings": ["closed_book"], "max_questions": {}}, "llm": {"a": 1}}
    new = {"eval": {"settings": ["gold"], "max_questions": {"srv": 2}}, "x": 3}
    diff = changed(base, new)
    assert diff == {
        "eval.max_questions.srv": 2,
        "eval.settings": ["gold"],
        "llm.a": REMOVED,
        "x": 3,
    }
    assert changed(new, {**new, "eval": {"settings": ["gold"], "max_questions": {}}}) == {
        "eval.max_questions": {}
    }
    assert override("llm.a", REMOVED, base) == "'~llm.a'"
    assert override("x", 3, base) == "+x=3"
    assert override("eval.settings", ["gold", "rag_2024-03-08"], base) == (
        "'eval.settings=[gold,rag_2024-03-08]'"
    )


def _project(tmp_path: Path, settings: list[str], tables: list[str]) -> dict[str, Any]:
    """A project with the repository's dvc.yaml, the given context tables and a dvc.lock
    recording the retrieve stage's params."""
    (tmp_path / "dvc.yaml").write_text((ROOT / "dvc.yaml").read_text())
    params: dict[str, Any] = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["eval"]["settings"] = settings
    params["eval"]["partitions"] = ["2024-01", "2024-02"]
    for part in params["eval"]["partitions"]:
        contexts = tmp_path / "data/interim/partitions" / part / "contexts"
        contexts.mkdir(parents=True)
        (contexts.parent / "questions.parquet").write_bytes(b"")
        for t in tables:
            (contexts / f"{t}.parquet").write_bytes(b"")
    recorded = {
        "base.seed": params["base"]["seed"],
        "questions": params["questions"],
        "retrieval": params["retrieval"],
    }
    lock = {"stages": {"retrieve": {"params": {"params.yaml": recorded}}}}
    (tmp_path / "dvc.lock").write_text(yaml.safe_dump(lock))
    return params


def test_a_run_without_its_tables_or_with_other_retrieval_params_is_named(
    tmp_path: Path,
) -> None:
    params = _project(tmp_path, ["closed_book", "rag_2024-03-08"], ["closed_book"])
    argv = partition_argvs(tmp_path, params, str(params["eval"]["models"][0]))[0]  # 2024-01
    gap = retrieval_gap(tmp_path, params, argv)
    assert (gap.stage, gap.missing, gap.stale) == ("retrieve", ["rag_2024-03-08"], [])
    # every partition's table is needed
    (tmp_path / "data/interim/partitions/2024-01/contexts/rag_2024-03-08.parquet").write_bytes(b"")
    assert retrieval_gap(tmp_path, params, argv).missing == ["rag_2024-03-08"]
    (tmp_path / "data/interim/partitions/2024-02/contexts/rag_2024-03-08.parquet").write_bytes(b"")
    assert not retrieval_gap(tmp_path, params, argv)
    params["retrieval"]["top_k"] = params["retrieval"].get("top_k", 5) + 1
    gap = retrieval_gap(tmp_path, params, argv)
    assert gap.stale == ["retrieval"] and "differ from those dvc.lock records" in gap.describe(
        "data/interim/partitions"
    )


def _plan(model: str, sends: dict[str, float | None], paid: bool = True) -> dict[str, Any]:
    cost = sum(c for c in sends.values() if c is not None) if paid else None
    return {"model": model, "requests": 10, "answered": 10 - len(sends), "repeated": 0,
            "to_send": len(sends), "max_cost_usd": cost, "paid": len(sends) if paid else 0,
            "sends": sends}  # fmt: skip


def test_the_totals_count_a_shared_request_once_and_each_run_against_its_ceiling() -> None:
    a = ExperimentPlan("a", "a" * 40, {"x": 1}, 1.0, [_plan("m", {"k1": 0.25, "k2": 0.5})])
    b = ExperimentPlan("b", "b" * 40, {"x": 2}, 0.5, [_plan("m", {"k2": 0.5, "k3": 0.125})])
    c = ExperimentPlan("c", "c" * 40, {"x": REMOVED}, 1.0, gap="no context table", command="cmd")
    totals = sweep_totals([a, b, c])
    (m,) = totals["models"]
    assert (m["requests"], m["to_send_each"], m["to_send"], m["shared"]) == (20, 4, 3, 1)
    assert m["max_cost_usd"] == 0.875
    assert (totals["experiments"], totals["planned"]) == (3, 2)
    assert totals["stage_runs_over_ceiling"] == ["b/m"]  # 0.625 over its 0.5
    text = render_queued([a, b, c], totals)
    assert "experiment a (aaaaaaa): x=1" in text and "experiment c (ccccccc): ~x" in text
    assert "make them in the workspace first with `cmd`" in text
    assert "1 of 2 within their experiment's ceiling; may pass it: b/m" in text
    row = [line for line in text.splitlines() if line.split()[:1] == ["m"]][-1]
    assert row.split() == ["m", "2", "20", "16", "0", "3", "1", "$0.8750"]
    unpriced = ExperimentPlan("u", "u" * 40, {}, None, [_plan("m", {"k9": None})])
    assert sweep_totals([a, unpriced])["models"][0]["max_cost_usd"] is None
