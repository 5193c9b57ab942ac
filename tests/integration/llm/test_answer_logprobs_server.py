"""Answer log-probabilities from an OpenAI-compatible chat server (the direct transport,
behind the gateway): a real HTTP server on 127.0.0.1 (tests/support/fake_openai.py)
answering chat completions with ``logprobs.content``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS, answer_distribution
from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries
from prescient.llm.types import LLMRequest, LLMResult
from tests.support.fake_openai import FakeOpenAI, Position
from tests.support.llm import llm_settings, model_spec

TF = [{"role": "user", "content": "Will the bridge reopen by 1 May 2024? Answer Yes or No."}]
MC = [{"role": "user", "content": "Which team wins?\n(a) Red\n(b) Blue\n(c) Green\n(d) None"}]


def replies(messages: list[dict[str, Any]]) -> list[Position]:
    """A TF reply that says Yes at once; an MC one that opens a parenthesis first; a
    third that never names an answer."""
    text = str(messages[-1]["content"])
    if "(a)" in text:
        return [
            ("(", -0.02, [("(", -0.02), ("The", -4.5)]),
            ("c", -0.7, [("c", -0.7), ("a", -1.2), ("C", -2.3), ("b", -3.0)]),
            (")", -0.01, [(")", -0.01)]),
        ]
    if "never" in text:
        return [("I", -0.3, [("I", -0.3), ("Sorry", -1.0)])]
    # 22 alternatives: the server must cut the list to the 20 asked for; "no" is 21st.
    top = [(" Yes", -0.25), ("Yes", -1.9), *((f"w{k}", -5.0 - k) for k in range(18))]
    return [(" Yes", -0.25, [*top, (" no", -30.0), ("No", -31.0)]), (".", -0.1, [])]


def _ask(
    server: FakeOpenAI, requests: list[LLMRequest], tmp_path: Path, litellm_model: str
) -> list[LLMResult]:
    spec = model_spec("srv", litellm_model, api_base=server.url, params={"max_tokens": 4})
    settings = llm_settings(
        transport="litellm", max_tries=3, backoff_base_s=0.0, backoff_max_s=0.0, progress=False
    )
    with Gateway({"srv": spec}, tmp_path / "srv.jsonl", stage="t", settings=settings) as gw:
        return gw.complete_many(requests)


def ask(messages: list[dict[str, str]], answers: list[str]) -> LLMRequest:
    return LLMRequest("srv", messages, params={"answers": answers}, kind=ANSWER_LOGPROBS)


@pytest.mark.parametrize("litellm_model", ["openai/fake-chat", "hosted_vllm/fake-chat"])
def test_answers_are_read_from_the_first_position_naming_one(
    tmp_path: Path, litellm_model: str
) -> None:
    with FakeOpenAI(chat_logprobs=replies) as server:
        out = _ask(
            server,
            [ask(TF, ["Yes", "No"]), ask(MC, ["(a)", "(b)", "(c)", "(d)"])],
            tmp_path,
            litellm_model,
        )
        bodies = list(server.bodies)
    assert all(r.ok for r in out), [r.error for r in out]
    # What was sent: the chat request with logprobs asked, the answers kept at home
    # (and the direct client used, though llm.transport says litellm).
    for body in bodies:
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        assert "answers" not in body and body["max_tokens"] == 4
    tf = json.loads(out[0].text or "")
    # No (the 21st and 22nd alternatives) was cut from the top list: null.
    assert tf["logprobs"] == [-0.25, None] and tf["method"] == "top_logprobs"
    assert tf["position"] == 0 and tf["reply"] == " Yes." and len(tf["top_logprobs"]) == 20
    assert answer_distribution(out[0].text or "") == [1.0, 0.0]
    mc = json.loads(out[1].text or "")
    assert mc["logprobs"] == [-1.2, -3.0, -0.7, None] and mc["position"] == 1
    z = math.exp(-1.2) + math.exp(-3.0) + math.exp(-0.7)
    assert answer_distribution(out[1].text or "") == pytest.approx(
        [math.exp(-1.2) / z, math.exp(-3.0) / z, math.exp(-0.7) / z, 0.0], abs=1e-12
    )
    assert out[0].usage == {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    entries = list(read_entries(tmp_path / "srv.jsonl"))
    assert {e["params"]["answers"][0] for e in entries} == {"Yes", "(a)"}


def test_replies_without_an_answer_or_without_log_probabilities_fail_once(
    tmp_path: Path,
) -> None:
    never = [{"role": "user", "content": "Will it never rain?"}]
    with FakeOpenAI(chat_logprobs=replies) as server:
        out = _ask(server, [ask(never, ["Yes", "No"])], tmp_path, "openai/fake-chat")
        assert server.requests == 1  # not retried: asking again gets the same reply
    assert not out[0].ok
    assert "no allowed answer (Yes, No) is among the top tokens" in (out[0].error or "")
    with FakeOpenAI() as plain:  # a server that ignores logprobs
        out = _ask(plain, [ask(TF, ["Yes", "No"])], tmp_path / "b", "openai/fake-chat")
        assert plain.requests == 1
    assert not out[0].ok and "no token log-probabilities" in (out[0].error or "")


def test_server_errors_are_retried_like_chat(tmp_path: Path) -> None:
    with FakeOpenAI(chat_logprobs=replies) as server:
        server.queue(["500", "429"])
        out = _ask(server, [ask(TF, ["Yes", "No"])], tmp_path, "openai/fake-chat")
        assert server.requests == 3
    assert out[0].ok and json.loads(out[0].text or "")["logprobs"] == [-0.25, None]
