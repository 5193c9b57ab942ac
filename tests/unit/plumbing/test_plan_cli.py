"""`prescient plan`: the evaluate stage's command as dvc.yaml declares it, and the table
of what each model would send against the cost ceiling."""

from __future__ import annotations

import yaml

from prescient.evaluation.plan import merge_plans
from prescient.plumbing.plan_cli import partition_argvs, render
from tests.conftest import ROOT


def test_the_stage_is_run_as_dvc_yaml_declares_it() -> None:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["eval"]["partitions"] = ["2024-12"]
    (argv,) = partition_argvs(ROOT, params, "gpt_4o")
    assert argv[:2] == ["--model", "gpt_4o"]
    assert argv[argv.index("--ledger") + 1] == "data/llm/evaluate/gpt_4o/2024-12.jsonl"
    assert argv[argv.index("--contexts") + 1] == "data/interim/partitions/2024-12/contexts"
    assert not any("${" in word for word in argv)


def test_a_models_partitions_plan_as_one_request_sent_once() -> None:
    one = {
        **_plan("gpt_4o", 2, 1.0, 2),
        "sends": {"k1": 0.5, "k2": 0.5},
        "batched": 0,
        "batch_jobs": 0,
        "batch_in_flight": 0,
    }
    two = {**one, "sends": {"k2": 0.5, "k3": 0.5}, "max_completion_tokens": None}
    merged = merge_plans([one, two])
    assert merged["requests"] == 2400 and merged["answered"] == 1400
    assert merged["to_send"] == 3 and merged["repeated"] == 201
    assert merged["sends"] == {"k1": 0.5, "k2": 0.5, "k3": 0.5}
    assert merged["max_cost_usd"] == 2.0 and merged["max_completion_tokens"] is None


def _plan(model: str, to_send: int, cost: float | None, paid: int) -> dict[str, object]:
    return {
        "model": model,
        "requests": 1200,
        "answered": 700,
        "repeated": 100,
        "to_send": to_send,
        "prompt_tokens": 1000,
        "max_completion_tokens": 10,
        "max_cost_usd": cost,
        "paid": paid,
    }


def test_the_table_gives_each_model_its_worst_case_against_the_ceiling() -> None:
    plans = [
        _plan("gpt_4o", 400, 2.5, 400),
        _plan("claude", 400, 31.0, 400),
        _plan("mystery", 400, None, 400),
        _plan("smollm2_135m", 400, None, 0),
    ]
    text = render(plans, 30.0)
    lines = text.splitlines()
    assert lines[0].split() == ["model", "requests", "answered", "repeated", "to", "send",
                                "worst", "case"]  # fmt: skip
    assert lines[1].split() == ["gpt_4o", "1,200", "700", "100", "400", "$2.5000"]
    assert lines[4].split()[-2:] == ["in", "process"]
    assert "gpt_4o: worst case $2.5000 within llm.max_cost_usd=30" in text
    assert "claude: worst case $31.0000 may pass llm.max_cost_usd=30" in text
    assert "mystery: unpriced under llm.max_cost_usd=30" in text
    assert "smollm2_135m:" not in text  # in process: nothing to pay
    assert "no ceiling (llm.max_cost_usd is null)" in render(plans[:1], None)


def test_a_batch_mode_model_is_told_how_many_jobs_and_windows_it_waits_on() -> None:
    batched = {**_plan("gpt_4o", 400, 2.5, 400), "batched": 400, "batch_jobs": 9}
    text = render([{**batched, "batch_in_flight": 4}, _plan("claude", 400, 1.0, 400)], 30.0)
    assert (
        "gpt_4o: 400 requests in 9 batch jobs, 4 out at once: 3 rounds of the provider's "
        "batch window" in text
    )
    assert "claude: 400 requests" not in text
    one = render([{**batched, "batch_jobs": 1, "batch_in_flight": 8}], None)
    assert "in 1 batch job, 1 out at once: 1 round of" in one
