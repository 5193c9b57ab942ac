"""Scoring through an OpenAI-compatible completions server: a real HTTP server on
127.0.0.1 (tests/support/fake_openai.py) answering echo requests like vLLM."""

from __future__ import annotations

import math
import re

import pytest

from prescient.benchmarks.freshbench.bpc.scoring import ScoringError, Segmenting
from prescient.benchmarks.freshbench.bpc.server import CompletionsScorer
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import model_spec

TEXT = "Rain is expected over the weekend, the forecasters said."


def words(text: str) -> list[tuple[str, float]]:
    """Word tokens with their leading space; ln p = -0.25 per character."""
    return [(w, -0.25 * len(w)) for w in re.findall(r"\s*\S+", text)]


def with_bos(text: str) -> list[tuple[str, float]]:
    return [("<s>", 0.0), *words(text)]


def by_position(text: str) -> list[tuple[str, float]]:
    """Word tokens after a BOS; ln p = -(1 + 1/j) at the prompt's position j, so a token
    reads differently in a window of its own than in the whole text."""
    toks = ["<s>", *(w for w, _ in words(text))]
    return [(t, -(1.0 + 1.0 / j) if j else 0.0) for j, t in enumerate(toks)]


def _scorer(server: FakeOpenAI, context: int = 2048, **kw: object) -> CompletionsScorer:
    spec = model_spec("srv", "hosted_vllm/fake-lm", api_base=server.url, concurrency=2)
    args = {"max_tries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5.0}
    return CompletionsScorer(spec, Segmenting(context), **{**args, **kw})  # type: ignore[arg-type]


def test_first_token_has_no_prediction_and_is_left_out() -> None:
    with FakeOpenAI(tokenize=words) as server:
        score = _scorer(server).score(TEXT)
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
        score = _scorer(server).score(TEXT)
    assert score.n_tokens == len(words(TEXT)) and score.n_chars == len(TEXT)
    assert score.tokens[0] == "Rain"


def test_later_windows_are_sent_as_their_own_text() -> None:
    """9 words after a BOS (10 positions), a context of 4: the whole text gives the
    tokens and positions 1-3; positions 4-6 and 7-9 are each sent as the text of their
    lead and tokens, read after the server's own BOS."""
    toks = [w for w, _ in words(TEXT)]
    with FakeOpenAI(tokenize=by_position) as server:
        score = _scorer(server, context=4).score(TEXT)
        prompts = [b["prompt"] for b in server.bodies]
    assert prompts == [TEXT, "".join(toks[2:6]), "".join(toks[5:9])]
    assert prompts[1] == " expected over the weekend,"
    # Window 1: positions 1-3 of the whole text; windows 2 and 3: the lead at position
    # 1 after the BOS, the scored tokens at 2-4.
    expected = [-(1 + 1 / j) for j in (1, 2, 3)] + [-(1 + 1 / j) for j in (2, 3, 4)] * 2
    assert score.token_logprobs == pytest.approx(expected, abs=1e-12)
    assert (score.n_segments, score.n_tokens, score.n_chars) == (3, 9, len(TEXT))
    assert score.tokens == tuple(toks)


def test_without_a_bos_the_lead_has_no_prediction_and_is_not_scored_twice() -> None:
    toks = [w for w, _ in words(TEXT)]  # 9 positions: 1-3, 4-6, 7-8 scored
    with FakeOpenAI(tokenize=words) as server:
        score = _scorer(server, context=4).score(TEXT)
        prompts = [b["prompt"] for b in server.bodies]
    assert prompts == [TEXT, "".join(toks[3:7]), "".join(toks[6:9])]
    assert (score.n_segments, score.n_tokens) == (3, 8)
    assert score.n_chars == len(TEXT) - len(toks[0])
    assert score.bpc == pytest.approx(0.25 / math.log(2), rel=1e-12)


def test_a_window_the_server_tokenizes_differently_fails_the_document() -> None:
    def space_apart(text: str) -> list[tuple[str, float]]:
        """Leading whitespace of a prompt is a token of its own."""
        lead = re.match(r"\s*", text).group()  # type: ignore[union-attr]
        return [(lead, -1.0)] * bool(lead) + words(text[len(lead) :])

    with (
        FakeOpenAI(tokenize=space_apart) as server,
        pytest.raises(ScoringError, match="window 2 of 3"),
    ):
        _scorer(server, context=4).score(TEXT)


def test_server_errors_are_retried_and_client_errors_are_not() -> None:
    with FakeOpenAI(tokenize=words) as server:
        server.queue(["500", "429", "truncated"])
        score = _scorer(server, max_tries=4).score(TEXT)
        assert server.requests == 4 and score.n_tokens == len(words(TEXT)) - 1
        server.queue(["400"])
        with pytest.raises(ScoringError, match="HTTP 400"):
            _scorer(server).score(TEXT)
        assert server.requests == 5
        server.queue(["500", "500"])
        with pytest.raises(ScoringError, match=r"HTTP 500.*after 2 tries"):
            _scorer(server, max_tries=2).score(TEXT)


def test_a_chat_only_server_fails_with_the_reason() -> None:
    with FakeOpenAI() as server, pytest.raises(ScoringError, match="HTTP 404"):
        _scorer(server).score(TEXT)


def test_a_server_whose_tokens_do_not_spell_the_text_fails() -> None:
    def byte_level(text: str) -> list[tuple[str, float]]:
        return [(w.replace(" ", "Ġ"), -1.0) for w, _ in words(text)]

    with FakeOpenAI(tokenize=byte_level) as server, pytest.raises(ScoringError, match="spell"):
        _scorer(server).score(TEXT)


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = model_spec("srv", "hosted_vllm/m", api_base="http://127.0.0.1:9/v1", api_key_env="K_X")
    monkeypatch.delenv("K_X", raising=False)
    with pytest.raises(ValueError, match="K_X"):
        CompletionsScorer(spec, Segmenting(2048), 1, 0.0, 0.0, 1.0)
    monkeypatch.setenv("K_X", "secret-value")
    with FakeOpenAI(tokenize=words) as server:
        spec = model_spec("srv", "hosted_vllm/m", api_base=server.url, api_key_env="K_X")
        CompletionsScorer(spec, Segmenting(2048), 1, 0.0, 0.0, 1.0).score(TEXT)
        assert server.auth_headers == ["Bearer secret-value"]


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
        )
        assert run(tmp_path, "out", articles, pf) == 0
        docs = pd.read_parquet(tmp_path / "out" / "bpc_docs.parquet")
        # One request per window of context (8: the lead and 7 tokens, after the BOS).
        assert server.requests == docs["n_segments"].sum() > 5 and server.max_inflight >= 1
        asked = server.requests
        assert run(tmp_path, "again", articles, pf) == 0
        assert server.requests == asked  # the rerun is answered by the ledger
        prompts = [str(b["prompt"]) for b in server.bodies]
    assert (docs["status"] == "ok").all()
    assert max(len(p) for p in prompts) == 150  # the text cut at bpc.max_text_chars
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
