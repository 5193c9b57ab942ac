"""Log-probability requests: a text's tokens scored in segments of context.

A log-probability request (kind :data:`LOGPROBS`, beside ``chat``) asks a model for
``ln p(token | the tokens before it in its segment)`` of every token of a text, under
the model's own tokenizer. Its one message is the text (``{"role": "document",
"content": text}``) and its params say how the text is read (``context_tokens``,
``segmenting``, ``stride_tokens``, ``segment_start``: :func:`segmenting_from_params`),
so they are part of the ledger key like any generation parameter. A transport that can
answer one (in-process llama.cpp, an OpenAI-compatible completions server) returns the
:class:`DocScore` of the text as the reply's text (:meth:`DocScore.to_json`).

Texts longer than the context are read in segments (:func:`windows`, laid out by
:class:`Segmenting`), each from a fresh context; FreshBench (NAACL 2025, appendix "Model
selection and Experimental Setting") scores a text longer than the model's context in
segments of a 2048-token context and sums the negative log-likelihoods of every segment.
How a later segment starts is a method of its own (``segment_start``): ``lead`` reads it
from the segment's lead token alone, ``document_start`` after the condition token or BOS
that starts the document, as a server that puts its BOS before every prompt reads it. The
two give different log-probabilities to every token of a later segment (a token's
context differs), so every score records which it used (:attr:`DocScore.segment_start`).
The characters are those the scored tokens spell, so a score's bits and its characters
always cover the same span of text:

- a token without a prediction (the first token of a text when nothing precedes it, as
  an OpenAI-compatible server reports it: a null log-probability) is left out together
  with its characters;
- tokens before the text (a BOS the server's tokenizer adds) are not text and count
  nowhere;
- when the token left out ends inside a multi-byte character, the span starts after
  that whole character (the tokens spelling its rest are left out too).

BPC is ``-sum(ln p) / ln 2 / characters`` (FreshBench, NAACL 2025, equation 1, with
log base 2 so that the unit is bits); bits per UTF-8 byte are kept beside it. Sums use
``math.fsum``, so they do not depend on the order of the terms.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from prescient.llm.answer_logprobs import ANSWER_LOGPROBS

LN2 = math.log(2.0)

SegmentingRule = Literal["disjoint", "stride"]

SegmentStart = Literal["lead", "document_start"]

LEAD: SegmentStart = "lead"
"""``segment_start``: a later window is read from its first position (the default)."""

DOCUMENT_START: SegmentStart = "document_start"
"""``segment_start``: a later window is read after the sequence's start token."""

SEGMENT_STARTS: tuple[str, ...] = (LEAD, DOCUMENT_START)


