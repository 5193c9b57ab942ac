"""Log-probabilities of a text from an OpenAI-compatible completions server.

The transport of log-probability requests (:mod:`prescient.llm.logprobs`) for models
served by a self-hosted OpenAI-compatible server (``hosted_vllm/``, and ``openai/`` or
``text-completion-openai/`` with an ``api_base``: vLLM, llama.cpp's servers). Requests
go to ``<api_base>/completions`` with ``echo: true``, ``logprobs: 1`` and ``max_tokens:
1``: the server returns the prompt's tokens with the log-probability of each given the
ones before (null for the first, which has nothing before it), then the one generated
token, which is ignored. The token strings must spell the prompt (after any special
tokens the server's tokenizer puts first, such as a BOS), which is how characters are
counted; a server that returns raw byte-level pieces instead fails with that reason.

The completions API takes text, so the segments of context
(:func:`prescient.llm.logprobs.windows`) are followed in text space, one request per
window, each sending only the text that window needs:

1. window ``k`` starts at a token whose place in the text is known (the text's start,
   or a token an earlier window's reply gave). Its request sends the text from there,
   cut at a character bound: the window's positions plus :data:`MARGIN` tokens, times
   the characters per token seen so far in this text with :data:`SLACK`
   (:data:`FIRST_CHARS_PER_TOKEN` before any reply). A tokenizer reads a prefix as it
   reads the whole text except near the cut (``"\n", "\n"`` inside a text is
   ``"\n\n"`` at its end), so a reply is used only when its prompt reaches the text's
   end or holds at least :data:`MARGIN` tokens beyond the window; otherwise the text is
   sent again, cut longer by the characters per token the reply showed. Texts no
   longer than a window therefore cost one request, and no request holds much more than
   a window of tokens, however long the article (a whole article sent at once may
   exceed the server's context or time out). Measured with SmolLM2's tokenizer on 54
   articles of the development corpus (65,696 tokens) read in windows of 512: 163
   requests for 155 windows, at most 713 tokens each and 78,101 in all, where sending
   the whole text first took up to 2,311 tokens in one request and 104,358 in all (and
   failed 5 of the articles at a context of 256, on windows that end inside a run of
   newlines; none fail here).
2. the window's positions of the reply are read from a fresh context, the server
   putting first what it puts before every prompt (a BOS, for tokenizers that add one);
   the tokens a window shares with the one before (its lead, for ``disjoint``) must be
   the tokens that window's reply gave. A tokenizer that merges differently across the
   cut fails the request with that reason, rather than score other tokens than the
   rule says.

What a server puts before every prompt decides how it reads a later window
(``segment_start``, :class:`prescient.llm.logprobs.Segmenting`). The tokens it read
before the prompt's are those its echo shows before them (vLLM echoes a BOS) plus those
it counts in ``usage.prompt_tokens`` without echoing them (llama-cpp-python's server
drops its BOS from the echo); together they are the sequence's start, position 0 of the
windows, as the condition token is in-process:

- a server that puts nothing first (vLLM with a model that adds no BOS) reads a later
  window from its lead alone: ``lead``, FreshBench's reading, is what it does, and
  ``document_start`` fails every request with that reason;
- a server that puts a start token first (a model that adds a BOS; llama-cpp-python's
  server started with the override below) reads every prompt after it, so it reads
  ``document_start``: a later window's prompt starts at the window's lead and the server
  reads its BOS before it. No prompt sent as text reads a later window from the lead
  alone there, so under ``lead`` a text longer than one window fails with the reason and
  the option to set (a text that fits one window reads the same under both). A reply
  without ``usage.prompt_tokens`` leaves the start unknown: such a text fails then too.

llama-cpp-python's server (0.3.x) pairs each echoed token with the distribution that
follows it, for a model whose tokenizer adds no BOS (SmolLM2): the value it reports for
token ``i`` is the log-probability of token ``i`` as the token after ``i``, which no
shift can turn into the right one (checked against the in-process values of
:mod:`prescient.llm.llama_eval`). The same code drops the generated token from such a
reply, while every aligned echo (vLLM; llama-cpp-python when a BOS is added) carries it
after the prompt's tokens: a reply whose tokens stop at the prompt although a token was
generated is refused (:class:`MisalignedEchoError`, not retried), and that endpoint
refuses the batch's later requests without sending them. Started with
``--kv_overrides tokenizer.ggml.add_bos_token=bool:true
tokenizer.ggml.bos_token_id=int:<id>``, llama-cpp-python's server puts that token first
and aligns its echo; with SmolLM2's document separator (id 0) its values equal the
in-process ones with ``bpc.local.condition_token`` ``<|endoftext|>`` and the same
``segment_start`` for every token after the first (the server reports none for the
first: it is left out with its characters), on texts of one window and of many under
``document_start``; under ``lead`` a text of several windows fails with the reason.
It takes text prompts only (its completions request has no token-id prompt), so it
cannot be made to read a later window without its BOS.
tests/integration/llm/test_llama_server.py checks all of it.

Errors keep the shapes the gateway's retry rules read (:mod:`prescient.llm.transport_base`):
HTTP statuses, timeouts and connection failures are retried by the gateway's policy;
a reply without log-probabilities or whose tokens do not spell the text fails the
request at once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from prescient.llm.logprobs import (
    DOCUMENT_START,
    LEAD,
    DocScore,
    ScoringError,
    Segmenting,
    account,
    request_text,
    segmenting_from_params,
)
from prescient.llm.routes import COMPLETIONS, Route
from prescient.llm.transport_base import (
    APIConnectionError,
    Call,
    HTTPSession,
    Timeout,
    http_error,
)
from prescient.llm.types import SERVED_MODEL, Reply

SCORER = "completions_echo"
"""The scoring method's name (the ``scorer`` param of its requests)."""

