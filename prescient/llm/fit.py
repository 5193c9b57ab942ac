"""Prompts fitted to a model's context window: one rule, counted and reported.

A model entry states its context window (``context_tokens`` in ``conf/model/<name>.yaml``,
prompt and reply together; null: unknown). A prompt that carries article text is
rendered with the articles as configured; when its token count plus the request's
``max_tokens`` is more than the context window, the rule applies:

    every article of the prompt is cut to its first W words, W the same for all of them
    and the largest for which the prompt fits (articles shorter than W stay whole; a
    prompt's only article, the gold one, is thus cut from its end); titles, dates, the
    question and the instructions are never cut.

W is found by bisection over 0 .. (the longest article's words - 1): a prompt's token
count grows with the words it carries. A prompt that fits is sent exactly as rendered
(the rule never touches it, so its ledger key is unchanged). A prompt that does not fit
even with W = 0 is not sent: the evaluation records it as an error under
:data:`CONTEXT_EXCEEDED`, and construction and key points (:func:`fit_request`) stop
with an error naming the step and article. Every fitted prompt is counted under
:data:`FITTED`, logged, and records W: ``context_words_kept`` on an evaluation
prediction row, in the request's tags (its ledger entry) for construction and key
points.

Token counts (:func:`prescient.llm.tokens.token_counter`):

- the embedded llama.cpp models (provider ``local``): exact, with the model's own
  tokenizer and chat template, as llama.cpp counts the prompt it evaluates
  (:class:`prescient.llm.tokens.LlamaTokenCounter`; deterministic, the same on every
  machine);
- every other model: a conservative estimate that needs no network and no tokenizer,
  :func:`estimate_tokens`: the UTF-8 bytes of the messages' contents divided by
  :data:`BYTES_PER_TOKEN` (3, rounded up), plus :data:`MESSAGE_OVERHEAD_TOKENS` (8) per
  message for the chat template's role markers. Subword tokenizers take about 4 bytes
  per token of English news (SmolLM2: 3.7 to 5.1 per article of the demo corpus, where
  the estimate of a whole-article gold prompt is 1.27 to 1.55 times the exact count),
  so the estimate errs towards fitting too early; text of digits or of non-Latin
  scripts can take more tokens than it says.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from prescient.llm.types import LLMRequest

FITTED = "fitted_to_context"
"""Count name of prompts whose article text was shortened to fit the context window."""
CONTEXT_EXCEEDED = "context_exceeded"
"""Count name (and error prefix) of prompts that do not fit even without article text."""

BYTES_PER_TOKEN = 3
"""The estimate's bytes per token (remote models)."""
MESSAGE_OVERHEAD_TOKENS = 8
"""The estimate's tokens per message for the chat template (role markers, separators)."""

Messages = Sequence[Mapping[str, Any]]


class TokenCounter(Protocol):
    """Tokens a model reads for a list of chat messages (its prompt, template included)."""

    def __call__(self, messages: Messages) -> int: ...


def first_words(text: str | None, n: int | None) -> str:
    """The first ``n`` whitespace-separated words of ``text`` (None: all), joined by single
    spaces: how the rule, and the configured word budgets, cut an article."""
    words = str(text or "").split()
    return " ".join(words if n is None else words[:n])


def reply_budget(defaults: Mapping[str, Any], params: Mapping[str, Any] | None) -> int:
    """The ``max_tokens`` a request reserves: its params' over the model's defaults (as
    the gateway merges them); 0 when neither sets one."""
    value = {**defaults, **(params or {})}.get("max_tokens")
    return int(value) if value is not None else 0


def bound_tokens(messages: Messages) -> int:
    """An upper bound of the prompt tokens of ``messages`` for a cost ceiling: one token
    per UTF-8 byte of the contents (no tokenizer that works on bytes, byte-level BPE or
    SentencePiece with byte fallback, spends more) plus :data:`MESSAGE_OVERHEAD_TOKENS`
    per message for the chat template. Unlike :func:`estimate_tokens` it cannot be
    beaten by text of digits or of non-Latin scripts."""
    n_bytes = sum(len(str(m.get("content") or "").encode("utf-8")) for m in messages)
    return n_bytes + MESSAGE_OVERHEAD_TOKENS * len(messages)


