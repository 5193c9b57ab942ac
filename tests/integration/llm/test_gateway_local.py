"""The embedded model really generates, through the gateway, the same tokens on any machine.

The Makefile builds llama.cpp for one fixed instruction set, so SmolLM2-135M's greedy
tokens and logits are a function of the prompt alone. These tests pin them to values
written here (a build that picks other kernels, or a thread count that changes the
arithmetic, fails CI instead of silently changing results) and check what each ledger
entry records about where its answer came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prescient.llm.embedded import LOCAL, smollm2_q8_0_path
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.types import LLMRequest
from tests.support.llm import composed

pytestmark = pytest.mark.slow

CAPITAL = [{"role": "user", "content": "What is the capital city of France? Answer in one word."}]
# The same conversation through SmolLM2's chat template (ChatML with its default system
# prompt), as llama.cpp sees it.
CAPITAL_PROMPT = (
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n<|im_start|>user\nWhat is the capital city of France? Answer in one "
    "word.<|im_end|>\n<|im_start|>assistant\n"
)
# Greedy continuation: "The capital city of France is Paris."
PINNED_TOKENS = [504, 3575, 2240, 282, 4649, 314, 7042, 30]
PINNED_FIRST_TOP_LOGIT = 31.513843536376953  # float32, exactly (Q8_0 weights)


def greedy(n_threads: int, n_tokens: int) -> tuple[list[int], np.ndarray[Any, Any]]:
    """Greedy tokens after CAPITAL_PROMPT and the logits of every position, prompt included."""
    from llama_cpp import Llama

    llm = Llama(
        model_path=str(smollm2_q8_0_path()),
        n_ctx=256,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        seed=0,
        logits_all=True,
        verbose=False,
    )
    try:
        llm.eval(llm.tokenize(CAPITAL_PROMPT.encode(), add_bos=False, special=True))
        out: list[int] = []
        for _ in range(n_tokens):
            out.append(int(np.argmax(llm.scores[llm.n_tokens - 1])))
            llm.eval([out[-1]])
        return out, np.array(llm.scores[: llm.n_tokens], copy=True)
    finally:
        llm.close()


def test_pinned_tokens_and_logits() -> None:
    tokens, logits = greedy(n_threads=1, n_tokens=len(PINNED_TOKENS))
    assert tokens == PINNED_TOKENS
    assert logits.shape[0] == 43 + len(PINNED_TOKENS)
    assert float(logits[42].max()) == PINNED_FIRST_TOP_LOGIT


def test_one_and_two_threads_give_identical_tokens_and_logits() -> None:
    one = greedy(n_threads=1, n_tokens=4)
    two = greedy(n_threads=2, n_tokens=4)
    assert one[0] == two[0] == PINNED_TOKENS[:4]
    assert np.array_equal(one[1], two[1]), "logits differ between 1 and 2 threads"


def test_local_model_through_the_gateway_records_where_answers_come_from(
    tmp_path: Path,
) -> None:
    p = composed()  # the shipped registry entry, as the demo uses it
    p["llm"]["progress"] = False
    gw = Gateway.from_params(p, "t", tmp_path / "a.jsonl")
    reqs = [
        LLMRequest("smollm2_135m", CAPITAL, params={"max_tokens": 24}),
        LLMRequest(
            "smollm2_135m", [{"role": "user", "content": "Say hello."}], params={"max_tokens": 24}
        ),
        LLMRequest("smollm2_135m", CAPITAL, params={"max_tokens": 24, "temperature": 0.0}),
    ]
    a = gw.complete_many(reqs)
    gw.close()
    assert all(r.ok for r in a), [r.error for r in a]
    assert a[0].text == "The capital city of France is Paris."
    assert a[0].text == a[2].text and a[0].key == a[2].key  # 0 and 0.0 are one request
    assert a[0].usage == {"prompt_tokens": 43, "completion_tokens": 8, "total_tokens": 51}
    assert a[0].finish_reason == "stop" and a[0].cost is None
    loaded = dict(LOCAL._models)
    assert list(loaded) == ["smollm2-135m-q8_0"]

    entries = list(read_entries(tmp_path / "a.jsonl"))
    prov = entries[0]["provenance"]
    assert set(prov) == {"llama_cpp_python", "llama_cpp", "llama_cpp_system_info", "weights"}
    assert prov["llama_cpp_python"] == "0.3.36"
    assert prov["weights"]["file"] == "SmolLM2-135M-Instruct.Q8_0.gguf"
    # The instruction sets the Makefile fixes, and none it turns off.
    info = prov["llama_cpp_system_info"]
    assert all(f"{isa} = 1" in info for isa in ("AVX2", "FMA", "F16C"))
    assert "AVX512" not in info
    # No clock and no machine in the entry: the same answers are the same bytes anywhere.
    assert "timestamp" not in entries[0] and entries[0]["latency_s"] is None
    # Provenance is audit only: the key is the request's, whatever machine answered.
    assert gw.key_for(reqs[0]) == a[0].key == entries[0]["key"]

    # A fresh ledger forces a second real generation: same text, same model object.
    b = Gateway.from_params(p, "t", tmp_path / "b.jsonl").complete_many([reqs[0]])
    assert b[0].text == a[0].text and not b[0].from_ledger
    assert LOCAL._models["smollm2-135m-q8_0"] is loaded["smollm2-135m-q8_0"]

    # Closing frees the model; the next call loads it again and still answers the same.
    LOCAL.close()
    assert LOCAL._models == {}
    c = Gateway.from_params(p, "t", tmp_path / "c.jsonl").complete_many([reqs[0]])
    assert c[0].text == a[0].text
