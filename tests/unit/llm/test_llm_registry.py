"""The shipped model registry, composed from conf/ as the pipeline sees it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from prescient.llm.gateway import Gateway
from prescient.llm.registry import ModelConfigError, ModelRegistry, ModelSpec, load_registry
from prescient.llm.settings import GatewaySettings, max_failed_share
from prescient.plumbing import params
from prescient.settings import ParamsError
from tests.conftest import ROOT
from tests.support.llm import model_entry

# Daily Oracle, ICML 2025: Table 3 (knowledge cutoffs) and Table 5 (versions).
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
    got = {
        name: (
            None
            if registry[name].knowledge_cutoff is None
            else str(registry[name].knowledge_cutoff),
            registry[name].litellm_model,
        )
        for name in PAPER
    }
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
    assert smol.litellm_model == "local/smollm2-135m-q8_0"
    assert smol.params["max_tokens"] <= 256 and smol.concurrency == 1
    assert {registry[n].litellm_model for n in registry if n.startswith("baseline_")} == {
        "baseline/random",
        "baseline/always-yes",
        "baseline/first-choice",
    }
    assert registry["local_openai_server"].api_base == "http://127.0.0.1:8000/v1"


def test_gateway_from_params_reads_the_llm_section(composed: dict[str, Any], tmp_path: Any) -> None:
    gw = Gateway.from_params(composed, "demo", tmp_path / "demo.jsonl")
    assert gw.settings == GatewaySettings(**composed["llm"])
    assert gw.settings.max_failed_share == 0.0  # the shipped default: any failure fails
    assert gw.ledger.path == tmp_path / "demo.jsonl"  # the stage says where, always
    assert max_failed_share(composed) == 0.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"max_tries": 0}, "llm.max_tries"),
        ({"transport": "carrier-pigeon"}, "llm.transport"),
        ({"max_failed_share": 1.5}, "llm.max_failed_share"),
        ({"ledger_dir": "data/llm"}, "llm.ledger_dir is not a parameter"),
        ({"timeout_s": "eight hundred"}, "llm.timeout_s"),
    ],
)
def test_bad_llm_settings_name_the_parameter(
    composed: dict[str, Any], change: dict[str, Any], message: str, tmp_path: Any
) -> None:
    bad = {**composed, "llm": {**composed["llm"], **change}}
    with pytest.raises(ParamsError, match=message):
        Gateway.from_params(bad, "demo", tmp_path / "demo.jsonl")
    missing = {**composed, "llm": {k: v for k, v in composed["llm"].items() if k != "progress"}}
    with pytest.raises(ParamsError, match="llm.progress is missing"):
        GatewaySettings.from_params(missing)
    with pytest.raises(ParamsError, match="llm.max_failed_share"):
        max_failed_share({"llm": {"max_failed_share": True}})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"litellm_model": "gpt-4o"}, "models.m.litellm_model: must be 'provider/model'"),
        ({"knowledge_cutoff": "April 2023"}, "models.m.knowledge_cutoff"),
        ({"concurrency": 0}, "models.m.concurrency"),
        ({"rpm": -5}, "models.m.rpm"),
        ({"name": "other"}, "differs from its key"),
        ({"temperature": 0}, "models.m.temperature is not a parameter"),
    ],
)
def test_malformed_entries_name_the_file_and_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelConfigError, match=message) as err:
        ModelSpec.from_dict("m", {**model_entry("m", "openai/x"), **change})
    assert str(err.value).startswith("conf/model/m.yaml: ")
    entry = model_entry("m", "openai/x")
    del entry["rpm"]
    with pytest.raises(ModelConfigError, match="models.m.rpm is missing"):
        ModelSpec.from_dict("m", entry)


def test_entries_are_validated_when_first_used(composed: dict[str, Any], tmp_path: Any) -> None:
    models = {**composed["models"], "broken": {"litellm_model": "nope"}}
    registry = ModelRegistry(models)
    assert registry["gpt_4o"].knowledge_cutoff == dt.date(2023, 10, 1)
    assert registry["gpt_4o"].provider == "openai" and not registry["gpt_4o"].in_process
    with pytest.raises(ModelConfigError, match="conf/model/broken.yaml"):
        registry["broken"]
    with pytest.raises(ModelConfigError, match="not in the registry"):
        registry["absent"]
    # A stage using only valid models is not stopped by another model's broken entry.
    gw = Gateway.from_params({**composed, "models": models}, "t", tmp_path / "l.jsonl")
    gw.check(["baseline_random"])
    with pytest.raises(ModelConfigError, match="broken"):
        gw.check(["broken"])
    assert "OPENAI_API_KEY" in registry.key_variables()


def test_a_stage_gateway_is_checked_first_and_closed_when_the_check_fails(
    composed: dict[str, Any], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import logging

    from prescient.llm.gateway import stage_failed, stage_gateway

    closed: list[str] = []
    close = Gateway.close
    monkeypatch.setattr(Gateway, "close", lambda self: (closed.append(self.stage), close(self)))
    with pytest.raises(ModelConfigError, match="no_such_model"):
        stage_gateway(
            composed, "construct", tmp_path / "a" / "ledger.jsonl", ["no_such_model"], None
        )
    assert closed == ["construct"]
    ledger = tmp_path / "b" / "ledger.jsonl"
    gateway = stage_gateway(composed, "lrae", ledger, [], None)
    with gateway:
        pass
    out = tmp_path / "out.parquet"
    out.write_text("an earlier result")
    # Nothing was asked: the ledger is still written (empty) and the outputs stay.
    assert not stage_failed(gateway, logging.getLogger("t"), [out])
    assert ledger.read_text() == "" and out.exists()
    assert closed == ["construct", "lrae"]
