"""Log-probabilities through an OpenAI-compatible completions server
(prescient.llm.completions, behind the gateway): a real HTTP server on 127.0.0.1
(tests/support/fake_openai.py) answering echo requests like vLLM."""

from __future__ import annotations

import asyncio
import math
import re
import tempfile
from pathlib import Path

import pytest

from prescient.llm.completions import MARGIN, Echo, score_text
from prescient.llm.gateway import Gateway
from prescient.llm.logprobs import (
    LOGPROBS,
    DocScore,
    ScoringError,
    Segmenting,
    document_messages,
    windows,
)
from prescient.llm.registry import ModelConfigError
from prescient.llm.types import LLMRequest, LLMResult
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import llm_settings, model_spec

TEXT = "Rain is expected over the weekend, the forecasters said."


def words(text: str) -> list[tuple[str, float]]:
    """Word tokens with their leading space; ln p = -0.25 per character."""
    return [(w, -0.25 * len(w)) for w in re.findall(r"\s*\S+|\s+", text)]


def with_bos(text: str) -> list[tuple[str, float]]:
    return [("<s>", 0.0), *words(text)]


def by_position(text: str) -> list[tuple[str, float]]:
    """Word tokens after a BOS; ln p = -(1 + 1/j) at the prompt's position j, so a token
    reads differently in a window of its own than in the whole text."""
    toks = ["<s>", *(w for w, _ in words(text))]
    return [(t, -(1.0 + 1.0 / j) if j else 0.0) for j, t in enumerate(toks)]


def _ask(
    server: FakeOpenAI,
    texts: list[str],
    context: int = 2048,
    tmp_path: Path | None = None,
    max_tries: int = 3,
    segment_start: str | None = None,
    **entry: object,
) -> list[LLMResult]:
    """Log-probability requests for ``texts`` through a gateway, as the bpc stage asks."""
    spec = model_spec(
        "srv", "hosted_vllm/fake-lm", **{"api_base": server.url, "concurrency": 2, **entry}
    )
    settings = llm_settings(
        max_tries=max_tries, backoff_base_s=0.0, backoff_max_s=0.0, progress=False
    )
    params = {"context_tokens": context, "segmenting": "disjoint", "scorer": "completions_echo"}
    if segment_start is not None:
        params["segment_start"] = segment_start
    requests = [
        LLMRequest("srv", document_messages(t), params=params, kind=LOGPROBS) for t in texts
    ]
    ledger = (tmp_path or Path(tempfile.mkdtemp())) / "srv.jsonl"
    with Gateway({"srv": spec}, ledger, stage="test", settings=settings) as gateway:
        return gateway.complete_many(requests)


def _score(server: FakeOpenAI, text: str = TEXT, context: int = 2048, **kw: object) -> DocScore:
    result = _ask(server, [text], context, **kw)[0]  # type: ignore[arg-type]
    assert result.ok, result.error
    assert result.text is not None
    return DocScore.from_json(result.text)


def _error(server: FakeOpenAI, text: str = TEXT, context: int = 2048, **kw: object) -> str:
    result = _ask(server, [text], context, **kw)[0]  # type: ignore[arg-type]
    assert not result.ok
    return str(result.error)


def test_first_token_has_no_prediction_and_is_left_out() -> None:
    with FakeOpenAI(tokenize=words) as server:
        score = _score(server)
        body = server.bodies[0]
        assert server.requests == 1  # the text fits one window: one pass
    assert body == {
        "model": "fake-lm",
        "prompt": TEXT,
        "max_tokens": 1,
        "echo": True,
        "logprobs": 1,
        "temperature": 0.0,
    }
    toks = words(TEXT)
    scored_chars = len(TEXT) - len(toks[0][0])
    assert score.n_tokens == len(toks) - 1 and score.n_chars == scored_chars
    # ln p = -0.25 per character of each scored token: BPC = 0.25 / ln 2 exactly.
    assert score.bpc == pytest.approx(0.25 / math.log(2), rel=1e-12)


def test_a_bos_token_is_not_text_and_every_word_is_scored() -> None:
    with FakeOpenAI(tokenize=with_bos) as server:
        score = _score(server)
    assert score.n_tokens == len(words(TEXT)) and score.n_chars == len(TEXT)
    assert score.tokens[0] == "Rain"