MARGIN = 8
"""Tokens a cut reply must hold beyond its window (the module docstring)."""

FIRST_CHARS_PER_TOKEN = 5.0
"""Characters per token assumed for a text's first request. SmolLM2's tokenizer reads
the development corpus's news at 4.32 characters a token and the demo's at 4.13, so a
first window of news usually takes one request of about 1.2 windows of tokens: the
server's context must hold that much (or the whole text, when shorter)."""

SLACK = 1.1
"""How much longer than the characters per token seen so far a later window's cut is
made, so that its reply seldom falls short of the margin."""

GROWTH = 1.25
"""How much longer than the characters per token seen a re-sent cut is made."""


def completions_url(api_base: str) -> str:
    base = api_base.rstrip("/")
    return base if base.endswith("/completions") else f"{base}/completions"


class MisalignedEchoError(ScoringError):
    """The server's echoed log-probabilities are not those of the prompt's tokens."""


@dataclass(frozen=True)
class Echo:
    """One echo reply.

    Attributes:
        lead: the tokens before the prompt's (a BOS the server echoes).
        tokens: the tokens that spell the prompt.
        values: ``ln p`` of each of ``tokens`` (None: no prediction).
        n_after: tokens after the prompt's (the generated one).
        hidden: tokens the server read before the prompt's without echoing them
            (``usage.prompt_tokens`` less the echoed ``lead`` and ``tokens``: a BOS that
            llama-cpp-python's server drops from its echo); None when the reply has no
            usage that says.
    """

    lead: list[str]
    tokens: list[str]
    values: list[float | None]
    n_after: int
    hidden: int | None = 0

    @property
    def start(self) -> int | None:
        """Tokens the server read before the prompt's (None: unknown)."""
        return None if self.hidden is None else len(self.lead) + self.hidden


def parse_echo(prompt: str, data: Mapping[str, Any]) -> Echo:
    """Split an echo reply into the lead tokens, the prompt's tokens (the tokens that
    spell ``prompt``) and what follows (the generated token).

    Raises:
        ScoringError: no log-probabilities, or no run of tokens spells the prompt.
        MisalignedEchoError: the tokens stop at the prompt although a token was generated.
    """
    try:
        choice = data["choices"][0]
        lp = choice["logprobs"]
        tokens = [str(t) for t in lp["tokens"]]
        raw = list(lp["token_logprobs"])
    except (KeyError, IndexError, TypeError) as exc:
        raise ScoringError(
            "the server returned no prompt log-probabilities (echo with logprobs); "
            "it may serve chat completions only"
        ) from exc
    if len(raw) != len(tokens):
        raise ScoringError(f"malformed logprobs: {len(tokens)} tokens, {len(raw)} values")
    values = [None if v is None else float(v) for v in raw]
    for lead in range(min(len(tokens), 4) + 1):
        text, n = "", lead
        while n < len(tokens) and len(text) < len(prompt):
            text += tokens[n]
            n += 1
        if text == prompt and (prompt or n == lead):
            break
    else:
        raise ScoringError("the server's tokens do not spell the document's text")
    usage = data.get("usage") or {}
    generated = int(usage.get("completion_tokens") or 0)
    read = usage.get("prompt_tokens")
    hidden = read - n if isinstance(read, int) and read >= n else None
    if generated >= 1 and n == len(tokens):
        raise MisalignedEchoError(
            "the server's echo has no generated token after the prompt's tokens: its "
            "log-probabilities are paired with the distribution after each token "
            "(llama-cpp-python's server for a model that adds no BOS); start it with "
            "--kv_overrides tokenizer.ggml.add_bos_token=bool:true "
            "tokenizer.ggml.bos_token_id=int:<document separator id>, or use another server"
        )
    return Echo(tokens[:lead], tokens[lead:n], values[lead:n], len(tokens) - n, hidden)


