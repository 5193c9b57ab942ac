"""Log-probabilities of a text from the embedded llama.cpp models, in this process.

The in-process transport (:class:`prescient.llm.providers.InProcessTransport`) answers a
``local/`` model's log-probability request (:mod:`prescient.llm.logprobs`) here. A
separate llama.cpp instance with ``logits_all=True`` keeps the logits of every position
(its buffer is ``n_ctx x vocabulary x 4`` bytes: about 400 MB for SmolLM2 at
FreshBench's 2048 tokens, 1.6 GB at 8192), with a context of the request's
``context_tokens``; one such instance is kept at a time, freed when the gateway's batch
ends (:meth:`prescient.llm.providers.InProcessTransport.aclose`). The sequence read is
``[condition token] + the text's tokens`` (just the text's tokens without a condition
token, when the first has no prediction and is left out), cut into the windows of
:func:`prescient.llm.logprobs.windows`; each window is one pass from an empty cache. Under
``segment_start`` ``lead`` a later window's pass is its positions alone; under
``document_start`` it is the condition token followed by the window's positions (the
way a server that puts its BOS before every prompt reads the window), which needs a
condition token: without one the request fails with that reason. Row ``j`` of a pass's
logits is the distribution after its position ``j``, so the pass's position ``j + 1`` is
scored by the log-softmax of row ``j``. A text that fits one window is read in a single
pass, exactly as if there were no segments.

llama-cpp-python 0.3.x also offers ``create_completion(echo=True, logprobs=...)``; for a
model that adds no BOS token (SmolLM2) it pairs token ``i`` with row ``i``, the
distribution that predicts token ``i + 1``: one position off, and for the wrong token
(its server does the same, see :mod:`prescient.llm.completions`). A test shows the shift
so that nobody switches to it.

The logits of a position are the same for every micro-batch size from two tokens up, but
llama.cpp computes a batch of a single token (the generation path) with other kernels,
and with earlier tokens in its cache those logits differ by up to ~0.5 (~0.2 nats per
token): scores therefore always come from one pass over a whole window, and
``n_ubatch`` (the request's ``options``, default :data:`N_UBATCH`) must be at least 2.
(A one-token micro-batch can only be the last of a window, whose logits predict nothing
that is scored.)

The same instances answer answer log-probability requests
(:mod:`prescient.llm.answer_logprobs`, method ``sequence``): the chat messages are
rendered with the GGUF's chat template and the assistant turn's opening, as
llama-cpp-python's ``create_chat_completion`` renders them for the model's
``chat_template.default`` format, and tokenized the same way; each allowed answer
(tokenized on its own) is read as the continuation of that prompt. The prompt is
evaluated once, all but its last token; for each answer the cache is rolled back to
that point and the last prompt token and the answer's tokens are evaluated together,
so the row of the last prompt token predicts the answer's first token and each answer
token's row the next. Every evaluation is cut into pieces of two tokens up to
``n_ubatch`` (:func:`pieces`), so no logits used ever come from a one-token micro-batch;
an answer's ``ln p`` is the sum of its tokens' (each rounded as below, the sum rounded
again). The instance's context is the chat model's (8192 tokens); logits are computed
and kept only for the rows read (the prompt's are not), which on a 3,039-token prompt
took 14.7 s instead of 18.2 s and 0.6 GB less memory than keeping every row, with the
same values.

The log-softmax is computed in float64 and every ``ln p`` rounded to six decimals:
numpy's vectorised exp and sum may differ in the last bits between CPUs, and the
rounding keeps those bits out of the ledger and the tables.
"""

from __future__ import annotations

import importlib.metadata
import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from prescient.llm.answer_logprobs import SEQUENCE, AnswerLogprobs, AnswerLogprobsError
from prescient.llm.logprobs import (
    DOCUMENT_START,
    DocScore,
    ScoringError,
    Segmenting,
    account,
    segmenting_from_params,
    windows,
)
from prescient.llm.transport_base import ProviderError

logger = logging.getLogger(__name__)

SCORER = "llama_cpp_eval"
"""The scoring method's name (the ``scorer`` param of its requests)."""

DECIMALS = 6
"""Decimals kept of each ``ln p``."""

