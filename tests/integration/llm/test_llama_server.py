"""Server parity: llama-cpp-python's OpenAI-compatible server against the in-process model.

``python -m llama_cpp.server`` serves the embedded SmolLM2 GGUF on 127.0.0.1; its
log-probabilities go through the gateway's completions transport
(prescient.llm.completions), the in-process ones through prescient.llm.llama_eval.

- Started as is, the server pairs each echoed token with the distribution that follows
  it (SmolLM2's tokenizer adds no BOS): the values are wrong, and the transport refuses
  them with the reason and the fix.
- Started with the document separator as its BOS (``--kv_overrides``), it reads each
  text after ``<|endoftext|>``, as the in-process scorer with that condition token does:
  every token after the first gets the same log-probability (the server reports none
  for the first), and the BPC over the same span is the same.
- It puts that BOS before every prompt, so it reads a later window of context after
  it: texts of several windows (a context of 64 tokens) read with ``segment_start``
  ``document_start`` get, token for token, the in-process values under the same option,
  which differ from the ``lead`` reading; asked for ``lead``, such a text fails with the
  reason and the option to set, while a text of one window is scored.

Tolerance 1e-5 nats per token: the server computes its log-softmax in float32 (values
up to ~25 nats, so a few 1e-6 of rounding), the in-process path in float64 rounded to
six decimals (5e-7).
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from prescient.llm.embedded import smollm2_q8_0_path
from prescient.llm.gateway import Gateway
from prescient.llm.llama_eval import LlamaEval
from prescient.llm.logprobs import LN2, LOGPROBS, DocScore, Segmenting, document_messages
from prescient.llm.types import LLMRequest, LLMResult
from tests.support.llm import llm_settings, model_spec

pytest.importorskip("fastapi", reason="llama-cpp-python's server extras (the dev extra)")
pytest.importorskip("uvicorn", reason="llama-cpp-python's server extras (the dev extra)")
pytestmark = pytest.mark.slow

DOCS = [
    "The harbour authority said on Monday that the new ferry terminal would open in "
    "spring, two years later than planned.",
    "Rain is expected over the weekend, the forecasters said.",
    "Shares in the water company fell 4% after the regulator capped its prices.",
]
LONG = [
    "The city council voted on Tuesday to close two of its five public libraries next "
    "year, saying that the money saved would pay for longer opening hours at the "
    "others. Residents who spoke at the meeting said the branches were the only quiet "
    "place in their neighbourhoods to study, and a petition against the plan gathered "
    "more than four thousand signatures in a week. The mayor said the decision had not "
    "been easy, but that visits had fallen by a third since 2015 while the cost of "
    "heating the old buildings had doubled. A final vote on the budget is due in March. "
    "Library staff will be offered jobs at the remaining branches, the council said, "
    "and the book collections will be shared out between them. Opponents plan to ask "
    "the regional court to review the decision before the end of the month.",
    "Farmers in the northern valleys began the grape harvest almost three weeks early "
    "this year after the hottest summer on record. Growers said the fruit was sweet but "
    "small, and that yields could fall by a quarter. Several cooperatives have asked "
    "the regional government for help with the cost of irrigation, which rose sharply "
    "when the river reached its lowest level in forty years. Wine makers expect a "
    "strong vintage, though they warned that prices for the 2025 bottles would rise. "
    "Pickers were hard to find, and some estates brought in students from the city to "
    "finish the work before the autumn rains, which forecasters expect next week.",
]
"""Texts of several windows at a context of 64 tokens (160 and 126 tokens of SmolLM2)."""
CONDITION = "<|endoftext|>"
ALIGN = ["tokenizer.ggml.add_bos_token=bool:true", "tokenizer.ggml.bos_token_id=int:0"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(overrides: list[str]) -> Iterator[str]:

    port = _free_port()
    args = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_q8_0_path())]
    args += ["--host", "127.0.0.1", "--port", str(port), "--logits_all", "True"]
    args += ["--n_ctx", "512", "--n_threads", "1", "--n_threads_batch", "1"]
    if overrides:
        args += ["--kv_overrides", *overrides]
    base = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with urllib.request.urlopen(f"{base}/models", timeout=2):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        pytest.fail(f"llama_cpp.server did not start: {log.read()[-2000:]!r}")
                    time.sleep(0.2)
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def aligned() -> Iterator[str]:
    yield from _serve(ALIGN)


@pytest.fixture(scope="module")
def plain() -> Iterator[str]:
    yield from _serve([])


def _ask(
    base: str, texts: list[str], context: int = 2048, segment_start: str | None = None
) -> list[LLMResult]:
    spec = model_spec("llama_server", "hosted_vllm/smollm2", api_base=base, concurrency=1)
    params = {"context_tokens": context, "segmenting": "disjoint", "scorer": "completions_echo"}
    if segment_start is not None:
        params["segment_start"] = segment_start
    requests = [
        LLMRequest("llama_server", document_messages(t), params=params, kind=LOGPROBS)
        for t in texts
    ]
    ledger = Path(tempfile.mkdtemp()) / "llama_server.jsonl"
    settings = llm_settings(max_tries=1, progress=False, timeout_s=60.0)
    with Gateway({"llama_server": spec}, ledger, stage="test", settings=settings) as gateway:
        return gateway.complete_many(requests)


def test_the_aligned_server_gives_the_in_process_log_probabilities(aligned: str) -> None:
    results = _ask(aligned, DOCS)
    assert all(r.ok for r in results), [r.error for r in results]
    local = LlamaEval(smollm2_q8_0_path(), 2048, 128, 1)
    try:
        for text, result in zip(DOCS, results, strict=True):
            assert result.text is not None
            served = DocScore.from_json(result.text)
            mine = local.score(text, Segmenting(2048), CONDITION)
            # The server scores every token but the first (it reports none for it).
            assert served.n_tokens == mine.n_tokens - 1 and served.n_segments == 1
            assert list(served.token_logprobs) == pytest.approx(
                list(mine.token_logprobs[1:]), abs=1e-5
            )
            first = len(local.llm.detokenize([int(mine.tokens[0])]).decode())
            assert served.n_chars == len(text) - first
            same_span = -math.fsum(mine.token_logprobs[1:]) / LN2 / served.n_chars
            assert served.bpc == pytest.approx(same_span, abs=1e-6)
    finally:
        local.close()


def test_the_plain_server_is_refused_with_the_reason(plain: str) -> None:
    """Its values are log p(token i) under the distribution after token i: far from the
    model's (BPC ~3.6 where the model reads ~1.7), so they are never used."""
    body = {"model": "m", "prompt": DOCS[1], "max_tokens": 1, "echo": True, "logprobs": 1}
    request = urllib.request.Request(
        f"{plain}/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as resp:
        raw = json.loads(resp.read())
    echoed = raw["choices"][0]["logprobs"]["token_logprobs"]
    local = LlamaEval(smollm2_q8_0_path(), 2048, 128, 1)
    try:
        right = local.score(DOCS[1], Segmenting(2048), None).token_logprobs
    finally:
        local.close()
    assert len(echoed) == len(right) + 1  # the prompt's tokens only: no generated token
    assert math.fsum(echoed[1:]) < math.fsum(right) - 10  # and far less likely
    results = _ask(plain, DOCS)
    assert not any(r.ok for r in results)
    assert "no generated token after the prompt's tokens" in str(results[0].error)
    assert "--kv_overrides" in str(results[0].error)


def _same_span_bpc(mine: DocScore, served: DocScore) -> float:
    """The in-process BPC over the span the server scored (all but the first token)."""
    return -math.fsum(mine.token_logprobs[1:]) / LN2 / served.n_chars


def test_the_aligned_server_reads_later_windows_after_its_bos(aligned: str) -> None:
    """Context 64: every window after the first is the BOS, the window's lead and 62
    tokens, read so by the server and by the in-process scorer under document_start."""
    results = _ask(aligned, LONG, 64, "document_start")
    assert all(r.ok for r in results), [r.error for r in results]
    document_start = Segmenting(64, segment_start="document_start")
    local = LlamaEval(smollm2_q8_0_path(), 64, 128, 1)
    try:
        for text, result in zip(LONG, results, strict=True):
            assert result.text is not None
            served = DocScore.from_json(result.text)
            mine = local.score(text, document_start, CONDITION)
            lead = local.score(text, Segmenting(64), CONDITION)
            assert served.segment_start == mine.segment_start == "document_start"
            assert served.n_segments == mine.n_segments >= 3
            assert served.n_tokens == mine.n_tokens - 1
            pieces = [local.llm.detokenize([int(t)]).decode() for t in mine.tokens[1:]]
            assert list(served.tokens) == pieces
            assert list(served.token_logprobs) == pytest.approx(
                list(mine.token_logprobs[1:]), abs=1e-5
            )
            assert served.bpc == pytest.approx(_same_span_bpc(mine, served), abs=1e-5)
            # The lead reading is another method: its later windows read other values.
            assert (
                max(
                    abs(a - b)
                    for a, b in zip(lead.token_logprobs, mine.token_logprobs, strict=True)
                )
                > 0.1
            )
    finally:
        local.close()


def test_the_aligned_server_refuses_lead_on_texts_of_several_windows(aligned: str) -> None:
    """Under lead (the default) a text of several windows fails, naming the option; a
    text of one window reads the same under both and is scored, as in-process."""
    results = _ask(aligned, [LONG[0], DOCS[0]], 64)
    assert not results[0].ok
    assert "segment_start: document_start" in str(results[0].error)
    assert "start token" in str(results[0].error)
    assert results[1].ok and results[1].text is not None
    served = DocScore.from_json(results[1].text)
    local = LlamaEval(smollm2_q8_0_path(), 64, 128, 1)
    try:
        mine = local.score(DOCS[0], Segmenting(64), CONDITION)
    finally:
        local.close()
    assert served.n_segments == mine.n_segments == 1 and served.segment_start == "lead"
    assert list(served.token_logprobs) == pytest.approx(list(mine.token_logprobs[1:]), abs=1e-5)
