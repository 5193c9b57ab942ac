"""Scoring through an OpenAI-compatible completions server (vLLM, llama.cpp's server).

One request per document to ``<api_base>/completions`` with ``echo: true``,
``logprobs: 1`` and ``max_tokens: 1``: the server returns the prompt's tokens with the
log-probability of each given the ones before (null for the first, which has nothing
before it), followed by the one generated token, which is ignored. The token strings
must spell the document (after any special tokens the server's tokenizer puts first),
which is how characters are counted; a server that returns raw byte-level pieces
instead fails with that reason.

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

from prescient.bpc.scoring import DocScore, ScorerConfigError, ScoringError, account
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
        max_tries: attempts per document (``llm.max_tries``).
        backoff_base_s: first wait between attempts, doubled each time.
        backoff_max_s: cap on a wait.
        timeout_s: per-attempt timeout when the entry sets none (``llm.timeout_s``).
    """

    kind = "completions_echo"

    def __init__(
        self,
        spec: ModelSpec,
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

    def body(self, text: str) -> dict[str, Any]:
        """The request sent for one document."""
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

    def score(self, text: str, token_limit: int) -> DocScore:
        data = self._post(self.body(text))
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
        prompt = tokens[:n_prompt]
        return account(
            text,
            [t.encode("utf-8") for t in prompt],
            [None if v is None else float(v) for v in values[:n_prompt]],
            token_limit,
            prompt,
        )

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