@dataclass(frozen=True)
class Segmenting:
    """How a sequence longer than the context is read: windows of ``context_tokens``.

    The sequence is what the model reads: the text's tokens, after the condition token
    or BOS the scorer puts first (position 0, never scored: nothing precedes it). Window
    ``k`` reads positions ``[begin_k, end_k)`` (:meth:`bounds`; the last one cut at the
    sequence's end) and scores the positions no earlier window scored, so every position
    from 1 on is scored exactly once, each window from a fresh context (nothing carried
    over).

    ``rule`` says which positions a window scores:

    - ``disjoint``: consecutive segments; the first token of each later segment is
      predicted from the one token before it (the segment's lead, the last token of the
      previous segment), the first segment's from the condition token. This is
      FreshBench's reading of a long text (a 2048-token context, the negative
      log-likelihoods of the segments summed). lm-eval-harness's rolling windows lead
      each segment the same way, but score one token more per window (the one the last
      position predicts) and give the last window earlier tokens as extra context.
    - ``stride``: a sliding window; each window after the first scores its last
      ``stride_tokens`` tokens with the positions before them in the window as context
      (Huang et al., 2024, whose compression evaluation FreshBench follows, read with
      1900 and 512).

    ``segment_start`` says what a later window (``k >= 1``) is read from:

    - ``lead`` (the default; FreshBench's reading): from its first position, nothing
      before it. Window ``k`` reads ``[k * step, k * step + context_tokens)``, step
      ``context_tokens - 1`` for ``disjoint`` (segments of ``context_tokens - 1`` scored
      tokens) and ``stride_tokens`` for ``stride``.
    - ``document_start``: after position 0 (the condition token or BOS), which takes
      one position of the window's context, so a later window reads ``context_tokens -
      1`` positions of the sequence: ``disjoint`` starts window ``k`` at the last
      position of window ``k - 1`` (its lead) and scores ``context_tokens - 2`` tokens
      per later window; ``stride`` keeps the scored ``stride_tokens`` and reads one
      position less before them. This is how a completions server that puts a BOS
      before every prompt reads a text sent window by window
      (:mod:`prescient.llm.completions`). It needs a position 0 to read windows after
      (a condition token, or a server's BOS), at least 3 positions of context and, for
      ``stride``, a stride of at most ``context_tokens - 2``, so that every later window
      starts with a token of context already scored.

    The first window (``k = 0``) is the same under both: ``[0, context_tokens)``, its
    position 0 the start token.

    Attributes:
        context_tokens: positions per window (the model's context).
        rule: ``disjoint`` or ``stride``.
        stride_tokens: the step of ``stride`` (ignored by ``disjoint``).
        segment_start: ``lead`` or ``document_start``.
    """

    context_tokens: int
    rule: SegmentingRule = "disjoint"
    stride_tokens: int | None = None
    segment_start: SegmentStart = "lead"

    def __post_init__(self) -> None:
        if self.context_tokens < 2:
            raise ValueError("context_tokens must be at least 2 (a lead and one token)")
        if self.rule not in ("disjoint", "stride"):
            raise ValueError(f"segmenting must be disjoint or stride, not {self.rule!r}")
        if self.segment_start not in SEGMENT_STARTS:
            raise ValueError(
                f"segment_start must be one of {', '.join(SEGMENT_STARTS)}, "
                f"not {self.segment_start!r}"
            )
        if self.segment_start == DOCUMENT_START and self.context_tokens < 3:
            raise ValueError(
                "segment_start document_start needs context_tokens of at least 3 (the "
                "start token, a lead and one token)"
            )
        drop = 2 if self.segment_start == DOCUMENT_START else 1
        longest = self.context_tokens - drop
        if self.rule == "stride" and not (
            self.stride_tokens and 1 <= self.stride_tokens <= longest
        ):
            raise ValueError(
                f"stride_tokens must be between 1 and context_tokens - {drop} = {longest}"
                f"{' (segment_start document_start)' if drop == 2 else ''}, "
                f"not {self.stride_tokens}"
            )

    @property
    def step(self) -> int:
        """How far each window starts after the one before, under ``lead``."""
        if self.rule == "stride":
            assert self.stride_tokens is not None
            return self.stride_tokens
        return self.context_tokens - 1

    def reads_start(self, k: int) -> bool:
        """Whether window ``k`` is read after position 0 (``document_start``, ``k >= 1``)."""
        return self.segment_start == DOCUMENT_START and k >= 1

    def bounds(self, k: int) -> tuple[int, int]:
        """``[begin, end)``: the positions window ``k`` reads before the cut at the
        sequence's end (position 0, read first by a ``document_start`` window, not
        counted)."""
        c = self.context_tokens
        if k == 0:
            return 0, c
        if not self.reads_start(k):
            return k * self.step, k * self.step + c
        if self.rule == "stride":
            assert self.stride_tokens is not None
            end = c + k * self.stride_tokens
        else:
            end = c + k * (c - 2)
        return end - (c - 1), end


def windows(length: int, segmenting: Segmenting) -> list[tuple[int, int, int]]:
    """The windows over a sequence of ``length`` positions (see :class:`Segmenting`).

    Returns:
        ``(begin, first_scored, end)`` per window: the window reads positions
        ``[begin, end)`` (after position 0 when :meth:`Segmenting.reads_start`) and
        scores ``[first_scored, end)``; empty when ``length < 2``.
    """
    out: list[tuple[int, int, int]] = []
    scored = 1
    k = 0
    while scored < length:
        begin, end = segmenting.bounds(k)
        end = min(end, length)
        out.append((begin, scored, end))
        scored = end
        k += 1
    return out


