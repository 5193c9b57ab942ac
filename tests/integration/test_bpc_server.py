"""Scoring through an OpenAI-compatible completions server: a real HTTP server on
127.0.0.1 (tests/support/fake_openai.py) answering echo requests like vLLM."""

from __future__ import annotations

import math
import re

import pytest

from prescient.bpc.scoring import ScoringError
from prescient.bpc.server import CompletionsScorer
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm import model_spec

TEXT = "Rain is expected over the weekend, the forecasters said."


def words(text: str) -> list[tuple[str, float]]:
    """Word tokens with their leading space; ln p = -0.25 per character."""
    return [(w, -0.25 * len(w)) for w in re.findall(r"\s*\S+", text)]


def with_bos(text: str) -> list[tuple[str, float]]:
    return [("<s>", 0.0), *words(text)]


def _scorer(server: FakeOpenAI, **kw: object) -> CompletionsScorer:
    spec = model_spec("srv", "hosted_vllm/fake-lm", api_base=server.url, concurrency=2)
    args = {"max_tries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5.0}
    return CompletionsScorer(spec, **{**args, **kw})  # type: ignore[arg-type]


def test_first_token_has_no_prediction_and_is_left_out() -> None:
    with FakeOpenAI(tokenize=words) as server:
        score = _scorer(server).score(TEXT, token_limit=100)
        body = server.bodies[0]
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
        score = _scorer(server).score(TEXT, token_limit=100)
    assert score.n_tokens == len(words(TEXT)) and score.n_chars == len(TEXT)
    assert score.tokens[0] == "Rain"


def test_token_limit_counts_text_tokens_from_the_start() -> None:
    with FakeOpenAI(tokenize=words) as server:
        score = _scorer(server).score(TEXT, token_limit=3)
    assert (score.n_tokens, score.n_text_tokens) == (2, len(words(TEXT)))
    assert score.tokens == (" is", " expected")
    assert score.n_chars == len(" is expected")


def test_server_errors_are_retried_and_client_errors_are_not() -> None:
    with FakeOpenAI(tokenize=words) as server:
        server.queue(["500", "429", "truncated"])
        score = _scorer(server, max_tries=4).score(TEXT, 100)
        assert server.requests == 4 and score.n_tokens == len(words(TEXT)) - 1
        server.queue(["400"])
        with pytest.raises(ScoringError, match="HTTP 400"):
            _scorer(server).score(TEXT, 100)
        assert server.requests == 5
        server.queue(["500", "500"])
        with pytest.raises(ScoringError, match=r"HTTP 500.*after 2 tries"):
            _scorer(server, max_tries=2).score(TEXT, 100)


def test_a_chat_only_server_fails_with_the_reason() -> None:
    with FakeOpenAI() as server, pytest.raises(ScoringError, match="HTTP 404"):
        _scorer(server).score(TEXT, 100)


def test_a_server_whose_tokens_do_not_spell_the_text_fails() -> None:
    def byte_level(text: str) -> list[tuple[str, float]]:
        return [(w.replace(" ", "Ġ"), -1.0) for w, _ in words(text)]

    with FakeOpenAI(tokenize=byte_level) as server, pytest.raises(ScoringError, match="spell"):
        _scorer(server).score(TEXT, 100)


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = model_spec("srv", "hosted_vllm/m", api_base="http://127.0.0.1:9/v1", api_key_env="K_X")
    monkeypatch.delenv("K_X", raising=False)
    with pytest.raises(ValueError, match="K_X"):
        CompletionsScorer(spec, 1, 0.0, 0.0, 1.0)
    monkeypatch.setenv("K_X", "secret-value")
    with FakeOpenAI(tokenize=words) as server:
        spec = model_spec("srv", "hosted_vllm/m", api_base=server.url, api_key_env="K_X")
        CompletionsScorer(spec, 1, 0.0, 0.0, 1.0).score(TEXT, 100)
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
        assert server.requests == 5 and server.max_inflight >= 1
        assert run(tmp_path, "again", articles, pf) == 0
        assert server.requests == 5  # the rerun is answered by the ledger
    docs = pd.read_parquet(tmp_path / "out" / "bpc_docs.parquet")
    assert (docs["status"] == "ok").all()
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
