"""In-process scoring with llama.cpp: the embedded model reads each document in segments.

A separate llama.cpp instance with ``logits_all=True`` keeps the logits of every
position (its buffer is ``n_ctx x vocabulary x 4`` bytes: about 400 MB for SmolLM2 at
FreshBench's 2048 tokens, 1.6 GB at 8192), with a context of ``bpc.context_tokens``.
The sequence read is ``[condition token] + the text's tokens`` (just the text's tokens
without a condition token, when the first has no prediction and is left out), cut into
the windows of :func:`prescient.benchmarks.freshbench.bpc.scoring.windows`; each window is one pass from an
empty cache. Row ``j`` of a pass's logits is the distribution after its position ``j``,
so the window's position ``j + 1`` is scored by the log-softmax of row ``j``. A text
that fits one window is read in a single pass, exactly as if there were no segments.

llama-cpp-python 0.3.x also offers ``create_completion(echo=True, logprobs=...)``; for a
model that adds no BOS token (SmolLM2) it pairs token ``i`` with row ``i``, the
distribution that predicts token ``i + 1``: one position off. A test shows the shift so
that nobody switches to it.

The logits of a position are the same for every micro-batch size from two tokens up, but
llama.cpp computes a batch of a single token (the generation path) with other kernels,
and with earlier tokens in its cache those logits differ by up to ~0.5 (~0.2 nats per
token): scores therefore always come from one pass over a whole window, and
``n_ubatch`` must be at least 2. (A one-token micro-batch can only be the last of a
window, whose logits predict nothing that is scored.)

The log-softmax is computed in float64 and every ``ln p`` rounded to six decimals:
numpy's vectorised exp and sum may differ in the last bits between CPUs, and the
rounding keeps those bits out of the ledger and the tables.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from prescient.benchmarks.freshbench.bpc.scoring import (
    DocScore,
    ScorerConfigError,
    ScoringError,
    Segmenting,
    account,
    windows,
)

logger = logging.getLogger(__name__)

DECIMALS = 6
"""Decimals kept of each ``ln p``."""


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


class LlamaScorer:
    """``local/<name>`` models (the GGUF files ``prescient.llm.providers`` knows).

    Args:
        name: the model part of the litellm string (``smollm2-135m``).
        segmenting: the context (sizes llama.cpp's) and how a longer text is cut.
        condition_token: special token placed before the text, or None.
        n_ubatch: llama.cpp micro-batch (speed only).
        n_threads: llama.cpp threads (None: the project's default for local models).
    """

    kind = "llama_cpp_eval"
    concurrency = 1

    def __init__(
        self,
        name: str,
        segmenting: Segmenting,
        condition_token: str | None,
        n_ubatch: int,
        n_threads: int | None = None,
    ) -> None:
        import llama_cpp

        from prescient.llm.providers import LocalLlamaProvider, default_threads

        if name not in LocalLlamaProvider.GGUF:
            raise ScorerConfigError(
                f"unknown local model {name!r}; known: {sorted(LocalLlamaProvider.GGUF)}"
            )
        path = LocalLlamaProvider.GGUF[name]()
        threads = n_threads or default_threads()
        n_ctx = segmenting.context_tokens
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
        self.segmenting = segmenting
        self.condition_token = condition_token
        self.condition_id: int | None = None
        if condition_token is not None:
            ids = self.llm.tokenize(condition_token.encode("utf-8"), add_bos=False, special=True)
            if len(ids) != 1:
                raise ScorerConfigError(
                    f"bpc.local.condition_token {condition_token!r} is not one token of "
                    f"{path.name} (it tokenizes to {ids}); name a special token or null"
                )
            self.condition_id = int(ids[0])
        self._provenance = {
            "scorer": self.kind,
            "gguf": path.name,
            "llama_cpp_python": llama_cpp.__version__,
        }

    def provenance(self) -> dict[str, Any]:
        return dict(self._provenance)

    def tokenize(self, text: str) -> list[int]:
        """The text's tokens, without BOS and with special-token text read as plain text."""
        return [int(t) for t in self.llm.tokenize(text.encode("utf-8"), False, False)]

    def window_logprobs(self, seq: list[int]) -> list[float]:
        """``ln p`` of ``seq[1:]``, each given the tokens of ``seq`` before it: one pass
        from an empty cache (at most ``context_tokens`` positions)."""
        if len(seq) > self.segmenting.context_tokens:
            raise ValueError(
                f"{len(seq)} positions exceed the context of {self.segmenting.context_tokens}"
            )
        if len(seq) < 2:
            return []
        self.llm.reset()
        self.llm.eval(seq)
        rows = self.llm.scores[: len(seq) - 1]
        targets = np.asarray(seq[1:], dtype=np.int64)
        return [float(v) for v in np.round(log_softmax_at(rows, targets), DECIMALS).tolist()]

    def logprobs(self, ids: list[int]) -> tuple[list[float | None], int]:
        """``ln p`` of each of ``ids`` given the tokens before it in its window (None: no
        prediction), and the number of windows read."""
        if not ids:
            return [], 0
        seq = ([self.condition_id] if self.condition_id is not None else []) + ids
        values: list[float | None] = [None] * len(seq)
        spans = windows(len(seq), self.segmenting)
        for begin, first, end in spans:
            got = self.window_logprobs(seq[begin:end])
            values[first:end] = got[first - begin - 1 :]
        shift = 1 if self.condition_id is not None else 0
        return values[shift:], len(spans)

    def score(self, text: str) -> DocScore:
        ids = self.tokenize(text)
        if not ids:
            raise ScoringError("the text has no tokens")
        lps, n_segments = self.logprobs(ids)
        pieces = [bytes(self.llm.detokenize([t])) for t in ids]
        return account(text, pieces, lps, n_segments, ids)

    def close(self) -> None:
        closer = getattr(self.llm, "close", None)
        if closer is not None:
            closer()
