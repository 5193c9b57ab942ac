"""The embedded model really generates, through litellm and the gateway, deterministically."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from prescient import params
from prescient.llm.gateway import Gateway
from prescient.llm.providers import LOCAL
from prescient.llm.types import LLMRequest
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

CAPITAL = [{"role": "user", "content": "What is the capital city of France? Answer in one word."}]


def test_local_model_generates_deterministically_and_loads_once(tmp_path: Path) -> None:
    composed = params.compose(ROOT)  # the shipped registry entry, as the demo uses it
    start = time.perf_counter()
    gw = Gateway.from_params(composed, "t", tmp_path / "a.jsonl", progress=False)
    reqs = [
        LLMRequest("smollm2_135m", CAPITAL, params={"max_tokens": 24}),
        LLMRequest(
            "smollm2_135m", [{"role": "user", "content": "Say hello."}], params={"max_tokens": 24}
        ),
        LLMRequest("smollm2_135m", CAPITAL, params={"max_tokens": 24, "temperature": 0.0}),
    ]
    a = gw.complete_many(reqs)
    assert all(r.ok for r in a), [r.error for r in a]
    assert "paris" in (a[0].text or "").lower()
    assert a[0].text == a[2].text and a[0].key == a[2].key  # 0 and 0.0 are one request
    assert 0 < a[0].usage["completion_tokens"] <= 24 and a[0].usage["prompt_tokens"] > 10
    assert a[0].finish_reason in {"stop", "length"} and a[0].cost is None
    loaded = dict(LOCAL._models)
    assert list(loaded) == ["smollm2-135m"]

    # A fresh ledger forces a second real generation: same text, same model object.
    b = Gateway.from_params(composed, "t", tmp_path / "b.jsonl", progress=False).complete_many(
        [reqs[0]]
    )
    assert b[0].text == a[0].text and not b[0].from_ledger
    assert LOCAL._models["smollm2-135m"] is loaded["smollm2-135m"]

    # Closing frees the model; the next call loads it again and still answers the same.
    LOCAL.close()
    assert LOCAL._models == {}
    c = Gateway.from_params(composed, "t", tmp_path / "c.jsonl", progress=False).complete_many(
        [reqs[0]]
    )
    assert c[0].text == a[0].text
    assert time.perf_counter() - start < 60