def test_later_windows_are_sent_as_their_own_text() -> None:
    """9 words after a BOS (10 positions), a context of 4, document_start: the text
    (shorter than the first cut) gives the tokens and positions 1-3; positions 4-5, 6-7
    and 8-9 are each sent as the text from their lead on, read after the server's own
    BOS (which takes one position of the context)."""
    toks = [w for w, _ in words(TEXT)]
    with FakeOpenAI(tokenize=by_position) as server:
        score = _score(server, context=4, segment_start="document_start")
        prompts = [b["prompt"] for b in server.bodies]
    assert prompts == [TEXT, "".join(toks[2:]), "".join(toks[4:]), "".join(toks[6:])]
    assert prompts[1] == " expected over the weekend, the forecasters said."
    # Window 1: positions 1-3 of the whole text; later windows: the lead at position 1
    # after the BOS, the scored tokens at 2-3.
    expected = [-(1 + 1 / j) for j in (1, 2, 3)] + [-(1 + 1 / j) for j in (2, 3)] * 3
    assert score.token_logprobs == pytest.approx(expected, abs=1e-12)
    assert (score.n_segments, score.n_tokens, score.n_chars) == (4, 9, len(TEXT))
    assert score.tokens == tuple(toks) and score.segment_start == "document_start"


def test_a_server_with_a_bos_refuses_lead_on_texts_of_several_windows() -> None:
    """It reads every prompt after its BOS, so a later window cannot be read from its
    lead alone: the text fails after its first request, naming the option; a text of
    one window is read the same under both and is scored."""
    with FakeOpenAI(tokenize=by_position) as server:
        error = _error(server, context=4)
        assert server.requests == 1
        assert _score(server, context=16).segment_start == "lead"
    assert "puts 1 start token(s) (a BOS) before every prompt" in error
    assert "segment_start: document_start" in error


def test_a_server_without_a_start_token_reads_lead_only() -> None:
    with FakeOpenAI(tokenize=words) as server:
        error = _error(server, context=4, segment_start="document_start")
        assert _error(server, context=16, segment_start="document_start") == error
    assert "this server puts none" in error and "segment_start lead" in error


def test_a_start_token_the_echo_leaves_out_is_counted_from_the_usage() -> None:
    """llama-cpp-python's server drops its BOS from the echo but counts it in
    usage.prompt_tokens: it is position 0, so the first window holds 3 text tokens at a
    context of 4; a reply that does not say leaves a text of several windows unread."""

    async def run(hidden: int | None) -> tuple[DocScore, list[str]]:
        prompts: list[str] = []

        async def echo(prompt: str) -> Echo:
            prompts.append(prompt)
            toks = [t for t, _ in words(prompt)]
            return Echo([], toks, [None] + [-1.0] * (len(toks) - 1), 1, hidden)

        seg = Segmenting(4, segment_start="document_start")
        return await score_text(TEXT, seg, echo), prompts

    score, prompts = asyncio.run(run(1))
    toks = [w for w, _ in words(TEXT)]
    assert prompts == [TEXT, "".join(toks[2:]), "".join(toks[4:]), "".join(toks[6:])]
    assert (score.n_segments, score.n_tokens) == (4, 8)
    with pytest.raises(ScoringError, match="no usage.prompt_tokens"):
        asyncio.run(run(None))


def test_without_a_bos_the_lead_has_no_prediction_and_is_not_scored_twice() -> None:
    toks = [w for w, _ in words(TEXT)]  # 9 positions: 1-3, 4-6, 7-8 scored
    with FakeOpenAI(tokenize=words) as server:
        score = _score(server, context=4)
        prompts = [b["prompt"] for b in server.bodies]
    assert prompts == [TEXT, "".join(toks[3:]), "".join(toks[6:])]
    assert (score.n_segments, score.n_tokens) == (3, 8)
    assert score.n_chars == len(TEXT) - len(toks[0])
    assert score.bpc == pytest.approx(0.25 / math.log(2), rel=1e-12)