N_UBATCH = 128
"""llama.cpp micro-batch when the request's options name none (speed only)."""

ROWS_AT_ONCE = 128
"""Rows converted to float64 at a time (a 2048-row window at once would take ~1.6 GB)."""


def log_softmax_at(rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``log_softmax(rows[k])[targets[k]]`` for every k, in float64 (row by row, so the
    result does not depend on how the rows are grouped)."""
    out = np.empty(len(targets), dtype=np.float64)
    for lo in range(0, len(targets), ROWS_AT_ONCE):
        x = rows[lo : lo + ROWS_AT_ONCE].astype(np.float64)
        t = targets[lo : lo + ROWS_AT_ONCE]
        top = x.max(axis=1, keepdims=True)
        lse = np.log(np.exp(x - top).sum(axis=1)) + top[:, 0]
        out[lo : lo + len(t)] = x[np.arange(len(t)), t] - lse
    return out


def pieces(n: int, size: int) -> list[tuple[int, int]]:
    """``[begin, end)`` pieces of ``n`` tokens, each at most ``size`` long and none of a
    single token (unless ``n`` is 1): a last piece of one token takes one from the piece
    before."""
    out = [(b, min(b + size, n)) for b in range(0, n, size)]
    if len(out) > 1 and out[-1][1] - out[-1][0] == 1:
        (b0, e0), (_, e1) = out[-2], out[-1]
        out[-2:] = [(b0, e0 - 1), (e0 - 1, e1)]
    return out


class LlamaEval:
    """One GGUF model loaded for scoring, with a context of ``n_ctx``.

    Args:
        path: the GGUF file.
        n_ctx: the context (a request's ``context_tokens``).
        n_ubatch: llama.cpp micro-batch (speed only; at least 2).
        n_threads: llama.cpp threads.

    Raises:
        ProviderError: a micro-batch below 2.
    """

    def __init__(self, path: Path, n_ctx: int, n_ubatch: int, n_threads: int) -> None:
        import llama_cpp

        if n_ubatch < 2:
            raise ProviderError(400, f"n_ubatch {n_ubatch}: llama.cpp needs 2 or more here")
        threads = n_threads
        logger.info("loading %s for scoring (context %d, %d threads)", path.name, n_ctx, threads)
        self.llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_batch=n_ctx,
            n_ubatch=min(n_ubatch, n_ctx),
            logits_all=True,
            n_threads=threads,
            n_threads_batch=threads,
            seed=0,
            verbose=False,
        )
        self.n_ctx = n_ctx
        self.n_ubatch = min(n_ubatch, n_ctx)
        self._provenance = {
            "scorer": SCORER,
            "gguf": path.name,
            "llama_cpp_python": importlib.metadata.version("llama-cpp-python"),
        }

    def provenance(self) -> dict[str, Any]:
        return dict(self._provenance)

    def tokenize(self, text: str) -> list[int]:
        """The text's tokens, without BOS and with special-token text read as plain text."""
        return [int(t) for t in self.llm.tokenize(text.encode("utf-8"), False, False)]

    def condition_id(self, condition_token: str | None) -> int | None:
        """The id of the special token a text is read after (None: none).

        Raises:
            ScoringError: it is not one token of the model.
        """
        if condition_token is None:
            return None
        ids = self.llm.tokenize(condition_token.encode("utf-8"), add_bos=False, special=True)
        if len(ids) != 1:
            raise ScoringError(
                f"condition_token {condition_token!r} is not one token of "
                f"{self._provenance['gguf']} (it tokenizes to {ids}); name a special token "
                "or null"
            )
        return int(ids[0])

    def window_logprobs(self, seq: list[int]) -> list[float]:
        """``ln p`` of ``seq[1:]``, each given the tokens of ``seq`` before it: one pass
        from an empty cache (at most ``n_ctx`` positions)."""
        if len(seq) > self.n_ctx:
            raise ValueError(f"{len(seq)} positions exceed the context of {self.n_ctx}")
        if len(seq) < 2:
            return []
        self.llm.reset()
        self.llm.eval(seq)
        rows = self.llm.scores[: len(seq) - 1]
        targets = np.asarray(seq[1:], dtype=np.int64)
        return [float(v) for v in np.round(log_softmax_at(rows, targets), DECIMALS).tolist()]

    def logprobs(
        self, ids: list[int], segmenting: Segmenting, condition: int | None
    ) -> tuple[list[float | None], int]:
        """``ln p`` of each of ``ids`` given the tokens before it in its window (None: no
        prediction), and the number of windows read.

        Raises:
            ScoringError: ``document_start`` without a condition token.
        """
        if segmenting.segment_start == DOCUMENT_START and condition is None:
            raise ScoringError(
                "segment_start document_start reads every later segment after the "
                "condition token: name a condition_token, or use segment_start lead"
            )
        if not ids:
            return [], 0
        seq = ([condition] if condition is not None else []) + ids
        values: list[float | None] = [None] * len(seq)
        spans = windows(len(seq), segmenting)
        for k, (begin, first, end) in enumerate(spans):
            head = seq[:1] if segmenting.reads_start(k) else []
            got = self.window_logprobs(head + seq[begin:end])
            # got[i] scores pass position i + 1; sequence position p is pass position
            # p - begin + len(head).
            values[first:end] = got[first - begin + len(head) - 1 :]
        shift = 1 if condition is not None else 0
        return values[shift:], len(spans)

    def score(self, text: str, segmenting: Segmenting, condition_token: str | None) -> DocScore:
        """Every token of ``text`` scored in ``segmenting``'s windows.

        Raises:
            ScoringError: the text has no tokens, the condition token is not one token,
                or ``document_start`` has no condition token to read windows after.
        """
        if segmenting.context_tokens != self.n_ctx:
            raise ValueError(f"loaded with a context of {self.n_ctx}, asked for {segmenting}")
        condition = self.condition_id(condition_token)
        ids = self.tokenize(text)
        if not ids:
            raise ScoringError("the text has no tokens")
        lps, n_segments = self.logprobs(ids, segmenting, condition)
        pieces = [bytes(self.llm.detokenize([t])) for t in ids]
        return account(text, pieces, lps, n_segments, ids, segment_start=segmenting.segment_start)

    def chat_prompt(self, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """The tokens of ``messages`` rendered as the model's chat completions render
        them: the GGUF's chat template with the assistant turn's opening.

        Raises:
            ScoringError: the model has no chat template of its own.
        """
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template or self.llm.chat_format != "chat_template.default":
            raise ScoringError(
                f"{self._provenance['gguf']} chats in format {self.llm.chat_format!r}, not "
                "with the chat template stored in its GGUF: answer log-probabilities read "
                "the prompt that template renders"
            )

        def text(token: int) -> str:
            return self.llm._model.token_get_text(token) if token != -1 else ""

        formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=text(self.llm.token_eos()),
            bos_token=text(self.llm.token_bos()),
        )
        chat: Any = [dict(m) for m in messages]  # llama-cpp-python's message TypedDicts
        rendered = formatter(messages=chat)
        ids = self.llm.tokenize(
            rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
        )
        return [int(t) for t in ids]

    def _eval(self, tokens: Sequence[int]) -> None:
        for begin, end in pieces(len(tokens), self.n_ubatch):
            self.llm.eval(tokens[begin:end])

    def answer_logprobs(
        self, messages: Sequence[Mapping[str, Any]], answers: Sequence[str]
    ) -> AnswerLogprobs:
        """``ln p`` of each answer as the model's reply to ``messages`` (module docstring).

        Raises:
            ScoringError: no chat template, or the prompt and an answer exceed the context.
            AnswerLogprobsError: an answer has no tokens.
        """
        prompt = self.chat_prompt(messages)
        ids = [self.tokenize(a) for a in answers]
        if not all(ids):
            raise AnswerLogprobsError(f"an allowed answer has no tokens: {list(answers)}")
        longest = max(len(t) for t in ids)
        if len(prompt) + longest > self.n_ctx:
            raise ScoringError(
                f"the prompt ({len(prompt)} tokens) and an answer ({longest}) exceed the "
                f"context of {self.n_ctx} tokens"
            )
        head = len(prompt) - 1
        self.llm.reset()
        # No row of the prompt is read: llama.cpp is asked for each piece's last row
        # alone (the flag llama-cpp-python's eval reads to choose the rows). The cache,
        # and so every row read later, is the same either way.
        self.llm._logits_all = False
        try:
            self._eval(prompt[:head])
        finally:
            self.llm._logits_all = True
        per_token: list[list[float]] = []
        for answer in ids:
            self.llm.n_tokens = head  # roll back: eval drops the cache from here on
            self._eval([prompt[-1], *answer])
            rows = self.llm.scores[head : head + len(answer)]
            lps = log_softmax_at(rows, np.asarray(answer, dtype=np.int64))
            per_token.append([float(v) for v in np.round(lps, DECIMALS).tolist()])
        self.llm.reset()
        return AnswerLogprobs(
            tuple(answers),
            tuple(round(math.fsum(lps), DECIMALS) for lps in per_token),
            SEQUENCE,
            {"prompt_tokens": len(prompt), "tokens": ids, "token_logprobs": per_token},
        )

    def close(self) -> None:
        closer = getattr(self.llm, "close", None)
        if closer is not None:
            closer()


class LlamaEvals:
    """The scoring instances of the process: one at a time (a new model, context or
    micro-batch replaces the one loaded), used behind a lock (llama.cpp contexts are not
    thread-safe).

    Args:
        models: ``local/`` model name -> function returning its GGUF file
            (:attr:`prescient.llm.embedded.LocalLlamaProvider.GGUF`).
        threads: the llama.cpp thread count, asked when a model loads.
    """

    def __init__(
        self, models: Mapping[str, Callable[[], Path]], threads: Callable[[], int]
    ) -> None:
        self.models = models
        self.threads = threads
        self._lock = threading.Lock()
        self._key: tuple[str, int, int] | None = None
        self._eval: LlamaEval | None = None

    def score(
        self, name: str, text: str, params: Mapping[str, Any], options: Mapping[str, Any]
    ) -> tuple[DocScore, dict[str, Any]]:
        """The score of ``text`` under ``local/<name>`` as the request's params ask, and
        where it was computed (provenance).

        Raises:
            ScoringError: the request cannot be scored (recorded as the request's failure).
            ProviderError: an unknown local model.
        """
        segmenting = segmenting_from_params(params)
        if params.get("scorer", SCORER) != SCORER:
            raise ScoringError(f"scorer {params.get('scorer')!r} is not {SCORER!r}")
        with self._lock:
            ev = self._instance(name, segmenting.context_tokens, options)
            return ev.score(text, segmenting, params.get("condition_token")), ev.provenance()

    def answer_logprobs(
        self,
        name: str,
        messages: Sequence[Mapping[str, Any]],
        answers: Sequence[str],
        n_ctx: int,
        options: Mapping[str, Any],
    ) -> tuple[AnswerLogprobs, dict[str, Any]]:
        """The allowed answers' log-probabilities under ``local/<name>`` with a context
        of ``n_ctx`` (:meth:`LlamaEval.answer_logprobs`), and where they were computed.

        Raises:
            ScoringError, AnswerLogprobsError: the request cannot be answered.
            ProviderError: an unknown local model.
        """
        with self._lock:
            ev = self._instance(name, n_ctx, options)
            return ev.answer_logprobs(messages, answers), ev.provenance()

    def _instance(self, name: str, n_ctx: int, options: Mapping[str, Any]) -> LlamaEval:
        """The instance for ``name`` at ``n_ctx`` (loaded in place of another; the lock
        is held)."""
        n_ubatch = int(options.get("n_ubatch") or N_UBATCH)
        key = (name, n_ctx, n_ubatch)
        if self._key != key or self._eval is None:
            if name not in self.models:
                raise ProviderError(
                    404, f"unknown local model {name!r}; known: {sorted(self.models)}"
                )
            self.close_unlocked()
            path = self.models[name]()
            self._eval = LlamaEval(path, n_ctx, n_ubatch, self.threads())
            self._key = key
        return self._eval

    def close_unlocked(self) -> None:
        if self._eval is not None:
            self._eval.close()
        self._eval, self._key = None, None

    def close(self) -> None:
        """Free the loaded instance."""
        with self._lock:
            self.close_unlocked()