class ScoringError(RuntimeError):
    """A text could not be scored (the request fails; the ledger records why)."""


@dataclass(frozen=True)
class DocScore:
    """The score of one document under one model.

    Attributes:
        token_logprobs: ``ln p`` of every scored token, in text order.
        tokens: the scored tokens (ids for in-process models, strings for servers).
        n_text_tokens: tokens of the text under the model's tokenizer (the scored ones,
            plus a first one without a prediction).
        n_chars: characters of the scored span.
        n_bytes: UTF-8 bytes of the scored span.
        span: ``(start, end)`` byte offsets of the scored span in the UTF-8 text.
        n_segments: windows of context the text was read in (:func:`windows`).
        segment_start: what the windows after the first were read from
            (:attr:`Segmenting.segment_start`: ``lead`` or ``document_start``); the
            request's method even when the text fit one window. ``unknown`` only for a
            response recorded before scores named it, of a text a server read in
            several windows (:meth:`from_json`).
    """

    token_logprobs: tuple[float, ...]
    tokens: tuple[int | str, ...]
    n_text_tokens: int
    n_chars: int
    n_bytes: int
    span: tuple[int, int]
    n_segments: int
    segment_start: str

    @property
    def n_tokens(self) -> int:
        """Scored tokens."""
        return len(self.token_logprobs)

    @property
    def nll_nats(self) -> float:
        """``-sum(ln p)`` over the scored tokens."""
        return -math.fsum(self.token_logprobs)

    @property
    def bits(self) -> float:
        """``-sum(log2 p)``."""
        return self.nll_nats / LN2

    @property
    def bpc(self) -> float:
        """Bits per character of the scored span."""
        return self.bits / self.n_chars

    @property
    def bpb(self) -> float:
        """Bits per UTF-8 byte of the scored span."""
        return self.bits / self.n_bytes

    def to_json(self) -> str:
        """The ledger's ``response``: the sums for reading and every term for the audit."""
        return json.dumps(
            {
                "n_tokens": self.n_tokens,
                "n_text_tokens": self.n_text_tokens,
                "n_segments": self.n_segments,
                "segment_start": self.segment_start,
                "n_chars": self.n_chars,
                "n_bytes": self.n_bytes,
                "span": list(self.span),
                "nll_nats": self.nll_nats,
                "token_logprobs": list(self.token_logprobs),
                "tokens": list(self.tokens),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> DocScore:
        """Read a ledger ``response`` back.

        A response recorded before scores named their ``segment_start`` was read the
        ``lead`` way when it came from the in-process reader (token ids) or fit one
        window; a server's reply for a longer text was read after the server's start
        token, in windows laid out otherwise than either method, so it reads
        ``unknown``.
        """
        d = json.loads(text)
        tokens = tuple(d["tokens"])
        n_segments = int(d["n_segments"])
        start = d.get("segment_start")
        if start is None:
            by_server = any(isinstance(t, str) for t in tokens)
            start = "unknown" if by_server and n_segments > 1 else LEAD
        return cls(
            token_logprobs=tuple(float(x) for x in d["token_logprobs"]),
            tokens=tokens,
            n_text_tokens=int(d["n_text_tokens"]),
            n_chars=int(d["n_chars"]),
            n_bytes=int(d["n_bytes"]),
            span=(int(d["span"][0]), int(d["span"][1])),
            n_segments=n_segments,
            segment_start=str(start),
        )


def _char_boundary(data: bytes, offset: int) -> bool:
    return offset >= len(data) or (data[offset] & 0xC0) != 0x80


def account(
    text: str,
    pieces: Sequence[bytes],
    logprobs: Sequence[float | None],
    n_segments: int,
    tokens: Sequence[int | str] | None = None,
    *,
    segment_start: SegmentStart,
) -> DocScore:
    """Turn a scorer's tokens into a :class:`DocScore` (the rules of the module docstring).

    Args:
        text: the document.
        pieces: the bytes each token stands for, in order; tokens before the text
            (special tokens) may lead, the rest must spell ``text`` exactly.
        logprobs: ``ln p`` per token, None where the scorer has no prediction; only the
            first text token may lack one.
        n_segments: windows the scorer read the text in (recorded).
        tokens: what to record per token (default: its text).
        segment_start: what the later windows were read from (recorded).

    Raises:
        ScoringError: the pieces do not spell the text, a later token lacks its
            log-probability, or no token is left to score.
    """
    if len(pieces) != len(logprobs):
        raise ScoringError(f"{len(pieces)} tokens but {len(logprobs)} log-probabilities")
    data = text.encode("utf-8")
    offsets = [0]
    for p in pieces:
        offsets.append(offsets[-1] + len(p))
    lead = offsets[-1] - len(data)
    if lead < 0 or b"".join(pieces)[lead:] != data or lead not in offsets:
        raise ScoringError("the scorer's tokens do not spell the document's text")
    first = offsets.index(lead)
    ids = list(tokens) if tokens is not None else [p.decode("utf-8", "replace") for p in pieces]
    pieces, logprobs, ids = pieces[first:], logprobs[first:], ids[first:]
    starts = [o - lead for o in offsets[first:]]
    e = len(pieces)
    s = 0 if e and logprobs[0] is not None else 1
    if any(lp is None for lp in logprobs[s:e]):
        j = next(j for j in range(s, e) if logprobs[j] is None)
        raise ScoringError(f"token {j} of the text has no log-probability")
    while s < e and not _char_boundary(data, starts[s]):
        s += 1
    if e <= s:
        raise ScoringError("no token of the text has a prediction to score")
    lps = tuple(float(lp) for lp in logprobs[s:e] if lp is not None)
    if not all(math.isfinite(x) and x <= 0.0 for x in lps):
        raise ScoringError("a log-probability is not a finite number <= 0")
    span = (starts[s], starts[e])
    n_chars = len(data[span[0] : span[1]].decode("utf-8"))
    return DocScore(
        lps,
        tuple(ids[s:e]),
        len(pieces),
        n_chars,
        span[1] - span[0],
        span,
        n_segments,
        segment_start,
    )


CHAT = "chat"
"""Request kind: a chat completion."""

LOGPROBS = "logprobs"
"""Request kind: the log-probabilities of a text's tokens (module docstring)."""

KINDS = (CHAT, LOGPROBS, ANSWER_LOGPROBS)
"""Every request kind (:data:`ANSWER_LOGPROBS`: :mod:`prescient.llm.answer_logprobs`)."""

DOCUMENT_ROLE = "document"


def document_messages(text: str) -> list[dict[str, str]]:
    """The messages of a log-probability request: the text, as one message."""
    return [{"role": DOCUMENT_ROLE, "content": text}]


def request_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text a log-probability request scores (its one document message).

    Raises:
        ScoringError: the messages are not one document message.
    """
    if len(messages) != 1 or messages[0].get("role") != DOCUMENT_ROLE:
        raise ScoringError(
            "a log-probability request holds exactly one message with role 'document' "
            "(prescient.llm.logprobs.document_messages)"
        )
    return str(messages[0]["content"])


def segmenting_from_params(params: Mapping[str, Any]) -> Segmenting:
    """The segments of context a log-probability request's params ask for.

    ``segment_start`` absent is ``lead``: the default, which a request asks for without
    naming it (so requests keyed before the option existed keep their keys).

    Raises:
        ScoringError: ``context_tokens`` is missing, or the segmenting is invalid.
    """
    try:
        return Segmenting(
            int(params["context_tokens"]),
            params.get("segmenting") or "disjoint",
            params.get("stride_tokens"),
            params.get("segment_start") or LEAD,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ScoringError(f"log-probability request params {dict(params)}: {exc}") from exc