class CompletionsTransport:
    """One aiohttp session per batch, reading texts' log-probabilities from servers."""

    route: ClassVar[Route] = COMPLETIONS
    """What it serves (:mod:`prescient.llm.routes`)."""

    retries = True

    def __init__(self) -> None:
        self.http = HTTPSession()
        self.misaligned: dict[str, str] = {}

    async def aclose(self) -> None:
        await self.http.aclose()

    async def complete(self, call: Call) -> Reply:
        """Score the request's text (``kind`` logprobs only).

        Raises:
            ScoringError: the reply cannot be read as the text's log-probabilities.
            DirectHTTPError, DirectTransportError: as the direct transport.
        """
        if call.kind != "logprobs":
            raise ScoringError(
                f"{call.spec.name}: the completions transport reads log-probabilities only"
            )
        if not call.api_base:
            raise ScoringError(f"model {call.spec.name!r}: a completions server needs api_base")
        url = completions_url(call.api_base)
        if url in self.misaligned:
            raise MisalignedEchoError(self.misaligned[url])
        text = request_text(call.messages)
        if call.gen.get("scorer", SCORER) != SCORER:
            raise ScoringError(f"scorer {call.gen.get('scorer')!r} is not {SCORER!r}")
        poster = _Poster(self, call, url)
        try:
            score = await score_text(text, segmenting_from_params(call.gen), poster)
        except MisalignedEchoError as exc:
            self.misaligned[url] = str(exc)
            raise
        return Reply(
            text=score.to_json(),
            finish_reason=None,
            usage={
                "prompt_tokens": score.n_text_tokens,
                "completion_tokens": 0,
                "total_tokens": score.n_text_tokens,
            },
            provenance={SERVED_MODEL: poster.served} if poster.served else None,
        )


class _Poster:
    """Posts one echo request for a call and parses the reply."""

    def __init__(self, transport: CompletionsTransport, call: Call, url: str) -> None:
        self.transport = transport
        self.call = call
        self.url = url
        self.sent_chars = 0
        self.served: str | None = None
        """The model the server's replies name (their ``model``)."""

    def body(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.call.spec.litellm_model.split("/", 1)[1],
            "prompt": prompt,
            "max_tokens": 1,
            "echo": True,
            "logprobs": 1,
            "temperature": 0.0,
        }

    async def __call__(self, prompt: str) -> Echo:
        import aiohttp

        session = await self.transport.http.get()
        headers = {"Content-Type": "application/json"}
        if self.call.api_key:
            headers["Authorization"] = f"Bearer {self.call.api_key}"
        self.sent_chars += len(prompt)
        try:
            async with session.post(
                self.url,
                data=json.dumps(self.body(prompt)),
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=self.call.timeout_s),
            ) as resp:
                raw = await resp.read()
                if resp.status >= 400:
                    raise http_error(resp.status, raw, resp.headers)
        except TimeoutError as exc:
            raise Timeout(f"timed out after {self.call.timeout_s:g}s") from exc
        except aiohttp.ClientError as exc:
            raise APIConnectionError(f"{type(exc).__name__}: {exc}") from exc
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise APIConnectionError(f"unusable reply (not JSON): {raw[:120]!r}") from exc
        if not isinstance(data, dict):
            raise APIConnectionError(f"unusable reply (not an object): {raw[:120]!r}")
        named = data.get("model")
        if isinstance(named, str) and named:
            self.served = named
        return parse_echo(prompt, data)