def test_a_long_text_is_sent_a_window_at_a_time() -> None:
    """200 words in a context of 16, document_start: no request carries the whole text,
    each holds little more than a window, and the scores are those of the segments: the
    lead at position 1 after the BOS, the window's tokens at 2-15."""
    text = " ".join(f"w{k % 7}x" for k in range(200))
    n = len(words(text))
    with FakeOpenAI(tokenize=by_position) as server:
        score = _score(server, text, context=16, segment_start="document_start")
        counts = [len(words(str(b["prompt"]))) for b in server.bodies]
    spans = windows(n + 1, Segmenting(16, segment_start="document_start"))
    assert (score.n_segments, score.n_tokens, score.n_chars) == (len(spans), n, len(text))
    expected = [-(1 + 1 / j) for j in range(1, 16)]
    expected += [-(1 + 1 / j) for j in range(2, 16)] * (len(spans) - 2)
    last = spans[-1]
    expected += [-(1 + 1 / j) for j in range(2, 2 + last[2] - last[1])]
    assert score.token_logprobs == pytest.approx(expected, abs=1e-12)
    assert max(counts) < 2 * (16 + MARGIN) and sum(counts) < 3 * n
    assert len(counts) <= 2 * len(spans)


def test_a_cut_reply_short_of_the_margin_is_sent_again_longer() -> None:
    """Tokens of 30 characters: the first cut (5 characters a token) holds too few
    tokens beyond the window, so the text is sent again, cut by what the reply showed."""

    async def run() -> tuple[DocScore, list[str]]:
        text = "".join(f" {k:029d}" for k in range(40))
        prompts: list[str] = []

        async def echo(prompt: str) -> Echo:
            prompts.append(prompt)
            toks = [t for t, _ in words(prompt)]
            return Echo([], toks, [None] + [-1.0] * (len(toks) - 1), 1)

        return await score_text(text, Segmenting(4), echo), prompts

    score, prompts = asyncio.run(run())
    assert len(prompts[0]) == (4 + MARGIN) * 5 and len(prompts[1]) > len(prompts[0])
    assert len(words(prompts[1])) >= 4 + MARGIN
    assert (score.n_tokens, score.n_segments) == (39, 13)


def test_a_window_the_server_tokenizes_differently_fails_the_document() -> None:
    def space_apart(text: str) -> list[tuple[str, float]]:
        """Leading whitespace of a prompt is a token of its own."""
        lead = re.match(r"\s*", text).group()  # type: ignore[union-attr]
        return [(lead, -1.0)] * bool(lead) + words(text[len(lead) :])

    with FakeOpenAI(tokenize=space_apart) as server:
        assert "window 2:" in _error(server, context=4)


def test_server_errors_are_retried_by_the_gateway_and_client_errors_are_not() -> None:
    with FakeOpenAI(tokenize=words) as server:
        server.queue(["500", "429", "truncated"])
        score = _score(server, max_tries=4)
        assert server.requests == 4 and score.n_tokens == len(words(TEXT)) - 1
        server.queue(["400"])
        assert "HTTP 400" in _error(server)
        assert server.requests == 5
        server.queue(["500", "500"])
        assert "HTTP 500" in _error(server, max_tries=2)


def test_a_chat_only_server_fails_with_the_reason() -> None:
    with FakeOpenAI() as server:
        assert "HTTP 404" in _error(server)


def test_a_server_whose_tokens_do_not_spell_the_text_fails() -> None:
    def byte_level(text: str) -> list[tuple[str, float]]:
        return [(w.replace(" ", "Ġ"), -1.0) for w, _ in words(text)]

    with FakeOpenAI(tokenize=byte_level) as server:
        assert "spell" in _error(server)


def test_a_misaligned_echo_is_refused_and_not_asked_again() -> None:
    """An echo whose tokens stop at the prompt though a token was generated pairs each
    token with the distribution after it (llama-cpp-python without a BOS): refused, not
    retried, and the endpoint's later requests are refused without being sent."""
    with FakeOpenAI(tokenize=words, echo_generated=False) as server:
        results = _ask(server, [TEXT, TEXT + " More."], max_tries=3, concurrency=1)
        assert server.requests == 1
    assert not any(r.ok for r in results)
    assert all("no generated token" in str(r.error) for r in results)
    assert "kv_overrides" in str(results[0].error)


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("K_X", raising=False)
    with FakeOpenAI(tokenize=words) as server, pytest.raises(ModelConfigError, match="K_X"):
        _ask(server, [TEXT], api_key_env="K_X")
    monkeypatch.setenv("K_X", "secret-value")
    with FakeOpenAI(tokenize=words) as server:
        _score(server, api_key_env="K_X")
        assert server.auth_headers == ["Bearer secret-value"]


