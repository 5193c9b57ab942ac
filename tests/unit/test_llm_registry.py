"""The shipped model registry, composed from conf/ as the pipeline sees it."""

from __future__ import annotations

from typing import Any

import pytest

from prescient import params
from prescient.llm.gateway import Gateway, GatewaySettings
from prescient.llm.registry import ModelConfigError, ModelSpec, load_registry
from tests.conftest import ROOT

# SPEC 1.5 (knowledge cutoffs) and the paper's Table 5 (versions).
PAPER = {
    "claude_3_5_sonnet": ("2024-04-01", "anthropic/claude-3-5-sonnet-20240620"),
    "gpt_4": ("2023-04-01", "openai/gpt-4-1106-preview"),
    "gpt_3_5": ("2021-09-01", "openai/gpt-3.5-turbo-0125"),
    "mixtral_8x7b": (None, "together_ai/mistralai/Mixtral-8x7B-Instruct-v0.1"),
    "mistral_7b": (None, "together_ai/mistralai/Mistral-7B-Instruct-v0.3"),
    "qwen2_7b": (None, "together_ai/Qwen/Qwen2-7B-Instruct"),
    "llama3_8b": ("2023-03-01", "together_ai/meta-llama/Meta-Llama-3-8B-Instruct"),
    "gemma2_2b": ("2024-07-01", "hosted_vllm/google/gemma-2-2b-it"),
}


@pytest.fixture(scope="module")
def composed() -> dict[str, Any]:
    return params.compose(ROOT)


def test_every_conf_model_file_is_in_the_registry(composed: dict[str, Any]) -> None:
    files = sorted(p.stem for p in (ROOT / "conf" / "model").glob("*.yaml"))
    registry = load_registry(composed)
    assert sorted(registry) == files
    assert all(spec.name == name for name, spec in registry.items())


def test_paper_models_carry_their_knowledge_cutoffs(composed: dict[str, Any]) -> None:
    registry = load_registry(composed)
    got = {name: (registry[name].knowledge_cutoff, registry[name].litellm_model) for name in PAPER}
    assert got == PAPER


def test_defaults_are_reproducible_keyed_and_safe(composed: dict[str, Any]) -> None:
    registry = load_registry(composed)
    for spec in registry.values():
        assert spec.params["temperature"] == 0, spec.name
        assert spec.provider != "scripted", "the scripted provider is for tests only"
        if spec.provider in {"openai", "anthropic", "together_ai"}:
            assert spec.api_key_env and spec.api_key_env.endswith("_API_KEY"), spec.name
        else:
            assert spec.api_key_env is None, spec.name
    # Keys are named, never stored.
    flat = repr(composed["models"])
    assert "sk-" not in flat and "api_key:" not in flat


def test_embedded_default_and_baselines(composed: dict[str, Any]) -> None:
    registry = load_registry(composed)
    smol = registry["smollm2_135m"]
    assert smol.litellm_model == "local/smollm2-135m"
    assert smol.params["max_tokens"] <= 256 and smol.concurrency == 1
    assert {registry[n].litellm_model for n in registry if n.startswith("baseline_")} == {
        "baseline/random",
        "baseline/always-yes",
        "baseline/first-choice",
    }
    assert registry["local_openai_server"].api_base == "http://127.0.0.1:8000/v1"


def test_gateway_from_params_reads_the_llm_section(composed: dict[str, Any], tmp_path: Any) -> None:
    gw = Gateway.from_params(composed, "demo", tmp_path / "demo.jsonl", progress=False)
    assert gw.settings == GatewaySettings(
        max_tries=composed["llm"]["max_tries"],
        backoff_base_s=composed["llm"]["backoff_base_s"],
        backoff_max_s=composed["llm"]["backoff_max_s"],
        timeout_s=composed["llm"]["timeout_s"],
        progress=False,
    )
    default_path = Gateway.from_params(
        {**composed, "llm": {**composed["llm"], "ledger_dir": str(tmp_path / "llm")}}, "qa"
    ).ledger.path
    assert default_path == tmp_path / "llm" / "qa.jsonl"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"litellm_model": "gpt-4o"}, "provider/model"),
        ({"litellm_model": "openai/x", "knowledge_cutoff": "April 2023"}, "YYYY-MM-DD"),
        ({"litellm_model": "openai/x", "concurrency": 0}, "concurrency"),
        ({"litellm_model": "openai/x", "rpm": -5}, "rpm"),
        ({"litellm_model": "openai/x", "name": "other"}, "differs"),
    ],
)
def test_malformed_entries_name_the_file_and_field(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelConfigError, match=message) as err:
        ModelSpec.from_dict("m", entry)
    assert "conf/model/m.yaml" in str(err.value)
