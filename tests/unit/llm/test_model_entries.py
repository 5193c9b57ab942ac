"""Every model entry in conf/model spells out every key of the registry's schema, so any
key can be set from the command line as DVC and Hydra take it (`-S models.X.key=value`:
Hydra refuses a key an entry does not already hold)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from prescient.llm.registry import ModelSpec, load_registry
from prescient.plumbing.params import compose
from tests.conftest import ROOT

ENTRIES = sorted((ROOT / "conf" / "model").glob("*.yaml"))


@pytest.mark.parametrize("path", ENTRIES, ids=lambda p: p.stem)
def test_an_entry_holds_every_key_of_the_schema(path: Path) -> None:
    assert set(yaml.safe_load(path.read_text())) == set(ModelSpec.model_fields)


def test_every_key_of_an_entry_can_be_set_from_the_command_line() -> None:
    params = compose(
        ROOT,
        [
            "models.gpt_4o.batch=true",
            "models.gpt_4o.price={prompt_usd_per_mtok: 1, completion_usd_per_mtok: 2}",
            "models.smollm2_135m.timeout_s=30",
            "models.local_openai_server.litellm_model=hosted_vllm/my-model",
        ],
    )
    models = load_registry(params)
    assert models["gpt_4o"].batch is True
    assert models["gpt_4o"].price is not None
    assert models["gpt_4o"].price.prompt_usd_per_mtok == 1
    assert models["smollm2_135m"].timeout_s == 30
    assert models["local_openai_server"].litellm_model == "hosted_vllm/my-model"
    assert models["gpt_4"].batch is False and models["gpt_4"].price is None


def test_a_baseline_asked_to_reason_states_its_forecast_after_the_marker() -> None:
    from prescient.evaluation.forecasts import read_forecast
    from prescient.llm.baselines import baseline_answer

    messages = [{"role": "user", "content": "Question: Will it rain?\nPossible answers: Yes, No"}]
    tags = {"elicitation": "scratchpad", "question_id": "q1"}
    reply = baseline_answer("always-yes", messages, 0, tags)
    assert "Final forecast:" in reply
    assert read_forecast("scratchpad", reply, "tf", ["Yes", "No"]).probs == (1.0, 0.0)