@pytest.mark.parametrize(
    ("litellm_model", "api_base", "reason"),
    [
        ("openai/gpt-4o", None, "hosted chat-completions API"),
        ("anthropic/claude-3-5-sonnet", None, "serves chat completions only"),
        ("baseline/random", None, "not a language model"),
    ],
)
def test_log_probabilities_of_chat_only_models_are_refused(
    litellm_model: str, api_base: str | None, reason: str
) -> None:
    spec = model_spec("chatty", litellm_model, api_base=api_base)
    request = LLMRequest(
        "chatty", document_messages(TEXT), params={"context_tokens": 8}, kind=LOGPROBS
    )
    ledger = Path(tempfile.mkdtemp()) / "chatty.jsonl"
    with (
        Gateway(
            {"chatty": spec}, ledger, stage="test", settings=llm_settings(progress=False)
        ) as gw,
        pytest.raises(
            ModelConfigError, match=f"'chatty' .*cannot answer logprobs requests: .*{reason}"
        ),
    ):
        gw.complete_many([request])
    assert not ledger.exists() or ledger.read_text() == ""


def test_stage_scores_a_registered_vllm_model_through_its_ledger(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from tests.support.bpc import articles as make_articles
    from tests.support.bpc import params_file, run

    articles = make_articles(tmp_path / "articles.parquet")
    with FakeOpenAI(tokenize=with_bos) as server:
        pf = params_file(
            tmp_path,
            "bpc.models=[fake_vllm]",
            "+model@models.fake_vllm=local_openai_server",
            "models.fake_vllm.name=fake_vllm",
            "models.fake_vllm.litellm_model=hosted_vllm/fake-lm",
            f"models.fake_vllm.api_base={server.url}",
            "models.fake_vllm.concurrency=4",
            "bpc.segment_start=document_start",
        )
        assert run(tmp_path, "out", articles, pf) == 0
        docs = pd.read_parquet(tmp_path / "out" / "bpc_docs.parquet")
        # One request per window of context (8: the BOS, the lead and 6 tokens).
        assert server.requests == docs["n_segments"].sum() > 5 and server.max_inflight >= 1
        asked = server.requests
        assert run(tmp_path, "again", articles, pf) == 0
        assert server.requests == asked  # the rerun is answered by the ledger
        prompts = [str(b["prompt"]) for b in server.bodies]
    assert (docs["status"] == "ok").all() and (docs["segment_start"] == "document_start").all()
    # Each request holds the text of about one window (8 positions and the margin), never
    # the whole text (cut at bpc.max_text_chars, 150) or anything beyond it.
    assert max(len(p) for p in prompts) < 150
    whole = docs[~docs["truncated"]]
    assert (whole["n_chars"] == whole["text_chars"]).all()  # the BOS is not text
    assert docs["bpc"].tolist() == pytest.approx([0.25 / math.log(2)] * 5, rel=1e-12)


def test_a_killed_run_keeps_every_finished_document(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT
    from tests.support.bpc import articles as make_articles
    from tests.support.bpc import params_file, run

    articles = make_articles(tmp_path / "articles.parquet")
    ledger = tmp_path / "ledger" / "fake_vllm.jsonl"
    with FakeOpenAI(tokenize=words, latency_s=0.4) as server:
        pf = params_file(
            tmp_path,
            "bpc.models=[fake_vllm]",
            "+model@models.fake_vllm=local_openai_server",
            "models.fake_vllm.name=fake_vllm",
            "models.fake_vllm.litellm_model=hosted_vllm/fake-lm",
            f"models.fake_vllm.api_base={server.url}",
            "models.fake_vllm.concurrency=1",
            "bpc.context_tokens=2048",  # one request per document
        )
        args = ["--params", str(pf), "--articles", str(articles)]
        args += ["--ledger-dir", str(tmp_path / "ledger"), "--docs", str(tmp_path / "d.parquet")]
        args += ["--tables", str(tmp_path / "t"), "--metrics", str(tmp_path / "m.json")]
        proc = subprocess.Popen(
            [sys.executable, "-m", "stages.bpc", *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (
            not ledger.exists() or ledger.read_bytes().count(b"\n") < 2
        ):
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        done = ledger.read_bytes().count(b"\n")
        assert 2 <= done < 5 and not (tmp_path / "d.parquet").exists()
        asked = server.requests
        assert run(tmp_path, "out", articles, pf) == 0
        assert server.requests - asked == 5 - done  # only the unfinished documents