async def score_text(
    text: str, segmenting: Segmenting, echo: Callable[[str], Awaitable[Echo]]
) -> DocScore:
    """Score ``text`` window by window through ``await echo(prompt) -> Echo`` (module
    docstring).

    Raises:
        ScoringError: the text has no tokens, a reply cannot be followed, the windows'
            tokens do not spell the text, or the server cannot read the text's later
            windows as ``segmenting.segment_start`` asks.
    """
    # The sequence read: the start tokens the server reads before every prompt (echoed
    # or not; placeholders for those it does not echo), then the text's tokens.
    seq: list[str] = []
    starts: list[int] = []  # character offset in the text of each position of seq
    values: list[float | None] = []
    n_start = 0
    chars_per_token = FIRST_CHARS_PER_TOKEN
    scored, k = 1, 0
    while True:
        begin, full = segmenting.bounds(k)
        if k > 0 and begin < n_start:
            raise ScoringError("a window would start inside the server's start tokens")
        start = 0 if k == 0 else starts[begin]
        need = full - begin + MARGIN
        cut = math.ceil(need * chars_per_token * (SLACK if k > 0 else 1.0))
        while True:
            prompt = text[start : start + cut]
            whole = start + cut >= len(text)
            reply = await echo(prompt)
            # The tokens read before the prompt's are positions of the first window only.
            lead = [""] * (reply.hidden or 0) + reply.lead if k == 0 else []
            if reply.tokens:
                chars_per_token = max(1.0, len(prompt) / len(reply.tokens))
            if whole or len(lead) + len(reply.tokens) >= need:
                break
            cut = max(math.ceil(need * chars_per_token * GROWTH), math.ceil(cut * GROWTH))
        # The window's positions begin, begin + 1, ... as the reply gives them.
        got = [*lead, *reply.tokens]
        got_values: list[float | None] = [*([None] * len(lead)), *reply.values]
        offsets = [0] * len(lead)
        at = start
        for token in reply.tokens:
            offsets.append(at)
            at += len(token)
        if k == 0:
            if not reply.tokens:
                raise ScoringError("the text has no tokens")
            n_start = len(lead)
            if segmenting.segment_start == DOCUMENT_START and reply.start == 0:
                raise ScoringError(
                    "segment_start document_start reads every later segment after the "
                    "start token the server puts before a prompt, and this server puts "
                    "none (its echo and usage.prompt_tokens show the prompt's tokens "
                    "only): use segment_start lead"
                )
            seq, starts, values = [got[0]], [offsets[0]], [None]
        elif reply.start != n_start:
            read = "an unknown number of" if reply.start is None else str(reply.start)
            raise ScoringError(
                f"window {k + 1}: the server read {read} tokens before the prompt, "
                f"{n_start} before the first window's"
            )
        if got[: scored - begin] != seq[begin:scored]:
            raise ScoringError(
                f"window {k + 1}: the server tokenizes its text (from character {start}) "
                "differently from the window before, so the segments cannot be followed "
                "exactly over the completions API; score the model in-process or with a "
                "context that holds the document"
            )
        end = begin + min(full - begin, len(got))
        for j in range(scored - begin, end - begin):
            seq.append(got[j])
            starts.append(offsets[j])
            values.append(got_values[j])
        if whole and end - begin == len(got):
            break  # the window reached the text's end
        if k == 0:
            _check_later_windows(segmenting, reply.start)
        scored = end
        k += 1
    return account(
        text,
        [t.encode("utf-8") for t in seq[n_start:]],
        values[n_start:],
        k + 1,
        seq[n_start:],
        segment_start=segmenting.segment_start,
    )


def _check_later_windows(segmenting: Segmenting, n_start: int | None) -> None:
    """Whether a server that reads ``n_start`` tokens before every prompt can read the
    windows after the first as ``segmenting`` asks (module docstring).

    Raises:
        ScoringError: it cannot, or its replies do not say what it reads first.
    """
    if n_start is None:
        raise ScoringError(
            "the text needs more than one window of context, and the server's reply has "
            "no usage.prompt_tokens to tell whether it reads a start token before each "
            "prompt, so how it reads a later window is unknown"
        )
    if segmenting.segment_start == LEAD and n_start:
        raise ScoringError(
            f"this server puts {n_start} start token(s) (a BOS) before every prompt, so "
            "it reads a later window of context after that token, not from the window's "
            "lead alone as segment_start lead asks; set segment_start: document_start "
            "(bpc.segment_start) to score texts longer than one window that way, or "
            "score the model in-process"
        )
    if segmenting.segment_start == DOCUMENT_START and n_start != 1:
        raise ScoringError(
            f"this server puts {n_start} tokens before every prompt; segment_start "
            "document_start reads a later window after one start token"
        )
