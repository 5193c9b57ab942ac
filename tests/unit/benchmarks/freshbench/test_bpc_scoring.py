"""One document's score: the span its bits and characters cover, the windows of context
it is read in, and BPC itself."""

from __future__ import annotations

import json
import math

import pytest

from prescient.llm.logprobs import (
    DOCUMENT_START,
    LEAD,
    DocScore,
    ScoringError,
    Segmenting,
    account,
    segmenting_from_params,
    windows,
)
from prescient.llm.scripted import register_logprob_script, scripted_score


def scripted(name: str, text: str, context: int = 2048) -> DocScore:
    """The scripted provider's answer to a log-probability request for ``text``."""
    return scripted_score(name, text, {"context_tokens": context, "segmenting": "disjoint"})


def _pieces(*parts: str) -> list[bytes]:
    return [p.encode("utf-8") for p in parts]


def test_uniform_scorer_gives_n_tokens_log2_v_over_chars_exactly() -> None:
    # Every token (one character each) has probability 1/V: BPC = n log2(V) / chars.
    vocab = 50
    text = "Prices rose 3% in May; économistes disagree."
    register_logprob_script("uniform50", lambda t: [(ch, -math.log(vocab)) for ch in t])
    score = scripted("uniform50", text)
    n = len(text)
    assert (score.n_tokens, score.n_chars) == (n, n)
    assert score.n_bytes == len(text.encode("utf-8")) == n + 1  # the é is two bytes
    assert score.bpc == pytest.approx(n * math.log2(vocab) / n, rel=1e-15)
    assert score.bpb == pytest.approx(n * math.log2(vocab) / (n + 1), rel=1e-15)


def test_uniform_scorer_over_words_with_the_first_token_unpredicted() -> None:
    # A server reports no log-probability for the first token: it leaves the sum and
    # its characters leave the count, so bits and characters cover the same span.
    vocab = 49152
    words = ["The", " council", " met", " on", " Tuesday", "."]
    register_logprob_script(
        "server_like",
        lambda t: [(w, None if i == 0 else -math.log(vocab)) for i, w in enumerate(words)],
    )
    text = "".join(words)
    score = scripted("server_like", text)
    assert score.n_tokens == 5
    assert score.n_chars == len(text) - 3
    assert score.span == (3, len(text))
    assert score.bpc == pytest.approx(5 * math.log2(vocab) / (len(text) - 3), rel=1e-15)


def test_every_token_is_scored() -> None:
    s = account("ab cd ef", _pieces("ab", " cd", " ef"), [-1.0, -2.0, -3.0], 1, segment_start=LEAD)
    assert (s.n_tokens, s.n_text_tokens, s.n_chars, s.span) == (3, 3, 8, (0, 8))
    assert s.nll_nats == 6.0
    assert s.bits == pytest.approx(6.0 / math.log(2))


def test_disjoint_windows_cut_segments_of_context_minus_one_tokens() -> None:
    # 10 positions (a condition token and 9 text tokens), a context of 4: segments of
    # 3 scored tokens, each later one led by the token before it.
    assert windows(10, Segmenting(4)) == [(0, 1, 4), (3, 4, 7), (6, 7, 10)]
    assert windows(11, Segmenting(4)) == [(0, 1, 4), (3, 4, 7), (6, 7, 10), (9, 10, 11)]
    # A sequence that fits the context is one window: a single pass.
    assert windows(4, Segmenting(4)) == [(0, 1, 4)]
    assert windows(1, Segmenting(4)) == windows(0, Segmenting(4)) == []


def test_stride_windows_score_each_position_once_with_more_context() -> None:
    assert windows(10, Segmenting(6, "stride", 2)) == [(0, 1, 6), (2, 6, 8), (4, 8, 10)]
    # A stride of context - 1 is the disjoint rule.
    assert windows(23, Segmenting(5, "stride", 4)) == windows(23, Segmenting(5))
    for length in range(2, 40):
        for seg in (Segmenting(7), Segmenting(7, "stride", 3), Segmenting(2)):
            spans = windows(length, seg)
            scored = [p for _, first, end in spans for p in range(first, end)]
            assert scored == list(range(1, length))
            assert all(end - begin <= 7 and begin < first for begin, first, end in spans)


