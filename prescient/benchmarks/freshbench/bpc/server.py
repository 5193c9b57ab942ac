"""Scoring through an OpenAI-compatible completions server (vLLM, llama.cpp's server).

Requests go to ``<api_base>/completions`` with ``echo: true``, ``logprobs: 1`` and
``max_tokens: 1``: the server returns the prompt's tokens with the log-probability of
each given the ones before (null for the first, which has nothing before it), followed
by the one generated token, which is ignored. The token strings must spell the prompt
(after any special tokens the server's tokenizer puts first, such as a BOS), which is
how characters are counted; a server that returns raw byte-level pieces instead fails
with that reason.

The completions API takes text, so the segments of context
(:func:`prescient.benchmarks.freshbench.bpc.scoring.windows`) are followed in text space:

1. the document's text (only what is scored: ``bpc.max_text_chars`` cuts it first) is
   sent once; the echo gives the server's tokens, and the log-probabilities of the first
   window (the positions of a causal model see only the positions before them, so those
   values equal a pass over the first window alone). A text that fits one window costs
   this one request. The server must accept the whole text as one prompt (its maximum
   model length above the longest document's tokens, or the text cut shorter);
2. every later window is sent as the text its tokens spell (for ``disjoint``, the lead
   token and the segment's tokens), from a fresh context, the server putting first what
   it puts before every prompt (a BOS, for tokenizers that add one). The echoed tokens
   must be exactly that window's tokens of the whole text; a tokenizer that merges
   differently across the cut makes the document fail with that reason, rather than
   score other tokens than the rule says.

Requests are retried on rate limits (429), server errors (5xx), timeouts, connection
errors and unreadable bodies with exponential backoff (``llm.max_tries`` attempts,
honouring a numeric ``Retry-After``); other HTTP errors fail the document at once.
The key comes from the environment variable the model's entry names, never from params.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import random
import time
import urllib.error
import urllib.request
from typing import Any

from prescient.benchmarks.freshbench.bpc.scoring import (
    DocScore,
    ScorerConfigError,
    ScoringError,
    Segmenting,
    account,
    windows,
)
from prescient.llm.registry import ModelSpec

logger = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 409, 429})


class _Retryable(Exception):
    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class CompletionsScorer:
    """An OpenAI-compatible ``/completions`` endpoint.

    Args:
        spec: the model's registry entry (``api_base``, ``api_key_env``, concurrency,
            timeout); the model name sent is the part of ``litellm_model`` after the
            provider.
        segmenting: the context and how a longer text is cut (see the module docstring).
        max_tries: attempts per document (``llm.max_tries``).
        backoff_base_s: first wait between attempts, doubled each time.
        backoff_max_s: cap on a wait.
        timeout_s: per-attempt timeout when the entry sets none (``llm.timeout_s``).
    """

    kind = "completions_echo"

    def __init__(
        self,
        spec: ModelSpec,
        segmenting: Segmenting,
        max_tries: int,
        backoff_base_s: float,
        backoff_max_s: float,
        timeout_s: float,
    ) -> None:
        if not spec.api_base:
            raise ScorerConfigError(
                f"model {spec.name!r}: a completions server needs api_base in "
                f"conf/model/{spec.name}.yaml"
            )
        self.api_key: str | None = None
        if spec.api_key_env:
            self.api_key = os.environ.get(spec.api_key_env)
            if not self.api_key:
                raise ScorerConfigError(
                    f"model {spec.name!r} needs an API key: set the environment variable "
                    f"{spec.api_key_env}"
                )
        base = (spec.endpoints[0] or "").rstrip("/")  # a list of replicas: the first
        self.url = base if base.endswith("/completions") else f"{base}/completions"
        self.model = spec.litellm_model.split("/", 1)[1]
        self.concurrency = spec.concurrency
        self.max_tries = max(1, max_tries)
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.timeout_s = spec.timeout_s or timeout_s
        self.segmenting = segmenting

    def body(self, text: str) -> dict[str, Any]:
        """The request sent for a text (a document or one of its later windows)."""
        return {
            "model": self.model,
            "prompt": text,
            "max_tokens": 1,
            "echo": True,
            "logprobs": 1,
            "temperature": 0.0,
        }

    def provenance(self) -> dict[str, Any]:
        return {"scorer": self.kind, "endpoint": "completions"}

    def score(self, text: str) -> DocScore:
        tokens, values = self._echo(text)
        spans = windows(len(tokens), self.segmenting)
        merged = list(values)
        for k, (begin, first, end) in enumerate(spans[1:], start=2):
            want = tokens[begin:end]
            got, got_values = self._echo("".join(want))
            extra = len(got) - len(want)
            if extra < 0 or got[extra:] != want:
                raise ScoringError(
                    f"window {k} of {len(spans)}: the server tokenizes its text (tokens "
                    f"{begin}-{end - 1} of the document) differently from the whole "
                    "text, so the segments cannot be followed exactly over the "
                    "completions API; score the model in-process or with a context "
                    "that holds the document"
                )
            merged[first:end] = got_values[extra + first - begin :]
        return account(text, [t.encode("utf-8") for t in tokens], merged, len(spans), tokens)

    def _echo(self, prompt: str) -> tuple[list[str], list[float | None]]:
        """The prompt's tokens as the server reads them, each with its ``ln p``."""
        data = self._post(self.body(prompt))
        try:
            choice = data["choices"][0]
            lp = choice["logprobs"]
            tokens = [str(t) for t in lp["tokens"]]
            values = lp["token_logprobs"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ScoringError(
                "the server returned no prompt log-probabilities (echo with logprobs); "
                "it may serve chat completions only"
            ) from exc
        usage = data.get("usage") or {}
        n_prompt = int(usage.get("prompt_tokens") or len(tokens) - 1)
        if not 0 < n_prompt <= len(tokens) or len(values) != len(tokens):
            raise ScoringError(
                f"malformed logprobs: {len(tokens)} tokens, {len(values)} log-probabilities, "
                f"{n_prompt} prompt tokens"
            )
        return tokens[:n_prompt], [None if v is None else float(v) for v in values[:n_prompt]]

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        payload = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        error = "not attempted"
        for attempt in range(1, self.max_tries + 1):
            try:
                return self._attempt(payload, headers)
            except _Retryable as exc:
                error = str(exc)
                if attempt == self.max_tries:
                    break
                delay = exc.wait
                if delay is None:
                    delay = self.backoff_base_s * 2 ** (attempt - 1) * random.uniform(0.5, 1.5)
                delay = min(delay, self.backoff_max_s)
                logger.debug("%s: retry %d in %.2fs after %s", self.url, attempt, delay, error)
                time.sleep(delay)
        raise ScoringError(f"{error} (after {self.max_tries} tries)")

    def _attempt(self, payload: bytes, headers: dict[str, str]) -> dict[str, Any]:
        request = urllib.request.Request(self.url, data=payload, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            message = f"HTTP {exc.code}: {detail}"
            if exc.code in RETRY_STATUS or exc.code >= 500:
                after = exc.headers.get("Retry-After") if exc.headers else None
                wait = float(after) if after and after.replace(".", "", 1).isdigit() else None
                raise _Retryable(message, wait) from exc
            raise ScoringError(message) from exc
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _Retryable("the server's reply is not JSON") from exc
        if not isinstance(data, dict):
            raise _Retryable("the server's reply is not a JSON object")
        return data

    def close(self) -> None:
        pass