def estimate_tokens(messages: Messages) -> int:
    """The conservative estimate for models whose tokenizer is not at hand (module doc)."""
    n_bytes = sum(len(str(m.get("content") or "").encode("utf-8")) for m in messages)
    return math.ceil(n_bytes / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS * len(messages)


@dataclass(frozen=True)
class ContextWindow:
    """A model's context window and how its prompts are counted.

    Attributes:
        model: registry name (for log lines).
        tokens: the context window (prompt and reply together).
        count: the model's token counter.
        exact: True when ``count`` is the model's own tokenizer, False for the estimate.
    """

    model: str
    tokens: int
    count: TokenCounter
    exact: bool

    def describe(self) -> str:
        """One line for logs and metrics: the window and the counting rule."""
        how = (
            "counted by the model's own tokenizer"
            if self.exact
            else f"estimated as UTF-8 bytes / {BYTES_PER_TOKEN} + "
            f"{MESSAGE_OVERHEAD_TOKENS} per message"
        )
        return f"{self.tokens} tokens, prompt tokens {how}"


@dataclass(frozen=True)
class Fit:
    """A prompt as it is sent.

    Attributes:
        messages: the messages (those rendered with the whole articles when they fit).
        words: the words W every article was cut to; None when the prompt was sent as
            rendered (it fits, or the model's window is unknown).
        prompt_tokens: the counted tokens of ``messages`` (None: not counted).
        ok: False when the prompt does not fit even without article text (not sent).
    """

    messages: list[dict[str, str]]
    words: int | None = None
    prompt_tokens: int | None = None
    ok: bool = True

    @property
    def fitted(self) -> bool:
        """True when the rule shortened the articles (counted under :data:`FITTED`)."""
        return self.ok and self.words is not None

    def error(self, window: ContextWindow | None, max_tokens: int) -> str | None:
        """The error text of a prompt that cannot be sent (None when it can)."""
        if self.ok or window is None:
            return None
        return (
            f"{CONTEXT_EXCEEDED}: {self.prompt_tokens} prompt tokens without any article "
            f"text + max_tokens {max_tokens} > the context window of {window.tokens}"
        )


Render = Callable[[int | None], list[dict[str, str]]]
"""Renders a prompt with every article cut to its first W words (None: as configured)."""


def fit_prompt(render: Render, longest: int, window: ContextWindow | None, max_tokens: int) -> Fit:
    """The prompt ``render`` makes, fitted to ``window`` by the rule (module doc).

    Args:
        render: the prompt with its articles cut to W words (None: uncut).
        longest: words of the prompt's longest article.
        window: the model's context window (None: unknown; the prompt is sent as it is).
        max_tokens: the request's reply budget, reserved in the window.
    """
    full = render(None)
    if window is None:
        return Fit(full)
    room = window.tokens - max_tokens
    tokens = window.count(full)
    if tokens <= room:
        return Fit(full, None, tokens)
    low, high = 0, max(0, longest - 1)
    low_tokens = window.count(render(low))
    if low_tokens > room:
        return Fit(render(0), 0, low_tokens, ok=False)
    # Invariant: W = low fits; every W > high does not.
    while low < high:
        mid = (low + high + 1) // 2
        n = window.count(render(mid))
        if n <= room:
            low, low_tokens = mid, n
        else:
            high = mid - 1
    return Fit(render(low), low, low_tokens)


Fitting = tuple[ContextWindow, int]
"""A model's context window and the reply budget (``max_tokens``) of the requests."""


def fit_request(
    build: Callable[[Mapping[str, Any]], LLMRequest],
    values: Mapping[str, Any],
    fitting: Fitting | None,
    where: str,
) -> tuple[LLMRequest, bool]:
    """The request a template makes from ``values``, its article (``values["text"]``)
    fitted to the context window by the rule.

    Args:
        build: placeholder values -> the request (the template's).
        values: the placeholder values; ``text`` is the article the rule may cut.
        fitting: the model's window and reply budget (None: unknown, nothing is fitted).
        where: what asks, for the error.

    Returns:
        The request (a fitted one carries ``context_words_kept`` in its tags) and
        whether it was fitted (to be counted under :data:`FITTED`).

    Raises:
        ValueError: the prompt does not fit even without the article's text.
    """
    if fitting is None or "text" not in values:
        return build(values), False
    window, max_tokens = fitting
    text = str(values["text"])

    def render(words: int | None) -> list[dict[str, str]]:
        cut = values if words is None else {**values, "text": first_words(text, words)}
        return [dict(m) for m in build(cut).messages]

    fit = fit_prompt(render, len(text.split()), window, max_tokens)
    if not fit.ok:
        raise ValueError(
            f"{where}: {fit.error(window, max_tokens)}; shorten the template or use a "
            "model with a longer context window"
        )
    if fit.words is None:
        return build(values), False
    request = build({**values, "text": first_words(text, fit.words)})
    return dataclasses.replace(
        request, tags={**request.tags, "context_words_kept": fit.words}
    ), True
