"""The served model on every row: the model id a server names in its reply is kept in
the ledger entry's provenance, handed to the result fresh and from the ledger alike, and
carried into predictions; an in-process model's weights file stands in for it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from prescient.analysis.schema import ModelInfo, models_frame, served_models
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.types import LLMRequest, served_model
from prescient.plumbing.llm_cli import stats
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import llm_settings, model_spec


@pytest.mark.parametrize("transport", ["auto", "litellm"])
def test_the_model_a_server_names_is_kept_and_served_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    monkeypatch.setenv("PRESCIENT_TEST_KEY", "sk-test")
    ledger = tmp_path / "l.jsonl"
    with FakeOpenAI() as server:
        spec = model_spec(
            "local",
            "openai/qwen2.5-7b-instruct",  # the fake server names the model it was asked for
            api_base=server.url,
            api_key_env="PRESCIENT_TEST_KEY",
            params={"temperature": 0.0, "max_tokens": 4},
        )
        settings = llm_settings(max_tries=1, progress=False, transport=transport)
        req = LLMRequest("local", [{"role": "user", "content": "question 1"}])
        with Gateway({"local": spec}, ledger, stage="t", settings=settings) as gw:
            (fresh,) = gw.complete_many([req])
        with Gateway({"local": spec}, ledger, stage="t", settings=settings) as gw:
            (again,) = gw.complete_many([req])
            # the run log's record names who answered, from the ledger too
            assert gw.stats.run_record()["served_models"] == {"local: qwen2.5-7b-instruct": 1}
        assert server.requests == 1
    assert fresh.served_model == again.served_model == "qwen2.5-7b-instruct"
    assert again.from_ledger
    (entry,) = read_entries(ledger)
    assert entry["provenance"] == {"served_model": "qwen2.5-7b-instruct"}


def test_an_in_process_model_is_named_by_its_weights_and_two_served_models_both_show() -> None:
    assert served_model({"weights": {"file": "smollm2-135m.gguf"}}) == "smollm2-135m.gguf"
    assert served_model({"served_model": "a", "weights": {"file": "w"}}) == "a"
    assert served_model(None) is None and served_model({}) is None
    scores = pd.DataFrame(
        {
            "model": ["local", "local", "local", "other"],
            "served_model": ["model-b", "model-a", "model-b", None],
        }
    )
    named = served_models(scores)
    assert named == {"local": "model-a; model-b"}
    frame = models_frame([ModelInfo("local", None, None, "registry")], named)
    assert frame["served_model"].tolist() == ["model-a; model-b"]


def test_the_ledger_summary_names_each_model_served_behind_one_entry(tmp_path: Path) -> None:
    ledger = tmp_path / "l.jsonl"
    settings = llm_settings(max_tries=1, progress=False)
    with FakeOpenAI() as server:
        for served in ("model-a", "model-b", "model-b"):
            spec = model_spec("local", f"openai/{served}", api_base=server.url)
            question = f"question {served} {server.requests}"
            req = LLMRequest("local", [{"role": "user", "content": question}])
            with Gateway({"local": spec}, ledger, stage="t", settings=settings) as gw:
                gw.complete_many([req])
    summary = stats([str(ledger)])
    assert summary["local"]["ok"] == 3
    assert summary["local"]["served_models"] == {"model-a": 1, "model-b": 2}
    assert summary["local"]["litellm_models"] == {"openai/model-a": 1, "openai/model-b": 2}