@pytest.mark.parametrize(
    ("context", "rule", "stride"), [(1, "disjoint", None), (8, "stride", 8), (8, "stride", None)]
)
def test_impossible_segmenting_is_refused(context: int, rule: str, stride: int | None) -> None:
    with pytest.raises(ValueError):
        Segmenting(context, rule, stride)  # type: ignore[arg-type]


def test_the_scripted_provider_counts_the_windows_it_would_read() -> None:
    register_logprob_script("chars", lambda t: [(ch, -1.0) for ch in t])
    # 9 characters with a condition token before them: 10 positions, context 4.
    assert scripted("chars", "abcdefghi", 4).n_segments == 3
    assert scripted("chars", "abcdefghi", 10).n_segments == 1


def test_leading_special_tokens_are_not_text() -> None:
    # A BOS the server's tokenizer adds: null log-prob, not part of the text.
    s = account(
        "Hi there", _pieces("<s>", "Hi", " there"), [None, -0.5, -0.25], 1, segment_start=LEAD
    )
    assert (s.n_tokens, s.n_chars, s.tokens) == (2, 8, ("Hi", " there"))
    assert s.nll_nats == 0.75


def test_a_character_split_between_tokens_is_not_cut() -> None:
    # "ñ" is two bytes, split across tokens.
    text = "añb"
    pieces = [b"a", b"\xc3", b"\xb1b"]
    s = account(text, pieces, [-1.0, -2.0, -3.0], 1, segment_start=LEAD)
    assert (s.n_tokens, s.n_chars, s.n_bytes, s.span) == (3, 3, 4, (0, 4))
    # Without a prediction for the first token the start moves past "a": a whole
    # character, so "ñ" and "b" are scored.
    s = account(text, pieces, [None, -2.0, -3.0], 1, segment_start=LEAD)
    assert (s.n_tokens, s.n_chars, s.n_bytes) == (2, 2, 3)
    # A first token that ends inside "ñ": the start moves on past the whole character.
    s = account(text, [b"a\xc3", b"\xb1", b"b"], [None, -2.0, -3.0], 1, segment_start=LEAD)
    assert (s.n_tokens, s.n_chars, s.n_bytes, s.span) == (1, 1, 1, (3, 4))


@pytest.mark.parametrize(
    ("pieces", "logprobs", "message"),
    [
        (["Hello", " world"], [-1.0], "log-probabilities"),
        (["Hello", " wor"], [-1.0, -1.0], "do not spell"),
        (["ĠHello", "Ġworld"], [-1.0, -1.0], "do not spell"),
        (["Hello", " world", "!"], [-1.0, None, -1.0], "token 1"),
        (["Hello world!"], [None], "no token"),
        (["Hello", " world!"], [-1.0, 0.5], "finite number <= 0"),
    ],
)
def test_unusable_scores_are_errors(pieces: list[str], logprobs: list, message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        account("Hello world!", _pieces(*pieces), logprobs, 1, segment_start=LEAD)


def test_scores_round_trip_through_the_ledger_text() -> None:
    s = account("ab cd", _pieces("ab", " cd"), [-0.1, -0.2], 3, tokens=[7, 9], segment_start=LEAD)
    back = DocScore.from_json(s.to_json())
    assert back == s and back.n_segments == 3
    assert back.tokens == (7, 9)
    assert back.nll_nats == pytest.approx(0.3, abs=1e-15)


def test_a_failing_script_is_a_scoring_error() -> None:
    def boom(text: str) -> list[tuple[str, float | None]]:
        raise RuntimeError("model crashed")

    register_logprob_script("boom", boom)
    with pytest.raises(ScoringError, match="model crashed"):
        scripted("boom", "some text here")


def test_document_start_windows_read_one_position_less_after_the_start_token() -> None:
    # 12 positions (a condition token and 11 text tokens), a context of 5: the first
    # window as under lead; each later one is the start token, the lead and 3 tokens.
    seg = Segmenting(5, segment_start=DOCUMENT_START)
    assert windows(12, seg) == [(0, 1, 5), (4, 5, 8), (7, 8, 11), (10, 11, 12)]
    assert windows(12, Segmenting(5)) == [(0, 1, 5), (4, 5, 9), (8, 9, 12)]
    assert [seg.reads_start(k) for k in range(3)] == [False, True, True]
    assert not any(Segmenting(5).reads_start(k) for k in range(3))
    # Stride: the same scored blocks, one position less of context before each.
    stride = Segmenting(6, "stride", 2, DOCUMENT_START)
    assert windows(10, stride) == [(0, 1, 6), (3, 6, 8), (5, 8, 10)]
    # A text that fits the context is one window, the same under both.
    assert windows(5, seg) == windows(5, Segmenting(5)) == [(0, 1, 5)]


def test_document_start_windows_score_every_position_once_within_the_context() -> None:
    for length in range(2, 60):
        for seg in (
            Segmenting(3, segment_start=DOCUMENT_START),
            Segmenting(8, segment_start=DOCUMENT_START),
            Segmenting(8, "stride", 3, DOCUMENT_START),
            Segmenting(8, "stride", 6, DOCUMENT_START),
        ):
            spans = windows(length, seg)
            scored = [p for _, first, end in spans for p in range(first, end)]
            assert scored == list(range(1, length))
            for k, (begin, first, end) in enumerate(spans):
                # The positions read (the start token too, for a later window) fit the
                # context, and every window after the first starts with a scored token.
                assert end - begin + seg.reads_start(k) <= seg.context_tokens
                assert begin < first and (k == 0 or begin >= 1)


@pytest.mark.parametrize(
    ("context", "rule", "stride", "message"),
    [
        (2, "disjoint", None, "at least 3"),
        (8, "stride", 7, "context_tokens - 2 = 6"),
        (8, "disjoint", None, None),
    ],
)
def test_document_start_needs_room_for_the_start_token(
    context: int, rule: str, stride: int | None, message: str | None
) -> None:
    if message is None:
        Segmenting(context, rule, stride, DOCUMENT_START)  # type: ignore[arg-type]
        return
    with pytest.raises(ValueError, match=message):
        Segmenting(context, rule, stride, DOCUMENT_START)  # type: ignore[arg-type]
    Segmenting(context, rule, stride or context - 1)  # type: ignore[arg-type]  # fine under lead


def test_segment_start_comes_from_the_params_and_is_checked() -> None:
    params = {"context_tokens": 8, "segmenting": "disjoint"}
    assert segmenting_from_params(params).segment_start == LEAD
    asked = segmenting_from_params({**params, "segment_start": "document_start"})
    assert asked == Segmenting(8, segment_start=DOCUMENT_START)
    with pytest.raises(ScoringError, match="segment_start must be one of lead, document_start"):
        segmenting_from_params({**params, "segment_start": "bos"})


def test_a_score_names_its_segment_start_in_the_ledger_text() -> None:
    s = account(
        "ab cd", _pieces("ab", " cd"), [-0.1, -0.2], 3, tokens=[7, 9], segment_start=DOCUMENT_START
    )
    assert json.loads(s.to_json())["segment_start"] == "document_start"
    assert DocScore.from_json(s.to_json()) == s


def test_a_response_recorded_without_segment_start() -> None:
    """In-process scores (token ids) and texts of one window were read the lead way; a
    server's text of several windows was not, and is named unknown."""

    def old(tokens: list[int] | list[str], n_segments: int) -> DocScore:
        d = json.loads(
            account("ab cd", _pieces("ab", " cd"), [-0.1, -0.2], 1, segment_start=LEAD).to_json()
        )
        del d["segment_start"]
        return DocScore.from_json(json.dumps({**d, "tokens": tokens, "n_segments": n_segments}))

    assert old([7, 9], 3).segment_start == LEAD
    assert old(["ab", " cd"], 1).segment_start == LEAD
    assert old(["ab", " cd"], 2).segment_start == "unknown"


def test_the_scripted_provider_records_the_segment_start_asked() -> None:
    register_logprob_script("chars2", lambda t: [(ch, -1.0) for ch in t])
    params = {"context_tokens": 4, "segment_start": "document_start"}
    score = scripted_score("chars2", "abcdefghi", params)
    # 10 positions: windows of 4, then of the start token and 3 positions.
    assert (score.segment_start, score.n_segments) == (DOCUMENT_START, 4)
